"""`make bench`: time the whole `satnono solve` process on every puzzle of a folder.

Each puzzle runs as a fresh CLI process (imports included, as a user sees it), once per backend,
and the table goes into one marked section of BENCHMARKS.md so other sections stay untouched.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import re
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from satnono.archive.compare import SolveRun
from satnono.archive.files import puzzle_files


@dataclass(frozen=True)
class Configuration:
    """What one column of the table runs: `[backend[/encoding[/solver[/seed]]]][@checkout]`.

    `sat/automaton/glucose42` pins one SAT configuration (the Foundation issue's default);
    `@/tmp/prev` runs the default backend of another satnono checkout (`python -m satnono`
    from that folder imports its package), e.g. a `git worktree` of an earlier commit, so
    that the previous satnono is timed in the same run as the current one.
    """

    spec: str
    backend: str | None
    options: tuple[str, ...]
    checkout: Path | None

    @classmethod
    def parse(cls, spec: str) -> Configuration:
        choice, _, checkout = spec.partition("@")
        backend, *rest = choice.split("/")
        options: list[str] = []
        if rest:
            options += ["--encoding", rest[0]]
        if len(rest) > 1:
            options += ["--solver", rest[1]]
        if len(rest) > 2:
            options += ["--seed", rest[2]]
        folder = Path(checkout) if checkout else None
        return cls(spec, backend or None, tuple(options), folder)


#: Seconds a process may overrun its own --timeout (start-up, clean-up) before it is killed.
GRACE_SECONDS = 5.0


def run_solve_process(
    path: Path,
    backend: str | None,
    limit: int,
    timeout: float,
    extra: Sequence[str] = (),
    checkout: Path | None = None,
) -> SolveRun:
    """Time `satnono solve PATH --json` as a user runs it: a whole fresh process (start-up
    included), under a hard deadline. `backend` None leaves the choice to satnono;
    `checkout` runs the satnono in that folder (a worktree of an earlier commit)."""
    command = [
        sys.executable, "-m", "satnono", "solve", str(path.resolve()), "--json",
        "--max-solutions", str(limit), "--timeout", str(timeout), *extra,
    ]  # fmt: skip
    if backend is not None:
        command += ["--backend", backend]
    name = backend or "default"
    started = time.perf_counter()
    finished = run_killable(command, timeout + GRACE_SECONDS, checkout)
    wall = time.perf_counter() - started
    if finished is None:
        return SolveRun(path.name, name, "killed", timeout, wall, error="killed at deadline")
    returncode, stdout, stderr = finished
    try:
        data: dict[str, Any] = json.loads(stdout)
    except json.JSONDecodeError:
        lines = stderr.strip().splitlines() or [f"exit code {returncode}"]
        return SolveRun(path.name, name, "error", wall, wall, error=lines[-1])
    stats = data.get("stats", {})
    return SolveRun(
        puzzle=path.name, backend=name, status=data["status"], seconds=float(data["seconds"]),
        wall_seconds=wall, solutions_found=data["solutions_found"], complete=data["complete"],
        cells_left=stats.get("cells_left"), variables=stats.get("cnf_variables"),
        clauses=stats.get("cnf_clauses"),
        solutions=tuple(tuple(rows) for rows in data["solutions"]),
    )  # fmt: skip


def run_killable(
    command: Sequence[str], limit: float, cwd: Path | None = None
) -> tuple[int, str, str] | None:
    """Run a command in its own process group; kill the whole group after `limit` seconds.

    Returns (exit code, stdout, stderr), or None when it had to be killed. A whole process is
    what the benchmark times, so this is not satnono.runtime.child's fork of the running one.
    """
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, cwd=cwd,
    )  # fmt: skip
    try:
        stdout, stderr = process.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        process.communicate()
        return None
    finally:
        _kill_group(process)  # anything the command left running in its group goes too
    return process.returncode, stdout, stderr


def _kill_group(process: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def expected_verdicts(folder: Path) -> dict[str, str]:
    """Verdicts from the folder's README when it lists them (webpbn survey convention)."""
    readme = folder.parent / "README.md"
    if not readme.is_file():
        return {}
    text = readme.read_text(encoding="utf-8")
    match = re.search(r"at least\s+two solutions:(.*?)\.\n", text, re.S)
    if match is None:
        return {}
    multiple = {int(n) for n in re.findall(r"(\d+) [a-z_]+", match.group(1))}
    verdicts = {}
    for path in folder.glob("*.non"):
        webpbn_id = int(path.stem.split("-")[0]) if path.stem.split("-")[0].isdigit() else None
        if webpbn_id is not None:
            verdicts[path.stem] = "multiple" if webpbn_id in multiple else "unique"
    return verdicts


def table(runs: list[SolveRun], backends: list[str], expected: dict[str, str]) -> list[str]:
    """Markdown rows: per puzzle the subject's size figures, wall seconds per backend, ratios."""
    first = backends[0]
    head = ["puzzle", "cells left", "CNF vars", "CNF clauses"]
    head += [f"{b} s" for b in backends] + ["verdict"]
    head += [f"{b} / {first}" for b in backends[1:]]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    by_key = {(Path(r.puzzle).stem, r.backend): r for r in runs}
    for name in sorted({Path(r.puzzle).stem for r in runs}, key=_puzzle_order):
        main = by_key[(name, first)]
        verdict = main.status
        if name in expected:
            verdict += " ✓" if main.status == expected[name] else f" ✗ (expected {expected[name]})"
        row = [name, _text(main.cells_left), _text(main.variables), _text(main.clauses)]
        row += [_seconds(by_key[(name, b)]) for b in backends] + [verdict]
        row += [f"{by_key[(name, b)].wall_seconds / main.wall_seconds:.1f}x" for b in backends[1:]]
        lines.append("| " + " | ".join(row) + " |")
    sums = {b: sum(r.wall_seconds for r in runs if r.backend == b) for b in backends}
    right = sum(
        1 for r in runs if r.backend == first and expected.get(Path(r.puzzle).stem) == r.status
    )
    totals = ["**total**", "", "", ""] + [f"**{sums[b]:.2f}**" for b in backends]
    totals.append(f"{right}/{len(expected)} right" if expected else "")
    totals += [f"{sums[b] / sums[first]:.1f}x" for b in backends[1:]]
    lines.append("| " + " | ".join(totals) + " |")
    for backend in backends:
        slowest = max((r for r in runs if r.backend == backend), key=lambda r: r.wall_seconds)
        lines.append("")
        lines.append(
            f"Slowest with {backend}: {Path(slowest.puzzle).stem}, {slowest.wall_seconds:.2f} s."
        )
    return lines


def _seconds(run: SolveRun) -> str:
    text = f"{run.wall_seconds:.2f}"
    return text if run.finished else f"{text} ({run.status})"


def _puzzle_order(name: str) -> tuple[int, str]:
    head = Path(name).stem.split("-")[0]
    return (int(head) if head.isdigit() else 0, name)


def _text(value: int | None) -> str:
    return "" if value is None else str(value)


def replace_section(document: str, section: str, body: str) -> str:
    """Put `body` between this section's markers, appending the section if it is new."""
    start, end = f"<!-- bench:{section} -->", f"<!-- /bench:{section} -->"
    block = f"{start}\n{body.rstrip()}\n{end}"
    pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.S)
    if pattern.search(document):
        return pattern.sub(lambda _: block, document)
    if not document:
        document = (
            "# Benchmarks\n\nMeasured with `make bench` and the commands given per section.\n"
        )
    return document.rstrip() + "\n\n" + block + "\n"


