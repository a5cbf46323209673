"""The computer-olympiad tournament sets, run as the tournaments run them (each set's puzzles in
order, one process, one core, one solution each): satnono against the peers given, set by set
in turn, in one run; CPU seconds of each whole process (and the processes it waited for).

`python tools/bench_tournament.py QUESTIONS... [--nonosolve PATH] [--lalafrog PATH
--lalafrog-limit S] [--output BENCHMARKS.md]`, e.g. on
`../shared/puzzles/tournament/question/*.txt`. satnono runs `satnono tournament SET -o
ANSWERS --log LOG`; nonosolve runs `nonosolve --taai SET -o ANSWERS --log LOG`; LalaFrogKK
(which reads input.txt and writes solution.txt in its folder, whatever it is given) runs in a
scratch folder under `--lalafrog-limit` seconds of wall time a set (it took 15 minutes for
two thirds of taai2011 here), its answers counted so far. Every answer file is checked against
the clues by satnono's independent checker: a wrong answer counts as not solved. Peers are
optional: without them the table has satnono's columns only. Prints (or writes into
--output, section `tournament`) a Markdown table.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import replace_section  # noqa: E402

from satnono.core.verify import problems  # noqa: E402
from satnono.formats.tournament import parse_answers, parse_tournament  # noqa: E402


@dataclass(frozen=True)
class SetRun:
    """One program on one set: CPU and wall seconds, answers right, and the slowest puzzle's
    seconds by its own log (None when it keeps none)."""

    program: str
    cpu: float
    wall: float
    right: int
    total: int
    slowest: float | None


def children_cpu() -> float:
    """CPU seconds of the child processes waited for so far (and of theirs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(command: Sequence[str], cwd: Path | None, limit: float | None) -> tuple[float, float]:
    """(CPU, wall) seconds of a command and everything it waited for; killed at `limit`."""
    cpu, wall = children_cpu(), time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        process.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    return children_cpu() - cpu, time.perf_counter() - wall


def _right(questions: Path, answers: Path) -> tuple[int, int]:
    """Answers that satisfy their puzzle's clues, and puzzles."""
    puzzles = parse_tournament(questions.read_text())
    given = parse_answers(answers.read_text()) if answers.exists() else {}
    good = sum(
        1
        for puzzle in puzzles
        if puzzle.title in given and not problems(puzzle, given[puzzle.title])
    )
    return good, len(puzzles)


def _slowest(log: Path, column: int) -> float | None:
    """The largest time in a per-puzzle log (its `column`, tab-separated)."""
    if not log.exists():
        return None
    times = []
    for line in log.read_text().splitlines():
        fields = line.split("\t")
        if len(fields) > column:
            try:
                times.append(float(fields[column]))
            except ValueError:
                continue
    return max(times, default=None)


def run_satnono(questions: Path, work: Path) -> SetRun:
    answers, log = work / "satnono.txt", work / "satnono.log"
    command = [sys.executable, "-m", "satnono", "tournament", str(questions.resolve()),
               "-o", str(answers), "--log", str(log)]  # fmt: skip
    cpu, wall = _timed(command, ROOT, None)
    right, total = _right(questions, answers)
    return SetRun("satnono", cpu, wall, right, total, _slowest(log, 1))


def run_nonosolve(questions: Path, work: Path, program: Path) -> SetRun:
    answers, log = work / "nonosolve.txt", work / "nonosolve.log"
    command = [str(program), "--taai", str(questions.resolve()), "-o", str(answers),
               "--log", str(log)]  # fmt: skip
    cpu, wall = _timed(command, None, None)
    right, total = _right(questions, answers)
    return SetRun("nonosolve", cpu, wall, right, total, _slowest(log, 1))


def run_lalafrog(questions: Path, work: Path, program: Path, limit: float) -> SetRun:
    folder = work / "lalafrog"
    folder.mkdir()
    shutil.copy(questions, folder / "input.txt")
    cpu, wall = _timed([str(program.resolve())], folder, limit)
    right, total = _right(questions, folder / "solution.txt")
    return SetRun("LalaFrogKK", cpu, wall, right, total, None)


def table(runs: dict[str, list[SetRun]], programs: list[str]) -> list[str]:
    header = "| set | " + " | ".join(f"{p}: solved, CPU s (slowest)" for p in programs)
    header += " | " + " | ".join(f"{p} / satnono CPU" for p in programs[1:]) + " |"
    lines = [header, "|---" * (1 + 2 * len(programs) - 1) + "|"]
    totals = {program: [0.0, 0, 0] for program in programs}
    for name, found in runs.items():
        by = {run.program: run for run in found}
        cells = []
        for program in programs:
            run = by[program]
            slowest = "" if run.slowest is None else f" ({run.slowest:.2f})"
            cells.append(f"{run.right}/{run.total}, {run.cpu:.1f}{slowest}")
            totals[program][0] += run.cpu
            totals[program][1] += run.right
            totals[program][2] += run.total
        ratios = [f"{by[p].cpu / by[programs[0]].cpu:.2f}x" for p in programs[1:]]
        lines.append(f"| {name} | " + " | ".join(cells + ratios) + " |")
    total_cells = [f"**{t[1]}/{t[2]}, {t[0]:.1f}**" for t in totals.values()]
    subject = totals[programs[0]][0]
    total_ratios = [f"**{totals[p][0] / subject:.2f}x**" for p in programs[1:]]
    lines.append("| **all** | " + " | ".join(total_cells + total_ratios) + " |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/bench_tournament.py", description=__doc__)
    parser.add_argument("questions", type=Path, nargs="+")
    parser.add_argument("--nonosolve", type=Path)
    parser.add_argument("--lalafrog", type=Path)
    parser.add_argument("--lalafrog-limit", type=float, default=900.0)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args(argv)
    runs: dict[str, list[SetRun]] = {}
    programs = ["satnono"]
    for questions in args.questions:
        with tempfile.TemporaryDirectory(prefix="satnono-tournament-") as scratch:
            work = Path(scratch)
            found = [run_satnono(questions, work)]
            if args.nonosolve is not None:
                found.append(run_nonosolve(questions, work, args.nonosolve))
            if args.lalafrog is not None:
                found.append(run_lalafrog(questions, work, args.lalafrog, args.lalafrog_limit))
        runs[questions.stem] = found
        programs = [run.program for run in found]
        for run in found:
            print(f"{questions.stem}: {run}", file=sys.stderr, flush=True)
    command = " ".join(["python tools/bench_tournament.py", *(argv or sys.argv[1:])])
    text = [
        "## The tournament sets",
        "",
        f"Measured {time.strftime('%Y-%m-%d')} with `{command}`: each set in order, one "
        "process each, one solution per puzzle; CPU seconds of the whole process; answers "
        "checked against the clues (a wrong one is not solved); slowest: a puzzle's seconds "
        "by the program's own log.",
        "",
        *table(runs, programs),
    ]
    if args.output is None:
        print("\n".join(text))
        return 0
    old = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
    args.output.write_text(replace_section(old, "tournament", "\n".join(text)), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
