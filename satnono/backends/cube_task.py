"""One cube of the cubes backend, as a Dask task runs it (the worker's side; the split and
the conquest are satnono.backends.cubes'): its solutions listed by the engine's probing search
when many are wanted, else searched by the sat backend; and when workers wait for work, the
cube gives way.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from satnono.backends import (
    NATIVE_FIRST_SOLUTION,
    Residual,
    SearchOptions,
    SearchReport,
    lists_natively,
    share_cores,
)
from satnono.core.geometry import Geometry
from satnono.core.model import Puzzle
from satnono.runtime.deadline import Deadline

#: Seconds between a cube's looks at whether workers wait, for a cube the engine lists: its
#: search gives away the rest of its space without losing what it did (_listed_natively), so
#: it may look often; a look asks the scheduler (a few milliseconds).
NATIVE_LOOK = 0.5
#: Cells of solutions a cube the engine lists sends back at most in one result (then it gives
#: away the rest of its space): 8 million, about 17 MB pickled, 2,868 solutions of webpbn's
#: Flag (65x45, 1,263,904 solutions), whose two cubes' 800,000 solutions each, sent at the
#: deadline in one piece, came back too late (none of 120 s's).
RESULT_CELLS = 1 << 23


@dataclass(frozen=True)
class CubeResult:
    """What a worker found in one cube (solutions as decided domains, at most the cap).
    `stopped` when the cube gave way to waiting workers (the run's time had not run out): it
    is split again."""

    number: int
    solutions: tuple[tuple[int, ...], ...]
    exhausted: bool
    timed_out: bool
    seconds: float
    stopped: bool = False
    #: What a cube listed by the engine gave away when it stopped: the rest of its space, as
    #: domains that partition the solutions it had not found (empty: split it again).
    parts: tuple[tuple[int, ...], ...] = ()


def solve_cube(
    puzzle: Puzzle,
    lines: tuple[int, ...] | None,
    domains: tuple[int, ...],
    options: SearchOptions,
    seconds: float | None,
    number: int,
    budget: float | None = None,
    excluded: tuple[tuple[int, ...], ...] = (),
    waiting: str | None = None,
    run_key: str | None = None,
) -> CubeResult:
    """A Dask task: one cube's solutions, up to `options.limit`, within the run's `seconds`,
    listed by the engine (many wanted, no solver or encoding named, the whole grid's
    undecided cells: `_listed_natively`) or searched by the sat backend; none of the solutions
    `excluded` (found in it before, when a larger cube holding it was stopped). Every `budget`
    seconds (NATIVE_LOOK for the engine's listing), it looks whether workers wait for work
    (the Dask Event named `waiting` is set; None: always) and if so, stops: the engine's
    listing gives away the rest of its search (`parts`), a sat backend's cube is split again.
    `run_key` names the run, for `stop_cubes` (a run whose workers are threads of its process)."""
    from satnono.backends.sat import BACKEND as SAT

    started = time.perf_counter()
    found: list[tuple[int, ...]] = []

    def keep(decided: list[int]) -> bool:
        found.append(tuple(decided))
        return options.limit == 0 or len(found) < options.limit

    run = Deadline(seconds)
    residual = Residual(puzzle, Geometry(puzzle), domains, lines)
    with _running(run_key, run):  # stop_cubes may end it early
        report: SearchReport | None = None
        parts: list[tuple[int, ...]] = []
        if lists_natively(options) and every_undecided_cell(residual):
            looks = None if budget is None else min(budget, NATIVE_LOOK)
            own = run if looks is None else _GiveWay(run, looks, _workers_waiting(waiting))
            listed = _listed_natively(residual, run, own, keep, excluded)
            if listed is not None:
                report, parts = listed
        if report is None:
            own = run if budget is None else _GiveWay(run, budget, _workers_waiting(waiting))
            with share_cores(1):  # a worker is one core: the rival solver takes turns on it
                report = SAT.search_excluding(residual, options, own, keep, excluded)
        stopped = report.timed_out and not run.expired()
        return CubeResult(
            number, tuple(found), report.exhausted, report.timed_out and not stopped,
            round(time.perf_counter() - started, 4), stopped, tuple(parts),
        )  # fmt: skip


#: The deadlines of the cubes running in this process, by run, and the runs stopped: a run
#: whose local workers are threads of its own process (the engine lists every cube, with the
#: GIL let go) cannot kill them at an early end, so it cancels their deadlines (`stop_cubes`).
_RUNNING: dict[str, list[Deadline]] = {}
_STOPPED: set[str] = set()
_RUNNING_LOCK = threading.Lock()


def stop_cubes(run_key: str) -> None:
    """End every cube of the run `run_key` in this process within a slice of its search, and
    any that starts later at once."""
    with _RUNNING_LOCK:
        _STOPPED.add(run_key)
        for deadline in _RUNNING.pop(run_key, []):
            deadline.cancel()


def forget_cubes(run_key: str) -> None:
    """The run `run_key` is over (its cluster closed): nothing more is kept of it."""
    with _RUNNING_LOCK:
        _STOPPED.discard(run_key)
        _RUNNING.pop(run_key, None)


@contextmanager
def _running(run_key: str | None, deadline: Deadline) -> Iterator[None]:
    """Within the block, `stop_cubes(run_key)` cancels `deadline` (nothing without a key)."""
    if run_key is None:
        yield
        return
    with _RUNNING_LOCK:
        if run_key in _STOPPED:
            deadline.cancel()
        _RUNNING.setdefault(run_key, []).append(deadline)
    try:
        yield
    finally:
        with _RUNNING_LOCK:
            running = _RUNNING.get(run_key, [])
            if deadline in running:
                running.remove(deadline)
            if not running:
                _RUNNING.pop(run_key, None)


def every_undecided_cell(residual: Residual) -> bool:
    """Whether the residual's search decides every undecided cell of the grid (the engine's
    enumeration decides them all): the whole puzzle's, or its only component's."""
    undecided = sum(1 for domain in residual.domains if domain & (domain - 1))
    return residual.lines is None or residual.unknown == undecided


def _listed_natively(
    residual: Residual,
    run: Deadline,
    own: Deadline,
    keep: Callable[[list[int]], bool],
    excluded: tuple[tuple[int, ...], ...],
) -> tuple[SearchReport, list[tuple[int, ...]]] | None:
    """Every solution of a cube (but those `excluded`) from the engine's probing search, the
    one the pipeline's listing of a hard puzzle's solutions comes to
    (engine/src/count/enumerate.rs); with the parts it gave away (else empty). When workers
    wait for work (`own` expires before `run`), the search stops and gives away the rest of
    its space, every color not yet tried under each of its branches (`Search.give_away`):
    parts that hold none of the solutions found, so nothing is searched twice (splitting the
    cube again would find them all again: on two workers 81 s against 48 s when the heavy
    cube kept on alone). None when the engine finds no solution within
    NATIVE_FIRST_SOLUTION seconds: the sat backend takes the cube over. Every RESULT_CELLS
    cells of solutions it gives away its rest too, so that a cube of many solutions sends
    them back as it goes, never all at once (nor lost at the deadline)."""
    from satnono.logic.native import Engine

    search = Engine(residual.puzzle).search(residual.domains, restarts=False, excluded=excluded)
    started, found = time.monotonic(), 0
    held = max(1, RESULT_CELLS // len(residual.domains))  # solutions a result holds at most
    while True:
        first = time.monotonic() - started if found == 0 else None
        watch = own if first is None else own.sooner(NATIVE_FIRST_SOLUTION - first)
        event, decided = search.next(watch)
        if event == "exhausted":
            return _native(exhausted=True), []
        if event == "solution" and decided is not None:
            found += 1
            if not keep(decided):
                return _native(exhausted=False), []
            if found % held == 0 and (given := search.give_away()) is not None:
                return _gave_away(given, keep)  # its solutions go back before they pile up
        elif run.expired():
            return _native(exhausted=False, timed_out=True), []
        elif found == 0 and time.monotonic() - started >= NATIVE_FIRST_SOLUTION:
            return None
        elif own.expired() and isinstance(own, _GiveWay):
            given = search.give_away()
            if given is None:  # nothing to share yet: go on, and look again later
                own.again()
                continue
            return _gave_away(given, keep)


def _gave_away(
    given: tuple[list[list[int]], list[list[int]]], keep: Callable[[list[int]], bool]
) -> tuple[SearchReport, list[tuple[int, ...]]]:
    """A cube's listing stopped by `Search.give_away`: its last solutions kept, its parts."""
    solutions, parts = given
    for decided in solutions:
        if not keep(decided):
            return _native(exhausted=False), []
    return _native(exhausted=False, timed_out=True), list(map(tuple, parts))


def _native(exhausted: bool, timed_out: bool = False) -> SearchReport:
    return SearchReport(exhausted=exhausted, timed_out=timed_out, stats={"solver": "native"})


def _workers_waiting(event: str | None) -> Callable[[], bool]:
    """Whether workers wait for work, read from the Dask Event `event` through this task's
    client (got here, in the task's thread; the look is made from the solver watcher's)."""
    if event is None:
        return lambda: True
    from distributed import Event, get_client

    flag = Event(event, client=get_client())

    def look() -> bool:
        try:
            return bool(flag.is_set())
        except Exception:  # a lost scheduler: keep searching; the run decides
            return False

    return look


class _GiveWay(Deadline):
    """A cube's deadline: the run's, and also any look (every `period` seconds) that finds
    workers waiting for work, so that the cube is split again and its work shared. While every
    worker is busy, a cube keeps its solver, and what the solver learned, for as long as it
    needs (on a puzzle whose cubes are all hard, splitting again only restarts them: random
    50x50 puzzles, BENCHMARKS.md frontier section)."""

    __slots__ = ("look_at", "period", "run", "waiting")

    def __init__(self, run: Deadline, period: float, waiting: Callable[[], bool]) -> None:
        super().__init__(None)
        self.run, self.period, self.waiting = run, period, waiting
        self.look_at = time.monotonic() + period

    @property
    def bounded(self) -> bool:
        return True

    def remaining(self) -> float | None:
        """The run's: a search plans for the time the run has left (the sat backend's
        escalation to CaDiCaL too); a look that gives way ends it early."""
        return 0.0 if self.at is not None else self.run.remaining()

    def again(self) -> None:
        """Go on after a look that found workers waiting, looking again a period later."""
        self.at = None
        self.look_at = time.monotonic() + self.period

    def expired(self) -> bool:
        if self.at is not None or self.run.expired():
            return True
        now = time.monotonic()
        if now >= self.look_at:
            if self.waiting():
                self.at = now
                return True
            self.look_at = now + self.period
        return False
