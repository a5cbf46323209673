"""Fuzzing every parser from real files: a puzzle or one InputError naming the file, never a crash.

Why: people bring files from many tools, damaged by editors, cut short by downloads or saved in
another encoding, and satnono promises them a puzzle or one line naming the problem (exit 2),
never a traceback or a hang. The seeds are real puzzles from examples/ as satnono's own writers
write them in every format, so the mutations start from structurally valid files and reach deep
into each parser; the mutations are the kinds of damage files really suffer. test_more_formats.py
damages hand-written samples character by character; this module mutates whole files, through
the file layer (encodings, detection, error attribution) and through the CLI. The size limits and
the hostile-XML refusals are pinned here too. RELIABILITY.md records the longer runs.
"""

from __future__ import annotations

import contextlib
import http.server
import os
import re
import signal
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from satnono.backends import installed_backends
from satnono.cli import app
from satnono.core.model import MAX_SIDE, Clue, Puzzle
from satnono.errors import InputError
from satnono.formats import FORMATS, MAX_FILE_BYTES, read_puzzles
from satnono.formats.limits import MAX_COLORS, MAX_LINES
from satnono.formats.non import parse_non, write_non
from satnono.formats.webpbn_xml import parse_xml, write_xml
from support import EXAMPLES, refusal

#: Small real puzzles, black-and-white and color, that every writer can hold (color ones only
#: by the color formats).
SEED_FILES = ("duck", "switches-8", "permutation-9", "heart-color", "sailboat-color")
#: Seconds one read may take before it counts as a hang (the slowest honest read is ~10 ms).
HANG_SECONDS = 5.0


def _seeds() -> dict[str, list[bytes]]:
    """Valid files of every format: the examples as they are, and as each writer writes them."""
    seeds: dict[str, list[bytes]] = {name: [] for name in FORMATS}
    for stem in SEED_FILES:
        for suffix, name in ((".non", "non"), (".xml", "xml")):
            seeds[name].append((EXAMPLES / f"{stem}{suffix}").read_bytes())
        puzzles = read_puzzles(EXAMPLES / f"{stem}.non")
        for name, fmt in FORMATS.items():
            if name not in ("non", "xml") and (puzzles[0].is_black_and_white or name == "g"):
                with contextlib.suppress(InputError):  # a puzzle the format cannot hold
                    seeds[name].append(fmt.write(puzzles).encode())
    assert all(seeds.values()), "every format has a seed"
    return seeds


SEEDS = _seeds()
SUFFIX = {name: (fmt.suffixes or (".txt",))[0] for name, fmt in FORMATS.items()}

# ---------------------------------------------------------------------------------------------
# Mutations: each takes the hypothesis draw function and the file's bytes, returns new bytes.

Mutation = Callable[[st.DrawFn, bytes], bytes]

#: Pieces of every format's structure, and characters that trip careless parsers.
TOKENS = [
    b"width ", b"height ", b"rows\n", b"columns\n", b"goal ", b'"', b"color r #f00\n", b"====\n",
    b"#d\n", b"#t\n", b": rows\n", b":\n", b"1:# black\n", b"a:a red\n", b"&\n", b"#\n", b"*",
    b" 0", b"0\n", b"1 1\n", b"\n\n", b"\r", b"\r\n", b"\t", b",", b"-", b"/", b"\\", b"\x00",
    b"<count>", b"</count>", b'<count color="q">', b"<line>", b"</line>", b"<clues type=\"rows\">",
    b"</clues>", b"<puzzle>", b"</puzzle>", b"<color name=\"x\" char=\"x\">f00</color>",
    b"<!--", b"-->", b"<![CDATA[", b"]]>", b"&amp;", b"&copy;", b"&nosuch;", b"&#0;", b"&#x41;",
    b'<!DOCTYPE a [<!ENTITY e "x">]>', b"<image>", b"|#.|\n", b"[#.]",
    "\u00b2".encode(), "\u0663".encode(), "\u2028".encode(), "\u00a0".encode(), b"\x0c",
    "\ufeff".encode(), "\u00e9".encode("latin-1"), b"\xff\xfe", b"\xc3", b"\xed\xa0\x80",
]  # fmt: skip

