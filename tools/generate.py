"""Write a seeded set of generated puzzles as .non files: a dev tool (`make bench` uses it).

`python tools/generate.py tuning|held-out|easy|frontier|cubes FOLDER [--count N]`: the tuning
set is for choosing settings, the held-out set for reporting them, never tuned on
(BENCHMARKS.md), the easy set for archive throughput, the frontier set (45x45 and 50x50,
density 0.45) for what no solver decides yet, and the cubes set (30x30 to 40x40, density
0.45) for measuring cube-and-conquer.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from satnono.formats import write_puzzles
from satnono.generate import (
    CUBES_SEED,
    CUBES_SIDES,
    EASY_DENSITIES,
    EASY_SEED,
    EASY_SIDES,
    FRONTIER_DENSITIES,
    FRONTIER_SEED,
    FRONTIER_SIDES,
    HELD_OUT_SEED,
    TUNING_SEED,
    random_set,
)

#: Each set: its first seed, and its sides and densities (None: the generator's defaults).
SETS = {
    "tuning": (TUNING_SEED, None),
    "held-out": (HELD_OUT_SEED, None),
    "easy": (EASY_SEED, (EASY_SIDES, EASY_DENSITIES)),
    "frontier": (FRONTIER_SEED, (FRONTIER_SIDES, FRONTIER_DENSITIES)),
    "cubes": (CUBES_SEED, (CUBES_SIDES, FRONTIER_DENSITIES)),
}


def main(argv: Sequence[str] | None = None) -> int:
    """Write the set as .non files into FOLDER."""
    parser = argparse.ArgumentParser(prog="tools/generate.py", description=__doc__)
    parser.add_argument("set", choices=tuple(SETS))
    parser.add_argument("folder", type=Path)
    parser.add_argument("--count", type=int, default=40)
    args = parser.parse_args(argv)
    first, shape = SETS[args.set]
    args.folder.mkdir(parents=True, exist_ok=True)
    seeds = range(first, first + args.count)
    chosen = random_set(first, args.count, *shape) if shape else random_set(first, args.count)
    for puzzle, seed in zip(chosen, seeds, strict=True):
        write_puzzles([puzzle], args.folder / f"{args.set}-{seed}-{puzzle.width}.non")
    print(f"wrote {args.count} {args.set} puzzles to {args.folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
