"""Time the solution stream against the previous satnono, in one run.

A dev tool (`python tools/bench_stream.py --previous /tmp/prev [--repeat 3] [--solutions N]`):
`satnono solve BOARD --max-solutions N --json-lines` on a board of 20 independent switches
(2^20 solutions, made here), to a file and through `| wc -l`, with and without
PYTHONUNBUFFERED=1, the two checkouts alternating. Every run starts in a scratch folder so that
PYTHONPATH picks the checkout (`python -m` from a repository's folder imports its working tree
first). Prints a Markdown table of wall seconds and solutions a second (medians).

With `--puzzles P... [--timeout T]`: every solution of each puzzle instead
(`--max-solutions 0 --json-lines --timeout T`, to a file), both checkouts alternating: how
many were listed, whether all of them, and the process's CPU seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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


def environment(checkout: Path | None, unbuffered: bool) -> dict[str, str]:
    """This process's environment with the checkout on PYTHONPATH (None: the installed
    satnono) and PYTHONUNBUFFERED as asked."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONUNBUFFERED")}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    if checkout is not None:
        env["PYTHONPATH"] = str(checkout)
    return env


def run(checkout: Path | None, puzzle: Path, solutions: int, unbuffered: bool, pipe: bool) -> float:
    env = environment(checkout, unbuffered)
    command = (
        f"{sys.executable} -m satnono solve {puzzle} --max-solutions {solutions} --json-lines"
        + (" | wc -l > /dev/null" if pipe else f" > {puzzle.parent / 'out.jsonl'}")
    )
    started = time.perf_counter()
    subprocess.run(command, shell=True, env=env, check=True, cwd=puzzle.parent)
    return time.perf_counter() - started


def listed(checkout: Path | None, puzzle: Path, timeout: float, scratch: Path) -> tuple[str, float]:
    """Every solution of `puzzle` to a file: "all N" (or "N (status)" when stopped first) and
    the CPU seconds it took."""
    env = environment(checkout, "PYTHONUNBUFFERED" in os.environ)
    command = [
        sys.executable, "-m", "satnono", "solve", str(puzzle.resolve()), "--max-solutions", "0",
        "--json-lines", "--timeout", str(timeout),
    ]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(scratch / "out.jsonl", "w") as out:
        subprocess.run(command, env=env, check=False, cwd=scratch, stdout=out)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    with open(scratch / "out.jsonl") as lines:
        last = json.loads(lines.readlines()[-1])
    found = f"{last['solutions_found']:,}"
    return (f"all {found}" if last["complete"] else f"{found} ({last['status']})"), cpu


def every_solution(puzzles: Sequence[Path], timeout: float, previous: Path | None) -> None:
    versions: list[tuple[str, Path | None]] = [("now", None)]
    if previous:
        versions.append(("previous", previous.resolve()))
    print("| puzzle | " + " | ".join(f"{name}: listed | CPU s" for name, _ in versions) + " |")
    print("|---|" + "---|---|" * len(versions))
    with tempfile.TemporaryDirectory() as scratch:
        for puzzle in puzzles:
            cells = [f"{found} | {cpu:.2f}" for found, cpu in (
                listed(checkout, puzzle, timeout, Path(scratch)) for _, checkout in versions
            )]  # fmt: skip
            print(f"| {puzzle.stem} | " + " | ".join(cells) + " |", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/bench_stream.py", description=__doc__)
    parser.add_argument("--previous", type=Path, help="checkout of the previous satnono")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--solutions", type=int, default=100_000)
    parser.add_argument("--puzzles", type=Path, nargs="+", help="list every solution of these")
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args(argv)
    if args.puzzles:
        every_solution(args.puzzles, args.timeout, args.previous)
        return 0
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
