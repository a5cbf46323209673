"""Write a seeded set of generated puzzles as .non files: a dev tool (`make bench` uses it).

`python tools/generate.py tuning|held-out|easy FOLDER [--count N]`: the tuning set is for
choosing settings, the held-out set for reporting them, never tuned on (BENCHMARKS.md), the
easy set for archive throughput.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from satnono.formats import write_puzzles
from satnono.generate import (
    EASY_DENSITIES,
    EASY_SEED,
    EASY_SIDES,
    HELD_OUT_SEED,
    TUNING_SEED,
    random_set,
)


def main(argv: Sequence[str] | None = None) -> int:
    """Write the set as .non files into FOLDER."""
    parser = argparse.ArgumentParser(prog="tools/generate.py", description=__doc__)
    parser.add_argument("set", choices=("tuning", "held-out", "easy"))
    parser.add_argument("folder", type=Path)
    parser.add_argument("--count", type=int, default=40)
    args = parser.parse_args(argv)
    first = {"tuning": TUNING_SEED, "held-out": HELD_OUT_SEED, "easy": EASY_SEED}[args.set]
    args.folder.mkdir(parents=True, exist_ok=True)
    seeds = range(first, first + args.count)
    chosen = (
        random_set(first, args.count, EASY_SIDES, EASY_DENSITIES)
        if args.set == "easy"
        else random_set(first, args.count)
    )
    for puzzle, seed in zip(chosen, seeds, strict=True):
        write_puzzles([puzzle], args.folder / f"{args.set}-{seed}-{puzzle.width}.non")
    print(f"wrote {args.count} {args.set} puzzles to {args.folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
