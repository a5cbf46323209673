"""Exact and approximate solution counting: each independent component by the method that fits.

The residual splits into independent components whose counts multiply. Each is first enumerated
by the backend up to a small cap, which settles components with few solutions. The others go to
a race: satnono's own counting search (line propagation, decomposition into sub-components and
a cache of sub-problem counts: a permutation square has 2^n sub-problems, not n! solutions)
against Ganak, an exact model counter run on the component's CNF in a forked child, which is far
ahead where a region does not factorise line by line. The search runs alone for a head start,
so components it settles at once never pay for a child. With `approximate`, ApproxMC joins the
race and gives an (epsilon, delta)-guaranteed estimate where no exact count finishes.
Every count is a Python int, exact however large; the rule and its measurements are in
BENCHMARKS.md (counting section).
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain
from typing import Any, Literal

from satnono.backends import SearchOptions, load_backend
from satnono.cnf import encode_puzzle
from satnono.components import components
from satnono.counters import (
    APPROXMC,
    GANAK,
    Estimate,
    approxmc_count,
    ganak_count,
    installed,
    share_of_guarantee,
)
from satnono.linesolver import colors_of
from satnono.model import Grid, Puzzle
from satnono.pipeline import Prepared, enumerate_part, no_grid, prepare
from satnono.propagate import (
    LineContradiction,
    Propagator,
    Trail,
    domains_to_grid,
    undo,
)
from satnono.runtime.child import Send, can_fork
from satnono.runtime.deadline import Deadline, Timeout
from satnono.runtime.race import Race
from satnono.runtime.sat_solvers import SatSolver
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

#: Bytes of cache keys kept before the cache is emptied (keys dominate its memory).
CACHE_BYTES = 200_000_000

#: Components with at least this many undecided cells are checked by a SAT solver before the
#: counting search branches on them; line propagation finds the dead ends of smaller ones as
#: cheaply. Measured between 10 and 120: the hard survey puzzles barely notice, and
#: permutation-9 and the large unfinished counts (flag, center) are faster with fewer checks.
SAT_CHECK_CELLS = 64
#: Supports interrupt(), so the deadline stops a long check; fast on incremental calls.
SAT_CHECK_SOLVER = "glucose42"

#: Why a count is not exact: the --limit was reached, the deadline passed, or an estimate
#: answered first (with an approximation asked for).
Stopped = Literal["limit", "timeout", "estimate"]
#: How a factor was counted (`"method"` in `satnono count --json`).
Method = Literal["enumerate", "search", "ganak", "approxmc"]
SEARCH: Method = "search"


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
) -> Counted:
    """Count the solutions of `puzzle`; `limit` > 0 stops once the count reaches it.

    A count stopped by the limit is reported as exactly `limit` (the true count is at least
    that); a count stopped by the deadline is the product of the components' lower bounds,
    each made of fully counted branches only. `methods` are what may race on a component
    that the enumeration does not finish ("search", "ganak", "approxmc"; default: see
    default_methods). `sat_checks` (when PySAT is installed) lets the counting search ask a
    SAT solver whether a large sub-problem has any solution.
    """
    if methods is None:
        methods = default_methods(approximation is not None)
    stats: dict[str, Any] = {"cells": puzzle.width * puzzle.height}
    try:
        prepared = prepare(puzzle, deadline)
    except Timeout:
        return Counted(0, False, "timeout", stats=stats, approximation=approximation)
    if prepared.reason is not None:
        return Counted(0, True, reason=prepared.reason, stats=stats, approximation=approximation)
    domains = prepared.domains
    stats["cells_left"] = prepared.cells_left
    setup = _Setup(prepared, deadline or Deadline(None), limit or None, stats)
    enumerated = _enumerate(setup, backend, options or SearchOptions(), enumeration_limit)
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

    use_sat = sat_checks and _pysat_installed()
    parts = _count_parts(setup, parts, tuple(methods), approximation, head_start, use_sat)
    factors = tuple(_factor(part) for part in parts)
    total = _product([part.bound for part in parts])
    estimate = None
    if approximation is not None and all(p.exact or p.estimate is not None for p in parts):
        estimate = _product([p.bound if p.exact or p.estimate is None else p.estimate.value
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


def _pysat_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("pysat") is not None


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
    chosen = load_backend(backend)
    solver: str | None = None
    parts: list[_Part] = []
    product = 1
    for number, lines in enumerate(pieces, start=1):
        started = time.perf_counter()
        part_cap = cap if need is None else min(cap, _share(need, product))
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
    counter = _Counter(setup.propagator, setup.domains, setup.deadline)
    parts = list(parts)
    unsettled = [index for index, part in enumerate(parts) if not part.exact]
    guarantee = None
    if approximation is not None and APPROXMC in methods:
        guarantee = share_of_guarantee(approximation.epsilon, approximation.delta, len(unsettled))
    errors: list[str] = []
    # Each decision nests two calls (component, product) and decides at least one cell.
    with _recursion_limit(2 * int(setup.stats["cells_left"]) + 1000):
        for index in unsettled:
            part = parts[index]
            others = _product([other.bound for other in parts[:index] + parts[index + 1 :]])
            need = None if setup.need is None else _share(setup.need, others)
            if need is not None and part.bound >= need:
                continue  # the enumeration alone reached this component's share of the limit
            race = _Race(setup, part.lines, methods, guarantee, head_start)
            try:
                parts[index] = _count_part(setup, counter, race, part, need, use_sat)
            finally:
                race.close()
                errors += race.errors
            if setup.deadline.expired():
                break
    setup.stats.update(counter.stats(), search_seconds=round(time.perf_counter() - started, 4))
    if errors:
        setup.stats["counter_errors"] = errors
    return parts


def _count_part(
    setup: _Setup, counter: _Counter, race: _Race, part: _Part, need: int | None, use_sat: bool
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
            counter.sat = _SatCheck(setup.propagator, setup.domains, part.lines, setup.deadline)
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


class _Race:
    """The counters racing the search on one component, each in a forked child
    (satnono.runtime.race): the first count that arrives wins, an int from Ganak or an
    Estimate from ApproxMC.

    They start once the search has had its head start (`tick`, called by the search every
    64 nodes), or at once (`start`) when the search does not run.
    """

    def __init__(
        self,
        setup: _Setup,
        lines: tuple[int, ...],
        methods: tuple[str, ...],
        guarantee: tuple[float, float] | None,
        head_start: float,
    ) -> None:
        self.setup = setup
        self.lines = lines
        self.methods = methods
        self.guarantee = guarantee
        self.head_start = head_start
        self.started_at = time.perf_counter()
        #: The component's state at its root: the search narrows setup.domains in place.
        self.root = tuple(setup.domains)
        self.race: Race[str] = Race(lambda _, answer: True)
        self.started = False

    @property
    def answer(self) -> int | Estimate | None:
        winner = self.race.winner
        return None if winner is None else winner.messages[-1]

    @property
    def errors(self) -> list[str]:
        return self.race.errors

    def start(self) -> None:
        if self.started:
            return
        self.started = True
        propagator, root, lines = self.setup.propagator, self.root, self.lines
        if GANAK in self.methods:

            def run_ganak(send: Send) -> None:
                send(ganak_count(encode_puzzle(propagator, root, lines)))

            self.race.enter(GANAK, run_ganak, "Ganak counter", quiet=True)
        if APPROXMC in self.methods and self.guarantee is not None:
            epsilon, delta = self.guarantee

            def run_approxmc(send: Send) -> None:
                formula = encode_puzzle(propagator, root, lines)
                send(approxmc_count(formula, epsilon, delta))

            self.race.enter(APPROXMC, run_approxmc, "ApproxMC counter", quiet=True)

    def tick(self) -> bool:
        """Start the counters when the head start is over; True once an answer is in."""
        if not self.started and time.perf_counter() - self.started_at >= self.head_start:
            self.start()
        return self.race.poll() is not None

    def wait(self) -> int | Estimate | None:
        """Wait for the first answer; None at the deadline or when every counter failed."""
        self.race.collect(self.setup.deadline)
        return self.answer

    def close(self) -> None:
        self.race.close()


def _share(need: int, others: int) -> int:
    """What one factor must reach for the product with `others` (>= 1) to reach `need`."""
    return max(1, -(-need // others))


def _product(values: Sequence[int]) -> int:
    total = 1
    for value in values:
        total *= value
    return total


@contextlib.contextmanager
def _recursion_limit(frames: int) -> Iterator[None]:
    """Allow the search to nest as deep as the grid needs, then restore the limit.

    Since Python 3.11 calls between Python functions use no C stack, so the limit only
    guards against runaway recursion, which the number of undecided cells already bounds.
    """
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, frames))
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


class _Counter:
    """The counting search over one shared grid state, undone along a trail.

    `component(lines, need)` returns (count, exact). When exact is False the count is a lower
    bound made only of fully counted branches, and either it reached `need` or the deadline
    passed (then `timed_out` is set and every level returns at once).
    """

    def __init__(self, propagator: Propagator, domains: list[int], deadline: Deadline) -> None:
        self.propagator = propagator
        self.domains = domains
        self.deadline = deadline
        self.trail: Trail = []
        self.timed_out = False
        self.cache: dict[tuple[tuple[int, ...], Hashable], int] = {}
        self.cache_bytes = 0
        puzzle = propagator.puzzle
        width, height = puzzle.width, puzzle.height
        self.lines_of = [(c // width, height + c % width) for c in range(width * height)]
        # Domains fit in a byte up to 8 colors: pack cache keys as bytes, 8x smaller than tuples.
        self.pack = len(puzzle.palette) <= 8
        self.side = max(width, height)
        self.nodes = self.hits = self.contradictions = self.sat_checks = 0
        #: Set for the top-level component being counted, when PySAT is installed.
        self.sat: _SatCheck | None = None
        #: Looked at with the deadline: True stops the search (a counter in the race answered).
        self.tick: Callable[[], bool] | None = None

    def stats(self) -> dict[str, int]:
        return {
            "count_nodes": self.nodes,
            "count_cache_hits": self.hits,
            "count_contradictions": self.contradictions,
            "count_cache_size": len(self.cache),
            "count_sat_checks": self.sat_checks,
        }

    def component(self, lines: tuple[int, ...], need: int | None) -> tuple[int, bool]:
        """Count one component (its lines hold undecided cells; no other component shares them)."""
        if self.timed_out or ((self.nodes & 63) == 0 and self._stopped()):
            self.timed_out = True
            return 0, False
        self.nodes += 1
        domains, read = self.domains, self.propagator.read
        views = [read[line](domains) for line in lines]
        # The count depends only on these lines' contents (undecided and decided cells alike):
        # the component shares no undecided cell with the rest of the grid.
        packed = bytes(chain.from_iterable(views)) if self.pack else tuple(views)
        key = (lines, packed)
        known = self.cache.get(key)
        if known is not None:
            self.hits += 1
            return known, True
        cell, undecided = self._choose(lines, views)
        if self.sat is not None and self.trail and undecided >= SAT_CHECK_CELLS:
            satisfiable = self.sat.satisfiable(domains, self.trail)
            self.sat_checks += 1
            if satisfiable is None:
                self.timed_out = True
                return 0, False
            if not satisfiable:
                self._remember(key, 0)
                return 0, True
        total = 0
        options = colors_of(domains[cell])
        trail, propagator = self.trail, self.propagator
        for position, color in enumerate(options):
            mark = len(trail)
            trail.append((cell, domains[cell]))
            domains[cell] = 1 << color
            try:
                propagator.propagate(domains, self.lines_of[cell], trail)
            except LineContradiction:
                self.contradictions += 1
                undo(domains, trail, mark)
                continue
            parts = components(propagator, domains, lines)
            value, exact = self.product(parts, None if need is None else need - total)
            undo(domains, trail, mark)
            total += value
            if not exact:
                return total, False
            if need is not None and total >= need and position < len(options) - 1:
                return total, False
        self._remember(key, total)
        return total, True

    def _stopped(self) -> bool:
        return self.deadline.expired() or (self.tick is not None and self.tick())

    def _remember(self, key: tuple[tuple[int, ...], Hashable], count: int) -> None:
        packed = key[1]
        size = len(packed) if isinstance(packed, bytes) else 8 * len(key[0]) * self.side
        self.cache_bytes += size + 100  # + the dict entry, the key and the count objects
        if self.cache_bytes > CACHE_BYTES:
            self.cache.clear()
            self.cache_bytes = 0
        self.cache[key] = count

    def product(self, parts: list[tuple[int, ...]], need: int | None) -> tuple[int, bool]:
        """Count independent components and multiply; an exact zero anywhere is exact."""
        total = 1
        exact = True
        for index in range(len(parts) - 1, -1, -1):  # smallest first
            part_need = None if need is None else _share(need, total)
            value, part_exact = self.component(parts[index], part_need)
            if value == 0:
                return 0, part_exact
            total *= value
            if not part_exact:
                if self.timed_out:
                    # Components not counted yet have no lower bound above 0.
                    return (total if index == 0 else 0), False
                exact = False  # reached its share of the limit; the rest need just 1 each
        return total, exact

    def _choose(self, lines: tuple[int, ...], views: list[tuple[int, ...]]) -> tuple[int, int]:
        """An undecided cell of the line with the fewest undecided cells, and how many there are.

        Finishing short lines first decides whole lines early, which splits the component
        apart and makes the remaining sub-problems repeat (and hit the cache).
        """
        best = -1
        fewest = 1 << 30
        seen = 0  # each undecided cell is seen twice: from its row and from its column
        for index, view in enumerate(views):
            left = 0
            for domain in view:
                if domain & (domain - 1):
                    left += 1
            seen += left
            if 0 < left < fewest:
                best, fewest = index, left
        cells = self.propagator.cells[lines[best]]
        for position, domain in enumerate(views[best]):
            if domain & (domain - 1):
                return cells[position], seen // 2
        raise AssertionError("a component without undecided cells")  # pragma: no cover


class _SatCheck:
    """Is the current state of one component still satisfiable? An incremental SAT solver says.

    Line propagation alone misses contradictions that only show across many lines, and the
    counting search would then explore a dead sub-tree cell by cell; the solver refutes it at
    once and learns clauses that make later checks cheap. Narrowed cells become assumptions.
    """

    def __init__(
        self, propagator: Propagator, domains: list[int], lines: tuple[int, ...], deadline: Deadline
    ) -> None:
        formula = encode_puzzle(propagator, domains, lines)
        self.literals = formula.cell_literals
        # In use until close(): the deadline interrupts it from now on.
        self.stoppable = SatSolver(SAT_CHECK_SOLVER, deadline, formula.clauses).__enter__()

    def satisfiable(self, domains: list[int], trail: Trail) -> bool | None:
        """None when the deadline interrupted the solver."""
        assumptions: list[int] = []
        seen: set[int] = set()
        literals = self.literals
        for cell, _ in trail:
            if cell in seen:
                continue
            seen.add(cell)
            domain = domains[cell]
            for color, literal in literals.get(cell, ()):
                if not domain >> color & 1:
                    assumptions.append(-literal)  # a one-hot cell is decided by its exclusions
        return self.stoppable.solve(assumptions)

    def close(self) -> None:
        self.stoppable.__exit__()
