"""Puzzles made from pictures: the clues of a grid, and random grids for tests and examples.

Used to build the bundled examples and the property-based tests (random grid -> clues ->
the solver must find that grid among the solutions).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from satnono.core.model import BLACK_AND_WHITE, Block, Color, Grid, Puzzle
from satnono.core.verify import line_clues


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


#: First seeds of the two generated benchmark sets. They never overlap: the tuning set is what
#: constants are chosen on (tools/tune_portfolio.py), the held-out set is what `make bench`
#: reports and nothing is ever chosen on.
TUNING_SEED = 2_000_000
HELD_OUT_SEED = 1_000_000
#: The easy set for archive runs (`satnono batch` benchmark): small, dense, mostly line-solvable.
EASY_SEED = 3_000_000
EASY_SIDES = (10, 12, 15, 18, 20)
EASY_DENSITIES = (0.65, 0.7, 0.75)
#: The frontier set (issue 21): random 45x45 and 50x50 pictures of density 0.45, where line
#: logic decides almost nothing and no solver tried found a solution in minutes.
FRONTIER_SEED = 4_000_000
FRONTIER_SIDES = (45, 50)
FRONTIER_DENSITIES = (0.45,)
#: The cubes set: smaller pictures of the same density, hard enough to take seconds to
#: minutes with one solver, for measuring how cube-and-conquer scales with workers.
CUBES_SEED = 5_000_000
CUBES_SIDES = (30, 35, 40)
#: Sides and densities of the generated sets: random pictures of 20x20 to 50x50, dense enough
#: that line logic rarely finishes them (most need search, many have several solutions).
SIDES = (20, 25, 30, 35, 40, 45, 50)
DENSITIES = (0.5, 0.55, 0.6, 0.65)


def random_set(
    first_seed: int,
    count: int,
    sides: Sequence[int] = SIDES,
    densities: Sequence[float] = DENSITIES,
) -> list[Puzzle]:
    """`count` random black-and-white puzzles, puzzle i made from seed `first_seed + i` alone
    (so a set is regenerated identically, and a puzzle can be named by its seed)."""
    puzzles = []
    for seed in range(first_seed, first_seed + count):
        rng = random.Random(seed)
        side = rng.choice(sides)
        grid = random_grid(side, side, 2, rng.choice(densities), rng)
        puzzles.append(puzzle_from_grid(grid, title=f"random {side}x{side}, seed {seed}"))
    return puzzles
