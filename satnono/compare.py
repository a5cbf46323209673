"""`satnono compare`: the same puzzles through several backends, each run a killable process.

Every (puzzle, backend) pair is a fresh `satnono solve --json` process in its own process group,
so a stuck backend is killed with everything it started, never waited for. Results are checked
against each other: a verdict or a solution that differs between backends is a bug somewhere.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from satnono.errors import InputError
from satnono.formats import format_of

#: Seconds a process may overrun its own --timeout (start-up, clean-up) before it is killed.
GRACE_SECONDS = 5.0


@dataclass(frozen=True)
class SolveRun:
    """One `satnono solve` process: what it said and how long it took."""

    puzzle: str
    backend: str
    #: "unique", "multiple", "solved", "unsolvable", "timeout", "killed" or "error".
    status: str
    #: The solver's own time (JSON "seconds"); the timeout when the process was killed.
    seconds: float
    #: Wall time of the whole process, start-up and imports included.
    wall_seconds: float
    solutions_found: int = 0
    complete: bool = False
    cells_left: int | None = None
    variables: int | None = None
    clauses: int | None = None
    error: str = ""
    solutions: tuple[tuple[str, ...], ...] = ()

    @property
    def finished(self) -> bool:
        return self.status in ("unique", "multiple", "solved", "unsolvable")


_running: set[subprocess.Popen[str]] = set()
_running_lock = threading.Lock()
_stopping = threading.Event()


def run_solve_process(
    path: Path,
    backend: str | None,
    limit: int,
    timeout: float,
    extra: Sequence[str] = (),
    checkout: Path | None = None,
) -> SolveRun:
    """Run `satnono solve PATH --json` under a hard deadline (the process group is killed).

    `backend` None leaves the choice to satnono; `checkout` runs the satnono in that folder.
    """
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
        puzzle=path.name,
        backend=name,
        status=data["status"],
        seconds=float(data["seconds"]),
        wall_seconds=wall,
        solutions_found=data["solutions_found"],
        complete=data["complete"],
        cells_left=stats.get("cells_left"),
        variables=stats.get("cnf_variables"),
        clauses=stats.get("cnf_clauses"),
        solutions=tuple(tuple(rows) for rows in data["solutions"]),
    )


def run_killable(
    command: Sequence[str], limit: float, cwd: Path | None = None
) -> tuple[int, str, str] | None:
    """Run a command in its own process group; kill the whole group after `limit` seconds.

    Returns (exit code, stdout, stderr), or None when it had to be killed.
    """
    with _running_lock:
        if _stopping.is_set():
            raise KeyboardInterrupt
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            start_new_session=True, cwd=cwd,
        )  # fmt: skip
        _running.add(process)
    try:
        stdout, stderr = process.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        _kill(process)
        process.communicate()
        return None
    finally:
        _kill(process)  # anything the command left running in its group goes too
        with _running_lock:
            _running.discard(process)
    return process.returncode, stdout, stderr


def _kill(process: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def kill_all() -> None:
    """Kill every solve process still running, and start no more (on Ctrl-C)."""
    with _running_lock:
        _stopping.set()
        for process in list(_running):
            _kill(process)


def puzzle_files(paths: Iterable[Path]) -> list[Path]:
    """The puzzle files named, and those in the folders named (by suffix), sorted."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(p for p in path.rglob("*") if p.is_file() and _has_puzzle_suffix(p))
        elif path.is_file():
            found.append(path)
        else:
            raise InputError("no such file or folder", path)
    if not found:
        raise InputError("no puzzle files found", ", ".join(map(str, paths)))
    return found


def _has_puzzle_suffix(path: Path) -> bool:
    try:
        format_of(path)
    except InputError:
        return False
    return True


