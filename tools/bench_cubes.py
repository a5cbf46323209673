"""How the cubes backend scales: one puzzle, whole `satnono solve --backend cubes` processes with
1 and 2 workers, alternating; the makespans simulated for more workers from the cube times.

`python tools/bench_cubes.py PUZZLE [--cubes 32] [--repeat 2] [--max-solutions 0] [--solver S]`:
with --max-solutions 0 every cube is searched to the end, so the work is the same for any
number of workers and the speed-up is the scheduler's, not luck in which cube holds a solution.
A named --solver (e.g. glucose3, the default's first) is never escalated to CaDiCaL: the
default switches after 10 s of wall time, so a cube's work then depends on the machine's speed
at that moment, and one run can take twice as long as the next.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence


def run(
    puzzle: str, workers: int, cubes: int, max_solutions: int, solver: str | None = None
) -> dict[str, object]:
    command = [
        sys.executable, "-m", "satnono", "solve", puzzle, "--backend", "cubes", "--workers",
        str(workers), "--cubes", str(cubes), "--max-solutions", str(max_solutions), "--json",
        *(["--solver", solver] if solver else []),
    ]  # fmt: skip
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    data = json.loads(done.stdout)
    stats = data["stats"]
    return {
        "workers": workers, "wall": wall, "status": data["status"],
        "solutions": data["solutions_found"],
        "cubes": f"{stats['cubes']} (+{len(stats['cube_seconds']) - stats['cubes']} parts "
                 f"of {stats.get('cubes_split_again', 0)} split again)",
        "cpu": stats.get("cpu_seconds"), "simulated": stats.get("simulated_makespan", {}),
        "longest": max((t for t in stats["cube_seconds"] if t is not None), default=None),
    }  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/bench_cubes.py", description=__doc__)
    parser.add_argument("puzzle")
    parser.add_argument("--cubes", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--max-solutions", type=int, default=0)
    parser.add_argument("--solver", default=None)
    args = parser.parse_args(argv)
    runs: dict[int, list[dict[str, object]]] = {1: [], 2: []}
    for number in range(args.repeat):
        for workers in (1, 2) if number % 2 == 0 else (2, 1):
            solved = run(args.puzzle, workers, args.cubes, args.max_solutions, args.solver)
            runs[workers].append(solved)
    print("| workers | wall s (each run) | median | status | solutions | cubes | cube seconds "
          "in all | longest cube | simulated 8 / 64 / 512 workers |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    medians = {}
    for workers, done in runs.items():
        walls = [float(str(r["wall"])) for r in done]
        medians[workers] = statistics.median(walls)
        last = done[-1]
        simulated = last["simulated"]
        assert isinstance(simulated, dict)
        shown = " / ".join(str(simulated.get(str(n), "-")) for n in (8, 64, 512))
        print(f"| {workers} | {', '.join(f'{w:.1f}' for w in walls)} | {medians[workers]:.1f} | "
              f"{last['status']} | {last['solutions']} | {last['cubes']} | {last['cpu']} | "
              f"{last['longest']} | {shown} |")  # fmt: skip
    print(f"\nSpeed-up from 1 to 2 workers (medians): {medians[1] / medians[2]:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
