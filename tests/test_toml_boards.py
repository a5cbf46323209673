"""pynogram's and nonogrid's TOML boards: the forms their example files use (comments inside
the strings, quoted clues, comma- and line-separated clues, the verbose key form, colors as
table lines or a `defs` array), written back, and errors that name their line. The boards here
are written for these tests."""

from __future__ import annotations

import pytest

import satnono
from satnono.formats import FORMATS, parse_text
from tests.support import EXAMPLES

PLUS = '''# a plus sign
title = "Plus"

[clues]
columns = """
    0, 1,      # left
    '3', 1
    0          ; right
"""

rows =
  0
  1 ; top
  3
  1
  0
'''

FLAG = """[colors]
defs = [
    'g = (green) *',
    'o = (255, 128, 0) %',
]

[clues]
columns = '''
    3g, 1g 1, 3o
'''
rows = '''
    2g 1o
    1g 1o
    "1g 1 1o"
'''
"""

LINES = """[colors]
p = (pink) %
k = "(000000) &"

[clues]
columns = "1p, 1k"
rows = "1p 1k"
"""


def test_a_black_and_white_board_in_every_form() -> None:
    (puzzle,) = parse_text(PLUS, "plus.toml")
    assert puzzle.title == "Plus" and puzzle.is_black_and_white
    assert satnono.solve(puzzle).solutions == [[".....", "..#..", ".###.", "..#..", "....."]]


def test_colors_from_a_defs_array_with_black_by_default() -> None:
    (puzzle,) = parse_text(FLAG, "flag.toml")
    assert [(c.name, c.rgb) for c in puzzle.palette[1:]] == [
        ("black", "#000000"), ("green", "#00b000"), ("o", "#ff8000")
    ]  # fmt: skip
    assert satnono.solve(puzzle).solutions == [["ggo", "g.o", "g#o"]]


def test_colors_as_table_lines() -> None:
    (puzzle,) = parse_text(LINES, "lines.toml")
    assert [c.rgb for c in puzzle.palette[1:]] == ["#ff80c0", "#000000"]
    assert satnono.solve(puzzle).solutions == [["pk"]]


@pytest.mark.parametrize("name", ["duck", "heart-color", "mushroom-color", "rings-50-color"])
def test_written_boards_read_back_the_same(name: str) -> None:
    (puzzle,) = satnono.read_puzzles(EXAMPLES / f"{name}.non")
    (again,) = parse_text(FORMATS["toml"].write([puzzle]), "again.toml")
    assert (again.rows, again.columns, again.title) == (puzzle.rows, puzzle.columns, puzzle.title)
    assert [c.rgb for c in again.palette] == [c.rgb for c in puzzle.palette]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[clues]\nrows = "1 x"\ncolumns = "1"\n', "x.toml:2: row clue: 'x' is not a block"),
        ("rows = 1\n", "x.toml:1: no [clues] table with rows and columns"),
        ('[clues]\nrows = """\n1\n', 'x.toml:2: """ never closed'),
        ('[colors]\nr = red\n[clues]\nrows = "1r"\ncolumns = "1r"\n',
         "x.toml:2: expected NAME = (COLOR) CHAR, got 'r = red'"),
        ('[clues]\nrows = "1b"\ncolumns = "1"\n', "x.toml:2: the color 'b' is not in [colors]"),
        ('[clues]\nrows = "1 0"\ncolumns = "1"\n', "x.toml:2: row clue '1 0': a block of 0"),
        ('[clues]\nrows = ""\ncolumns = "1"\n', "x.toml:2: no row clues"),
    ],
)  # fmt: skip
def test_errors_name_their_line(text: str, message: str) -> None:
    with pytest.raises(satnono.InputError) as raised:
        parse_text(text, "x.toml")
    assert str(raised.value) == message


def test_a_board_without_its_suffix_is_known_by_its_clues_table() -> None:
    (puzzle,) = parse_text(PLUS, "plus.txt")
    assert puzzle.width == 5
