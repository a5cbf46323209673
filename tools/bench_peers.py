"""Single puzzles against the peers built here: satnono, nonosolve and pbnsolve side by side on
every puzzle of a folder (the webpbn survey), each as a whole process deciding uniqueness (up to
two solutions), in one run; CPU seconds of each process and of those it waited for.

`python tools/bench_peers.py FOLDER [--nonosolve PATH] [--pbnsolve PATH] [--timeout 60]
[--output BENCHMARKS.md --section peers]`. satnono runs `satnono solve FILE --json --timeout
T`; nonosolve `nonosolve -q -n 2 --timeout T FILE`; pbnsolve (which has no time limit of its
own) `pbnsolve -u FILE`, killed at T. A verdict is `unique`, `multiple`, `none`, or `-` when
the program gave none in time; one that disagrees with satnono's (whose solutions its
independent checker verified) is marked ✗. Peers are optional. The peers are built in a
scratch folder, never in the repository (the developers' guide says where each comes from).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench import replace_section
from bench_tournament import children_cpu

ROOT = Path(__file__).resolve().parent.parent
#: The files taken from the folder: formats all three programs read.
SUFFIXES = (".non", ".nin")
#: Seconds a process may run past --timeout before it is killed (start-up, clean-up).
GRACE = 5.0


@dataclass(frozen=True)
class Run:
    """One program on one puzzle: its verdict (None: none in time) and CPU seconds."""

    verdict: str | None
    cpu: float


def _run(command: Sequence[str], limit: float) -> tuple[str, float]:
    """The standard output of `command` (empty when killed at `limit`) and its CPU seconds."""
    before = children_cpu()
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=limit, cwd=ROOT, check=False
        )
        output = done.stdout
    except subprocess.TimeoutExpired:
        output = ""
    return output, children_cpu() - before


def run_satnono(puzzle: Path, timeout: float) -> Run:
    command = [sys.executable, "-m", "satnono", "solve", str(puzzle), "--json",
               "--timeout", str(timeout)]  # fmt: skip
    output, cpu = _run(command, timeout + GRACE)
    try:
        status = json.loads(output)["status"]
    except (ValueError, KeyError):
        return Run(None, cpu)
    verdicts = {"unique": "unique", "multiple": "multiple", "unsolvable": "none"}
    return Run(verdicts.get(status), cpu)


def run_nonosolve(program: Path, puzzle: Path, timeout: float) -> Run:
    command = [str(program), "-q", "-n", "2", "--timeout", str(timeout), str(puzzle)]
    output, cpu = _run(command, timeout + GRACE)
    found = re.search(r" (UNIQUE|MULTIPLE|NONE) time=", output)
    return Run(found.group(1).lower() if found else None, cpu)


def run_pbnsolve(program: Path, puzzle: Path, timeout: float) -> Run:
    output, cpu = _run([str(program), "-u", str(puzzle)], timeout)
    if "UNIQUE" in output:
        return Run("unique", cpu)
    if "MULTIPLE" in output:
        return Run("multiple", cpu)
    return Run("none" if "NO SOLUTION" in output.upper() else None, cpu)


def _order(path: Path) -> tuple[int, str]:
    number = re.match(r"\d+", path.stem)
    return (int(number.group()) if number else 0, path.stem)


def table(rows: dict[str, list[Run]], programs: list[str]) -> list[str]:
    header = "| puzzle | " + " | ".join(f"{p}: CPU s, verdict" for p in programs) + " |"
    lines = [header, "|---" * (1 + len(programs)) + "|"]
    totals = [[0.0, 0] for _ in programs]
    for name, runs in rows.items():
        truth = runs[0].verdict
        cells = []
        for index, run in enumerate(runs):
            differs = None not in (run.verdict, truth) and run.verdict != truth
            cells.append(f"{run.cpu:.2f}, {run.verdict or '-'}{' ✗' if differs else ''}")
            totals[index][0] += run.cpu
            totals[index][1] += run.verdict is not None and run.verdict == truth
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    summary = [f"**{cpu:.2f}, {right}/{len(rows)}**" for cpu, right in totals]
    lines.append("| **total, decided** | " + " | ".join(summary) + " |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/bench_peers.py", description=__doc__)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--nonosolve", type=Path)
    parser.add_argument("--pbnsolve", type=Path)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--output", type=Path)
    parser.add_argument("--section", default="peers")
    args = parser.parse_args(argv)
    puzzles = sorted(
        (path for path in args.folder.iterdir() if path.suffix in SUFFIXES), key=_order
    )
    programs = ["satnono"]
    programs += ["nonosolve"] if args.nonosolve else []
    programs += ["pbnsolve"] if args.pbnsolve else []
    rows: dict[str, list[Run]] = {}
    for puzzle in puzzles:
        runs = [run_satnono(puzzle.resolve(), args.timeout)]
        if args.nonosolve:
            runs.append(run_nonosolve(args.nonosolve.resolve(), puzzle.resolve(), args.timeout))
        if args.pbnsolve:
            runs.append(run_pbnsolve(args.pbnsolve.resolve(), puzzle.resolve(), args.timeout))
        rows[puzzle.stem] = runs
        print(f"{puzzle.stem}: {runs}", file=sys.stderr, flush=True)
    command = " ".join(["python tools/bench_peers.py", *(argv or sys.argv[1:])])
    text = "\n".join([
        f"## Single puzzles against the peers: `{args.folder}`",
        "",
        f"Measured {time.strftime('%Y-%m-%d')} with `{command}`: each puzzle a whole process "
        f"per program, up to two solutions (uniqueness decided), killed past {args.timeout:g} "
        "s; CPU seconds; verdicts against satnono's (✗: they differ); decided: verdicts that "
        "agree with satnono's.",
        "",
        *table(rows, programs),
    ])  # fmt: skip
    if args.output is None:
        print(text)
    else:
        old = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        args.output.write_text(replace_section(old, args.section, text), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
