"""Counting one puzzle: enumerate each component up to a cap, then race the methods on the
components left (satnono.counting.race), and multiply; the result types.

Every count is a Python int, exact however large; a count stopped early is a true lower
bound, and `stopped` says why.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from satnono.backends import SearchOptions, load_backend
from satnono.counting.counters import APPROXMC, GANAK, Estimate, installed, share_of_guarantee
from satnono.counting.race import CounterRace
from satnono.counting.search import CountingSearch, SatCheck, product, recursion_limit, share
from satnono.extras import installed as installed_module
from satnono.model import Grid, Puzzle
from satnono.pipeline import Prepared, enumerate_part, no_grid, prepare
from satnono.progress import Progress
from satnono.propagate import Propagator, domains_to_grid
from satnono.runtime.child import can_fork
from satnono.runtime.deadline import Deadline, Timeout
from satnono.verify import verify

#: Solutions a component may yield to the backend's enumeration before the race takes over.
#: Chosen by measurement (sat backend, this 2-core machine): the search counts the eleven
#: 720-solution squares of permutations-11x6-color in 0.3 s in all, while enumerating costs
#: 0.1-0.3 ms a solution (1-1.5 ms with a --timeout, when every SAT call runs under a timer),
#: so a larger cap only adds time there; yet enumeration stays 2-4x faster than the search on
#: the hard survey puzzles with a handful of solutions (karate: 6, thing: 3).
#: 64 is also where the sat backend stops adding blocking clauses.
ENUMERATION_LIMIT = 64

#: Seconds the counting search runs alone on a component before Ganak (and ApproxMC) join the
#: race in forked children. Chosen on the corpus, not the survey (BENCHMARKS.md, counting
#: section): the search alone counts 36 of its 41 residuals in under 0.1 s, where a child would
#: cost more than the count; on the others a longer head start only delays Ganak.
RACE_HEAD_START = 0.1
#: Why a count is not exact: the --limit was reached, the deadline passed, or an estimate
#: answered first (with an approximation asked for).
Stopped = Literal["limit", "timeout", "estimate"]
#: How a factor was counted (`"method"` in `satnono count --json`).
Method = Literal["enumerate", "search", "ganak", "approxmc", "cubes"]
SEARCH: Method = "search"
CUBES: Method = "cubes"


@dataclass(frozen=True)
class Approximation:
    """The guarantee asked of an estimate: within a factor 1 + epsilon of the true count
    with probability at least 1 - delta (ApproxMC's defaults)."""

    epsilon: float = 0.8
    delta: float = 0.2

    def __post_init__(self) -> None:
        # Written as "not (a < x)" so that NaN fails too.
        if not self.epsilon > 0:
            raise ValueError(f"epsilon must be positive, got {self.epsilon}")
        if not 0 < self.delta < 1:
            raise ValueError(f"delta must be between 0 and 1, got {self.delta}")


@dataclass(frozen=True)
class Factor:
    """One independent component: its count and the method that produced it.

    `count` is exact when `exact`, else a lower bound (solutions really counted). `estimate`
    is ApproxMC's, within 1 + `epsilon` with probability 1 - `delta`, when it is the method.
    """

    lines: tuple[int, ...]
    cells: int
    count: int
    exact: bool
    method: Method
    seconds: float
    estimate: int | None = None
    epsilon: float | None = None
    delta: float | None = None


@dataclass(frozen=True)
class Counted:
    """A count: exact, or a lower bound when `stopped` says why the counting ended early."""

    count: int
    exact: bool
    stopped: Stopped | None = None
    #: One verified solution, when there is at least one and the count got that far.
    witness: Grid | None = None
    #: Why there is no solution, when the count is exactly 0.
    reason: str | None = None
    solver: str | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    #: The independent components, in the order they were counted (smallest first).
    factors: tuple[Factor, ...] = ()
    #: The product of the factors' estimates (exact factors count as themselves), when an
    #: approximation was asked for and every inexact factor has an estimate.
    estimate: int | None = None
    approximation: Approximation | None = None


@dataclass(frozen=True)
class _Part:
    """One top-level component: a lower bound on its count, exact once fully counted."""

    lines: tuple[int, ...]
    cells: int
    bound: int
    exact: bool
    #: (cell, decided domain) for the component's cells in one solution.
    sample: tuple[tuple[int, int], ...]
    method: Method = "enumerate"
    seconds: float = 0.0
    estimate: Estimate | None = None
    guarantee: tuple[float, float] | None = None


@dataclass(frozen=True)
class _Setup:
    """What every phase of one count shares."""

    prepared: Prepared  # its domains: the search narrows and restores them
    deadline: Deadline
    need: int | None  # the --limit, None for no limit
    stats: dict[str, Any]
    progress: Progress

    @property
    def puzzle(self) -> Puzzle:
        return self.prepared.puzzle

    @property
    def propagator(self) -> Propagator:
        return self.prepared.propagator

    @property
    def domains(self) -> list[int]:
        return self.prepared.domains


def default_methods(approximate: bool = False) -> tuple[str, ...]:
    """The methods that race on a component here: the search, and whichever counters are
    installed when this platform can fork a child to run them in."""
    counters = (GANAK, APPROXMC) if approximate else (GANAK,)
    forking = can_fork()
    return (SEARCH, *(c for c in counters if forking and installed(c)))


def count_solutions(
    puzzle: Puzzle,
    *,
    backend: str,
    limit: int = 0,
    deadline: Deadline | None = None,
    options: SearchOptions | None = None,
    enumeration_limit: int = ENUMERATION_LIMIT,
    sat_checks: bool = True,
    methods: Sequence[str] | None = None,
    approximation: Approximation | None = None,
    head_start: float = RACE_HEAD_START,
    domains: Sequence[int] | None = None,
    progress: Progress | None = None,
) -> Counted:
    """Count the solutions of `puzzle`; `limit` > 0 stops once the count reaches it.

    A count stopped by the limit is reported as exactly `limit` (the true count is at least
    that); a count stopped by the deadline is the product of the components' lower bounds,
    each made of fully counted branches only. `methods` are what may race on a component
    that the enumeration does not finish ("search", "ganak", "approxmc"; default: see
    default_methods). `sat_checks` (when PySAT is installed) lets the counting search ask a
    SAT solver whether a large sub-problem has any solution. `domains` (default: nothing
    decided) restricts the count to the grids they allow: a cube's count (the cubes backend).
    `progress` is kept current: the phase, the component counted, the count so far.
    """
    if methods is None:
        methods = default_methods(approximation is not None)
    progress = progress or Progress()
    progress.cells, progress.phase = puzzle.width * puzzle.height, "line logic"
    stats: dict[str, Any] = {"cells": puzzle.width * puzzle.height}
    try:
        prepared = prepare(puzzle, deadline, None if domains is None else list(domains))
    except Timeout:
        return Counted(0, False, "timeout", stats=stats, approximation=approximation)
    if prepared.reason is not None:
        return Counted(0, True, reason=prepared.reason, stats=stats, approximation=approximation)
    domains = prepared.domains
    stats["cells_left"] = prepared.cells_left
    progress.cells_left, progress.domains = prepared.cells_left, tuple(domains)
    setup = _Setup(prepared, deadline or Deadline(None), limit or None, stats, progress)
    # The cubes backend counts on a cluster (phase 2); the first solutions of each component
    # come faster from the sat backend here than from a cluster started for them.
    enumerating = "sat" if backend == "cubes" else backend
    enumerated = _enumerate(setup, enumerating, options or SearchOptions(), enumeration_limit)
    if isinstance(enumerated, Counted):
        return replace(enumerated, approximation=approximation)
    parts, solver = enumerated

    # One full grid from the samples, checked by the independent verifier: every nonzero
    # count rests on at least one grid that really satisfies the clues.
    grid = list(domains)
    for part in parts:
        for cell, domain in part.sample:
            grid[cell] = domain
    witness = verify(puzzle, domains_to_grid(puzzle, grid))

    use_sat = sat_checks and installed_module("pysat")
    if backend == "cubes":  # the cubes partition each component's solutions: counts add
        parts = _count_parts_by_cubes(setup, parts, options or SearchOptions())
    else:
        parts = _count_parts(setup, parts, tuple(methods), approximation, head_start, use_sat)
    factors = tuple(_factor(part) for part in parts)
    total = product([part.bound for part in parts])
    estimate = None
    if approximation is not None and all(p.exact or p.estimate is not None for p in parts):
        estimate = product([p.bound if p.exact or p.estimate is None else p.estimate.value
                             for p in parts])  # fmt: skip
    result = Counted(
        total, True, None, witness, solver=solver, stats=stats, factors=factors,
        estimate=estimate, approximation=approximation,
    )  # fmt: skip
    need = setup.need
    if all(part.exact for part in parts) and (need is None or total <= need):
        return result
    if need is not None and total >= need:
        return replace(result, count=need, exact=False, stopped="limit")
    if estimate is not None:
        return replace(result, exact=False, stopped="estimate")
    return replace(result, exact=False, stopped="timeout")


def _factor(part: _Part) -> Factor:
    estimate = part.estimate
    return Factor(
        part.lines, part.cells, part.bound, part.exact, part.method, round(part.seconds, 4),
        None if estimate is None else estimate.value,
        None if part.guarantee is None else part.guarantee[0],
        None if part.guarantee is None else part.guarantee[1],
    )  # fmt: skip


def _enumerate(
    setup: _Setup, backend: str, options: SearchOptions, cap: int
) -> tuple[list[_Part], str | None] | Counted:
    """Phase 1: the backend enumerates each component up to `cap` solutions.

    That counts the small components exactly, gives every other one a lower bound of at least
    1 and a sample solution, and settles hard components with few solutions, which SAT
    solvers handle far better than a search without clause learning. Returns a Counted when
    the count is already decided (a component without solution, or the deadline).
    """
    prepared, need = setup.prepared, setup.need
    pieces = prepared.parts()
    setup.stats["components"] = len(pieces)
    setup.progress.phase, setup.progress.components = "enumerating", len(pieces)
    chosen = load_backend(backend)
    solver: str | None = None
    parts: list[_Part] = []
    product = 1
    for number, lines in enumerate(pieces, start=1):
        setup.progress.component = number
        started = time.perf_counter()
        part_cap = cap if need is None else min(cap, share(need, product))
        residual = prepared.residual(lines)
        enumerated = enumerate_part(chosen, residual, options, setup.deadline, part_cap)
        report, found = enumerated.report, len(enumerated.solutions)
        solver = report.stats.get("solver", solver)
        setup.stats["enumerated"] = setup.stats.get("enumerated", 0) + found
        if report.timed_out and not report.exhausted:
            # A component not enumerated yet might have no solution: only when this is the
            # last one do its solutions make a lower bound (the others have at least 1 each).
            bound = product * found if number == len(pieces) else 0
            if need is not None and bound >= need:
                return Counted(need, False, "limit", solver=solver, stats=setup.stats)
            return Counted(bound, False, "timeout", solver=solver, stats=setup.stats)
        if not found:
            why = no_grid(prepared.puzzle, lines)
            return Counted(0, True, reason=why, solver=solver, stats=setup.stats)
        seconds = time.perf_counter() - started
        sample = enumerated.solutions[0]
        parts.append(
            _Part(lines, len(residual.cells()), found, report.exhausted, sample, seconds=seconds)
        )
        product *= found
        setup.progress.solutions = product  # each component ahead has at least one
    setup.stats["enumerated_components"] = sum(1 for part in parts if part.exact)
    return parts, solver


def _count_parts(
    setup: _Setup,
    parts: list[_Part],
    methods: tuple[str, ...],
    approximation: Approximation | None,
    head_start: float,
    use_sat: bool,
) -> list[_Part]:
    """Phase 2: race the methods on every component the enumeration did not finish."""
    started = time.perf_counter()
    counter = CountingSearch(setup.propagator, setup.domains, setup.deadline)
    parts = list(parts)
    setup.progress.phase = "counting"
    unsettled = [index for index, part in enumerate(parts) if not part.exact]
    guarantee = None
    if approximation is not None and APPROXMC in methods:
        guarantee = share_of_guarantee(approximation.epsilon, approximation.delta, len(unsettled))
    errors: list[str] = []
    # Each decision nests two calls (component, product) and decides at least one cell.
    with recursion_limit(2 * int(setup.stats["cells_left"]) + 1000):
        for index in unsettled:
            part = parts[index]
            setup.progress.component = index + 1
            others = product([other.bound for other in parts[:index] + parts[index + 1 :]])
            need = None if setup.need is None else share(setup.need, others)
            if need is not None and part.bound >= need:
                continue  # the enumeration alone reached this component's share of the limit
            race = CounterRace(
                setup.prepared, setup.deadline, part.lines, methods, guarantee, head_start
            )
            try:
                parts[index] = _count_part(setup, counter, race, part, need, use_sat)
            finally:
                race.close()
                errors += race.errors
            setup.progress.solutions = product([each.bound for each in parts])
            if setup.deadline.expired():
                break
    setup.stats.update(counter.stats(), search_seconds=round(time.perf_counter() - started, 4))
    if errors:
        setup.stats["counter_errors"] = errors
    return parts


def _count_parts_by_cubes(setup: _Setup, parts: list[_Part], options: SearchOptions) -> list[_Part]:
    """Phase 2 on a Dask cluster: every component the enumeration did not finish is split into
    cubes, each counted by a worker (this whole count, from the cube's domains, with the other
    components fixed to their sample), and the cubes' counts add up."""
    from satnono.counting.cubes import count_by_cubes

    parts = list(parts)
    for index, part in enumerate(parts):
        if part.exact:
            continue
        started = time.perf_counter()
        domains = list(setup.domains)
        for other in parts[:index] + parts[index + 1 :]:
            for cell, domain in other.sample:
                domains[cell] = domain
        residual = replace(setup.prepared.residual(part.lines), domains=tuple(domains))
        value, exact, stats = count_by_cubes(residual, options, setup.deadline, count_cube)
        setup.stats.setdefault("cubes", []).append(stats)
        seconds = part.seconds + time.perf_counter() - started
        parts[index] = replace(
            part, bound=max(value, part.bound), exact=exact, method=CUBES, seconds=seconds
        )
        if setup.deadline.expired():
            break
    return parts


def count_cube(puzzle: Puzzle, domains: tuple[int, ...], seconds: float | None) -> tuple[int, bool]:
    """A Dask task: the solutions of the grid allowed by one cube's domains, and whether that
    count is exact (else a lower bound), by this module's counting with the sat backend."""
    counted = count_solutions(puzzle, backend="sat", domains=domains, deadline=Deadline(seconds))
    return counted.count, counted.exact


def _count_part(
    setup: _Setup,
    counter: CountingSearch,
    race: CounterRace,
    part: _Part,
    need: int | None,
    use_sat: bool,
) -> _Part:
    """Count one component: the search with the counters joining after the head start, or
    the counters alone; the first exact answer wins (or ApproxMC's estimate)."""
    started = time.perf_counter()
    bound = part.bound

    def finish(**changes: Any) -> _Part:
        return replace(part, seconds=part.seconds + time.perf_counter() - started, **changes)

    if SEARCH in race.methods:
        race.tick()  # starts the counters at once when there is no head start
        counter.tick = race.tick
        if use_sat:
            counter.sat = SatCheck(setup.propagator, setup.domains, part.lines, setup.deadline)
        try:
            value, exact = counter.component(part.lines, need)
        finally:
            counter.tick = None
            counter.timed_out = False
            if counter.sat is not None:
                counter.sat.close()
                counter.sat = None
        if exact:
            return finish(bound=value, exact=True, method=SEARCH)
        if value > bound:
            bound = value
            part = replace(part, bound=value, method=SEARCH)
        if need is not None and value >= need:
            return finish()  # reached its share of the limit: no exact count is needed
    else:
        race.start()
    answer = race.answer if race.answer is not None else race.wait()
    if answer is None:
        return finish()
    if isinstance(answer, Estimate):
        if answer.exact:
            return finish(bound=answer.value, exact=True, method=APPROXMC)
        return finish(method=APPROXMC, estimate=answer, guarantee=race.guarantee)
    return finish(bound=answer, exact=True, method=GANAK)
