"""Write a seeded set of generated puzzles as .non files: a dev tool (`make bench` uses it).

`python tools/generate.py tuning|held-out|easy|frontier|cubes|thin FOLDER [--count N]
[--blot P] [--seed S] [--sides 45,...]`: the tuning
set is for choosing settings, the held-out set for reporting them, never tuned on
(BENCHMARKS.md), the easy set for archive throughput, the frontier set (45x45 and 50x50,
density 0.45) for what no solver decides yet, and the cubes set (30x30 to 40x40, density
0.45) for measuring cube-and-conquer; the thin set (3 to 6 rows, 18 to 200 columns, density
0.5, each block's length blotted to '?' with probability `--blot`) for counting what a sweep
along the long side counts. `--seed` (and for the square sets `--sides`) makes a fresh set of
the same kind to report on, never tuned on: puzzle i from seed S + i alone.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from satnono.core.model import BLOTTED, Clue, Puzzle
from satnono.formats import write_puzzles
from satnono.formats.generate import (
    CUBES_SEED,
    CUBES_SIDES,
    DENSITIES,
    EASY_DENSITIES,
    EASY_SEED,
    EASY_SIDES,
    FRONTIER_DENSITIES,
    FRONTIER_SEED,
    FRONTIER_SIDES,
    HELD_OUT_SEED,
    TUNING_SEED,
    puzzle_from_grid,
    random_grid,
    random_set,
)

#: The thin set's first seed (the counting benchmark's boards).
THIN_SEED = 9000

#: Each set: its first seed, and its sides and densities (None: the generator's defaults).
SETS = {
    "tuning": (TUNING_SEED, None),
    "held-out": (HELD_OUT_SEED, None),
    "easy": (EASY_SEED, (EASY_SIDES, EASY_DENSITIES)),
    "frontier": (FRONTIER_SEED, (FRONTIER_SIDES, FRONTIER_DENSITIES)),
    "cubes": (CUBES_SEED, (CUBES_SIDES, FRONTIER_DENSITIES)),
    "thin": (THIN_SEED, None),
}


def thin_board(seed: int, blot: float) -> Puzzle:
    """A random board of 3 to 6 rows and 18 to 200 columns, some block lengths blotted."""
    rng = random.Random(seed)
    height, width = rng.randint(3, 6), rng.randint(18, 200)
    puzzle = puzzle_from_grid(
        random_grid(width, height, 2, 0.5, rng), title=f"thin {height}x{width} seed {seed}"
    )
    return blotted_board(puzzle, blot, rng)


def blotted_board(puzzle: Puzzle, blot: float, rng: random.Random) -> Puzzle:
    """`puzzle` with each block length blotted with probability `blot` (rows, then columns),
    and no goal picture (it is one solution of many)."""

    def blotted(clue: Clue) -> Clue:
        return tuple(replace(b, length=BLOTTED) if rng.random() < blot else b for b in clue)

    return replace(
        puzzle,
        rows=tuple(blotted(clue) for clue in puzzle.rows),
        columns=tuple(blotted(clue) for clue in puzzle.columns),
        goal=None,
    )


def _sides(text: str) -> tuple[int, ...]:
    """`--sides`: positive whole numbers, comma-separated."""
    try:
        sides = tuple(int(side) for side in text.split(","))
    except ValueError:
        sides = ()
    if not sides or min(sides) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of sides such as 45 or 45,50")
    return sides


def main(argv: Sequence[str] | None = None) -> int:
    """Write the set as .non files into FOLDER."""
    parser = argparse.ArgumentParser(prog="tools/generate.py", description=__doc__)
    parser.add_argument("set", choices=tuple(SETS))
    parser.add_argument("folder", type=Path)
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--blot", type=float, default=0.2, help="thin set: blotted share")
    parser.add_argument(
        "--seed", type=int, help="first seed, for a fresh set to report on (default: the set's)"
    )
    parser.add_argument(
        "--sides",
        type=_sides,
        help="comma-separated sides to draw from, e.g. 45 (default: the set's)",
    )
    args = parser.parse_args(argv)
    first, shape = SETS[args.set]
    if args.seed is not None:
        first = args.seed
    if args.sides is not None:
        if args.set == "thin":
            parser.error("--sides is for the square sets")
        shape = (args.sides, shape[1] if shape else DENSITIES)
    args.folder.mkdir(parents=True, exist_ok=True)
    seeds = range(first, first + args.count)
    if args.set == "thin":
        for seed in seeds:
            puzzle = thin_board(seed, args.blot)
            write_puzzles([puzzle], args.folder / f"thin-{seed}-{puzzle.height}x{puzzle.width}.non")
        print(f"wrote {args.count} thin boards to {args.folder}")
        return 0
    chosen = random_set(first, args.count, *shape) if shape else random_set(first, args.count)
    for puzzle, seed in zip(chosen, seeds, strict=True):
        write_puzzles([puzzle], args.folder / f"{args.set}-{seed}-{puzzle.width}.non")
    print(f"wrote {args.count} {args.set} puzzles to {args.folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
