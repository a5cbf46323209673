"""Search backends behind one small interface; one module each, imported only when chosen.

A backend receives the puzzle after line propagation (the residual) and reports candidate
solutions as fully decided domain lists through a callback. The caller verifies each one and
decides when to stop, so limits, verification and streaming live in one place for all backends.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from satnono.core.geometry import Geometry
from satnono.core.model import Puzzle
from satnono.errors import InputError
from satnono.runtime.deadline import Deadline

#: The phase seed of the default configuration (see DEFAULT_BACKEND below; sat: random
#: initial phases, -1 all true), chosen on the tuning set.
DEFAULT_SEED = 2


#: From this many solutions asked for (or all of them, 0), the engine's enumeration lists them
#: (each solution costs the propagation of its last few decisions) rather than a SAT solver and
#: a blocking clause per solution, which slow every call as they pile up: 1,700 solutions a
#: second against tens of thousands (BENCHMARKS.md, streaming). A few solutions come faster
#: from the SAT side on hard puzzles. The pipeline's stream and the cubes' conquest both ask.
NATIVE_STREAM_FROM = 65
#: Solutions taken from the engine's enumeration at a time (each batch within jobs.SLICE).
STREAM_BATCH = 512
#: Seconds the engine's enumeration may take to its first solution before the sat backend (the
#: native search under a budget, then CaDiCaL with a blocking clause per solution) takes the
#: listing over: on webpbn's Sierp and Nature the engine finds none in 30 s where the SAT side
#: lists thousands; the engine's first came after 0-7 s on the other survey puzzles and 15-20 s
#: on random 30x30s (all 5,760 of one in 26 s; BENCHMARKS.md, the stream).
NATIVE_FIRST_SOLUTION = 30.0


@dataclass(frozen=True)
class SearchOptions:
    """Knobs a backend may honour; each backend documents which ones it reads."""

    solver: str | None = None  # PySAT solver name (sat backend)
    threads: int = 1
    seed: int = DEFAULT_SEED
    encoding: str | None = None  # CNF encoding variant, a key of satnono.encode.cnf.ENCODINGS
    #: Solutions the caller wants at most (0 = all). Backends that stream through on_solution
    #: may ignore it; the portfolio needs it inside its workers, which cannot call back.
    limit: int = 0
    #: The cubes backend: Dask workers (None: cluster_workers), "local" or a scheduler's
    #: address, and how many cubes to split into (None: CUBES_PER_WORKER per worker).
    workers: int | None = None
    scheduler: str = "local"
    cubes: int | None = None


def lists_natively(options: SearchOptions) -> bool:
    """Whether the engine's enumeration lists the solutions `options` ask for: many or all of
    them (`limit` 0), and no SAT solver or encoding named (those ask for the SAT side)."""
    many = options.limit == 0 or options.limit >= NATIVE_STREAM_FROM
    return many and not (options.solver or options.encoding)


@dataclass(frozen=True)
class Residual:
    """The puzzle after line propagation: what is left for search.

    `lines` narrows the search to one independent component (see satnono.logic.components): only
    those rows and columns, and their undecided cells, belong to this search; undecided cells
    elsewhere are other components' business and stay undecided in the reported solutions.
    """

    puzzle: Puzzle
    geometry: Geometry
    domains: tuple[int, ...]
    lines: tuple[int, ...] | None = None

    def scope(self) -> tuple[int, ...]:
        """The lines this search must satisfy."""
        return tuple(range(self.puzzle.line_count)) if self.lines is None else self.lines

    def cells(self) -> list[int]:
        """The undecided cells this search decides, in increasing order."""
        domains = self.domains
        if self.lines is None:
            return [cell for cell, d in enumerate(domains) if d & (d - 1)]
        # Every undecided cell of a component is on one of its rows: a pass over those rows,
        # where a set of all its lines' cells took a third of a second on a 1000 x 1000.
        height, width = self.puzzle.height, self.puzzle.width
        return [
            cell
            for row in sorted(line for line in self.lines if line < height)
            for cell in range(row * width, (row + 1) * width)
            if domains[cell] & (domains[cell] - 1)
        ]

    @property
    def unknown(self) -> int:
        return len(self.cells())


@dataclass
class SearchReport:
    #: True when every solution has been reported (the search space is exhausted).
    exhausted: bool
    timed_out: bool = False
    stats: dict[str, Any] = field(default_factory=dict)


#: Called with each solution (decided domains); returns False to stop the search.
OnSolution = Callable[[list[int]], bool]


@dataclass(frozen=True)
class SearchTask:
    """One search asked of a backend: the residual, the options, the deadline, and where each
    solution goes (returning False stops the search)."""

    residual: Residual
    options: SearchOptions
    deadline: Deadline
    on_solution: OnSolution

    def parts(self) -> tuple[Residual, SearchOptions, Deadline, OnSolution]:
        return self.residual, self.options, self.deadline, self.on_solution


class Backend(Protocol):
    name: ClassVar[str]

    def search(self, task: SearchTask) -> SearchReport: ...


@dataclass(frozen=True)
class BackendInfo:
    name: str
    requires: str | None  # import name that must be installed, None: satnono's own code
    summary: str
    #: Residuals of at most this many cells are searched by the native search (backtrack)
    #: in the caller's thread, unless a solver or an encoding is named: the thread a search
    #: otherwise runs in costs more than such a search (SMALL_RESIDUAL).
    branch_below: int = 0

    @property
    def module(self) -> str:
        """The module that holds the backend: one per backend, named after it."""
        return f"satnono.backends.{self.name}"


#: Undecided cells up to which searching in the caller's thread pays: measured when the
#: search there was Python's, 0.7-1.0 ms against 1.5-1.9 ms for a SAT solver in its thread at
#: 4 cells (BENCHMARKS.md, "Archives at C speed"); the native search only widens the margin.
SMALL_RESIDUAL = 16


BACKENDS: dict[str, BackendInfo] = {
    info.name: info
    for info in (
        BackendInfo(
            "sat",
            "pysat",
            "the native search under a budget, then CaDiCaL on the probed residual",
            branch_below=SMALL_RESIDUAL,
        ),
        BackendInfo(
            "portfolio",
            "pysat",
            "several sat configurations race in parallel processes; the first answer wins",
        ),
        BackendInfo("cpsat", "ortools", "OR-tools CP-SAT, one automaton per line"),
        BackendInfo(
            "cubes",
            "distributed",
            "cube-and-conquer: lookahead splits the puzzle, Dask workers solve the parts",
        ),
        BackendInfo(
            "backtrack",
            None,
            "the native search alone: probing, depth-first search, restarts",
        ),
    )
}


def usable_cores() -> int:
    """Cores this process may run on (its affinity mask, not the machine's core count), or
    its share of them while it is one of several at work (`share_cores`)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, *_SHARES)) if _SHARES else cores


