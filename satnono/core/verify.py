"""The independent checker: recompute a grid's clues and compare them with the puzzle's.

It shares nothing with the solvers (no automaton, no line solver, no encoding), so a bug there
cannot hide itself here. Every solution is checked before anything reports it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from satnono.core.model import Block, Grid, Puzzle

#: A black-and-white grid's lines as text: cells 0 and 1 and the separator 2 after each line
#: translate to " ", "1" and "|" (`Verifier.pattern` matches such text).
_WRITTEN = bytes.maketrans(b"\x00\x01\x02", b" 1|")
_SEPARATOR_CELL = b"\x02"


class VerificationError(AssertionError):
    """A solver produced a grid that breaks the clues: a satnono bug, never a user error."""


def runs(cells: Sequence[int]) -> list[tuple[int, int]]:
    """The (length, color) runs of non-background cells, left to right."""
    found: list[tuple[int, int]] = []
    previous = 0
    for cell in cells:
        if cell:
            if cell == previous:
                length, color = found[-1]
                found[-1] = (length + 1, color)
            else:
                found.append((1, cell))
        previous = cell
    return found


def line_clues(grid: Grid) -> tuple[list[list[tuple[int, int]]], list[list[tuple[int, int]]]]:
    """The (length, color) runs of every row and every column of a grid."""
    return [runs(row) for row in grid], [runs(column) for column in zip(*grid, strict=True)]


def matches(actual: Sequence[tuple[int, int]], clue: Sequence[Block]) -> bool:
    """Whether a line's runs are its clue's: same colors in order, and the same lengths
    except where the clue's number is blotted (any length)."""
    return len(actual) == len(clue) and all(
        color == block.color and (block.blotted or length == block.length)
        for (length, color), block in zip(actual, clue, strict=True)
    )


def problems(puzzle: Puzzle, grid: Grid) -> list[str]:
    """Every line whose recomputed clue differs from the puzzle's; empty when the grid is right."""
    if len(grid) != puzzle.height or any(len(row) != puzzle.width for row in grid):
        return [f"grid is not {puzzle.width}x{puzzle.height}"]
    colors = len(puzzle.palette)
    if any(not 0 <= cell < colors for row in grid for cell in row):
        return ["grid uses a color outside the palette"]
    rows, columns = line_clues(grid)
    found = []
    for kind, expected, actual in (("row", puzzle.rows, rows), ("column", puzzle.columns, columns)):
        for i, clue in enumerate(expected):
            if not matches(actual[i], clue):
                found.append(f"{kind} {i + 1}")
    return found


def verify(puzzle: Puzzle, grid: Grid) -> Grid:
    """Return the grid if it satisfies every clue; raise VerificationError otherwise."""
    wrong = problems(puzzle, grid)
    if wrong:
        raise VerificationError(
            f"internal error: a solver returned a wrong grid ({', '.join(wrong[:5])})"
        )
    return grid


