"""Blotted clues on real puzzles: hide every Nth clue number of corpus puzzles, then solve with
each backend, count, and check that the backends agree.

A dev tool (`python tools/measure_blotted.py ../shared/puzzles/corpus --every 4`): no corpus
puzzle is blotted, so the blotted puzzles are made from real ones; the verdicts must agree
across backends, and every reported solution is verified against the known numbers by satnono
itself before it is returned.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import replace
from pathlib import Path

import satnono
from satnono.core.model import BLOTTED, Block, Clue

BACKENDS = ("sat", "cpsat", "backtrack")
SUFFIXES = {".non", ".xml", ".g"}


def blotted(clue: Clue, offset: int, every: int) -> Clue:
    """The clue with every `every`-th number hidden, counted from `offset`."""
    return tuple(
        Block(BLOTTED, block.color) if (offset + i) % every == 0 else block
        for i, block in enumerate(clue)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--every", type=int, default=4, help="hide every Nth clue number")
    parser.add_argument("--puzzles", type=int, default=20)
    parser.add_argument("--max-cells", type=int, default=900)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=60)
    options = parser.parse_args()
    chosen = []
    for path in sorted(p for p in options.corpus.rglob("*") if p.suffix in SUFFIXES):
        try:
            puzzle = satnono.read_puzzle(str(path))
        except ValueError:
            continue
        if puzzle.width * puzzle.height <= options.max_cells:
            chosen.append((path, puzzle))
    random.Random(options.seed).shuffle(chosen)
    totals = dict.fromkeys(BACKENDS, 0.0)
    disagreements = 0
    for path, puzzle in chosen[: options.puzzles]:
        every = options.every
        rows = tuple(blotted(clue, i, every) for i, clue in enumerate(puzzle.rows))
        columns = tuple(blotted(clue, i + 1, every) for i, clue in enumerate(puzzle.columns))
        hidden = replace(puzzle, rows=rows, columns=columns, goal=None)
        shown = [f"{path.name[:28]:28}", f"{puzzle.width}x{puzzle.height}"]
        verdicts = set()
        for backend in BACKENDS:
            start = time.perf_counter()
            result = satnono.solve(hidden, backend=backend, timeout=options.timeout)
            seconds = time.perf_counter() - start
            totals[backend] += seconds
            verdicts.add(result.status)
            shown.append(f"{backend}={result.status}/{seconds:.2f}s")
        counted = satnono.count(hidden, timeout=options.timeout)
        shown.append(f"count={counted.count}{'' if counted.exact else '+'}/{counted.seconds:.1f}s")
        disagreements += len(verdicts) > 1
        shown.append("agree" if len(verdicts) == 1 else "DISAGREE")
        print("  ".join(shown), flush=True)
    print("total seconds:", {name: round(value, 2) for name, value in totals.items()})
    print("disagreements:", disagreements)


if __name__ == "__main__":
    main()
