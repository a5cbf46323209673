"""Parsers and writers: real-shaped files, malformed ones, hostile XML and round trips."""

from __future__ import annotations

from pathlib import Path

import pytest

from satnono.core.model import Puzzle
from satnono.errors import InputError
from satnono.formats import read_puzzle, read_puzzles, write_puzzles
from satnono.formats.non import parse_non, write_non
from satnono.formats.webpbn_xml import parse_xml, write_xml
from support import EXAMPLES, SHARED

DEMO_NON = """\
catalogue "my own test"
title "Stick figure"
by "satnono tests"
width 5
height 4

rows
2
0
1,1
5

columns
1,1
1,1
1
1,1
1

goal "01100000001010011111"
"""

COLOR_NON = """\
title "Flag"
width 4
height 2
color r #ff0000
color b #0000ff

rows
2r,2b
1r,1b

columns
2r
1r
1b
1b
"""

DEMO_XML = """\
<?xml version="1.0"?>
<!DOCTYPE pbn SYSTEM "https://webpbn.com/pbn-0.3.dtd">
<puzzleset>
<puzzle type="grid" defaultcolor="black">
<source>satnono tests</source>
<title>Tiny &amp; black</title>
<copyright>&copy; 2026 satnono</copyright>
<color name="white" char=".">fff</color>
<color name="black" char="X">000</color>
<clues type="columns">
<line><count>1</count></line>
<line><count>2</count></line>
</clues>
<clues type="rows">
<line><count>2</count></line>
<line><count>1</count></line>
</clues>
<solution type="goal">
<image>
|XX|
|.X|
</image>
</solution>
</puzzle>
<puzzle type="grid" defaultcolor="red" backgroundcolor="white">
<title>Two colors</title>
<color name="white" char=".">ffffff</color>
<color name="red" char="r">ff0000</color>
<color name="blue" char="b">0000ff</color>
<clues type="rows">
<line><count>1</count><count color="blue">1</count></line>
<line></line>
</clues>
<clues type="columns">
<line><count>1</count></line>
<line><count color="blue">1</count></line>
</clues>
</puzzle>
</puzzleset>
"""


def test_non_black_and_white_with_goal() -> None:
    (puzzle,) = parse_non(DEMO_NON)
    assert (puzzle.width, puzzle.height, puzzle.title) == (5, 4, "Stick figure")
    assert puzzle.clue_text(puzzle.rows[0]) == "2"
    assert puzzle.rows[1] == ()
    assert puzzle.is_black_and_white
    assert puzzle.goal is not None and puzzle.grid_rows(puzzle.goal)[0] == ".##.."
    assert ("author", "satnono tests") in puzzle.info


def test_non_colors() -> None:
    (puzzle,) = parse_non(COLOR_NON)
    assert [c.char for c in puzzle.palette] == [".", "r", "b"]
    assert puzzle.palette[1].rgb == "#ff0000"
    assert puzzle.clue_text(puzzle.rows[0]) == "2r,2b"


