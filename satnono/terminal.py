"""Terminal pictures of grids: real colors on a color terminal, plain row strings elsewhere.

Plain text is what scripts and pipes need ('.' background, '#' or the color's character);
a terminal gets colored cells, two columns per cell, or half-block pixels (two rows per text
line) when the grid would not fit the terminal's width otherwise.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from satnono.model import Grid, Puzzle

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

UNKNOWN_RGB = "#808080"


def printable(text: str) -> str:
    """`text` with control characters shown as escapes (ESC as \\x1b): a title or a file name
    from a puzzle file must never reach a terminal as a command (set the title, move the
    cursor, ring the bell). Line breaks stay only where the caller wrote them itself."""
    return "".join(
        char if char.isprintable() or char == " " else char.encode("unicode_escape").decode()
        for char in text
    )


def labelled(label: str | None, line: str) -> str:
    """`line` after `label` (the file, when a command handles several), as grep names them."""
    return f"{printable(label)}: {line}" if label else line


class PlainConsole:
    """The part of rich's Console that grids need, for pipes and files.

    Output that is not a terminal gets plain rows anyway, so it need not pay for importing
    rich (tens of milliseconds, a large share of a line-solvable puzzle's whole run).
    """

    is_terminal = False
    no_color = True
    color_system = None

    def out(self, text: str = "", highlight: bool = False) -> None:
        sys.stdout.write(text + "\n")


def grid_console() -> Console | PlainConsole:
    """rich's Console on a terminal (colored cells), a PlainConsole elsewhere."""
    if not sys.stdout.isatty():
        return PlainConsole()
    from rich.console import Console

    return Console(highlight=False)


def domain_rows(puzzle: Puzzle, domains: Sequence[int]) -> list[str]:
    """Row strings of a partly solved grid: '?' where several colors are still possible."""
    chars = [color.char for color in puzzle.palette]
    return [
        "".join(
            chars[d.bit_length() - 1] if d and not d & (d - 1) else "?"
            for d in domains[r * puzzle.width : (r + 1) * puzzle.width]
        )
        for r in range(puzzle.height)
    ]


def print_domains(console: Console | PlainConsole, puzzle: Puzzle, domains: Sequence[int]) -> None:
    """Print a solved or partly solved grid; decided grids are domains of one color each."""
    rows = domain_rows(puzzle, domains)
    if not console.is_terminal or console.no_color or console.color_system is None:
        console.out("\n".join(rows), highlight=False)
        return
    rgb = {color.char: color.rgb for color in puzzle.palette}
    rgb["?"] = UNKNOWN_RGB
    if 2 * puzzle.width <= console.width:
        for row in rows:
            console.print(_wide_row(row, rgb), soft_wrap=True)
    else:
        for r in range(0, len(rows), 2):
            bottom = rows[r + 1] if r + 1 < len(rows) else None
            console.print(_half_block_row(rows[r], bottom, rgb), soft_wrap=True)


def _wide_row(row: str, rgb: dict[str, str]) -> Text:
    from rich.text import Text

    text = Text()
    for char in row:
        text.append("??" if char == "?" else "  ", style=f"on {rgb[char]}")
    return text


def _half_block_row(top: str, bottom: str | None, rgb: dict[str, str]) -> Text:
    from rich.text import Text

    text = Text()
    for i, char in enumerate(top):
        below = rgb[bottom[i]] if bottom is not None else "default"
        text.append("\u2580", style=f"{rgb[char]} on {below}")
    return text


class SolutionPrinter:
    """Prints solutions as they are found; "solution N:" heads each once there are several.

    The first one is held back until a second one shows up (or the end), because a lone
    solution is printed without a heading. `quiet` prints none of them, only the last line.
    """

    def __init__(self, puzzle: Puzzle, quiet: bool = False) -> None:
        self.puzzle = puzzle
        self.quiet = quiet
        self.console = grid_console()
        self.first: Grid | None = None
        self.count = 0

    def add(self, grid: Grid) -> None:
        self.count += 1
        if self.count == 1:
            self.first = grid
            return
        if self.count == 2:
            self._print(self.first, 1)
        self._print(grid, self.count)

    def _print(self, grid: Grid | None, number: int | None) -> None:
        if self.quiet or grid is None:
            return
        if number is not None:
            self.console.out(f"solution {number}:")
        print_domains(self.console, self.puzzle, [1 << cell for row in grid for cell in row])
        self.console.out("")

    def finish(self, verdict: str, label: str | None = None) -> None:
        """The lone solution, if that is what there is, then the verdict line (after
        `label`: the file, when several are solved)."""
        if self.count == 1:
            self._print(self.first, None)
        self.console.out(labelled(label, verdict))

    def interrupted(
        self, domains: Sequence[int] | None, where: str, label: str | None = None
    ) -> None:
        """After Ctrl-C: the solution held back, or the grid as line logic left it."""
        if self.count == 1:
            self._print(self.first, 1)
        elif not self.count and domains is not None and not self.quiet:
            self.console.out("after line logic ('?' = undecided):")
            print_domains(self.console, self.puzzle, domains)
            self.console.out("")
        line = f"interrupted: {where}"
        self.console.out(f"{printable(label)}: {line}" if label else line)
