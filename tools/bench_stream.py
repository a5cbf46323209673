"""Time the solution stream against the previous satnono, in one run.

A dev tool (`python tools/bench_stream.py --previous /tmp/prev [--repeat 3] [--solutions N]`):
`satnono solve BOARD --max-solutions N --json-lines` on a board of 20 independent switches
(2^20 solutions, made here), to a file and through `| wc -l`, with and without
PYTHONUNBUFFERED=1, the two checkouts alternating. Every run starts in a scratch folder so that
PYTHONPATH picks the checkout (`python -m` from a repository's folder imports its working tree
first). Prints a Markdown table of wall seconds and solutions a second (medians).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def board(folder: Path) -> Path:
    """20 independent switches written as .non."""
    sys.path.insert(0, str(HERE))
    from satnono.formats import write_puzzles
    from satnono.formats.generate import puzzle_from_grid, switch_board

    path = folder / "sw20.non"
    write_puzzles([puzzle_from_grid(switch_board(1, 20))], path)
    return path


def run(checkout: Path | None, puzzle: Path, solutions: int, unbuffered: bool, pipe: bool) -> float:
    env = dict(os.environ)
    env.pop("PYTHONUNBUFFERED", None)
    env.pop("PYTHONPATH", None)
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    if checkout is not None:
        env["PYTHONPATH"] = str(checkout)
    command = (
        f"{sys.executable} -m satnono solve {puzzle} --max-solutions {solutions} --json-lines"
        + (" | wc -l > /dev/null" if pipe else f" > {puzzle.parent / 'out.jsonl'}")
    )
    started = time.perf_counter()
    subprocess.run(command, shell=True, env=env, check=True, cwd=puzzle.parent)
    return time.perf_counter() - started


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/bench_stream.py", description=__doc__)
    parser.add_argument("--previous", type=Path, help="checkout of the previous satnono")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--solutions", type=int, default=100_000)
    args = parser.parse_args(argv)
    versions: list[tuple[str, Path | None]] = [("now", None)]
    if args.previous:
        versions.append(("previous", args.previous.resolve()))
    with tempfile.TemporaryDirectory() as scratch:
        puzzle = board(Path(scratch))
        walls: dict[tuple[bool, bool, str], list[float]] = {}
        for _ in range(args.repeat):
            for unbuffered in (False, True):
                for pipe in (False, True):
                    for name, checkout in versions:
                        wall = run(checkout, puzzle, args.solutions, unbuffered, pipe)
                        walls.setdefault((unbuffered, pipe, name), []).append(wall)
    print("| stdout | to | satnono | wall s (each run) | median | solutions/s |")
    print("|---|---|---|---|---|---|")
    for (unbuffered, pipe, name), runs in walls.items():
        median = statistics.median(runs)
        print(
            f"| {'PYTHONUNBUFFERED=1' if unbuffered else 'buffered'} | "
            f"{'pipe (wc -l)' if pipe else 'file'} | {name} | "
            f"{', '.join(f'{wall:.2f}' for wall in runs)} | {median:.2f} | "
            f"{args.solutions / median:,.0f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