def _time_puzzle(
    path: Path, backends: list[str], configurations: list[Configuration], args: Any
) -> list[SolveRun]:
    """One puzzle, every configuration `args.repeat` times interleaved; the median run each."""
    repeats: dict[str, list[SolveRun]] = {spec: [] for spec in backends}
    for _ in range(max(1, args.repeat)):  # interleaved, so that load drift hits all alike
        for config in configurations:
            run = run_solve_process(
                path, config.backend, args.max_solutions, args.timeout, config.options,
                config.checkout,
            )  # fmt: skip
            repeats[config.spec].append(run)
    chosen = []
    for spec, done in repeats.items():
        # The run of median wall time stands for all: the machine is shared and noisy.
        run = sorted(done, key=lambda r: r.wall_seconds)[(len(done) - 1) // 2]
        run = replace(run, backend=spec)
        print(f"{path.stem:28} {spec:10} {run.wall_seconds:7.2f} s  {run.status}", flush=True)
        chosen.append(run)
    return chosen


def _busy_process() -> subprocess.Popen[bytes]:
    """Another process that keeps one core busy, as on a shared machine."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/bench.py", description=__doc__)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--output", type=Path, help="Markdown file to update (default: print)")
    parser.add_argument(
        "--backends",
        default="sat",
        help="comma-separated [backend[/encoding[/solver]]][@checkout]; the first is the subject",
    )
    parser.add_argument("--max-solutions", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--section", default="survey")
    parser.add_argument("--title", help="the section's heading (default: the command timed)")
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs per puzzle and backend; the median counts"
    )
    parser.add_argument(
        "--single",
        help="the column that is the best single configuration: the table then "
        "gives the subject's total as a ratio to it",
    )
    parser.add_argument(
        "--busy", action="store_true", help="keep one other busy process running (a loaded machine)"
    )
    args = parser.parse_args(argv)
    backends = [b for b in args.backends.split(",") if b]
    files = sorted(puzzle_files([args.folder]), key=lambda p: _puzzle_order(p.stem))
    configurations = [Configuration.parse(spec) for spec in backends]
    runs = []
    busy = _busy_process() if args.busy else None
    try:
        for path in files:
            runs += _time_puzzle(path, backends, configurations, args)
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()
    expected = expected_verdicts(args.folder)
    command = " ".join(["python tools/bench.py", *(argv if argv is not None else sys.argv[1:])])
    today = datetime.date.today().isoformat()
    title = args.title or f"`satnono solve --max-solutions {args.max_solutions}` on `{args.folder}`"
    body = [
        f"## {title}",
        "",
        f"Measured {today} with `{command}`: fresh `satnono solve --json` "
        f"processes, {args.repeat} per puzzle and backend, the median shown (timeout "
        f"{args.timeout:g} s), wall seconds including "
        f"start-up, on {platform.machine()} / Python {platform.python_version()} "
        "(2 cores, shared and noisy: compare the ratios, measured in the same run).",
        "",
        *table(runs, backends, expected),
    ]
    if args.single:
        sums = {b: sum(r.wall_seconds for r in runs if r.backend == b) for b in backends}
        body += [
            "",
            f"Default ({backends[0]}) against the best single configuration ({args.single}): "
            f"{sums[backends[0]]:.2f} s against {sums[args.single]:.2f} s in total, a ratio of "
            f"**{sums[backends[0]] / sums[args.single]:.2f}**"
            + (" (one other busy process ran throughout)." if args.busy else " (no other load)."),
        ]
    text = "\n".join(body)
    if args.output is None:
        print(text)
    else:
        old = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        args.output.write_text(replace_section(old, args.section, text), encoding="utf-8")
        print(f"updated {args.output}", file=sys.stderr)
    subject = [r for r in runs if r.backend == backends[0]]
    wrong = [r for r in subject if expected.get(Path(r.puzzle).stem, r.status) != r.status]
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
