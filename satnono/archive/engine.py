"""The archive engine: puzzles in chunks of Dask tasks, solved in a forked process per worker.

The default scheduler (satnono.runtime.dask) is a `distributed.LocalCluster` whose workers
are threads of this process, one per core; each keeps one solver process forked from this
process (satnono.runtime.child's ForkedChild) that serves puzzle after puzzle, so start-up is
paid once per worker, and is killed and replaced when a puzzle overruns its hard deadline (a
stuck puzzle cannot hold a worker). `--scheduler tcp://H:P` runs on an existing Dask cluster
instead, its worker processes each forking their own solver processes.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from satnono.archive.store import ResultRow
from satnono.core.model import Clue, Puzzle
from satnono.errors import InputError
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
    #: A folder to write each verdict's certificate into (`batch run --proof`), one folder
    #: per puzzle (see satnono.archive.certificates).
    proof: str | None = None

    def __post_init__(self) -> None:
        from satnono.core import arguments

        # Checked and capped here, where every archive run's timeout passes: a raw 1e10 s
        # overflowed the solver's poll in every row.
        object.__setattr__(self, "timeout", arguments.seconds(self.timeout))

    def key(self) -> str:
        parts = [
            f"backend={self.backend or 'default'}", f"timeout={self.timeout}",
            f"max_solutions={self.max_solutions}",
        ]  # fmt: skip
        parts += ["count"] * self.count + ["analyze"] * self.analyze + ["proof"] * bool(self.proof)
        return " ".join(parts)

    def same_but_timeout(self, configuration: str) -> bool:
        """Whether `configuration` (a stored key) asks the same as this one but for the
        timeout: its finished verdicts hold here too (a proof does not depend on the time it
        took). Never with --count or --analyze, whose figures may have been cut short, nor
        with --proof, which is written when the puzzle is solved."""
        if self.count or self.analyze or self.proof:
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
    from satnono.archive.files import stored_name
    from satnono.formats import read_puzzle

    try:
        puzzle = read_puzzle(path)
    except InputError as error:
        return Job("", stored_name(path), 1, None, str(error))
    return Job(puzzle_hash(puzzle), stored_name(path), 1, puzzle)


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
    from satnono.archive.files import find_entries, stored_name
    from satnono.formats import read_puzzles

    entries = find_entries(paths)
    jobs: dict[str, Job] = {}
    names: list[tuple[str, int, str]] = []

    def failed(path: Path, error: str) -> None:
        where = stored_name(os.path.abspath(path))
        digest = hashlib.sha256(f"{where}:{error}".encode()).hexdigest()[:32]
        jobs.setdefault(digest, Job(digest, stored_name(path), 1, None, error))
        names.append((stored_name(path), 1, digest))

    for path in entries.files:
        try:
            puzzles = read_puzzles(path)
        except InputError as error:
            failed(path, str(error))
            continue
        for index, puzzle in enumerate(puzzles, start=1):
            digest = puzzle_hash(puzzle)
            jobs.setdefault(digest, Job(digest, stored_name(path), index, puzzle))
            names.append((stored_name(path), index, digest))
    for path, problem in entries.unreadable:
        failed(path, str(InputError(problem, stored_name(path))))
    if not names and not entries.skipped:
        raise InputError("no puzzle files found", ", ".join(map(str, paths)))
    return Collected(list(jobs.values()), names, entries.skipped)


# --- in a Dask worker ------------------------------------------------------------------------

_SERVERS = threading.local()
#: Every solver process this process's worker threads started, so that a run that ends early
#: (Ctrl-C, an abandoned cluster of threads) kills them rather than waiting for them.
_LIVE: set[Any] = set()
#: The tasks of each run under way on the local cluster, by run number. Its workers are
#: threads of this process and their solver processes are forked from it after the run's
#: tasks are here, so both read their chunks here: only (run, start, end) goes through Dask,
#: and only the places of the puzzles through the pipe, where pickling every puzzle for
#: Dask's scheduler and again for the pipe cost more than solving an easy one.
_SHARED: dict[int, Sequence[tuple[Job, BatchSettings]]] = {}
#: Runs ended early (Ctrl-C, an error): their tasks still running stop at once.
_STOPPED: set[int] = set()
#: The cores each solver process of a run on the local cluster may use: its worker's share.
_CORES: dict[int, int] = {}


def solve_shared(run: int, start: int, end: int) -> list[ResultRow]:
    """A task of the local cluster: the puzzles of run `run` from `start` to `end`."""
    return _solve(_SHARED[run], start, end, run)


def solve_chunk(tasks: Sequence[tuple[Job, BatchSettings]]) -> list[ResultRow]:
    """A task of a remote cluster: the puzzles themselves."""
    return _solve(tasks, 0, len(tasks), None)


def _solve(
    tasks: Sequence[tuple[Job, BatchSettings]], start: int, end: int, run: int | None
) -> list[ResultRow]:
    """tasks[start:end], sent to this worker thread's solver process in one message, their
    answers read back one by one, each under its own hard deadline (--timeout plus GRACE).
    A solver killed at a deadline (or dead) is replaced, and the chunk's later puzzles go to
    the new one: only the puzzle it was on is lost, as a timeout or error row."""
    rows: list[ResultRow] = []
    while start < end and run not in _STOPPED:  # a stopped run's rows are not waited for
        server = _server(run)
        places = [place for place in range(start, end) if tasks[place][0].puzzle is not None]
        message: tuple[int | None, list[Any]] = (
            (run, places) if run is not None else (None, [_work(*tasks[place]) for place in places])
        )
        with contextlib.suppress(OSError):  # a dead server: its first answer says how
            if places:
                server.post(message)
        since = time.perf_counter()  # the solver answers in order: each one's wall time
        for place in range(start, end):
            job, settings = tasks[place]
            answer = _answer(server, job, settings)
            answer["wall_seconds"], since = (
                round(time.perf_counter() - since, 4),
                time.perf_counter(),
            )
            rows.append(_row(job, settings, answer))
            if server.finished:
                start = place + 1
                break
        else:
            start = end
    return rows


def _server(run: int | None) -> Any:
    """This worker thread's solver process for run `run`, forked when it has none alive (or
    one forked before the run's tasks were shared)."""
    from satnono.runtime.child import ForkedChild

    server = getattr(_SERVERS, "server", None)
    if server is not None and (server.finished or _SERVERS.run != run):
        server.kill()
        _LIVE.discard(server)
        server = None
    if server is None:
        server = _SERVERS.server = ForkedChild(_serve, "batch solver", quiet=True, inbox=True)
        _SERVERS.run = run
        _LIVE.add(server)
    return server


