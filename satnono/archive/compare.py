"""`satnono compare`: the same puzzles through several backends, on the archive engine.

Every (puzzle, backend) pair is solved by the archive engine's Dask workers (in chunks), in a
forked process that is killed at its hard deadline, so a stuck backend is never waited for.
Results are checked against each other: a verdict or a solution that differs between backends
is a bug somewhere.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from satnono.archive.engine import BatchSettings, Job, job_of, run_tasks
from satnono.archive.store import ResultRow
from satnono.core.status import FINISHED
from satnono.errors import InputError


@dataclass(frozen=True)
class SolveRun:
    """One solve of one puzzle by one backend: what it said and how long it took."""

    puzzle: str
    backend: str
    #: "unique", "multiple", "solved", "unsolvable", "timeout", "killed" or "error".
    status: str
    #: The solver's own time (JSON "seconds"); the time to the kill when it was killed.
    seconds: float
    #: Wall time: of the whole `satnono solve` process in `make bench`; here, the time the
    #: worker waited for the answer (the solve, and handing the puzzle and its answer over).
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
        return self.status in FINISHED


def run_all(
    files: Sequence[Path],
    backends: Sequence[str],
    limit: int,
    timeout: float,
    jobs: int,
    on_done: Callable[[SolveRun], None] = lambda run: None,
) -> list[SolveRun]:
    """Every (file, backend) pair as a task of satnono batch's engine (Dask workers, each
    solving in a forked process killed at the hard deadline), `jobs` workers; stable order."""
    pairs = [(path, backend) for path in files for backend in backends]
    runs: dict[int, SolveRun] = {}
    tasks: list[tuple[Job, BatchSettings]] = []
    numbers: list[int] = []
    for number, (path, backend) in enumerate(pairs):
        job = job_of(path)
        if job.puzzle is None:
            runs[number] = SolveRun(str(path), backend, "error", 0.0, 0.0, error=job.error or "")
            on_done(runs[number])
            continue
        tasks.append((job, BatchSettings(backend, timeout, limit, keep_solutions=True)))
        numbers.append(number)

    def finished(first: int, rows: list[ResultRow]) -> None:
        for task, row in enumerate(rows, start=first):
            number = numbers[task]
            path, backend = pairs[number]
            runs[number] = _solve_run(path, backend, row)
            on_done(runs[number])

    if tasks:
        run_tasks(tasks, max(1, min(jobs, len(tasks))), "local", finished)
    return [runs[number] for number in range(len(pairs))]


def _solve_run(path: Path, backend: str, row: ResultRow) -> SolveRun:
    status = "killed" if row.error == "killed at the hard deadline" else row.status
    return SolveRun(
        puzzle=str(path), backend=backend, status=status, seconds=row.seconds,
        wall_seconds=row.seconds if row.wall_seconds is None else row.wall_seconds,
        solutions_found=row.solutions_found or 0,
        complete=bool(row.complete), cells_left=row.cells_left, variables=row.variables,
        clauses=row.clauses,
        error=row.error or "" if row.status in ("error", "timeout") else "",
        solutions=tuple(tuple(rows) for rows in row.solutions),
    )  # fmt: skip


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
    from satnono.core.extras import require

    require("matplotlib", "plot")
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
