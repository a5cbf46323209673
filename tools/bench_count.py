"""Time `satnono count` against the previous satnono and Ganak alone, in one run.

A dev tool (`python tools/bench_count.py --previous /tmp/prev PUZZLE...`): every run is a fresh
process killed at the timeout, so a stuck counter costs exactly the timeout; times are the whole
process's CPU seconds (user + system, its children included), steadier than wall time on a
shared machine. "Ganak alone" is
Ganak on satnono's whole residual CNF (blocks encoding, projected on the cells), as a user of
`satnono cnf` would run it; the current satnono races it per component against its own search.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

GANAK_ALONE = """
import sys
from satnono.encode.cnf import encode_puzzle
from satnono.pipeline.counting.counters import ganak_count
from satnono.formats import read_puzzle
from satnono.reference.propagate import propagate_root
from satnono.core.grids import initial_domains
puzzle = read_puzzle(sys.argv[1])
domains = initial_domains(puzzle)
propagator, reason = propagate_root(puzzle, domains)
lines = range(puzzle.height + puzzle.width)
print(0 if reason else ganak_count(encode_puzzle(propagator, domains, lines)))
"""


def cpu_of_children() -> float:
    """CPU seconds (user + system) of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], timeout: float, cwd: Path | None = None) -> tuple[str, float]:
    """(what the run answered, CPU seconds); '-' when it did not finish in time."""
    start = cpu_of_children()
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, cwd=cwd, check=False
        )
    except subprocess.TimeoutExpired:
        time.sleep(0.1)  # the killed child is reaped: its CPU counts
        return "-", cpu_of_children() - start
    seconds = cpu_of_children() - start
    out = done.stdout.strip()
    if out.startswith("{"):
        data = json.loads(out)
        exact = "" if data["exact"] else " (lower bound)"
        if "method" not in data:  # the previous satnono does not say
            return f"{data['count']}{exact}", seconds
        method = "+".join(sorted(set(data["method"]))) or "line logic"
        return f"{data['count']}{exact} [{method}]", seconds
    return out or f"exit {done.returncode}", seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("puzzles", nargs="+", type=Path)
    parser.add_argument("--previous", type=Path, help="checkout of the previous satnono")
    parser.add_argument("--timeout", type=float, default=30.0)
    args = parser.parse_args()
    python = sys.executable
    print("| puzzle | satnono count | CPU s | previous | CPU s | Ganak alone | CPU s |")
    print("|---|---|---|---|---|---|---|")
    for path in args.puzzles:
        target = str(path.resolve())
        count = [python, "-m", "satnono", "count", target, "--json"]
        now = timed([*count, "--timeout", str(args.timeout)], args.timeout + 5)
        before = (
            timed([*count, "--timeout", str(args.timeout)], args.timeout + 5, args.previous)
            if args.previous
            else ("", 0.0)
        )
        ganak = timed([python, "-c", GANAK_ALONE, target], args.timeout)
        cells = [f"{answer} | {seconds:.2f}" for answer, seconds in (now, before, ganak)]
        print(f"| {path.stem} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
