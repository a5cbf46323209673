"""The exact line solver alone: lines solved per second, by line length and number of blocks,
on empty lines and on partly decided ones: the native engine's (satnono.logic.native), this
satnono's Python reference, earlier checkouts' and the cell-parallel design of
tools/line_cells.py, in one run.

`python tools/bench_lines.py [--checkout DIR ...] [--lines 300] [--repeat 5]`: the same seeded
black-and-white lines for every column (each a random clue that fits, and for the partly
decided kind the cells of one of its solutions, each known with probability 0.3); every solve
bypasses the cache (`solve_uncached` on a new solver), the best of --repeat passes is kept.
The native solver is timed alone, as the Python one is (its set-up outside the timing): a batch
of the lines solved NATIVE_REPEAT times each (or 10, 100... times more, until solving takes ten
times the call) in one call, on each line's state made once as a
search holds it, less the same call solving each once (crossing into the engine, converting
the domains), per solve; `native, one call a batch` is the call as a whole, crossing included.
A checkout runs in a process started in its folder (a `git worktree` of an earlier commit).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

#: Run in the satnono to measure (this one, or a checkout's): prints {"n k kind": lines/s}.
MEASURE = """
import json, random, sys, time
from satnono.reference.linesolver import LineSolver
from satnono.core.model import Block

def line(rng, n, k, known):
    while True:
        lengths = [rng.randint(1, max(1, (n - k + 1) // k)) for _ in range(k)]
        if sum(lengths) + k - 1 <= n:
            break
    slack = n - (sum(lengths) + k - 1)
    starts, gaps = [], sorted(rng.randint(0, slack) for _ in range(k))
    position = 0
    for i, length in enumerate(lengths):
        position += gaps[i] - (gaps[i - 1] if i else 0)
        starts.append(position)
        position += length + 1
    cells = [1] * n
    for start, length in zip(starts, lengths):
        cells[start : start + length] = [2] * length
    domains = tuple(c if rng.random() < known else 3 for c in cells)
    return tuple(Block(length) for length in lengths), domains

count, repeat, design = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
NATIVE_REPEAT = 200
if design == "cells":
    sys.path.insert(0, sys.argv[4])
    import line_cells
if design.startswith("native"):
    from satnono.logic import native
rates = {}
for n in (10, 20, 25, 30, 50, 100):
    for k in (1, 3, 6, 12):
        if 2 * k > n:
            continue
        for kind, known in (("empty", 0.0), ("partly decided", 0.3)):
            rng = random.Random(n * 1000 + k * 10 + int(known * 10))
            cases = [line(rng, n, k, known) for _ in range(count)]
            best = float("inf")
            if design.startswith("native"):
                batch = [([(b.length, b.color) for b in clue], d) for clue, d in cases]
                for _ in range(repeat):
                    started = time.perf_counter()
                    native.solve_lines(2, batch, 1)
                    once = time.perf_counter() - started
                    # Enough repeats that solving outweighs the call (a closed form takes ns).
                    solves = NATIVE_REPEAT
                    while design == "native":
                        started = time.perf_counter()
                        native.solve_lines(2, batch, solves)
                        many = time.perf_counter() - started
                        if many > 10 * once or solves * 10 > 100_000:  # the engine's most
                            # A hiccup in the single call can outlast the many (the test
                            # suite met a negative rate so): then the many alone say it.
                            once = (many - once) / (solves - 1) if many > once else many / solves
                            break
                        solves *= 10
                    best = min(best, once)
                rates[f"{n} {k} {kind}"] = count / best
                continue
            for _ in range(repeat):
                if design == "cells":
                    numbers = [(tuple(b.length for b in clue), domains) for clue, domains in cases]
                    started = time.perf_counter()
                    for lengths, domains in numbers:
                        line_cells.solve(lengths, domains)
                else:
                    solvers = [(LineSolver(clue, n, 2), domains) for clue, domains in cases]
                    started = time.perf_counter()
                    for solver, domains in solvers:
                        solver.solve_uncached(domains)
                best = min(best, time.perf_counter() - started)
            rates[f"{n} {k} {kind}"] = count / best
print(json.dumps(rates))
"""


def rates(
    checkout: Path | None, lines: int, repeat: int, design: str = "satnono"
) -> dict[str, float]:
    """{"length blocks kind": lines per second} of satnono's line solver (this one or a
    checkout's), or of the cell-parallel design (`design` "cells")."""
    tools = str(Path(__file__).resolve().parent)
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, str(lines), str(repeat), design, tools],
        cwd=checkout, capture_output=True, text=True, check=True,
    )  # fmt: skip
    measured: dict[str, float] = json.loads(done.stdout)
    return measured


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/bench_lines.py", description=__doc__)
    parser.add_argument("--checkout", type=Path, action="append", default=[])
    parser.add_argument("--lines", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    columns = {
        "native": rates(None, args.lines, args.repeat, "native"),
        "native, one call a batch": rates(None, args.lines, args.repeat, "native-call"),
        "Python": rates(None, args.lines, args.repeat),
    }
    for checkout in args.checkout:
        columns[f"@{checkout}"] = rates(checkout.resolve(), args.lines, args.repeat)
    columns["cell-parallel"] = rates(None, args.lines, args.repeat, "cells")
    names = list(columns)
    print(
        "| length | blocks | line | "
        + " | ".join(f"{name}, lines/s" for name in names)
        + " | native / Python |"
    )
    print("|---" * (len(names) + 4) + "|")
    for key in columns["Python"]:
        length, blocks, kind = key.split(" ", 2)
        cells = " | ".join(f"{columns[name][key]:,.0f}" for name in names)
        ratio = columns["native"][key] / columns["Python"][key]
        print(f"| {length} | {blocks} | {kind} | {cells} | {ratio:,.0f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
