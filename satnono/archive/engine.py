"""The archive engine: puzzles in chunks of Dask tasks, solved in a forked process per worker.

The default scheduler (satnono.runtime.dask) is a `distributed.LocalCluster` with one worker
process per core; each worker keeps one forked solver process (satnono.runtime.child's
ForkedChild) that serves puzzle after puzzle, so start-up is paid once per worker, and is
killed and replaced when a puzzle overruns its hard deadline (a stuck puzzle cannot hold a
worker). `--scheduler tcp://H:P` runs on an existing Dask cluster instead.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from satnono.archive.store import ResultRow
from satnono.errors import InputError
from satnono.model import Clue, Puzzle
from satnono.version import __version__

#: Seconds past --timeout before a worker's solver process is killed: the cooperative deadline
#: holds within 0.3 s (RELIABILITY.md), so this is only for a puzzle that does not stop.
GRACE = 2.0


@dataclass(frozen=True)
class BatchSettings:
    """What is asked of every puzzle; `key()` names the configuration in the database."""

    backend: str | None = None
    timeout: float | None = 60.0
    max_solutions: int = 2
    count: bool = False
    analyze: bool = False
    #: Keep the solutions found in the row (compare checks them against each other).
    keep_solutions: bool = False

    def key(self) -> str:
        parts = [
            f"backend={self.backend or 'default'}", f"timeout={self.timeout}",
            f"max_solutions={self.max_solutions}",
        ]  # fmt: skip
        parts += ["count"] * self.count + ["analyze"] * self.analyze
        return " ".join(parts)

    def same_but_timeout(self, configuration: str) -> bool:
        """Whether `configuration` (a stored key) asks the same as this one but for the
        timeout: its finished verdicts hold here too (a proof does not depend on the time it
        took). Never with --count or --analyze, whose figures may have been cut short."""
        if self.count or self.analyze:
            return False
        words = [word for word in configuration.split() if not word.startswith("timeout=")]
        mine = [word for word in self.key().split() if not word.startswith("timeout=")]
        return words == mine and configuration != self.key()


@dataclass(frozen=True)
class Job:
    """One puzzle of one file (or the file's one-line error), named by its content's hash."""

    puzzle_hash: str
    file: str
    index: int
    puzzle: Puzzle | None
    error: str | None = None


def puzzle_hash(puzzle: Puzzle) -> str:
    """The same for the same clues and colors, whichever file and format they came from.

    The hash of `repr((width, height, rows, columns, rgb colors))`, the database's key since
    the first run (so it must not change: tests/test_batch.py holds it to that `repr`),
    written out here without calling the dataclasses' repr of every block, which was a third
    of reading an archive."""
    rows, columns = _clues_repr(puzzle.rows), _clues_repr(puzzle.columns)
    colors = repr(tuple(color.rgb for color in puzzle.palette))
    content = f"({puzzle.width}, {puzzle.height}, {rows}, {columns}, {colors})"
    return hashlib.sha256(content.encode()).hexdigest()[:32]


def _clues_repr(clues: Sequence[Clue]) -> str:
    """`repr(clues)` of a tuple of clues (tuples of Blocks)."""
    return _tuple_repr(
        [_tuple_repr([f"Block(length={b.length}, color={b.color})" for b in c]) for c in clues]
    )


def _tuple_repr(items: list[str]) -> str:
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def job_of(path: Path) -> Job:
    """The job of a single-puzzle use of a file (its first puzzle), or its error."""
    from satnono.formats import read_puzzle

    try:
        puzzle = read_puzzle(path)
    except InputError as error:
        return Job("", str(path), 1, None, str(error))
    return Job(puzzle_hash(puzzle), str(path), 1, puzzle)


@dataclass(frozen=True)
class Collected:
    """An archive's puzzles: each solved once (`jobs`, unique by content), and where each was
    found (`names`: every (file, index, hash), duplicates included); entries skipped."""

    jobs: list[Job]
    names: list[tuple[str, int, str]]
    skipped: list[tuple[Path, str]]

    @property
    def duplicates(self) -> int:
        return len(self.names) - len(self.jobs)


def collect(paths: Sequence[Path]) -> Collected:
    """Every entry under `paths` accounted for: each puzzle once (duplicates by content are
    solved once and recorded under every name), files that cannot be read and entries that
    are not regular files as error jobs, the rest skipped with a reason."""
    from satnono.archive.files import find_entries
    from satnono.formats import read_puzzles

    entries = find_entries(paths)
    jobs: dict[str, Job] = {}
    names: list[tuple[str, int, str]] = []

    def failed(path: Path, error: str) -> None:
        digest = hashlib.sha256(f"{os.path.abspath(path)}:{error}".encode()).hexdigest()[:32]
        jobs.setdefault(digest, Job(digest, str(path), 1, None, error))
        names.append((str(path), 1, digest))

    for path in entries.files:
        try:
            puzzles = read_puzzles(path)
        except InputError as error:
            failed(path, str(error))
            continue
        for index, puzzle in enumerate(puzzles, start=1):
            digest = puzzle_hash(puzzle)
            jobs.setdefault(digest, Job(digest, str(path), index, puzzle))
            names.append((str(path), index, digest))
    for path, problem in entries.unreadable:
        failed(path, str(InputError(problem, path)))
    if not names and not entries.skipped:
        raise InputError("no puzzle files found", ", ".join(map(str, paths)))
    return Collected(list(jobs.values()), names, entries.skipped)


# --- in a Dask worker ------------------------------------------------------------------------

_SERVERS = threading.local()


def solve_job(job: Job, settings: BatchSettings) -> ResultRow:
    """A task: the puzzle solved by this worker thread's solver process, under a hard deadline."""
    from satnono.runtime.child import ChildFinished, ForkedChild
    from satnono.runtime.deadline import Timeout

    if job.puzzle is None:
        return _row(job, settings, {"status": "error", "error": job.error, "seconds": 0.0})
    server: ForkedChild | None = getattr(_SERVERS, "server", None)
    if server is None or server.finished:
        server = _SERVERS.server = ForkedChild(_serve, "batch solver", quiet=True, inbox=True)
    started = time.perf_counter()
    limit = None if settings.timeout is None else settings.timeout + GRACE
    try:
        server.post((job.puzzle, settings))
        answer = server.receive(limit)
    except (Timeout, RuntimeError, ChildFinished, OSError) as error:
        server.kill()
        _SERVERS.server = None
        seconds = round(time.perf_counter() - started, 4)
        if isinstance(error, Timeout):
            answer = {"status": "timeout", "error": "killed at the hard deadline"}
        else:  # the solver process died (out of memory, killed): say for which file
            reason = str(error) or type(error).__name__
            where = job.file if job.index == 1 else f"{job.file} (puzzle {job.index})"
            answer = {"status": "error", "error": f"{where}: {reason}"}
        answer["seconds"] = seconds
    return _row(job, settings, answer)


def _serve(send: Callable[[Any], None], receive: Callable[[], Any]) -> None:
    """The solver process: puzzle after puzzle, until the worker kills it."""
    while True:
        puzzle, settings = receive()
        send(_solve_here(puzzle, settings))


def _solve_here(puzzle: Puzzle, settings: BatchSettings) -> dict[str, Any]:
    import satnono

    started = time.perf_counter()
    try:
        result = satnono.solve(puzzle, settings.backend, settings.max_solutions, settings.timeout)
        answer: dict[str, Any] = {
            "status": result.status, "complete": result.complete,
            "solutions_found": result.solutions_found,
            "cells_left": result.stats.get("cells_left"), "error": result.reason,
        }  # fmt: skip
        answer["difficulty"] = _difficulty(result.status, answer["cells_left"])
        if settings.keep_solutions:  # compare: the solutions and the size of the model
            answer["solutions"] = result.solutions
            stats = result.stats
            answer["variables"] = stats.get("cnf_variables", stats.get("cpsat_variables"))
            answer["clauses"] = stats.get("cnf_clauses", stats.get("cpsat_constraints"))
        if settings.count:
            counted = satnono.count(puzzle, settings.timeout)
            answer.update(count=str(counted.count), exact=counted.exact)
        if settings.analyze:
            answer["difficulty"] = satnono.analyze(puzzle, settings.timeout).difficulty
    except InputError as error:
        answer = {"status": "error", "error": str(error)}
    answer["seconds"] = round(time.perf_counter() - started, 4)
    return answer


def _difficulty(status: str, cells_left: int | None) -> str | None:
    """What the solve alone tells (analyze tells more: probing, search depth)."""
    if status == "unsolvable":
        return "no solution"
    if status == "multiple":
        return "ambiguous"
    if cells_left == 0:
        return "line-solvable"
    return "needs probing or search" if status == "unique" else None


def _row(job: Job, settings: BatchSettings, answer: dict[str, Any]) -> ResultRow:
    puzzle = job.puzzle
    return ResultRow(
        puzzle_hash=job.puzzle_hash, configuration=settings.key(), file=job.file,
        puzzle_index=job.index, title=puzzle.title if puzzle else None,
        width=puzzle.width if puzzle else None, height=puzzle.height if puzzle else None,
        colors=len(puzzle.palette) - 1 if puzzle else None, status=answer["status"],
        complete=answer.get("complete"), solutions_found=answer.get("solutions_found"),
        count=answer.get("count"), exact=answer.get("exact"), seconds=answer["seconds"],
        cells_left=answer.get("cells_left"), difficulty=answer.get("difficulty"),
        version=__version__, error=answer.get("error"),
        solutions=tuple(tuple(rows) for rows in answer.get("solutions", ())),
        variables=answer.get("variables"), clauses=answer.get("clauses"),
    )  # fmt: skip


def solve_chunk(tasks: Sequence[tuple[Job, BatchSettings]]) -> list[ResultRow]:
    """A task of several puzzles, solved in turn (each under its own hard deadline)."""
    return [solve_job(job, settings) for job, settings in tasks]


#: Seconds of solving a chunk is sized for, from the seconds per puzzle measured so far: a
#: Dask task costs a few milliseconds (scheduling, transfer, a row back), which a chunk
#: shares out, while a chunk of easy puzzles still comes back several times a second.
CHUNK_SECONDS = 0.25
#: The most puzzles in one chunk, and in the first (before anything is measured).
MAX_CHUNK, FIRST_CHUNK = 256, 4
#: Chunks submitted per worker and not yet back: one running, one waiting its turn.
CHUNKS_PER_WORKER = 2


class _Chunks:
    """The tasks in chunks sized as the run goes: about CHUNK_SECONDS each at the seconds
    per puzzle measured so far, and never more than an even share of what is left (guided
    self-scheduling), so the last chunks are small and no worker is left with a long tail
    while the others idle. A puzzle slower than the rest makes the chunks after it smaller."""

    def __init__(self, tasks: Sequence[tuple[Job, BatchSettings]], workers: int) -> None:
        self.tasks = tasks
        self.workers = workers
        self.start = 0
        self.solved = 0
        self.seconds = 0.0
        #: chunk number -> the places of its first task and past its last in `tasks`.
        self.spans: list[tuple[int, int]] = []

    def measured(self, rows: Sequence[ResultRow]) -> None:
        self.solved += len(rows)
        self.seconds += sum(row.seconds or 0.0 for row in rows)

    def size(self) -> int:
        left = len(self.tasks) - self.start
        share = -(-left // (CHUNKS_PER_WORKER * self.workers))
        if not self.solved:
            return max(1, min(FIRST_CHUNK, share))
        per_puzzle = max(self.seconds / self.solved, 1e-4)
        return max(1, min(MAX_CHUNK, share, int(CHUNK_SECONDS / per_puzzle)))

    def __iter__(self) -> Iterator[tuple[list[tuple[Job, BatchSettings]]]]:
        while self.start < len(self.tasks):
            start, end = self.start, self.start + self.size()
            self.spans.append((start, end))
            self.start = end
            yield (list(self.tasks[start:end]),)


def run_tasks(
    tasks: Sequence[tuple[Job, BatchSettings]],
    workers: int,
    scheduler: str,
    on_row: Callable[[int, ResultRow], None],
) -> None:
    """Solve every (job, settings) on Dask, in chunks (see _Chunks); `on_row(number, row)`
    for each as its chunk comes back, in any order (`number` is its place in `tasks`). A
    chunk Dask gave up on (its workers died) is an error row for each of its puzzles; Ctrl-C
    closes the cluster, and its solvers with it."""
    from satnono.runtime.dask import run_on_cluster

    chunks = _Chunks(tasks, workers)

    def finished(number: int, future: Any) -> bool:
        first, end = chunks.spans[number]
        rows = _results(future, chunks.tasks[first:end])
        chunks.measured(rows)
        for offset, row in enumerate(rows):
            on_row(first + offset, row)
        return True

    run_on_cluster(
        scheduler, workers, solve_chunk, chunks, finished, in_flight=CHUNKS_PER_WORKER * workers
    )


def _results(future: Any, tasks: Sequence[tuple[Job, BatchSettings]]) -> list[ResultRow]:
    """The chunk's rows; a chunk Dask gave up on (its workers died) is an error row each."""
    try:
        rows: list[ResultRow] = future.result()
    except Exception as error:  # KilledWorker, a worker's import failure, ...
        message = f"{type(error).__name__}: {error}".splitlines()[0]
        answer = {"status": "error", "error": message, "seconds": 0.0}
        return [_row(job, settings, answer) for job, settings in tasks]
    return rows