def test_non_bundle() -> None:
    puzzles = parse_non(DEMO_NON + "====\n" + COLOR_NON)
    assert [p.title for p in puzzles] == ["Stick figure", "Flag"]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("height 2\nrows\n1\n1\n", 4, "missing 'width'"),
        ("width 2\nrows\n1\n", 2, "'rows' comes before 'height'"),
        ("width x\n", 1, "expected a whole number"),
        ("width 2000\n", 1, "outside 1..1000"),
        ("width 2\nheight 2\nrows\n1\ncolumns\n1\n1\n", 5, "found 1 before 'columns'"),
        ("width 2\nheight 2\nrows\n1\n1a-\n", 5, "cannot read '1a-'"),
        ("width 2\nheight 1\nrows\n1\ncolumns\n1\n0\n3,1\n", 8, "outside the rows and columns"),
        ('width 1\nheight 1\nrows\n1\ncolumns\n1\ngoal "10"\n', 7, "goal has 2 cells"),
        ("width 2\nheight 1\nrows\n1r,1\ncolumns\n1r\n1\n", 4, "no color letter"),
        ("width 2\nheight 1\nrows\n1\ncolumns\n1\n", 5, "the file ends"),
        ('title "open\nwidth 1\n', 1, "unterminated string"),
        ("width 1\nheight 1\nrows\n1,0\n", 4, "block of length 0"),
        ("width 1\nheight 1\nrows\n1 2000\n", 4, "block longer than 1000"),
        ("width 1\nheight 1\nrows\n1 12345678901\n", 4, "block longer than 1000"),
    ],
)
def test_non_errors_name_the_line(text: str, line: int, message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_non(text)
    assert caught.value.line == line
    assert message in caught.value.message


def test_xml_black_and_white_and_color() -> None:
    bw, color = parse_xml(DEMO_XML)
    assert bw.title == "Tiny & black"
    assert ("copyright", "\u00a9 2026 satnono") in bw.info
    assert bw.is_black_and_white and bw.palette[1].char == "#"
    assert bw.goal == ((1, 1), (0, 1))
    assert bw.rows[0][0].length == 2
    assert [c.name for c in color.palette] == ["white", "red", "blue"]
    assert color.clue_text(color.rows[0]) == "1r,1b"
    assert color.rows[1] == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("<puzzleset><puzzle>", "not well-formed XML"),
        ("<html/>", "root element is <html>"),
        ("<puzzleset/>", "no <puzzle>"),
        ('<puzzle type="triddler"/>', "not supported"),
        ('<puzzle><clues type="rows"><line/></clues></puzzle>', "no <clues type='columns'>"),
        (
            '<puzzle><clues type="rows"><line><count>x</count></line></clues></puzzle>',
            "not a block length",
        ),
        (
            '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY b "bb"><!ENTITY c "&b;&b;">]><a>&c;</a>',
            "refused",
        ),
        (
            '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY e SYSTEM "file:///etc/passwd">]><a>&e;</a>',
            "refused",
        ),
    ],
)
def test_xml_errors(text: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_xml(text)
    assert message in caught.value.message


def test_xml_error_line_numbers() -> None:
    text = '<puzzle>\n<clues type="rows">\n<line><count>-3</count></line>\n</clues>\n</puzzle>\n'
    with pytest.raises(InputError) as caught:
        parse_xml(text)
    assert caught.value.line == 3


def test_detection_by_suffix_then_content(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(DEMO_NON)
    (tmp_path / "b.txt").write_text(DEMO_XML)
    assert read_puzzle(tmp_path / "a.txt").title == "Stick figure"
    assert len(read_puzzles(tmp_path / "b.txt")) == 2
    assert read_puzzle(tmp_path / "b.txt", index=2).title == "Two colors"
    (tmp_path / "c.txt").write_text("hello")
    with pytest.raises(InputError, match="cannot tell the puzzle format"):
        read_puzzle(tmp_path / "c.txt")
    (tmp_path / "d.non").write_bytes(b"width 1\n\xff\n")
    with pytest.raises(InputError, match="not UTF-8") as caught:
        read_puzzle(tmp_path / "d.non")
    assert caught.value.line == 2
    with pytest.raises(InputError, match="puzzle 3 asked for"):
        read_puzzle(tmp_path / "b.txt", index=3)


def _same(a: Puzzle, b: Puzzle) -> bool:
    """Equal as puzzles; color names are compared only where both formats carry them."""

    def colors(p: Puzzle) -> list[tuple[str, str]]:
        return [(c.char, c.rgb) for c in p.palette]

    return (a.width, a.height, a.rows, a.columns, colors(a), a.goal, a.title) == (
        b.width, b.height, b.rows, b.columns, colors(b), b.goal, b.title,
    )  # fmt: skip


def _real_files() -> list[Path]:
    files = sorted(EXAMPLES.glob("*.non")) + sorted(EXAMPLES.glob("*.xml"))
    if SHARED.is_dir():
        files += sorted(SHARED.glob("corpus/*/*.non"))
    return files


@pytest.mark.parametrize("path", _real_files(), ids=lambda p: p.name)
def test_round_trips(path: Path, tmp_path: Path) -> None:
    for puzzle in read_puzzles(path):
        assert _same(parse_non(write_non(puzzle))[0], puzzle)
        again = parse_xml(write_xml([puzzle]))[0]
        assert _same(again, puzzle) and again.palette == puzzle.palette
    write_puzzles(read_puzzles(path), tmp_path / "out.xml")
    write_puzzles(read_puzzles(tmp_path / "out.xml"), tmp_path / "out.non")
    for a, b in zip(read_puzzles(path), read_puzzles(tmp_path / "out.non"), strict=True):
        assert _same(a, b)


def test_the_stream_s_caches_of_rows_give_what_is_made_without_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A stream keeps the rows it made (`colors_to_grid`'s grids' rows, `grid_rows`'
    strings, each a `RowCache`) to take them again: the same grids and strings as made
    afresh, in color too, also once a cache is full and starts again (ROWS_KEPT, made small
    here); and a cache whose rows hardly repeat turns itself off."""
    import random

    from satnono.core import rows as model
    from satnono.core.grids import colors_to_grid

    monkeypatch.setattr(model, "ROWS_KEPT", 5)
    monkeypatch.setattr(model, "ROWS_JUDGED", 10**9)
    draw = random.Random(7)
    for path in ("switches-8.non", "heart-color.non"):
        puzzle = read_puzzle(EXAMPLES / path)
        width, colors = puzzle.width, len(puzzle.palette)
        rows: model.RowCache[bytes, tuple[int, ...]] = model.RowCache()
        texts: model.RowCache[tuple[int, ...], str] = model.RowCache()
        # Rows drawn from a few, so that the caches are hit, missed and restarted.
        pool = [bytes(draw.randrange(colors) for _ in range(width)) for _ in range(9)]
        for _ in range(200):
            cells = b"".join(draw.choice(pool) for _ in range(puzzle.height))
            grid = colors_to_grid(width, cells, rows)
            assert grid == colors_to_grid(width, cells)
            assert puzzle.grid_rows(grid, texts) == puzzle.grid_rows(grid)
            assert len(rows.kept) <= 5 + puzzle.height and len(texts.kept) <= 5 + puzzle.height
        assert rows.on and texts.on
    # Rows that never repeat: the cache stops after ROWS_JUDGED rows, and still gives them.
    monkeypatch.setattr(model, "ROWS_JUDGED", 64)
    fresh: model.RowCache[bytes, tuple[int, ...]] = model.RowCache()
    for number in range(100):
        cells = number.to_bytes(2, "big") * 3
        assert colors_to_grid(2, cells, fresh) == colors_to_grid(2, cells)
    assert not fresh.on and not fresh.kept
