"""Confirm a count by a second, independent method: split on one cell, count each side apart.

A dev tool (`python tools/confirm_count.py PUZZLE... [--timeout S]`). For each puzzle: the
engine's count as `satnono count` makes it (the sweep where the board is narrow, else the
search); then the first undecided cell after line logic is fixed to each of its colors, and
each side counted by another method: the engine's search alone (no sweep) for the first color,
Ganak on the puzzle's CNF with that cell fixed for the others (the engine's search where Ganak
does not finish). The count is confirmed when the sides add up to it. Prints one Markdown row
a puzzle: the count, its method, the sides with theirs, and the verdict.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from satnono import read_puzzle
from satnono.core.grids import initial_domains
from satnono.logic.counted import CountKnobs
from satnono.logic.native import Engine
from satnono.runtime.deadline import Deadline

#: Ganak in a process of its own (pyganak cannot be stopped in-process): path, cell, color.
GANAK_SIDE = """
import sys
from satnono.encode.cnf import encode_puzzle
from satnono.pipeline.counting.counters import ganak_count
from satnono.formats import read_puzzle
from satnono.reference.propagate import propagate_root
from satnono.core.grids import initial_domains
puzzle = read_puzzle(sys.argv[1])
domains = initial_domains(puzzle)
domains[int(sys.argv[2])] = 1 << int(sys.argv[3])
propagator, reason = propagate_root(puzzle, domains)
lines = range(puzzle.height + puzzle.width)
print(0 if reason else ganak_count(encode_puzzle(propagator, domains, lines)))
"""

SEARCH_ONLY = CountKnobs(sweep_width=0, sweep_trial=0)


def engine_count(engine: Engine, domains: list[int], seconds: float, knobs: CountKnobs) -> str:
    """The count as text ('-' when not exact in time) and its methods."""
    job = engine.count(domains, Deadline(seconds), knobs)
    while not job.wait(0.5):
        pass
    counted = job.counted()
    if not counted.exact:
        return "-"
    methods = "+".join(sorted({part.method for part in counted.parts})) or "line logic"
    return f"{counted.count} {methods}"


def ganak_side(path: Path, cell: int, color_index: int, seconds: float) -> str:
    """Ganak's count of the puzzle with `cell` fixed to the palette's color `color_index`
    ('-' when it does not finish in time)."""
    command = [sys.executable, "-c", GANAK_SIDE, str(path), str(cell), str(color_index)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=seconds)
    except subprocess.TimeoutExpired:
        return "-"
    answer = done.stdout.strip()
    return f"{answer} ganak" if done.returncode == 0 and answer.isdigit() else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("puzzles", nargs="+", type=Path)
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args()
    print("| puzzle | count | cell | sides | confirmed | s |")
    print("|---|---|---|---|---|---|")
    for path in args.puzzles:
        started = time.perf_counter()
        puzzle = read_puzzle(path)
        engine = Engine(puzzle)
        domains = list(initial_domains(puzzle))
        whole = engine_count(engine, domains, args.timeout, CountKnobs())
        root = engine.propagate(domains).domains
        cell = next((i for i, d in enumerate(root) if d & (d - 1)), None)
        if cell is None or whole == "-":
            print(f"| {path.stem} | {whole} | - | - | no split | - |", flush=True)
            continue
        colors = [c for c in range(len(puzzle.palette)) if root[cell] >> c & 1]
        sides = []
        for index, color in enumerate(colors):
            fixed = list(root)
            fixed[cell] = 1 << color
            side = ganak_side(path, cell, color, args.timeout) if index else "-"
            if side == "-":
                side = engine_count(engine, fixed, args.timeout, SEARCH_ONLY)
                side = side.replace("search", "search alone") if side != "-" else side
            sides.append(side)
        total = sum(int(side.split()[0]) for side in sides) if "-" not in sides else None
        verdict = "yes" if total == int(whole.split()[0]) else "NO" if total else "unfinished"
        x, y = cell % puzzle.width, cell // puzzle.width
        print(
            f"| {path.stem} | {whole} | ({y}, {x}) | {' + '.join(sides)} | {verdict} "
            f"| {time.perf_counter() - started:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