def idle_cores(seconds: float = 0.05) -> float | None:
    """How many of the machine's cores were idle over the next `seconds` (this thread sleeps
    meanwhile), from /proc/stat; None where it cannot be read (not Linux)."""
    import time

    def idle_and_total() -> tuple[int, int]:
        with open("/proc/stat", encoding="ascii") as stat:
            ticks = [int(field) for field in stat.readline().split()[1:]]
        return ticks[3] + ticks[4], sum(ticks)  # idle and waiting for I/O, of all

    try:
        idle_before, total_before = idle_and_total()
        time.sleep(seconds)
        idle_after, total_after = idle_and_total()
    except (OSError, ValueError, IndexError):
        return None
    cores = os.cpu_count() or 1
    return cores * (idle_after - idle_before) / max(1, total_after - total_before)


#: The shares of the cores in force in this process (the least counts), and their lock.
_SHARES: list[int] = []
_SHARES_LOCK = threading.Lock()


@contextlib.contextmanager
def share_cores(cores: int | None) -> Iterator[None]:
    """Within the block, this process's searches use at most `cores` cores (None: no limit):
    a batch worker's solver process and a cube's task are one of several at work on the
    machine, so a listing's threads, a rival solver's core and the backbone's solvers keep
    to their share rather than each taking every core. Process-wide (the library searches
    off the caller's thread), and safe to nest or overlap from several threads: the least
    share in force counts."""
    if cores is None:
        yield
        return
    with _SHARES_LOCK:
        _SHARES.append(cores)
    try:
        yield
    finally:
        with _SHARES_LOCK:
            _SHARES.remove(cores)


