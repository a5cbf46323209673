"""Terminal pictures of grids: real colors on a color terminal, plain row strings elsewhere.

Plain text is what scripts and pipes need ('.' background, '#' or the color's character);
a terminal gets colored cells, two columns per cell, or half-block pixels (two rows per text
line) when the grid would not fit the terminal's width otherwise.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from satnono.core.model import Block, Grid, Puzzle, clue_number

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
    from satnono.core.grids import domains_text

    width = puzzle.width
    return [
        domains_text(puzzle, domains[r * width : (r + 1) * width]) for r in range(puzzle.height)
    ]


def print_domains(
    console: Console | PlainConsole,
    puzzle: Puzzle,
    domains: Sequence[int],
    clues: bool = False,
) -> None:
    """Print a solved or partly solved grid; decided grids are domains of one color each.
    `clues` puts the clues on the margins (not in the half-block view: it has no room)."""
    rows = domain_rows(puzzle, domains)
    if not console.is_terminal or console.no_color or console.color_system is None:
        console.out("\n".join(_plain_with_clues(puzzle, rows) if clues else rows))
        return
    rgb = {color.char: color.rgb for color in puzzle.palette}
    rgb["?"] = UNKNOWN_RGB
    framed = _colored_with_clues(puzzle, rows, rgb) if clues else []
    if framed and max(len(line) for line in framed) <= console.width:
        for line in framed:
            console.print(line, soft_wrap=True)
    elif 2 * puzzle.width <= console.width:
        for row in rows:
            console.print(_wide_row(row, rgb), soft_wrap=True)
    else:
        for r in range(0, len(rows), 2):
            bottom = rows[r + 1] if r + 1 < len(rows) else None
            console.print(_half_block_row(rows[r], bottom, rgb), soft_wrap=True)


def _blocks(puzzle: Puzzle, clue: Sequence[Block], colored: bool) -> list[tuple[str, int]]:
    """A clue's numbers as (text, color); with no color to show them in, a color puzzle's
    numbers carry their color's character ('3r'). An empty line shows 0."""
    if not clue:
        return [("0", 0)]
    tag = not colored and not puzzle.is_black_and_white
    return [(clue_number(block) + (puzzle.palette[block.color].char if tag else ""), block.color)
            for block in clue]  # fmt: skip


def _plain_with_clues(puzzle: Puzzle, rows: list[str]) -> list[str]:
    """Rows with the row clues on the left and the column clues stacked above, as text:
    every column as wide as its widest number, one space between columns."""
    columns = [_blocks(puzzle, clue, False) for clue in puzzle.columns]
    lefts = [" ".join(text for text, _ in _blocks(puzzle, clue, False)) for clue in puzzle.rows]
    cell = max(len(text) for blocks in columns for text, _ in blocks)
    margin = max(len(left) for left in lefts)
    depth = max(len(blocks) for blocks in columns)
    lines = []
    for level in range(depth):
        numbers = []
        for blocks in columns:
            at = level - (depth - len(blocks))
            numbers.append((blocks[at][0] if at >= 0 else "").rjust(cell))
        lines.append(" " * margin + " " + " ".join(numbers))
    for left, row in zip(lefts, rows, strict=True):
        lines.append(left.rjust(margin) + " " + " ".join(char * cell for char in row))
    return lines


def _colored_with_clues(puzzle: Puzzle, rows: list[str], rgb: dict[str, str]) -> list[Text]:
    """The wide colored view with the clues on its margins, each number of a color puzzle on
    its color (black and white puzzles' numbers are plain): every column is as wide as its
    widest number plus a space (at least two characters, as the cells are)."""
    from rich.text import Text

    palette = puzzle.palette
    plain = puzzle.is_black_and_white

    def style(color: int) -> str:
        if plain or not color:
            return ""
        return f"{_ink_on(palette[color].rgb)} on {palette[color].rgb}"

    columns = [_blocks(puzzle, clue, True) for clue in puzzle.columns]
    lefts = [_blocks(puzzle, clue, True) for clue in puzzle.rows]
    cell = max(2, 1 + max(len(text) for blocks in columns for text, _ in blocks))
    margin = max(sum(len(text) + 1 for text, _ in blocks) for blocks in lefts)
    depth = max(len(blocks) for blocks in columns)
    lines = []
    for level in range(depth):
        line = Text(" " * margin)
        for blocks in columns:
            at = level - (depth - len(blocks))
            text, color = blocks[at] if at >= 0 else ("", 0)
            line.append(" " * (cell - len(text)))
            line.append(text, style=style(color))
        lines.append(line)
    for blocks, row in zip(lefts, rows, strict=True):
        line = Text(" " * (margin - sum(len(text) + 1 for text, _ in blocks)))
        for text, color in blocks:
            line.append(text, style=style(color))
            line.append(" ")
        for char in row:
            line.append(("?" * cell) if char == "?" else " " * cell, style=f"on {rgb[char]}")
        lines.append(line)
    return lines


def _ink_on(background: str) -> str:
    """Black or white, whichever reads on `background` ('#rrggbb')."""
    red, green, blue = (int(background[i : i + 2], 16) for i in (1, 3, 5))
    return "black" if 0.299 * red + 0.587 * green + 0.114 * blue > 150 else "white"


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

    def __init__(self, puzzle: Puzzle, quiet: bool = False, clues: bool | None = None) -> None:
        """`clues`: on the margins; None: in a terminal, not in a pipe or a file."""
        self.puzzle = puzzle
        self.quiet = quiet
        self.console = grid_console()
        self.clues = self.console.is_terminal if clues is None else clues
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
        decided = [1 << cell for row in grid for cell in row]
        print_domains(self.console, self.puzzle, decided, self.clues)
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
            print_domains(self.console, self.puzzle, domains, self.clues)
            self.console.out("")
        self.console.out(labelled(label, f"interrupted: {where}"))
