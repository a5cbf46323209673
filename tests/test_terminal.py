"""Terminal grids with their clues on the margins (issue 33): aligned numbers over and beside
the cells, colored like the cells in a color terminal, on by default in a terminal only."""

from __future__ import annotations

import io

from rich.console import Console

from satnono.formats import FORMATS
from satnono.output.terminal import PlainConsole, print_domains
from support import EXAMPLES, run_satnono

TINY = FORMATS["non"].parse("width 3\nheight 2\nrows\n1 1\n3\ncolumns\n2\n1\n2\n")[0]
SOLVED = [2, 1, 2, 2, 2, 2]  # "#.#" over "###": one color bit per cell


def test_plain_clues_line_up_with_their_columns_and_rows(capsys: object) -> None:
    print_domains(PlainConsole(), TINY, SOLVED, clues=True)
    assert capsys.readouterr().out.splitlines() == [  # type: ignore[attr-defined]
        "    2 1 2",
        "1 1 # . #",
        "  3 # # #",
    ]


def test_a_color_puzzles_plain_clues_carry_their_colors_character(capsys: object) -> None:
    heart = FORMATS["non"].parse((EXAMPLES / "heart-color.non").read_text())[0]
    every = (1 << len(heart.palette)) - 1
    print_domains(PlainConsole(), heart, [every] * (heart.width * heart.height), clues=True)
    lines = capsys.readouterr().out.splitlines()  # type: ignore[attr-defined]
    assert lines[-1].split()[:1] == ["1r"] and set(lines[-1].split()[1]) == {"?"}


def test_colored_clues_sit_on_their_color_and_fit_the_cells() -> None:
    heart = FORMATS["non"].parse((EXAMPLES / "heart-color.non").read_text())[0]
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, color_system="truecolor", width=120)
    decided = [1 << cell for row in heart.goal or () for cell in row]
    print_domains(console, heart, decided, clues=True)
    text = buffer.getvalue()
    assert "\x1b[" in text  # colored
    recording = Console(record=True, force_terminal=True, color_system="truecolor", width=120,
                        file=io.StringIO())  # fmt: skip
    print_domains(recording, heart, decided, clues=True)
    lines = recording.export_text().splitlines()
    widths = {len(line.rstrip()) for line in lines if line.strip()}
    assert len(lines) == heart.height + max(len(c) for c in heart.columns)
    assert max(widths) == len(lines[-1])  # the grid's rows are the widest: nothing sticks out
    red = heart.palette[1].rgb.lstrip("#")
    assert f"48;2;{int(red[:2], 16)};{int(red[2:4], 16)};{int(red[4:], 16)}" in text


def test_clues_are_on_in_a_terminal_only_and_either_way_on_request() -> None:
    duck = str(EXAMPLES / "duck.non")
    piped = run_satnono("solve", duck).stdout.splitlines()
    assert piped[0] == "." * 15  # a pipe gets bare rows, as scripts expect
    framed = run_satnono("solve", duck, "--clues").stdout.splitlines()
    assert framed[0].split() == ["1", "1", "4", "2", "2", "1", "2"]
    assert [line.split()[0] for line in framed[2:6]] == ["0", "4", "6", "2"]  # rows 1-4
    assert run_satnono("solve", duck, "--no-clues").stdout.splitlines()[0] == "." * 15
