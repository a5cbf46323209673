"""Choose the backbone's SAT solver on a tuning set: total seconds of the exact backbone (the
ambiguity map of `satnono analyze`) per solver, each puzzle capped.

A dev tool (`python tools/tune_backbone.py DIR... --solvers glucose42,minisat22 --cap 10
[--workers 1,2] [--first-chunks 1,8]`): every combination of solver, workers and first group
size (satnono.pipeline.flipping.FIRST_CHUNK) is timed. Tune
on `python tools/generate.py tuning DIR` and the shared corpus, never on the survey that the
benchmarks report. Puzzles that line logic solves have no backbone to compute and are skipped;
a capped puzzle counts as the cap.
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import satnono.pipeline.backbone
import satnono.pipeline.flipping
from satnono.errors import InputError
from satnono.formats import read_puzzle
from satnono.pipeline.backbone import backbone
from satnono.pipeline.prepare import Prepared, prepare
from satnono.runtime.deadline import Deadline

SUFFIXES = {".non", ".xml", ".g", ".cwd", ".mk", ".nin", ".syro"}


def residuals(folders: list[Path]) -> list[tuple[str, Prepared]]:
    """(name, state after line logic) of every readable puzzle that line logic leaves
    unfinished."""
    found = []
    for folder in folders:
        for path in sorted(p for p in folder.rglob("*") if p.suffix in SUFFIXES):
            try:
                puzzle = read_puzzle(path)
            except InputError:
                continue
            prepared = prepare(puzzle)
            if prepared.reason is None and prepared.cells_left:
                found.append((str(path), prepared))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", type=Path, nargs="+")
    parser.add_argument("--solvers", default="glucose42,minisat22")
    parser.add_argument("--cap", type=float, default=10.0, help="seconds per puzzle")
    parser.add_argument("--workers", default="1", help="comma-separated worker counts")
    parser.add_argument("--first-chunks", default=str(satnono.pipeline.flipping.FIRST_CHUNK),
                        help="comma-separated first group sizes")  # fmt: skip
    options = parser.parse_args()
    puzzles = residuals(options.folders)
    print(f"{len(puzzles)} puzzles with a residual")
    for solver, workers, chunk in itertools.product(
        options.solvers.split(","),
        map(int, options.workers.split(",")),
        map(int, options.first_chunks.split(",")),
    ):
        satnono.pipeline.flipping.FIRST_CHUNK = chunk
        total, wall, capped = 0.0, 0.0, 0
        for _, prepared in puzzles:
            start = time.perf_counter()
            settled = backbone(prepared, Deadline(options.cap), solver, workers)
            seconds = time.perf_counter() - start
            capped += settled is not None and not settled.exact
            total += min(seconds, options.cap)
            wall += seconds  # above the capped total when a solver cannot be stopped
        print(f"{solver}, {workers} workers, first chunk {chunk}: {total:.2f} s in all, "
              f"{capped} capped ({wall:.2f} s wall)", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
