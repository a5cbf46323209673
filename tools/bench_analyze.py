"""Time `satnono analyze` against a previous satnono, and compare their ambiguous cells.

A dev tool (`python tools/bench_analyze.py --previous /tmp/prev PUZZLE... [--timeout S]`):
each run a fresh process; wall and CPU seconds (user + system, children included); "same
cells" says whether both list the same ambiguous cells.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def analyzed(puzzle: Path, timeout: float, cwd: Path | None) -> tuple[dict[str, Any], float, float]:
    """The analysis object, wall seconds and CPU seconds of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    command = [sys.executable, "-m", "satnono", "analyze", str(puzzle.resolve()), "--json"]
    done = subprocess.run(
        [*command, "--timeout", str(timeout)], capture_output=True, text=True, cwd=cwd
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return json.loads(done.stdout), wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("puzzles", nargs="+", type=Path)
    parser.add_argument("--previous", type=Path, required=True)
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()
    print("| puzzle | ambiguous now | s (CPU) | previous | s (CPU) | same cells |")
    print("|---|---|---|---|---|---|")
    for puzzle in args.puzzles:
        now, wall, cpu = analyzed(puzzle, args.timeout, None)
        before, wall_before, cpu_before = analyzed(puzzle, args.timeout, args.previous)

        def shown(data: dict[str, Any]) -> str:
            late = " (timeout)" if data.get("timed_out") else ""
            return f"{len(data.get('ambiguous_cells') or [])}{late}"

        same = "yes" if now.get("ambiguous_cells") == before.get("ambiguous_cells") else "NO"
        print(
            f"| {puzzle.stem} | {shown(now)} | {wall:.2f} ({cpu:.2f}) | {shown(before)} "
            f"| {wall_before:.2f} ({cpu_before:.2f}) | {same} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