#: Numbers that cross every limit and conversion boundary.
NUMBERS = [
    b"0", b"00", b"1", b"-1", b"+1", b"1.5", b"1e3", b"1_0", b"7", b"999", b"1000", b"1001",
    b"65536", b"999999999", b"18446744073709551616", b"9" * 5000,
]  # fmt: skip


def _position(draw: st.DrawFn, data: bytes) -> int:
    return draw(st.integers(0, len(data)))


def insert_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    at = _position(draw, data)
    return data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]


def insert_token(draw: st.DrawFn, data: bytes) -> bytes:
    at = _position(draw, data)
    return data[:at] + draw(st.sampled_from(TOKENS)) + data[at:]


def replace_byte(draw: st.DrawFn, data: bytes) -> bytes:
    if not data:
        return data
    at = draw(st.integers(0, len(data) - 1))
    return data[:at] + bytes([draw(st.integers(0, 255))]) + data[at + 1 :]


def delete_range(draw: st.DrawFn, data: bytes) -> bytes:
    at = _position(draw, data)
    return data[:at] + data[at + draw(st.integers(1, 64)) :]


def truncate(draw: st.DrawFn, data: bytes) -> bytes:
    return data[: _position(draw, data)]


def _line_edit(edit: Callable[[st.DrawFn, list[bytes]], list[bytes]]) -> Mutation:
    def mutate(draw: st.DrawFn, data: bytes) -> bytes:
        lines = data.split(b"\n")
        return b"\n".join(edit(draw, lines))

    mutate.__name__ = edit.__name__
    return mutate


def _index(draw: st.DrawFn, lines: list[bytes]) -> int:
    return draw(st.integers(0, len(lines) - 1))


@_line_edit
def delete_line(draw: st.DrawFn, lines: list[bytes]) -> list[bytes]:
    del lines[_index(draw, lines)]
    return lines


@_line_edit
def duplicate_line(draw: st.DrawFn, lines: list[bytes]) -> list[bytes]:
    i = _index(draw, lines)
    copies = draw(st.sampled_from([1, 1, 2, 3, MAX_SIDE + 1]))
    return lines[:i] + [lines[i]] * copies + lines[i:]


@_line_edit
def swap_lines(draw: st.DrawFn, lines: list[bytes]) -> list[bytes]:
    i, j = _index(draw, lines), _index(draw, lines)
    lines[i], lines[j] = lines[j], lines[i]
    return lines


@_line_edit
def long_line(draw: st.DrawFn, lines: list[bytes]) -> list[bytes]:
    piece = draw(st.sampled_from([b"1 ", b"1,", b"1a ", b"<count>1</count>", b"9", b"x"]))
    lines.insert(_index(draw, lines), piece * draw(st.sampled_from([100, 1100, 5000])))
    return lines


#: Lines that declare or use a new color at each repetition ({c} a letter, {i} a number).
COLOR_RUNS = [
    "1{c} ", "{c}:{c} red\n", "color {c} #f00\n", '<count color="c{i}">1</count>',
    '<color name="c{i}" char="{c}">f00</color>',
]  # fmt: skip


@_line_edit
def many_colors(draw: st.DrawFn, lines: list[bytes]) -> list[bytes]:
    template = draw(st.sampled_from(COLOR_RUNS))
    count = draw(st.sampled_from([MAX_COLORS, MAX_COLORS + 1, 100]))
    run = "".join(template.format(c=chr(0x100 + i), i=i) for i in range(count))
    lines.insert(_index(draw, lines), run.encode())
    return lines


def change_number(draw: st.DrawFn, data: bytes) -> bytes:
    found = list(re.finditer(rb"[0-9]+", data))
    if not found:
        return insert_token(draw, data)
    match = draw(st.sampled_from(found))
    number = draw(
        st.one_of(st.sampled_from(NUMBERS), st.integers(0, 2000).map(lambda n: str(n).encode()))
    )
    return data[: match.start()] + number + data[match.end() :]