def _answer(server: Any, job: Job, settings: BatchSettings) -> dict[str, Any]:
    """The solver's answer for `job` (posted to it); on a timeout or the solver's death the
    solver is killed, marked finished, and the answer says which."""
    from satnono.runtime.child import ChildFinished
    from satnono.runtime.deadline import Timeout

    if job.puzzle is None:
        return {"status": "error", "error": job.error, "seconds": 0.0}
    started = time.perf_counter()
    limit = None if settings.timeout is None else settings.timeout + GRACE
    try:
        answer: dict[str, Any] = server.receive(limit)
        return answer
    except (Timeout, RuntimeError, ChildFinished, OSError) as error:
        server.kill()
        server.finished = True
        _LIVE.discard(server)
        seconds = round(time.perf_counter() - started, 4)
        if isinstance(error, Timeout):
            answer = {"status": "timeout", "error": "killed at the hard deadline"}
        else:  # the solver process died (out of memory, killed): say for which file
            reason = str(error) or type(error).__name__
            where = job.file if job.index == 1 else f"{job.file} (puzzle {job.index})"
            answer = {"status": "error", "error": f"{where}: {reason}"}
        answer["seconds"] = seconds
        return answer


def _stop(run: int) -> None:
    """End run `run` early: its tasks start no solver process from now on, and those running
    are killed (their worker threads then return at once)."""
    _STOPPED.add(run)
    _kill_solvers()


def _kill_solvers() -> None:
    """Kill every solver process this process's worker threads started (idempotent)."""
    for server in list(_LIVE):
        server.kill()
        server.finished = True
    _LIVE.clear()


def _serve(send: Callable[[Any], None], receive: Callable[[], Any]) -> None:
    """The solver process: chunk after chunk, an answer per puzzle as soon as it is solved,
    until the worker kills it."""
    from satnono.backends import share_cores

    while True:
        run, items = receive()
        if run is not None:  # places in the run's tasks, which this process has too
            items = [_work(*_SHARED[run][place]) for place in items]
        with share_cores(None if run is None else _CORES.get(run)):
            for puzzle, settings, folder in items:
                send(_solve_here(puzzle, settings, folder))