class Verifier:
    """`verify` for a stream of solutions of one puzzle, remembering lines already checked.

    Successive solutions mostly repeat lines (they differ in a few regions), and whether a
    line's contents match its clue depends on nothing else, so each distinct (line, contents)
    pair is checked once. The check itself is the same run-length comparison as `problems`.
    """

    def __init__(self, puzzle: Puzzle) -> None:
        self.puzzle = puzzle
        self.expected = [*puzzle.rows, *puzzle.columns]
        #: For a black-and-white puzzle without blotted numbers: its rows' and its columns'
        #: clues as regular expressions of their lines' text (`_WRITTEN`), one line after the
        #: other, any number of grids in turn (`_lines_expression`): a grid, or a batch of
        #: hundreds, is right iff its rows' text and its columns' match, two calls in C for
        #: the whole batch. Else None, and `exact` holds each line's runs as `runs` gives them
        #: (one list comparison instead of `matches`), None where a number is blotted.
        self.pattern: tuple[re.Pattern[bytes], re.Pattern[bytes]] | None = None
        self.exact: list[list[tuple[int, int]] | None] = []
        blotted = any(block.blotted for clue in self.expected for block in clue)
        if len(puzzle.palette) == 2 and not blotted:
            self.pattern = (_lines_expression(puzzle.rows), _lines_expression(puzzle.columns))
        else:
            for clue in self.expected:
                wanted = [(block.length, block.color) for block in clue]
                self.exact.append(wanted if not wanted or min(wanted)[0] > 0 else None)
        self.good: set[tuple[int, tuple[int, ...]]] = set()
        self.calls = 0

    def __call__(self, grid: Grid, colors: bytes | None = None) -> Grid:
        """Check `grid` (raise VerificationError when wrong); `colors`, when given, is the same
        grid's cells row by row as bytes, which makes the black-and-white check one pass of
        slices in C (the engine's solution stream hands grids over so)."""
        puzzle = self.puzzle
        if len(grid) != puzzle.height or any(len(row) != puzzle.width for row in grid):
            return verify(puzzle, grid)
        if self.pattern is not None:
            if colors is None:
                try:
                    colors = b"".join(map(bytes, grid))
                except (TypeError, ValueError):  # a cell that is not a byte
                    return verify(puzzle, grid)
            if not self._lines_right(colors):
                return verify(puzzle, grid)  # raises, naming every wrong line
            return grid
        self.calls += 1
        lines = (*grid, *zip(*grid, strict=True))
        if self.calls == 1:  # most solves verify one grid: no line worth remembering yet
            if not self._in_palette(grid) or not all(map(self._right, range(len(lines)), lines)):
                return verify(puzzle, grid)  # raises, naming every wrong line
            return grid
        palette = len(puzzle.palette)
        good = self.good
        for index, cells in enumerate(lines):
            key = (index, tuple(cells))
            if key in good:
                continue
            if min(cells) < 0 or max(cells) >= palette or not self._right(index, cells):
                return verify(puzzle, grid)
            if len(good) > 1_000_000:
                good.clear()
            good.add(key)
        return grid

    def all_right(self, grids: Sequence[bytes]) -> bool:
        """Whether every grid of `grids` (each its cells row by row, as bytes) is right, all
        checked at once: the rows of all of them in turn matched by `pattern`'s rows, one call
        in C, then the columns. The lines are gathered by strided slices, as many per call as
        the grid has columns (rows) or cells (columns), however many grids: a stream checks a
        batch of hundreds for the cost of a few. False when a grid is wrong or the puzzle has
        no pattern (not black and white, or blotted): then check each grid alone, which names
        the lines.
        """
        if self.pattern is None or not grids:
            return False
        width, height = self.puzzle.width, self.puzzle.height
        cells = width * height
        if any(len(grid) != cells for grid in grids):
            return False
        data = b"".join(grids)
        if data.translate(None, b"\x00\x01"):  # only white and black cells
            return False
        many = len(grids)
        rows_expression, columns_expression = self.pattern
        # Every row of every grid in turn, each followed by a separator.
        rows = bytearray((width + 1) * height * many)
        rows[width :: width + 1] = _SEPARATOR_CELL * (height * many)
        for column in range(width):
            rows[column :: width + 1] = data[column::width]
        if rows_expression.fullmatch(rows.translate(_WRITTEN)) is None:
            return False
        # Every column of every grid in turn, each followed by a separator: cell (row, column)
        # of every grid at once.
        lines = bytearray((height + 1) * width * many)
        lines[height :: height + 1] = _SEPARATOR_CELL * (width * many)
        stride = width * (height + 1)
        for row in range(height):
            for column in range(width):
                lines[column * (height + 1) + row :: stride] = data[row * width + column :: cells]
        return columns_expression.fullmatch(lines.translate(_WRITTEN)) is not None

    def _lines_right(self, colors: bytes) -> bool:
        """`all_right` for one grid (its cells row by row), its lines cut apart by slices."""
        assert self.pattern is not None
        width = self.puzzle.width
        if width <= 0 or len(colors) != width * self.puzzle.height:
            return False
        if colors.translate(None, b"\x00\x01"):  # only white and black cells
            return False
        rows = [colors[start : start + width] for start in range(0, len(colors), width)]
        columns = [colors[column::width] for column in range(width)]
        return all(
            expression.fullmatch(
                (_SEPARATOR_CELL.join(lines) + _SEPARATOR_CELL).translate(_WRITTEN)
            )
            for expression, lines in zip(self.pattern, (rows, columns), strict=True)
        )

    def _in_palette(self, grid: Grid) -> bool:
        """Every cell a palette index."""
        colors = len(self.puzzle.palette)
        return all(min(row) >= 0 and max(row) < colors for row in grid)

    def _right(self, index: int, cells: tuple[int, ...]) -> bool:
        """Whether line `index` (of palette indices) has its clue's runs."""
        found, wanted = runs(cells), self.exact[index]
        return found == wanted if wanted is not None else matches(found, self.expected[index])


def _lines_expression(clues: Sequence[Sequence[Block]]) -> re.Pattern[bytes]:
    """The text (`_WRITTEN`) of lines with these clues, one after the other, each ended by
    its separator, any number of times over: per line, its white cells, then each block as
    exactly so many black cells, one or more white cells between two, white cells to the
    separator. Every repeat is possessive: nothing is ever tried twice, so a batch of grids is
    matched in one pass, and a block cannot be read shorter than it is (the next character
    must be white)."""

    def line(clue: Sequence[Block]) -> str:
        blocks = " ++".join(f"1{{{block.length}}}" for block in clue)
        return f" *+{blocks} *+\\|" if blocks else " *+\\|"

    return re.compile(f"(?:{''.join(line(clue) for clue in clues)})*+".encode("ascii"))
