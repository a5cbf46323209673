"""The grid's lines: the cells of each line (rows first, then columns, as the engine numbers
them) and the two lines through a cell. What the encoders, the backends and the components
need of a puzzle's shape, apart from any line logic."""

from __future__ import annotations

import functools

from satnono.core.model import Puzzle


@functools.lru_cache(maxsize=64)
def line_cells(width: int, height: int) -> tuple[tuple[int, ...], ...]:
    """The cells of every line, rows then columns: the same for every puzzle of a size, so
    archives of same-sized puzzles build them once."""
    rows = [tuple(range(row * width, (row + 1) * width)) for row in range(height)]
    columns = [tuple(range(column, width * height, width)) for column in range(width)]
    return (*rows, *columns)


class Geometry:
    """A puzzle's lines: `cells[line]` for every line, `lines_of(cell)` for every cell."""

    __slots__ = ("cells", "puzzle")

    def __init__(self, puzzle: Puzzle) -> None:
        self.puzzle = puzzle
        self.cells = line_cells(puzzle.width, puzzle.height)

    def lines_of(self, cell: int) -> tuple[int, int]:
        """The row and the column through `cell`."""
        return cell // self.puzzle.width, self.puzzle.height + cell % self.puzzle.width