def _work(job: Job, settings: BatchSettings) -> tuple[Puzzle | None, BatchSettings, str | None]:
    """What the solver process needs of a task: the puzzle, the settings, the certificate's
    folder."""
    from satnono.archive.certificates import certificate_folder

    if settings.proof is None:
        return job.puzzle, settings, None
    return (
        job.puzzle,
        settings,
        certificate_folder(settings.proof, job.file, job.index, job.puzzle_hash),
    )


def _solve_here(puzzle: Puzzle, settings: BatchSettings, folder: str | None) -> dict[str, Any]:
    import satnono

    started = time.perf_counter()
    try:
        result = satnono.solve(puzzle, settings.backend, settings.max_solutions, settings.timeout,
                               proof=folder)  # fmt: skip
        answer: dict[str, Any] = {
            "status": result.status, "complete": result.complete,
            "solutions_found": result.solutions_found,
            "cells_left": result.stats.get("cells_left"), "error": result.reason,
        }  # fmt: skip
        if folder is not None:
            from satnono.archive.certificates import said_of

            answer["certificate"] = said_of(result)
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
        wall_seconds=answer.get("wall_seconds"), certificate=answer.get("certificate"),
    )  # fmt: skip


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

    def __iter__(self) -> Iterator[tuple[int, int]]:
        """The next chunk's first place and past its last, sized when it is taken."""
        while self.start < len(self.tasks):
            start, end = self.start, min(len(self.tasks), self.start + self.size())
            self.spans.append((start, end))
            self.start = end
            yield start, end


def run_tasks(
    tasks: Sequence[tuple[Job, BatchSettings]],
    workers: int,
    scheduler: str,
    on_rows: Callable[[int, list[ResultRow]], None],
) -> None:
    """Solve every (job, settings) on Dask, in chunks (see _Chunks); `on_rows(first, rows)`
    for each chunk as it comes back, in any order (`first` is the place of its first row in
    `tasks`). A chunk Dask gave up on (its workers died) is an error row for each of its
    puzzles; Ctrl-C closes the cluster, and its solvers with it.

    On the local cluster the workers are threads of this process: a task's work is done by
    the solver process it forks (started in milliseconds from this process, which has
    satnono loaded), so worker processes of their own would only add their start-up (about
    half a second each, importing Dask) and a pickled round trip per chunk. Not for a backend
    that starts a cluster itself (see _starts_clusters)."""
    from satnono.runtime.dask import run_on_cluster

    chunks = _Chunks(tasks, workers)

    def finished(number: int, future: Any) -> bool:
        first, end = chunks.spans[number]
        rows = _results(future, chunks.tasks[first:end])
        chunks.measured(rows)
        on_rows(first, rows)
        return True

    if scheduler != "local" or any(_starts_clusters(settings) for _, settings in tasks):
        arguments: Iterable[tuple[Any, ...]] = ((tasks[a:b],) for a, b in chunks)
        run_on_cluster(scheduler, workers, solve_chunk, arguments, finished,
                       in_flight=CHUNKS_PER_WORKER * workers)  # fmt: skip
        return
    from satnono.backends import usable_cores

    run = next(_RUNS)
    _SHARED[run] = tasks
    _CORES[run] = max(1, usable_cores() // workers)
    try:
        run_on_cluster(
            scheduler, workers, solve_shared, ((run, a, b) for a, b in chunks), finished,
            in_flight=CHUNKS_PER_WORKER * workers, threads=True,
            stop_tasks=lambda: _stop(run),
        )  # fmt: skip
    finally:
        _kill_solvers()
        del _SHARED[run], _CORES[run]
        _STOPPED.discard(run)


_RUNS = itertools.count()


def _starts_clusters(settings: BatchSettings) -> bool:
    """Whether a task's backend starts a Dask cluster of its own (cubes): then the local
    workers are processes, whose solver processes it can start one from. A solver forked from
    this process, which runs a Dask cluster of threads, holds that cluster's state
    half-copied (its offload thread is gone), and a cluster it started would never answer."""
    from satnono.backends import BACKENDS

    return settings.backend is not None and BACKENDS[settings.backend].requires == "distributed"


def _results(future: Any, tasks: Sequence[tuple[Job, BatchSettings]]) -> list[ResultRow]:
    """The chunk's rows; a chunk Dask gave up on (its workers died) is an error row each."""
    try:
        rows: list[ResultRow] = future.result()
    except Exception as error:  # KilledWorker, a worker's import failure, ...
        message = f"{type(error).__name__}: {error}".splitlines()[0]
        answer = {"status": "error", "error": message, "seconds": 0.0}
        return [_row(job, settings, answer) for job, settings in tasks]
    return rows
