"""The clue-list formats: .nin, .cwd, .mk, Syromolotov, Makhorin and Olšák .g.

Hand-written samples (our own puzzles), malformed files (each error names its line), detection by
suffix and by content, and round trips through every writable format.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from satnono.core.model import BLACK_AND_WHITE, WHITE, Block, Color, Puzzle
from satnono.errors import InputError
from satnono.formats import FORMATS, read_puzzle, read_puzzles, write_puzzles
from satnono.formats.cwd import parse_cwd
from satnono.formats.makhorin import parse_makhorin
from satnono.formats.mk import parse_mk
from satnono.formats.nin import parse_nin
from satnono.formats.non import parse_non, write_non
from satnono.formats.olsak import parse_olsak, write_olsak
from satnono.formats.syro import parse_syro
from satnono.formats.webpbn_xml import parse_xml, write_xml
from support import EXAMPLES, SHARED, puzzles, refusal

NEW_FORMATS = ("g", "mk", "nin", "cwd", "syro", "makhorin")
COLOR_FORMATS = {"g"}

# One small picture in every format, a T on a stand with an empty last row:
#   #####
#   ..#..
#   ..#..
#   .###.
#   .....
T_ROWS = ((5,), (1,), (1,), (3,), ())
T_COLUMNS = ((1,), (1, 1), (4,), (1, 1), (1,))

SAMPLES = {
    "nin": "5 5\n5\n1\n1\n3\n0\n1\n1 1\n4\n1 1\n1\n",
    "mk": "5 5\n5\n1\n1\n3\n0\n#\n1\n1 1\n4\n1 1\n1\n",
    "cwd": "5\n5\n5\n1\n1\n3\n\n\n1\n1 1\n4\n1 1\n1\n",
    "syro": "5 0\n1 0\n1 0\n3 0\n0\n#\n1 0\n1 1 0\n4 0\n1 1 0\n1 0\n#\n",
    "makhorin": "* a T on a stand\n5\n1\n1\n3\n0\n&\n* columns\n1\n1 1\n4\n1 1\n1\n",
    "g": (
        "A T on a stand, written for satnono's tests.\n"
        "Everything before the first colon line is commentary.\n"
        ": rows (this text is ignored)\n5\n1\n1\n3\n\n"
        ": columns\n1\n1 1\n4\n1 1\n1\n"
        ": end\nand this is commentary again\n"
    ),
}
SUFFIXES = {"nin": ".nin", "mk": ".mk", "cwd": ".cwd", "syro": ".syr", "g": ".g"}

# A small flag on a pole, in color: background, default color '1', hex and named colors.
#   rr*g
#   rr*g
#   ..*.
COLOR_G = """\
Our own test puzzle: a flag on a pole.
#d the color declarations
   0:   #FFFFFF   white
   1:*  black     pole
   r:%  #C00000   red
   g:g  green     grass