def cluster_workers(scheduler: str) -> int:
    """How many tasks run at once when no worker count is given: on a local cluster, one per
    usable core; on the cluster at an address, its workers' threads (not this machine's
    cores: a laptop may submit to a cluster of hundreds)."""
    if scheduler == "local":
        return usable_cores()
    from satnono.runtime.dask import cluster_threads

    return cluster_threads(scheduler)


#: The best single configuration, chosen on the tuning set (tools/tune_portfolio.py: glucose3,
#: blocks encoding, phase seed 2), is the default: on the held-out set the portfolio race of
#: the configurations chosen on the same tuning set took 1.08x its time in total on an idle
#: machine and 1.06x with one other busy process, and on the survey 1.09x and 1.28x
#: (BENCHMARKS.md, "Tuning and reporting apart"). The race did not pay, so it is an option.
DEFAULT_BACKEND = "sat"


def installed_backends() -> list[str]:
    """Backends whose dependencies are importable (checked without importing them)."""
    return list(_installed())


@functools.cache
def _installed() -> tuple[str, ...]:
    # Looked up once per process: every argument check asks, several times in one run.
    return tuple(
        name
        for name, info in BACKENDS.items()
        if info.requires is None or importlib.util.find_spec(info.requires) is not None
    )


def load_backend(name: str) -> Backend:
    info = BACKENDS[name]
    module = importlib.import_module(info.module)
    backend: Backend = module.BACKEND
    return backend


def check_backend(name: str) -> str:
    """`name` if it is an installed backend; else InputError naming the installed ones."""
    if not isinstance(name, str) or name not in BACKENDS:
        raise InputError(
            f"unknown backend {name!r}; installed: {', '.join(installed_backends())}", "backend"
        )
    if name not in installed_backends():
        from satnono.core.extras import missing

        raise missing(str(BACKENDS[name].requires), "backend")
    return name


def search_options(
    backend: str,
    solver: str | None = None,
    threads: int = 1,
    seed: int = DEFAULT_SEED,
    encoding: str | None = None,
    workers: int | None = None,
    scheduler: str = "local",
    cubes: int | None = None,
) -> SearchOptions:
    """Checked search options: a typo fails before any work, even on a line-solvable puzzle."""
    from satnono.core import arguments

    check_backend(backend)
    if solver is not None:
        from satnono.runtime.solver_kinds import canonical_solver

        solver = canonical_solver(solver)
    if encoding is not None:
        from satnono.encode.cnf import check_encoding

        encoding = check_encoding(encoding)
    threads = arguments.whole_number(threads, "threads", 1, arguments.MOST_THREADS)
    # -1: every phase true
    seed = arguments.whole_number(seed, "seed", -arguments.MAX_SEED - 1, arguments.MAX_SEED)
    if workers is not None:
        workers = arguments.whole_number(workers, "workers", 1, arguments.MOST_THREADS)
    if cubes is not None:
        cubes = arguments.whole_number(cubes, "cubes", minimum=1)
    scheduler = arguments.text(scheduler, "scheduler")
    return SearchOptions(
        solver=solver, threads=threads, seed=seed, encoding=encoding, workers=workers,
        scheduler=scheduler, cubes=cubes,
    )  # fmt: skip
