"""Puzzles made from pictures: the clues of a grid, and random grids for tests and examples.

Used to build the bundled examples and the property-based tests (random grid -> clues ->
the solver must find that grid among the solutions).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from satnono.model import BLACK_AND_WHITE, Block, Color, Grid, Puzzle
from satnono.verify import line_clues


def puzzle_from_grid(
    grid: Grid, palette: Sequence[Color] = BLACK_AND_WHITE, title: str = "", keep_goal: bool = True
) -> Puzzle:
    """The puzzle whose clues are the runs of `grid`."""
    rows, columns = line_clues(grid)

    def clues(lines: list[list[tuple[int, int]]]) -> tuple[tuple[Block, ...], ...]:
        return tuple(tuple(Block(length, color) for length, color in line) for line in lines)

    return Puzzle(
        len(grid[0]), len(grid), clues(rows), clues(columns), tuple(palette), title,
        goal=grid if keep_goal else None,
    )  # fmt: skip


def random_grid(width: int, height: int, colors: int, density: float, rng: random.Random) -> Grid:
    """Each cell is painted with probability `density`, in a uniformly chosen color."""
    return tuple(
        tuple(rng.randrange(1, colors) if rng.random() < density else 0 for _ in range(width))
        for _ in range(height)
    )


def switch_board(rows: int, columns: int) -> Grid:
    """A `rows` x `columns` board of 2x2 diagonal switches, one blank line between them.

    Each switch reads the same clues painted on either diagonal, and every row and column of
    switches shares its lines, so the puzzle is one connected component with exactly
    2 ** (rows * columns) solutions: a count that is easy to prove and that no enumeration
    and no split into independent lines can reach.
    """
    grid = [[0] * (3 * columns + 1) for _ in range(3 * rows + 1)]
    for i in range(rows):
        for j in range(columns):
            grid[3 * i + 1][3 * j + 1] = grid[3 * i + 2][3 * j + 2] = 1
    return tuple(tuple(row) for row in grid)