def run_all(
    files: Sequence[Path],
    backends: Sequence[str],
    limit: int,
    timeout: float,
    jobs: int,
    on_done: Callable[[SolveRun], None] = lambda run: None,
) -> list[SolveRun]:
    """Every (file, backend) pair, `jobs` processes at a time, in a stable order."""
    pairs = [(path, backend) for path in files for backend in backends]

    def one(pair: tuple[Path, str]) -> SolveRun:
        run = run_solve_process(pair[0], pair[1], limit, timeout)
        on_done(run)
        return run

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        try:
            return list(pool.map(one, pairs))
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            kill_all()
            raise


def disagreements(runs: Sequence[SolveRun]) -> list[str]:
    """Where finished backends contradict each other on one puzzle (verdict or solutions)."""
    problems = []
    by_puzzle: dict[str, list[SolveRun]] = {}
    for run in runs:
        by_puzzle.setdefault(run.puzzle, []).append(run)
    for puzzle, group in by_puzzle.items():
        done = [r for r in group if r.finished]
        for a in done:
            for b in done:
                if a.backend >= b.backend:
                    continue
                problem = _contradiction(a, b)
                if problem:
                    problems.append(f"{puzzle}: {a.backend} vs {b.backend}: {problem}")
    return problems


def _contradiction(a: SolveRun, b: SolveRun) -> str | None:
    if (a.status == "unsolvable") != (b.status == "unsolvable"):
        return f"{a.status} vs {b.status}"
    if a.complete and b.complete:
        if a.solutions_found != b.solutions_found:
            return f"{a.solutions_found} vs {b.solutions_found} solutions, both complete"
        if sorted(a.solutions) != sorted(b.solutions):
            return "different solutions"
    # One proved fewer solutions than the other found.
    for x, y in ((a, b), (b, a)):
        if x.complete and y.solutions_found > x.solutions_found:
            return f"{x.backend} proved {x.solutions_found} solutions, {y.backend} found more"
        if x.complete and y.solutions and not set(y.solutions) <= set(x.solutions):
            return f"{y.backend} found a solution that {x.backend} proved absent"
    return None


def write_csv(runs: Sequence[SolveRun], path: Path) -> None:
    fields = [f for f in SolveRun.__dataclass_fields__ if f != "solutions"]
    try:
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=fields)
            writer.writeheader()
            for run in runs:
                row = asdict(run)
                del row["solutions"]
                writer.writerow(row)
    except OSError as error:
        raise InputError(f"cannot write: {error.strerror or error}", path) from None


def plot(runs: Sequence[SolveRun], backends: Sequence[str], timeout: float, path: Path) -> None:
    """A log-scale grouped bar chart of seconds per puzzle and backend (timeouts hatched)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    puzzles = list(dict.fromkeys(run.puzzle for run in runs))
    by_key = {(run.puzzle, run.backend): run for run in runs}
    width = 0.8 / len(backends)
    count = len(puzzles) * len(backends)
    figure, axes = plt.subplots(figsize=(min(18.0, max(8.0, 0.2 * count)), 6))
    for index, backend in enumerate(backends):
        xs = [p + (index - (len(backends) - 1) / 2) * width for p in range(len(puzzles))]
        group = [by_key[(puzzle, backend)] for puzzle in puzzles]
        heights = [max(run.seconds if run.finished else timeout, 1e-3) for run in group]
        bars = axes.bar(xs, heights, width, label=backend)
        for bar, run in zip(bars, group, strict=True):
            if not run.finished:
                bar.set_hatch("//")
                bar.set_alpha(0.5)
    axes.set_yscale("log")
    axes.axhline(timeout, color="grey", linestyle=":", linewidth=1)
    axes.set_xticks(range(len(puzzles)))
    axes.set_xticklabels([Path(p).stem for p in puzzles], rotation=60, ha="right", fontsize=8)
    axes.set_ylabel("seconds (log scale; hatched = timeout)")
    axes.set_title("satnono compare: time per puzzle and backend")
    axes.legend()
    figure.tight_layout()
    try:
        figure.savefig(path)
    except (OSError, ValueError) as error:
        raise InputError(f"cannot write the plot: {error}", path) from None
    finally:
        plt.close(figure)