def reencode(draw: st.DrawFn, data: bytes) -> bytes:
    text = data.decode("utf-8", errors="replace")
    encoding = draw(st.sampled_from(["utf-16", "utf-16-be", "utf-32", "latin-1", "cp1252"]))
    if encoding in ("latin-1", "cp1252"):  # give it something to get wrong
        at = draw(st.integers(0, len(text)))
        text = text[:at] + "\u00e9" + text[at:]
    return text.encode(encoding, errors="replace")


MUTATIONS: list[Mutation] = [
    insert_bytes, insert_token, insert_token, replace_byte, delete_range, truncate,
    delete_line, duplicate_line, swap_lines, long_line, many_colors, change_number, change_number,
    reencode,
]  # fmt: skip


@st.composite
def mutated(draw: st.DrawFn, name: str) -> bytes:
    """A valid file of format `name`, damaged by one to four mutations."""
    data = draw(st.sampled_from(SEEDS[name]))
    for _ in range(draw(st.integers(1, 4))):
        data = draw(st.sampled_from(MUTATIONS))(draw, data)
    return data


# ---------------------------------------------------------------------------------------------
# The property


class Hang(Exception):  # noqa: N818 - raised when a read runs past HANG_SECONDS
    """A read that did not finish in time."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise Hang in the main thread after `seconds` (a hang becomes a test failure)."""

    def alarm(signum: int, frame: FrameType | None) -> None:
        raise Hang(f"no answer after {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def meaning(puzzle: Puzzle, background: bool = True) -> tuple[object, ...]:
    """What a puzzle says, independent of palette order and of colors no clue uses."""

    def clues(lines: tuple[Clue, ...]) -> tuple[object, ...]:
        palette = puzzle.palette
        return tuple(
            tuple((b.length, palette[b.color].char, palette[b.color].rgb) for b in clue)
            for clue in lines
        )

    first = puzzle.palette[0].rgb if background else None
    return puzzle.width, puzzle.height, clues(puzzle.rows), clues(puzzle.columns), first


#: InputErrors about the file as a whole, where no line is to blame.
WHOLE_FILE = ("cannot tell the puzzle format", "file is ", "no such file")


def check_file(path: Path, fmt: str | None = None) -> list[Puzzle] | InputError:
    """Read `path`; a puzzle list, or an InputError that is one line naming the file and line."""
    try:
        with time_limit(HANG_SECONDS):
            puzzles = read_puzzles(path, fmt)
    except InputError as error:
        assert error.path == str(path)
        text = str(error)
        assert text.startswith(f"{path}:"), text
        assert len(text.splitlines()) == 1 and "\r" not in text, text
        assert error.line is not None or error.message.startswith(WHOLE_FILE), text
        event("outcome: InputError")
        return error
    assert puzzles and all(isinstance(p, Puzzle) for p in puzzles)
    event("outcome: puzzles")
    for puzzle in puzzles:  # whatever was read can be written and read back
        (non,) = parse_non(write_non(puzzle))
        assert meaning(non, background=False) == meaning(puzzle, background=False)
        assert meaning(parse_xml(write_xml([puzzle]))[0]) == meaning(puzzle)
    return puzzles


#: Examples per format; RELIABILITY.md's long runs set SATNONO_FUZZ_EXAMPLES (e.g. 5000).
FUZZ = settings(
    max_examples=int(os.environ.get("SATNONO_FUZZ_EXAMPLES", "120")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.parametrize("name", list(FORMATS))
def test_seeds_are_valid(name: str) -> None:
    assert SEEDS[name]
    for data in SEEDS[name]:
        assert FORMATS[name].parse(data.decode())


@pytest.mark.parametrize("name", list(FORMATS))
@FUZZ
@given(draw=st.data(), by_suffix=st.booleans())
def test_mutated_files_give_puzzles_or_located_input_errors(
    name: str, draw: st.DataObject, by_suffix: bool
) -> None:
    data = draw.draw(mutated(name), label="file")
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / ("puzzle" + (SUFFIX[name] if by_suffix else ".txt"))
        path.write_bytes(data)
        check_file(path)
        check_file(path, name)  # also the parser the file was meant for, by --format


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.sampled_from(list(FORMATS)).flatmap(lambda name: st.tuples(st.just(name), mutated(name))))
def test_cli_solve_on_mutated_files(case: tuple[str, bytes]) -> None:
    """`satnono solve`: exit 2 with one line naming the file, or 0/1/3 for a readable puzzle."""
    name, data = case
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / ("puzzle" + SUFFIX[name])
        path.write_bytes(data)
        read = check_file(path)
        with time_limit(HANG_SECONDS + 3):
            result = CliRunner().invoke(app, ["solve", str(path), "--timeout", "1"])
    assert "Traceback" not in result.output + result.stderr
    if isinstance(read, InputError):
        assert result.exit_code == 2, (result.exit_code, result.stderr)
        (line,) = result.stderr.splitlines()
        assert str(path) in line and read.message in line
    else:
        assert result.exit_code in (0, 1, 3), (result.exit_code, result.stderr)


# ---------------------------------------------------------------------------------------------
# Regressions: each of these crashed a parser or broke a round trip before it was fixed.

EIGHTY_COLORS = "".join(f'<count color="c{i}">1</count>' for i in range(80))
XML_START = '<clues type="rows"><line><count>'
XML_END = "</count></line></clues></puzzle>"


@pytest.mark.parametrize(
    ("name", "text", "line", "message"),
    [
        # int() of a superscript digit (str.isdigit() accepts it): ValueError
        ("xml", f"<puzzle>\n{XML_START}\u00b2{XML_END}", 2, "block length"),
        # int() of a 5000-digit string: ValueError (Python's int_max_str_digits)
        ("xml", f"<puzzle>\n{XML_START}{'9' * 5000}{XML_END}", 2, "block length"),
        ("non", f"width 2\nheight 1\nrows\n1 {'9' * 5000}\n", 4, "longer than 1000"),
        ("non", f"width {'9' * 5000}\n", 1, "outside 1..1000"),
        # more colors than spare characters: StopIteration from make_palette
        (
            "xml",
            f'<puzzle>\n<clues type="rows">\n<line>{EIGHTY_COLORS}</line></clues>'
            '<clues type="columns"><line/></clues></puzzle>',
            1,
            "80 colors",
        ),
        ("non", "".join(f"color {chr(0x100 + i)} #f00\n" for i in range(65)), 65, "65 colors"),
        ("g", "#d\n" + "".join(f"{chr(0x100 + i)}:x red\n" for i in range(65)), 66, "65 colors"),
        # accepted by .g, refused by .non and XML: now refused by all
        ("g", f": rows\n{'1 ' * (MAX_SIDE + 1)}\n: columns\n1\n", 2, "a clue of 1001 blocks"),
        # control characters as color letters broke .non and XML round trips
        ("non", "width 1\nheight 1\ncolor \x01 #fff\n", 3, "not a printable"),
        ("non", "width 2\nheight 1\nrows\n1\x7f 1\n", 4, "not a printable"),
        # str.splitlines() counts a form feed or U+2028 as a line end; editors do not
        ("non", "title x\x0cy\nwidth z\n", 2, "expected a whole number"),
        ("non", "title x\u2028y\r\nwidth z\n", 2, "expected a whole number"),
        ("nin", "1\u2028 1\nx\n1\n", 2, "cannot read 'x'"),
    ],
)
def test_fuzzing_regressions(name: str, text: str, line: int, message: str) -> None:
    refused = refusal(FORMATS[name].parse, text)
    assert refused.line == line
    assert message in refused.message and len(str(refused)) < 200


@pytest.mark.parametrize("name", ["xml", "non", "g"])
def test_the_most_colors_allowed_round_trip(name: str) -> None:
    """MAX_COLORS colors, none with a usable character of its own: read, written, read back."""
    width = MAX_COLORS
    if name == "xml":
        counts = "".join(f'<count color="c{i}">1</count>' for i in range(width))
        columns = "".join(f'<line><count color="c{i}">1</count></line>' for i in range(width))
        text = (
            f'<puzzle><clues type="rows"><line>{counts}</line></clues>'
            f'<clues type="columns">{columns}</clues></puzzle>'
        )  # every char is missing, so make_palette gives each color a spare character
    else:
        chars = [chr(0x100 + i) for i in range(width)]
        if name == "non":
            rows = ",".join(f"1{c}" for c in chars)
            text = f"width {width}\nheight 1\nrows\n{rows}\ncolumns\n"
            text += "".join(f"1{c}\n" for c in chars)
        else:
            text = "#d\n" + "".join(f"{c}:{c} red\n" for c in chars)
            text += ": rows\n" + " ".join(f"1{c}" for c in chars) + "\n: columns\n"
            text += "".join(f"1{c}\n" for c in chars)
    (puzzle,) = FORMATS[name].parse(text)
    assert len(puzzle.palette) == MAX_COLORS + 1
    for other in ("xml", "non", "g"):
        (again,) = FORMATS[other].parse(FORMATS[other].write([puzzle]))
        assert meaning(again, other != "non") == meaning(puzzle, other != "non"), other


def test_writers_survive_what_readers_accept() -> None:
    """A .non title with control characters still gives well-formed XML; a lone non-black
    color survives a .non round trip."""
    (puzzle,) = parse_non('title "a\x00b\x1bc"\nwidth 1\nheight 1\nrows\n1\ncolumns\n1\n')
    (again,) = parse_xml(write_xml([puzzle]))
    assert again.title == "a\ufffdb\ufffdc"
    (red,) = parse_non("width 1\nheight 1\ncolor r #d00000\nrows\n1\ncolumns\n1\n")
    assert red.palette[1].rgb == "#d00000"
    assert parse_non(write_non(red))[0].palette == red.palette


# ---------------------------------------------------------------------------------------------
# Declared sizes beyond the limits: refused before anything proportional to them is allocated.

HUGE = "999999999"
HUGE_FILES = {
    "non-width": ("non", f"width {HUGE}\nheight {HUGE}\nrows\n", 1),
    "non-digits": ("non", f"width 5\nheight {'9' * 100_000}\n", 2),
    "non-blocks": ("non", f"width 5\nheight 1\nrows\n{'1 ' * (MAX_SIDE + 1)}\n", 4),
    "nin": ("nin", f"{HUGE} {HUGE}\n", 1),
    "mk": ("mk", f"5 {HUGE}\n", 1),
    "cwd": ("cwd", f"{HUGE}\n5\n", 1),
    "xml-count": ("xml", f'<puzzle><clues type="rows"><line><count>{HUGE}</count>', 1),
    "g-rows": ("g", ": rows\n" + "1\n" * (MAX_SIDE + 1) + ": columns\n1\n", MAX_SIDE + 2),
    "syro-rows": ("syro", "1 0\n" * (MAX_SIDE + 1) + "#\n1 0\n#\n", MAX_SIDE + 1),
    "makhorin-columns": ("makhorin", "1\n&\n" + "1\n" * (MAX_SIDE + 1), MAX_SIDE + 3),
}


@pytest.mark.parametrize("case", list(HUGE_FILES))
def test_huge_declared_sizes_are_refused_before_allocation(case: str) -> None:
    name, text, line = HUGE_FILES[case]
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as caught:
            FORMATS[name].parse(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert caught.value.line == line
    assert peak < 512 * 1024 + 2 * len(text), peak  # the text's own lines, nothing sized by it


@pytest.mark.parametrize("name", [name for name in FORMATS if name not in ("xml", "non")])
def test_too_many_lines_are_refused_before_splitting(name: str) -> None:
    """A near-limit file of blank lines used to take a minute and 2 GB to sniff."""
    text = "\n" * MAX_LINES + "1\n"
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match=f"more than {MAX_LINES} lines") as caught:
            FORMATS[name].parse(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert caught.value.line == MAX_LINES + 1 and peak < 512 * 1024
    assert not FORMATS[name].sniff(text)


def test_a_non_puzzle_of_too_many_lines_is_refused_as_it_is_read() -> None:
    text = "width 1\n" + "\n" * MAX_LINES + "height 1\n"
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match=f"more than {MAX_LINES} lines") as caught:
            parse_non(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert caught.value.line == MAX_LINES + 1
    assert peak < 16 * 1024 * 1024  # the lines of one puzzle, not of the file


def test_too_many_puzzles_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import satnono.formats.limits
    import satnono.formats.webpbn_xml

    monkeypatch.setattr(satnono.formats.limits, "MAX_PUZZLES", 3)
    monkeypatch.setattr(satnono.formats.webpbn_xml, "MAX_PUZZLES", 3)
    one = "width 1\nheight 1\nrows\n1\ncolumns\n1\n"
    assert len(parse_non("====\n".join([one] * 3))) == 3
    with pytest.raises(InputError, match="more than 3 puzzles") as caught:
        parse_non("====\n".join([one] * 4))
    assert caught.value.line == 22  # the first line of the fourth puzzle
    (puzzle,) = parse_non(one)
    assert len(parse_xml(write_xml([puzzle] * 3))) == 3
    xml = write_xml([puzzle] * 4)
    with pytest.raises(InputError, match="more than 3 puzzles") as caught:
        parse_xml(xml)
    starts = [i for i, line in enumerate(xml.splitlines(), 1) if line.startswith("<puzzle ")]
    assert caught.value.line == starts[3]


def test_oversized_files_are_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "huge.non"
    with path.open("wb") as file:
        file.truncate(MAX_FILE_BYTES + 1)  # sparse: takes no disk space
    with pytest.raises(InputError, match=f"the limit is {MAX_FILE_BYTES}") as caught:
        read_puzzles(path)
    assert caught.value.path == str(path)
    if Path("/dev/zero").exists():  # a file without a size, that never ends
        with pytest.raises(InputError, match=f"over {MAX_FILE_BYTES} bytes") as caught:
            read_puzzles("/dev/zero")
        assert caught.value.path == "/dev/zero"


# ---------------------------------------------------------------------------------------------
# Hostile XML: entity bombs and external entities are refused, and nothing is fetched.


class _Recorder(http.server.BaseHTTPRequestHandler):
    requests: list[str] = []  # noqa: RUF012 - shared on purpose, reset by the fixture

    def do_GET(self) -> None:
        self.requests.append(self.path)
        body = b'<!ENTITY leak "stolen">'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    """A local HTTP server that records every request: the URL an external entity would use."""
    _Recorder.requests = []
    httpd = http.server.HTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


PUZZLE_BODY = (
    '<puzzle><title>&t;</title><clues type="rows"><line><count>1</count></line></clues>'
    '<clues type="columns"><line><count>1</count></line></clues></puzzle>'
)
LAUGHS = "".join(
    f'<!ENTITY l{i} "{f"&l{i - 1};" * 10 if i else "ha"}">\n' for i in range(10)
) + '<!ENTITY t "&l9;">\n'  # fmt: skip
BOMBS = {
    "billion-laughs": f"<?xml version='1.0'?>\n<!DOCTYPE puzzleset [\n{LAUGHS}]>\n{PUZZLE_BODY}",
    "quadratic-blowup": (
        f'<?xml version="1.0"?>\n<!DOCTYPE puzzle [\n<!ENTITY t "{"x" * 50_000}">]>\n'
        + PUZZLE_BODY.replace("&t;", "&t;" * 20_000)
    ),
    "external-file": (
        '<?xml version="1.0"?>\n<!DOCTYPE puzzle [\n<!ENTITY t SYSTEM "file:///etc/passwd">]>\n'
        + PUZZLE_BODY
    ),
    "external-network": (
        '<?xml version="1.0"?>\n<!DOCTYPE puzzle [\n<!ENTITY t SYSTEM "{server}/entity">]>\n'
        + PUZZLE_BODY
    ),
    "parameter-entity": (
        '<?xml version="1.0"?>\n<!DOCTYPE puzzle [\n<!ENTITY % p SYSTEM "{server}/dtd">\n%p;\n]>\n'
        + PUZZLE_BODY.replace("&t;", "&leak;")
    ),
}


@pytest.mark.parametrize("bomb", list(BOMBS))
def test_xml_bombs_and_external_entities_are_refused(
    bomb: str, server: str, tmp_path: Path
) -> None:
    path = tmp_path / "hostile.xml"
    path.write_text(BOMBS[bomb].replace("{server}", server))
    started = time.perf_counter()
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as caught:
            read_puzzles(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - started < 2.0 and peak < 16 * 1024 * 1024
    assert caught.value.message.startswith("refused: ")
    assert caught.value.path == str(path) and caught.value.line is not None
    assert _Recorder.requests == []
    result = CliRunner().invoke(app, ["solve", str(path)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    (line,) = result.stderr.splitlines()
    assert f"{path}:" in line and "refused" in line
    assert _Recorder.requests == []


def test_an_external_dtd_is_never_fetched(server: str, tmp_path: Path) -> None:
    """webpbn's own exports name their DTD by URL: they are read without fetching it."""
    path = tmp_path / "webpbn.xml"
    text = (EXAMPLES / "duck.xml").read_text()
    path.write_text(re.sub(r'SYSTEM "[^"]*"', f'SYSTEM "{server}/pbn-0.3.dtd"', text))
    assert f"{server}/pbn-0.3.dtd" in path.read_text()
    assert read_puzzles(path)[0].width == 15
    assert _Recorder.requests == []


# ---------------------------------------------------------------------------------------------
# --timeout on every backend (RELIABILITY.md has the figures; this checks a generous bound)

HARD = Path(__file__).resolve().parents[2] / "shared/puzzles/corpus/pynogram/frans_faase.non"


@pytest.mark.skipif(not HARD.is_file(), reason="the shared puzzles are absent")
@pytest.mark.parametrize("backend", installed_backends())
def test_timeout_is_honored(backend: str) -> None:
    from satnono.pipeline.solutions import solve

    puzzle = read_puzzles(HARD)[0]
    timeout = 1.0
    started = time.perf_counter()
    result = solve(puzzle, backend=backend, limit=0, timeout=timeout)
    elapsed = time.perf_counter() - started
    assert result.status == "timeout"
    # The promise is 0.5 s (measured: at most 0.16 s, RELIABILITY.md); slack for busy machines.
    # The cubes backend cannot stop a Dask cluster while it starts (1-2 s).
    assert elapsed < timeout + (3.0 if backend == "cubes" else 1.0), elapsed


@pytest.mark.parametrize("backend", installed_backends())
def test_timeout_is_honored_on_a_wide_residual(backend: str) -> None:
    """Encoding, loading the solver and building the CP-SAT model all look at the clock.

    Line logic decides nothing in a random 160 x 160 grid at density 0.5: before they did,
    sat needed 8 s to encode and load its 5 million clauses, whatever the timeout."""
    import random

    from satnono.formats.generate import puzzle_from_grid
    from satnono.pipeline.solutions import solve

    rng = random.Random(1)
    grid = tuple(tuple(int(rng.random() < 0.5) for _ in range(160)) for _ in range(160))
    puzzle = puzzle_from_grid(grid, keep_goal=False)
    timeout = 0.5
    started = time.perf_counter()
    result = solve(puzzle, backend=backend, limit=0, timeout=timeout)
    elapsed = time.perf_counter() - started
    assert (result.status, result.stats["cells_left"]) == ("timeout", 160 * 160)
    assert elapsed < timeout + 1.0, elapsed


def test_line_logic_stops_at_the_deadline() -> None:
    from satnono.core.grids import initial_domains, palette_domains
    from satnono.pipeline.prepare import line_logic
    from satnono.pipeline.solutions import solve
    from satnono.reference.propagate import Propagator
    from satnono.runtime.deadline import Deadline, Timeout

    puzzle = read_puzzles(EXAMPLES / "rocket-30.non")[0]  # line logic alone solves it
    domains = palette_domains(puzzle)
    with pytest.raises(Timeout):
        line_logic(puzzle, domains, Deadline(0))
    assert domains == palette_domains(puzzle)
    reference = initial_domains(puzzle)
    with pytest.raises(Timeout):  # the Python reference too
        Propagator(puzzle).propagate(reference, deadline=Deadline(0))
    assert reference == initial_domains(puzzle)
    result = solve(puzzle, timeout=0)
    assert (result.status, result.complete, result.grids) == ("timeout", False, ())
    assert solve(puzzle).status == "unique"