: rows
2r 1 1g
2r,1,1g
1
: columns
2r
2r
3
2g
: end
"""

PARSERS: dict[str, Callable[[str], list[Puzzle]]] = {
    "nin": parse_nin,
    "mk": parse_mk,
    "cwd": parse_cwd,
    "syro": parse_syro,
    "makhorin": parse_makhorin,
    "g": parse_olsak,
}


def _lengths(clues: tuple[tuple[Block, ...], ...]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(block.length for block in clue) for clue in clues)


def _same(a: Puzzle, b: Puzzle) -> bool:
    """Equal as puzzles; titles, metadata and color names are not carried by these formats."""

    def colors(p: Puzzle) -> list[tuple[str, str]]:
        return [(c.char, c.rgb) for c in p.palette]

    return (a.width, a.height, a.rows, a.columns, colors(a)) == (
        b.width, b.height, b.rows, b.columns, colors(b),
    )  # fmt: skip


@pytest.mark.parametrize("name", NEW_FORMATS)
def test_sample(name: str) -> None:
    (puzzle,) = PARSERS[name](SAMPLES[name])
    assert (puzzle.width, puzzle.height) == (5, 5)
    assert _lengths(puzzle.rows) == T_ROWS
    assert _lengths(puzzle.columns) == T_COLUMNS
    assert puzzle.palette == BLACK_AND_WHITE


def test_olsak_colors() -> None:
    (puzzle,) = parse_olsak(COLOR_G)
    assert (puzzle.width, puzzle.height) == (4, 3)
    assert [(c.name, c.char, c.rgb) for c in puzzle.palette] == [
        ("white", ".", "#ffffff"),
        ("black", "*", "#000000"),  # the default color shows as its display character
        ("red", "r", "#c00000"),  # hex color: the name is the comment's first word
        ("green", "g", "#00b000"),  # named color
    ]
    assert puzzle.clue_text(puzzle.rows[0]) == "2r,1*,1g"
    assert puzzle.rows[0] == puzzle.rows[1]
    assert puzzle.clue_text(puzzle.columns[3]) == "2g"


def test_olsak_details() -> None:
    text = "#D\n a:a #f00\n b:b #00FFaaBBccDD\n: rows\n1a1b\n: columns\n1a\n1b\n"
    (puzzle,) = parse_olsak(text)
    assert [c.rgb for c in puzzle.palette[1:]] == ["#ff0000", "#00aacc"]
    assert puzzle.clue_text(puzzle.rows[0]) == "1a,1b"
    # One declared color that is not black: kept through a .g round trip
    (red,) = parse_olsak("#d\n 0: #fff white\n 1:X #d00000 red\n: rows\n2\n: columns\n1\n1\n")
    assert red.is_black_and_white and red.palette[1].rgb == "#d00000"
    assert "#d" in write_olsak([red])
    assert _same(parse_olsak(write_olsak([red]))[0], red)
    # Every declared color is kept, used or not; duplicate names are made distinct
    (two,) = parse_olsak("#d\n a:a red\n b:b red\n c:c blue\n: rows\n1a 1b\n: columns\n1a\n1b\n")
    assert [c.name for c in two.palette] == ["white", "red", "red-b", "blue"]


def test_olsak_writer_letters() -> None:
    """Palette characters that cannot name a color in a .g file are replaced by letters."""
    palette = (WHITE, Color("a", "/", "#ff0000"), Color("b", ":", "#0000ff"))
    puzzle = Puzzle(2, 1, ((Block(1, 1), Block(1, 2)),), ((Block(1, 1),), (Block(1, 2),)), palette)
    (again,) = parse_olsak(write_olsak([puzzle]))
    assert [c.char for c in again.palette] == [".", "a", "b"]
    assert (again.rows, again.columns) == (puzzle.rows, puzzle.columns)


def test_nin_blank_lines() -> None:
    """Wilk's reader skips blank lines; pbnsolve's reads them as empty lines."""
    wilk = "2 2\n\n1\n\n1\n1\n\n1\n\n"
    pbnsolve = "2 2\n1\n\n1\n1\n"
    assert _lengths(parse_nin(wilk)[0].rows) == ((1,), (1,))
    (puzzle,) = parse_nin(pbnsolve)
    assert _lengths(puzzle.rows) == ((1,), ())
    assert _lengths(puzzle.columns) == ((1,), (1,))


def test_mk_and_cwd_leniency() -> None:
    (puzzle,) = parse_mk("2 2\n1,1\n\n\n# columns\n1\n0\n\n")  # commas, blank spacers
    assert _lengths(puzzle.rows) == ((1, 1), ())
    assert _lengths(puzzle.columns) == ((1,), ())
    (puzzle,) = parse_cwd("1\n2\n0\n\n\n\n")  # '0' and blank lines are empty clues
    assert (puzzle.width, puzzle.height, _lengths(puzzle.columns)) == (2, 1, ((), ()))


@pytest.mark.parametrize(
    ("name", "text", "line", "message"),
    [
        ("nin", "", 1, "empty file"),
        ("nin", "5\n", 1, "expected 'width height'"),
        ("nin", "x 5\n", 1, "expected a whole number"),
        ("nin", "1001 5\n", 1, "outside 1..1000"),
        ("nin", "2 2\n1\n1\n1\n", 4, "expected 4 row and column clue lines, found 3"),
        ("nin", "2 1\n1\n1\n1\n1\n", 5, "more than 3"),
        ("nin", "2 1\n1 a\n1\n1\n", 2, "cannot read 'a'"),
        ("nin", "2 1\n1 0\n1\n1\n", 2, "block of length 0"),
        ("nin", "2 1\n2000\n1\n1\n", 2, "longer than 1000"),
        ("mk", "2 2\n1\n1\n1\n1\n", 5, "no line starting with '#'"),
        ("mk", "2 2\n1\n#\n1\n1\n", 2, "expected 2 row clue lines, found 1"),
        ("mk", "0 2\n", 1, "outside 1..1000"),
        ("mk", "1 2\n1\n#\n1\n1\n1\n", 6, "more than 2 column"),
        ("cwd", "2\n", 1, "ends before the width"),
        ("cwd", "2 3\n", 1, "expected the height alone"),
        ("cwd", "2\n2\n1\n1\nx\n1\n1\n", 5, "expected a blank line"),
        ("cwd", "2\n2\n1\n1\n\n1\n", 6, "the file ends after 1"),
        ("cwd", "1\n1\n1\n\n1\n1\n", 6, "unexpected line"),
        ("cwd", "2\n1\n1\n", 3, "expected 2 row clue lines"),
        ("syro", "1 0\n#\n1 0\n", 3, "closing the column clues"),
        ("syro", "1 0\n1 0\n", 2, "after the row clues"),
        ("syro", "1\n#\n1 0\n#\n", 1, "must end with 0"),
        ("syro", "#\n", 1, "no row clues"),
        ("syro", "1 0\n#\n#\n", 3, "no column clues"),
        ("syro", "1 0\n#\n1 0\n#\n1 0\n", 5, "text after"),
        ("syro", "1 0 2 0\n#\n3 0\n#\n", 1, "block of length 0"),
        ("syro", ",\n", 1, "must end with 0"),
        ("makhorin", "1\n1\n", 2, "no '&' line"),
        ("makhorin", "1\n&\n1\n&\n", 4, "a second '&'"),
        ("makhorin", "&\n1\n", 1, "no row clues"),
        ("makhorin", "1\n&\n", 2, "no column clues"),
        ("makhorin", "1 x\n&\n1\n", 1, "cannot read 'x'"),
        ("g", "no colon here\n", 1, "no line starting with ':'"),
        ("g", ": rows\n1\n", 2, "between the row and column clues"),
        ("g", "#t\n", 1, "triddlers"),
        ("g", "#d\n  a:a red\n", 2, "ends in the color declarations"),
        ("g", "#d\n  ab red\n: rows\n", 2, "expected '<letter>:<char> <color>'"),
        ("g", "#d\n  /:a white/black\n: rows\n", 2, "triangle blocks"),
        ("g", "#d\n  5:a red\n:\n", 2, "cannot name a color"),
        ("g", "#d\n  a:a red\n  a:b blue\n:\n", 3, "declared twice"),
        ("g", "#d\n  a:a #12345\n:\n", 2, "cannot read the color"),
        ("g", "#d\n  a:a\n:\n", 2, "no color after"),
        ("g", ": rows\n1x\n: columns\n1\n", 2, "no colors are declared"),
        ("g", "#d\n a:a red\n: rows\n1\n: columns\n1a\n", 4, "no default color"),
        ("g", "#d\n a:a red\n: rows\n1b\n: columns\n1a\n", 4, "undeclared color letter 'b'"),
        ("g", "#d\n a:a red\n: rows\n0a\n: columns\n1a\n", 4, "a block of length 0"),
        ("g", ": rows\n1 0\n: columns\n1\n", 2, "a block of length 0"),
        ("g", ": rows\n2000\n: columns\n1\n", 2, "longer than 1000"),
        ("g", ": rows\n/2\\\n: columns\n1\n", 2, "triangle blocks"),
        ("g", ": rows\nab\n: columns\n1\n", 2, "cannot read the block 'ab'"),
        ("g", ": rows\n: columns\n1\n", 2, "no row clues"),
        ("g", ": rows\n1\n: columns\n: end\n", 4, "no column clues"),
    ],
)
def test_errors_name_the_line(name: str, text: str, line: int, message: str) -> None:
    refused = refusal(PARSERS[name], text)
    assert refused.line == line
    assert message in refused.message


def test_too_many_lines_refused() -> None:
    text = "1 0\n" * 1001 + "#\n1 0\n#\n"
    with pytest.raises(InputError, match="more than 1000 row") as caught:
        parse_syro(text)
    assert caught.value.line == 1001
    with pytest.raises(InputError, match="more than 1000 row"):
        parse_makhorin("1\n" * 1001 + "&\n1\n")
    with pytest.raises(InputError, match="more than 1000 row"):
        parse_olsak(": rows\n" + "1\n" * 1001 + ": columns\n1\n")


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(PARSERS)), st.text("0123456789 ,#:&*\n\r\t-/\\abdgrtx", max_size=120))
def test_garbage_gives_input_errors_with_lines(name: str, text: str) -> None:
    """Arbitrary text is a puzzle or an InputError naming a line, never another exception."""
    try:
        PARSERS[name](text)
    except InputError as error:
        assert error.line is not None


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from([*SAMPLES.values(), COLOR_G]),
    st.lists(st.tuples(st.integers(0, 400), st.sampled_from("0 1#:&\n,a/x")), max_size=4),
    st.sampled_from(sorted(PARSERS)),
)
def test_damaged_samples_give_input_errors_with_lines(
    text: str, edits: list[tuple[int, str]], name: str
) -> None:
    """Valid files with a few characters changed: a puzzle or a located InputError."""
    chars = list(text)
    for position, char in edits:
        position %= len(chars)
        if char == "x":
            del chars[position]
        else:
            chars[position] = char
    try:
        PARSERS[name]("".join(chars))
    except InputError as error:
        assert error.line is not None


@pytest.mark.parametrize("name", NEW_FORMATS)
def test_detection_by_suffix_and_by_content(name: str, tmp_path: Path) -> None:
    text = SAMPLES[name]
    assert [n for n, fmt in FORMATS.items() if fmt.sniff(text)] == [name]
    (tmp_path / "puzzle.txt").write_text(text)
    assert _lengths(read_puzzle(tmp_path / "puzzle.txt").rows) == T_ROWS
    if name in SUFFIXES:
        path = tmp_path / ("puzzle" + SUFFIXES[name])
        path.write_text(text)
        assert _lengths(read_puzzle(path).columns) == T_COLUMNS
        assert FORMATS[name].suffixes[0] == SUFFIXES[name]


@pytest.mark.parametrize("name", NEW_FORMATS)
def test_errors_carry_the_file(name: str, tmp_path: Path) -> None:
    path = tmp_path / ("broken" + SUFFIXES.get(name, ".txt"))
    path.write_text(SAMPLES[name].replace("4", "4 q"))
    with pytest.raises(InputError) as caught:
        read_puzzles(path, name)
    assert caught.value.path == str(path) and caught.value.line is not None


@pytest.mark.parametrize("text", [*SAMPLES.values(), COLOR_G], ids=[*SAMPLES, "g-color"])
def test_sample_round_trips(text: str) -> None:
    """read -> .non / XML -> read, and read -> the same format -> read."""
    name = next(n for n, fmt in FORMATS.items() if fmt.sniff(text))
    (puzzle,) = FORMATS[name].parse(text)
    assert _same(parse_non(write_non(puzzle))[0], puzzle)
    again = parse_xml(write_xml([puzzle]))[0]
    assert _same(again, puzzle) and again.palette == puzzle.palette
    written = FORMATS[name].write([puzzle])
    (same,) = FORMATS[name].parse(written)
    assert _same(same, puzzle)
    assert FORMATS[name].write([same]) == written


def test_writers_refuse_what_they_cannot_hold() -> None:
    (color,) = parse_olsak(COLOR_G)
    (bw,) = parse_nin(SAMPLES["nin"])
    for name in NEW_FORMATS:
        with pytest.raises(InputError, match="holds one puzzle"):
            FORMATS[name].write([bw, bw])
        if name not in COLOR_FORMATS:
            with pytest.raises(InputError, match="black-and-white puzzles only"):
                FORMATS[name].write([color])


def _real_files() -> list[Path]:
    files = sorted(EXAMPLES.glob("*.non"))
    if SHARED.is_dir():
        files += sorted(SHARED.glob("corpus/*/*.non")) + sorted(SHARED.glob("webpbn-survey/*.non"))
    return files


@pytest.mark.parametrize("path", _real_files(), ids=lambda p: p.name)
def test_real_puzzles_through_every_format(path: Path) -> None:
    for puzzle in read_puzzles(path):
        for name in NEW_FORMATS:
            fmt = FORMATS[name]
            if not puzzle.is_black_and_white and name not in COLOR_FORMATS:
                with pytest.raises(InputError):
                    fmt.write([puzzle])
                continue
            text = fmt.write([puzzle])
            (again,) = fmt.parse(text)
            assert _same(again, puzzle), name
            assert [n for n, f in FORMATS.items() if f.sniff(text)] == [name]


def test_convert_through_files(tmp_path: Path) -> None:
    source = EXAMPLES / "heart-color.non"
    write_puzzles(read_puzzles(source), tmp_path / "heart.g")
    write_puzzles(read_puzzles(tmp_path / "heart.g"), tmp_path / "heart.xml")
    assert _same(read_puzzle(tmp_path / "heart.xml"), read_puzzle(source))
    write_puzzles(read_puzzles(EXAMPLES / "duck.non"), tmp_path / "duck.out", "makhorin")
    assert _same(read_puzzle(tmp_path / "duck.out"), read_puzzle(EXAMPLES / "duck.non"))


@settings(max_examples=60, deadline=None)
@given(puzzles(max_width=6, max_height=6, max_colors=4))
def test_random_puzzles_round_trip(puzzle: Puzzle) -> None:
    for name in NEW_FORMATS:
        if not puzzle.is_black_and_white and name not in COLOR_FORMATS:
            continue
        text = FORMATS[name].write([puzzle])
        (again,) = FORMATS[name].parse(text)
        assert _same(again, puzzle), (name, text)
        assert FORMATS[name].write([again]) == text
