"""Archive throughput: milliseconds per puzzle on a folder of easy puzzles, five ways, for this
satnono and others (a checkout of an earlier commit, pbnsolve), alternating, in one run.

`python tools/bench_throughput.py FOLDER [--checkout DIR ...] [--pbnsolve PATH] [--repeat 3]
[--per-file 200]`, e.g. on `python tools/generate.py easy /tmp/easy --count 2000`:

- `batch, N workers`: `satnono batch FOLDER --db NEW --workers N`, the whole command (Python,
  the cluster's start-up, reading, solving, the database) divided by the puzzles;
- `solve, one process`: `satnono solve FILE... --quiet`, every file in one process;
- `solve, a process per file`: `satnono solve FILE --quiet` for the first --per-file files;
- `library`: `satnono.solve(puzzle)` in one process, CPU time, puzzles read beforehand;
- `pbnsolve, a process per file`: `pbnsolve -b -u FILE` for the first --per-file files (the
  way the issue timed it: a C program started for each file).

A checkout runs as `python -m satnono` from its folder (a `git worktree`), like tools/bench.py.
Prints a Markdown table (medians of --repeat runs; the machine is shared: compare the columns
of one run, not runs of different days).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

#: The library's figure: CPU milliseconds per puzzle, solving each puzzle of FOLDER once.
LIBRARY = """
import glob, sys, time
import satnono
puzzles = [satnono.read_puzzle(f) for f in sorted(glob.glob(sys.argv[1] + "/*.non"))]
satnono.solve(puzzles[0])
started = time.process_time()
for puzzle in puzzles[1:]:
    satnono.solve(puzzle)
print((time.process_time() - started) / (len(puzzles) - 1) * 1000)
"""


def _wall(command: Sequence[str], cwd: Path | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(
        command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True
    )
    return time.perf_counter() - started


def _per_file(
    command: Callable[[Path], Sequence[str]], files: Sequence[Path], cwd: Path | None = None
) -> float:
    """Milliseconds per file, a process each (exit codes 0 and 1 are verdicts, not failures)."""
    started = time.perf_counter()
    for path in files:
        subprocess.run(
            command(path),
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
    return (time.perf_counter() - started) / len(files) * 1000


def measures(
    folder: Path, files: list[Path], per_file: int, checkout: Path | None
) -> dict[str, Callable[[], float]]:
    """Each way of running this satnono (or the one in `checkout`): ms per puzzle."""
    satnono = [sys.executable, "-m", "satnono"]

    def batch(workers: int) -> float:
        with tempfile.TemporaryDirectory() as scratch:
            db = Path(scratch) / "results.sqlite"
            command = [*satnono, "batch", str(folder), "--db", str(db), "--workers", str(workers)]
            return _wall(command, checkout) / len(files) * 1000

    def library() -> float:
        done = subprocess.run([sys.executable, "-c", LIBRARY, str(folder)], cwd=checkout,
                              capture_output=True, text=True, check=True)  # fmt: skip
        return float(done.stdout)

    def one_process() -> float:
        started = time.perf_counter()
        command = [*satnono, "solve", *map(str, files), "--quiet"]
        subprocess.run(
            command, cwd=checkout, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
        )
        return (time.perf_counter() - started) / len(files) * 1000

    some = files[:per_file]
    return {
        "batch, 1 worker": lambda: batch(1),
        "batch, 2 workers": lambda: batch(2),
        "solve, one process": one_process,
        "solve, a process per file": lambda: _per_file(
            lambda path: [*satnono, "solve", str(path), "--quiet"], some, checkout
        ),
        "library (CPU)": library,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/bench_throughput.py", description=__doc__)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--checkout", type=Path, action="append", default=[])
    parser.add_argument("--pbnsolve", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--per-file", type=int, default=200)
    args = parser.parse_args(argv)
    folder = args.folder.resolve()
    files = sorted(folder.glob("*.non"))
    columns: dict[str, dict[str, Callable[[], float]]] = {
        "this satnono": measures(folder, files, args.per_file, None)
    }
    for checkout in args.checkout:
        columns[f"@{checkout}"] = measures(folder, files, args.per_file, checkout.resolve())
    pbnsolve: Callable[[], float] | None = None
    if args.pbnsolve is not None:
        binary = str(args.pbnsolve.resolve())

        def pbnsolve() -> float:
            return _per_file(lambda path: [binary, "-b", "-u", str(path)], files[: args.per_file])

    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.repeat):  # alternating: every column meets the same minutes of noise
        for column, ways in columns.items():
            for way, measure in ways.items():
                value = measure()
                times.setdefault((column, way), []).append(value)
                print(f"{column:20s} {way:28s} {value:8.2f} ms", file=sys.stderr)
        if pbnsolve is not None:
            times.setdefault(("pbnsolve", "a process per file"), []).append(pbnsolve())
    names = list(columns)
    print(
        f"| ms per puzzle ({len(files)} puzzles; medians of {args.repeat}) | "
        + " | ".join(names)
        + " |"
    )
    print("|---" * (len(names) + 1) + "|")
    for way in next(iter(columns.values())):
        cells = [f"{statistics.median(times[(name, way)]):.2f}" for name in names]
        print(f"| {way} | " + " | ".join(cells) + " |")
    if pbnsolve is not None:
        value = statistics.median(times[("pbnsolve", "a process per file")])
        print(
            f"| pbnsolve, a process per file (first {args.per_file}) | {value:.2f} |"
            + " |" * (len(names) - 1)
        )
    print(f"\nMachine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at the end.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
