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
