"""The independent checker: recompute a grid's clues and compare them with the puzzle's.

It shares nothing with the solvers (no automaton, no line solver, no encoding), so a bug there
cannot hide itself here. Every solution is checked before anything reports it.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence

from satnono.core.model import MAX_SIDE, Block, Grid, Puzzle

#: A black-and-white grid written out whole: its lines' cells, black as "1", one space between
#: blocks and none at the ends, the lines joined by _SEPARATOR (cells 0, 1 and the separator
#: 2 translate to " ", "1" and "|").
_SEPARATOR = b"|"
_WRITTEN = bytes.maketrans(b"\x00\x01\x02", b" 1|")
_SEPARATOR_CELL = b"\x02"
#: Grids a verifier checks one by one before it compiles the expressions of `all_right`.
EXPRESSIONS_AFTER = 512
#: A block of each length as black cells (a blotted number, length -1, has none: KeyError).
_BLOCKS = {length: b"1" * length for length in range(1, MAX_SIDE + 1)}


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

    def __init__(self, puzzle: Puzzle, expressions_after: int = EXPRESSIONS_AFTER) -> None:
        self.puzzle = puzzle
        self.expressions_after = expressions_after
        self.expected = [*puzzle.rows, *puzzle.columns]
        #: For a black-and-white puzzle without blotted numbers: every line's clue written as
        #: its cells would be with one white cell between blocks and none at the ends, the
        #: lines joined by _SEPARATOR. A grid is right iff its lines, written out the same way
        #: (runs of white collapsed, ends stripped: `_pattern`), give these bytes: one
        #: comparison, in C, for the whole grid. Else None, and `exact` holds each line's runs
        #: as `runs` gives them (one list comparison instead of `matches`), None where a number
        #: is blotted.
        self.pattern: bytes | None = None
        self.exact: list[list[tuple[int, int]] | None] = []
        if len(puzzle.palette) == 2:
            with contextlib.suppress(KeyError):  # a blotted number has no block of its own
                self.pattern = _SEPARATOR.join(
                    b" ".join([_BLOCKS[block.length] for block in clue]) for clue in self.expected
                )
        #: With `pattern`: the rows' and the columns' clues as regular expressions of their
        #: lines' text, any number of grids in turn (`_lines_expression`), for `all_right`'s
        #: batches; made once this verifier has checked `expressions_after` grids (a puzzle's
        #: take 5-10 ms to compile: a thousand puzzles solved once each paid 9 s for them).
        self.expressions: tuple[re.Pattern[bytes], re.Pattern[bytes]] | None = None
        self.checked = 0
        if self.pattern is None:
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
            written = _pattern(grid) if colors is None else _flat_pattern(colors, puzzle.width)
            if written != self.pattern:
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
        """Whether every grid of `grids` (each its cells row by row, as bytes) is right. Once
        this verifier has checked `expressions_after` grids, all of them at once: the rows of
        every grid in turn matched by `expressions`' rows, one call in C, then the columns
        (18 us a 30x30 grid, against 63 us written out one by one); the lines are gathered by
        strided slices, as many per call as the grid has columns (rows) or cells (columns),
        however many grids. False when a grid is wrong or the puzzle has no pattern (not
        black and white, or blotted): then check each grid alone, which names the lines.
        """
        if self.pattern is None or not grids:
            return False
        width, height = self.puzzle.width, self.puzzle.height
        cells = width * height
        if any(len(grid) != cells for grid in grids):
            return False
        self.checked += len(grids)
        if self.checked < self.expressions_after:
            return all(_flat_pattern(grid, width) == self.pattern for grid in grids)
        data = b"".join(grids)
        if data.translate(None, b"\x00\x01"):  # only white and black cells
            return False
        if self.expressions is None:
            self.expressions = (
                _lines_expression(self.puzzle.rows),
                _lines_expression(self.puzzle.columns),
            )
        rows_expression, columns_expression = self.expressions
        many = len(grids)
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

    def _in_palette(self, grid: Grid) -> bool:
        """Every cell a palette index."""
        colors = len(self.puzzle.palette)
        return all(min(row) >= 0 and max(row) < colors for row in grid)

    def _right(self, index: int, cells: tuple[int, ...]) -> bool:
        """Whether line `index` (of palette indices) has its clue's runs."""
        found, wanted = runs(cells), self.exact[index]
        return found == wanted if wanted is not None else matches(found, self.expected[index])


def _pattern(grid: Grid) -> bytes | None:
    """A black-and-white grid's rows and columns as Verifier.pattern writes clues; None when a
    cell is not 0 or 1 (so that it cannot pass for a separator or a block)."""
    try:
        lines = [bytes(row) for row in grid]
        lines += [bytes(column) for column in zip(*grid, strict=True)]
    except (TypeError, ValueError):  # a cell that is not a byte
        return None
    return _lines_pattern(lines)


def _flat_pattern(colors: bytes, width: int) -> bytes | None:
    """`_pattern` of a grid given as its cells row by row (bytes)."""
    if width <= 0 or len(colors) % width:
        return None
    lines = [colors[start : start + width] for start in range(0, len(colors), width)]
    lines += [colors[column::width] for column in range(width)]
    return _lines_pattern(lines)


def _lines_pattern(lines: list[bytes]) -> bytes | None:
    """Lines of cells (0 and 1) written out as Verifier.pattern writes clues."""
    data = _SEPARATOR_CELL.join(lines)
    if data.translate(None, b"\x00\x01\x02") or data.count(_SEPARATOR_CELL) != len(lines) - 1:
        return None
    return _written(data)


def _written(data: bytes) -> bytes:
    """Cells 0 and 1 and separators (2) written out as Verifier.pattern writes clues."""
    # White as spaces: split() collapses their runs and drops them at the ends, in C, in one
    # piece per block (splitting at every white cell made one per cell: twice the time).
    written = b" ".join(data.translate(_WRITTEN).split())
    return written.replace(b" " + _SEPARATOR, _SEPARATOR).replace(_SEPARATOR + b" ", _SEPARATOR)


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
