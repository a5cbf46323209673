"""Counting one puzzle: line logic, then the native engine's count (each independent component
by a sweep or by the counting search, engine/src/count/) racing the field's counters.

Every count is a Python int, exact however large; a count stopped early is a true lower bound
(made only of what was counted to the end), and `stopped` says why. Every nonzero count rests
on at least one grid the independent verifier has checked.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from satnono.backends import (
    SearchOptions,
    SearchTask,
    load_backend,
    share_cores,
    usable_cores,
)
from satnono.core.grids import domains_to_grid
from satnono.core.model import Grid, Puzzle
from satnono.core.progress import Progress
from satnono.core.verify import verify
from satnono.logic.counted import CountKnobs, NativeCount
from satnono.logic.jobs import SLICE, Job
from satnono.logic.native import Engine
from satnono.pipeline.counting import narrowing
from satnono.pipeline.counting.counters import (
    APPROXMC,
    GANAK,
    Estimate,
    installed,
    share_of_guarantee,
)
from satnono.pipeline.counting.listing import NativeListing, listing_due
from satnono.pipeline.counting.race import CounterRace
from satnono.pipeline.counting.result import (
    BY_APPROXMC,
    BY_GANAK,
    CUBES,
    ENUMERATE,
    SEARCH,
    Approximation,
    Counted,
    Factor,
    Method,
    Stopped,
)
from satnono.pipeline.counting.witness import at_least_the_witness, witnessed
from satnono.pipeline.prepare import NO_GRID, Prepared, prepare
from satnono.runtime.child import can_fork
from satnono.runtime.deadline import Deadline, Timeout

#: Solutions the backend lists (a SAT solver, a blocking clause each) while the engine counts:
#: a puzzle with this many or fewer is counted by listing them, which is far ahead of any
#: counting on hard puzzles with a handful of solutions (Thing: 3, the engine's count did not
#: finish in 30 s); past that the listing stops and the count goes on.
ENUMERATION_LIMIT = 64
#: Seconds the native count runs alone before Ganak (and ApproxMC) join the race in forked
#: children, and then only while it is not sweeping (`_Race._sweeping`). The native count
#: settles every example, the corpus and all but four survey puzzles in well under a second
#: (BENCHMARKS.md, counting section); a child forked sooner would only cost its fork there.
RACE_HEAD_START = 1.0


def default_methods(approximate: bool = False) -> tuple[str, ...]:
    """The methods that race here: the backend's listing of the first solutions, satnono's own
    count, and whichever counters are installed when this platform can fork a child to run
    them in."""
    counters = (GANAK, APPROXMC) if approximate else (GANAK,)
    forking = can_fork()
    return (ENUMERATE, SEARCH, *(c for c in counters if forking and installed(c)))


def count_solutions(
    puzzle: Puzzle,
    *,
    backend: str = "sat",
    limit: int = 0,
    deadline: Deadline | None = None,
    options: SearchOptions | None = None,
    methods: Sequence[str] | None = None,
    approximation: Approximation | None = None,
    head_start: float = RACE_HEAD_START,
    domains: Sequence[int] | None = None,
    progress: Progress | None = None,
    knobs: CountKnobs | None = None,
) -> Counted:
    """Count the solutions of `puzzle`; `limit` > 0 caps the count (then reported as exactly
    `limit`, the true count being at least that).

    `methods` are what may count ("enumerate": the backend lists the first solutions, which
    count a puzzle with few, then the engine's own search lists on beside the count, up to
    LISTING_LIMIT; "search": satnono's own count, in the engine; "ganak";
    "approxmc"; default: see default_methods): the first exact answer wins. `domains`
    (default: nothing decided) restricts the count to the grids they allow (a cube's count, the
    cubes backend, which `backend="cubes"` counts with on a cluster). `progress` is kept
    current: the phase, the components counted, the count so far.
    """
    if methods is None:
        methods = default_methods(approximation is not None)
    progress = progress or Progress()
    deadline = deadline or Deadline(None)
    progress.cells, progress.phase = puzzle.width * puzzle.height, "line logic"
    stats: dict[str, Any] = {"cells": puzzle.width * puzzle.height}
    try:
        prepared = prepare(puzzle, deadline, None if domains is None else list(domains))
    except Timeout:
        return Counted(0, False, "timeout", stats=stats, approximation=approximation)
    if prepared.reason is not None:
        return Counted(0, True, reason=prepared.reason, stats=stats, approximation=approximation)
    stats["cells_left"] = prepared.cells_left
    progress.cells_left, progress.domains = prepared.cells_left, tuple(prepared.domains)
    if not prepared.cells_left:
        witness = verify(puzzle, domains_to_grid(puzzle, prepared.domains))
        return _capped(Counted(1, True, witness=witness, stats=stats), limit, approximation)
    if backend == "cubes":
        counted = _count_by_cubes(prepared, options or SearchOptions(), deadline, stats)
    else:
        race = _Race(prepared, deadline, approximation, head_start, knobs, progress, stats)
        counted = race.run(tuple(methods), backend, options or SearchOptions(), limit)
    return _capped(counted, limit, approximation)


def _capped(counted: Counted, limit: int, approximation: Approximation | None) -> Counted:
    """The count with the --limit applied: a count past it is reported as the limit."""
    counted = replace(counted, approximation=approximation)
    if limit and counted.count >= limit and (counted.count > limit or not counted.exact):
        return replace(counted, count=limit, exact=False, stopped="limit")
    return counted


@dataclass
class _Race:
    """One count's race: the backend lists the first solutions while the engine counts, then
    the engine's listing goes on beside the count (satnono.pipeline.counting.listing), and
    the counters join after the head start; the first exact answer wins."""

    prepared: Prepared
    deadline: Deadline
    approximation: Approximation | None
    head_start: float
    knobs: CountKnobs | None
    progress: Progress
    stats: dict[str, Any]
    engine: Engine = field(init=False)
    started: float = field(default_factory=time.perf_counter, init=False)
    #: Solutions the backend listed, and the first of them (verified): a lower bound and
    #: its witness, whatever the count comes to.
    listed: int = field(default=0, init=False)
    witness: Grid | None = field(default=None, init=False)
    #: Whether the engine counts a narrow component now, as last followed (`_sweeping`).
    engine_sweeping: bool = field(default=False, init=False)
    #: The engine's count now (another once the backbone has narrowed the puzzle), and the
    #: lower bound the one before it had reached (`_backbone_step`).
    job: Job | None = field(default=None, init=False)
    floor: NativeCount | None = field(default=None, init=False)
    #: The backbone settled beside the count (satnono.pipeline.counting.narrowing), once due.
    settling: narrowing.Settling = field(default_factory=narrowing.Settling, init=False)

    def __post_init__(self) -> None:
        self.engine = Engine(self.prepared.puzzle)

    def run(
        self, methods: tuple[str, ...], backend: str, options: SearchOptions, limit: int
    ) -> Counted:
        prepared, deadline = self.prepared, self.deadline
        if SEARCH in methods:
            self.job = self.engine.count(prepared.domains, deadline, _within_cores(self.knobs))
        self.progress.phase = "counting"
        try:
            if ENUMERATE in methods:
                listed = self._listed(self.job, backend, options, limit)
                if listed is not None:
                    return listed
            return self._counted(methods, limit)
        finally:
            self.settling.close()
            if self.job is not None:
                self.job.cancel()

    def _listed(
        self, job: Job | None, backend: str, options: SearchOptions, limit: int
    ) -> Counted | None:
        """The count by listing, when the backend lists every solution (at most
        ENUMERATION_LIMIT) or as many as the --limit asks before the engine has counted.
        Otherwise what it listed stays a lower bound (`listed`, with its first as a witness)."""
        prepared, progress = self.prepared, self.progress
        cap = ENUMERATION_LIMIT if not limit else min(limit, ENUMERATION_LIMIT)
        until = _UntilEnded(self.deadline, job)
        first: list[Grid] = []

        def keep(decided: list[int]) -> bool:
            if not first:
                first.append(verify(prepared.puzzle, domains_to_grid(prepared.puzzle, decided)))
            self.listed += 1
            progress.solutions = max(progress.solutions, self.listed)
            return self.listed < cap

        task = SearchTask(prepared.residual(), replace(options, limit=cap), until, keep)
        report = load_backend(backend).search(task)
        self.witness = first[0] if first else None
        found = self.listed
        # Else the engine's count is in, and the limit is applied to it.
        reached = 0 < limit <= found and (job is None or not job.ended())
        if not (report.exhausted or reached):
            return None
        seconds = round(time.perf_counter() - self.started, 4)
        lines = tuple(range(prepared.puzzle.line_count))
        factor = Factor(lines, prepared.cells_left, found, report.exhausted, ENUMERATE, seconds)
        if not found:
            return Counted(0, True, reason=NO_GRID, stats=self.stats, factors=(factor,))
        return Counted(found, report.exhausted, None if report.exhausted else "limit",
                       witness=self.witness, stats=self.stats, factors=(factor,))  # fmt: skip

    def _counted(self, methods: tuple[str, ...], limit: int) -> Counted:
        """The engine's count, the engine's listing of every solution (with "enumerate"), or a
        counter's answer, whichever comes first."""
        prepared, deadline, approximation = self.prepared, self.deadline, self.approximation
        job = self.job
        lines = tuple(range(prepared.puzzle.line_count))
        counters = tuple(method for method in methods if method in (GANAK, APPROXMC))
        guarantee = None
        if approximation is not None and APPROXMC in counters:
            guarantee = share_of_guarantee(approximation.epsilon, approximation.delta, 1)
        memory = (self.knobs or CountKnobs()).memory
        race = CounterRace(
            prepared, deadline, lines, counters, guarantee, self.head_start, memory=memory
        )
        listing: NativeListing | None = None
        nodes = None if job is None else self._nodes
        answer: int | Estimate | None = None
        try:
            if job is None:
                race.start()
            while True:
                if listing is None and ENUMERATE in methods and listing_due(self.started, nodes):
                    listing = NativeListing(self.engine, prepared)
                    listing.seeing = True  # till the backbone starts: it need not flip those
                if listing is not None and listing.going:
                    listing.step(deadline)  # a slice on this thread while the job counts
                    self.progress.solutions = max(self.progress.solutions, listing.found)
                    ended = job is not None and job.wait(0)
                elif job is not None:
                    ended = job.wait(SLICE)
                else:  # nothing of the engine's runs: the counters' answer, if any
                    answer = race.wait()
                    break
                if listing is not None and (listing.exhausted or 0 < limit <= listing.found):
                    break
                if ended:
                    break
                if job is not None:
                    followed = job.progress()
                    _follow(followed, self.progress)
                    self.engine_sweeping = bool(followed.get("sweeping"))
                    job = self._backbone_step(job, race, listing)
                    prepared = self.prepared
                if counters and race.tick(hold=self._sweeping() or self.settling.running):
                    answer = race.answer
                    break
                if deadline.expired():
                    if job is not None:
                        job.cancel()
                        job.finish(Deadline(None))
                    break
        finally:
            race.close()
            if listing is not None:
                listing.close()
                if listing.guide_error is not None:
                    self.stats["guide_error"] = listing.guide_error
            if race.errors:
                self.stats["counter_errors"] = race.errors
        if listing is not None and answer is None:
            if listing.first is not None and self.witness is None:
                decided = domains_to_grid(prepared.puzzle, listing.first)
                self.witness = verify(prepared.puzzle, decided)
            if listing.exhausted or 0 < limit <= listing.found:
                return self._listed_natively(listing)
            self.listed = max(self.listed, listing.found)
        seconds = round(time.perf_counter() - self.started, 4)
        cells = prepared.cells_left
        if isinstance(answer, Estimate):
            epsilon, delta = guarantee or (None, None)
            exact = answer.exact
            factor = Factor(lines, cells, answer.value, exact, BY_APPROXMC, seconds,
                            answer.value, epsilon, delta)  # fmt: skip
            # Not exact: the count is the lower bound a witness gives (1), the estimate apart.
            counted = Counted(
                answer.value if exact else 1, exact, None if exact else "estimate",
                stats=self.stats, factors=(factor,), estimate=answer.value,
            )  # fmt: skip
            return self._witnessed(counted)
        if answer is not None:
            factor = Factor(lines, cells, answer, True, BY_GANAK, seconds)
            return self._witnessed(Counted(answer, True, stats=self.stats, factors=(factor,)))
        if job is None:  # no count of the engine's, and no counter answered
            stopped: Stopped = "timeout" if deadline.expired() else "limit"
            return self._witnessed(Counted(self.listed, False, stopped, stats=self.stats))
        native = job.counted()
        _follow(job.progress(), self.progress)
        if not native.exact and self.floor is not None and self.floor.count > native.count:
            native = self.floor  # the count before the backbone had counted more
        self.stats.update(native.stats)
        self.stats["components"] = len(native.parts)
        factors = tuple(
            Factor(part.lines, part.cells, part.count, part.exact, _method(part.method),
                   part.seconds)
            for part in native.parts
        )  # fmt: skip
        counted = Counted(
            native.count, native.exact, None if native.exact else "timeout", stats=self.stats,
            factors=factors,
        )  # fmt: skip
        if native.count == 0 and native.exact:
            return replace(counted, reason=NO_GRID)
        if not native.exact and self.listed > native.count:  # the listing counted more
            listed = self._listing_factor(self.listed, False)
            counted = replace(counted, count=self.listed, factors=(listed,))
        return self._witnessed(counted, native)

    def _nodes(self) -> int:
        """The nodes the engine's count has searched so far."""
        return 0 if self.job is None else int(self.job.progress()["nodes"])

    def _backbone_step(self, job: Job, race: CounterRace, listing: NativeListing | None) -> Job:
        """Settle the backbone beside the count once due (`narrowing.Settling`); where it
        fixes cells line logic left open, count the narrowed puzzle instead (the same count,
        by a smaller search: the counters, waiting for it, count it too). The count stopped
        keeps its lower bound (`floor`). The count now."""
        known = () if self.witness is None else (self.witness,)
        searching = not (self._sweeping() or job.ended())
        cells = len(self.prepared.domains)

        def seen() -> list[int]:  # what the listing saw, as the backbone starts
            if listing is None:
                return []
            listing.seeing = False
            return listing.seen(cells)

        narrowed = self.settling.step(
            self.prepared, self.deadline, self.started, searching, known, seen
        )
        if self.settling.error is not None:
            self.stats["backbone_error"] = self.settling.error
        if narrowed is None or job.ended():
            return job
        job.cancel()
        job.finish(Deadline(None))
        self.floor = job.counted()
        self.prepared = narrowed.prepared
        self.stats["backbone"] = narrowed.stats()
        if not race.started:
            race.narrow(narrowed.prepared.domains)
        self.job = self.engine.count(
            narrowed.prepared.domains, self.deadline, _within_cores(self.knobs)
        )
        return self.job

    def _sweeping(self) -> bool:
        """Whether the engine's count is sweeping a component (a narrow one, one way or both,
        or a wide one's trial, as last followed), from a narrow sweep's setup to the count's
        next component: the counters wait
        till it has ended. A sweep counts what it takes on within its memory, and a counter's
        child forked beside it took a core from it and made every page it wrote after the
        fork a copy (thin-20049: 10.5-13.1 s as a whole process where Ganak's child came up
        beside its sweep, 7.2-8.4 s without, BENCHMARKS.md round 24). The cells passed alone
        read 0 before the sweep's first group and after its last, where a counter forked
        beside the sweep's setup, or for nothing once it had ended."""
        return self.engine_sweeping or self.progress.swept > 0

    def _listed_natively(self, listing: NativeListing) -> Counted:
        """The count the engine's listing came to: exact when it listed every solution, else
        (the --limit reached) a lower bound."""
        found, exact = listing.found, listing.exhausted
        factor = self._listing_factor(found, exact)
        if not found:
            return Counted(0, True, reason=NO_GRID, stats=self.stats, factors=(factor,))
        return Counted(found, exact, None if exact else "limit", witness=self.witness,
                       stats=self.stats, factors=(factor,))  # fmt: skip

    def _listing_factor(self, found: int, exact: bool) -> Factor:
        """The factor of a count the listing made: the whole residual, every line (its
        solutions are listed whole, not component by component)."""
        seconds = round(time.perf_counter() - self.started, 4)
        lines = tuple(range(self.prepared.puzzle.line_count))
        return Factor(lines, self.prepared.cells_left, found, exact, ENUMERATE, seconds)

    def _witnessed(self, counted: Counted, native: NativeCount | None = None) -> Counted:
        """`counted` with a verified grid: the listing's first, the native count's own when it
        is exact (drawn from its counts), else one the engine's search finds within
        WITNESS_SECONDS. A nonzero count without one is reported as a lower bound of 0."""
        self.progress.solutions = max(self.progress.solutions, counted.count)
        if self.witness is not None:
            return replace(at_least_the_witness(counted), witness=self.witness)
        return witnessed(self.engine, self.prepared, counted, native)


class _UntilEnded(Deadline):
    """A deadline that also passes once the engine's count has ended, or sweeps a narrow
    component both ways at once (`racing`: it uses both cores, and a sweep counts what it
    takes on; a listing beside it only slowed it, thin-9004 1.0-1.1 s as a whole process
    against 0.8 s, and one let run to its first solution thin-20020 0.74-0.95 s against
    0.34-0.43 s): the listing running beside it stops then (its solver is interrupted
    within a moment, see runtime.stoppable; a sliced one at its slice's end)."""

    __slots__ = ("job", "outer")

    def __init__(self, outer: Deadline, job: Job | None) -> None:
        super().__init__(None)
        self.outer = outer
        self.job = job

    def remaining(self) -> float | None:
        return self.outer.remaining()

    def expired(self) -> bool:
        job = self.job
        return self.outer.expired() or (job is not None and (job.ended() or job.racing()))


def _within_cores(knobs: CountKnobs | None) -> CountKnobs:
    """The knobs, the race of a long sweep from both ends off where this process may use one
    core only (its affinity, or its share as one of several at work: a batch worker, a cube's
    task; satnono.backends.share_cores)."""
    knobs = knobs or CountKnobs()
    if knobs.race and usable_cores() < 2:
        return replace(knobs, race=False)
    return knobs


def _method(name: str) -> Method:
    return "sweep" if name == "sweep" else SEARCH


def _follow(native: dict[str, int], progress: Progress) -> None:
    """Show the native count's progress: its components, the one it is on, its search's
    nodes and its sweep's place and states, and whether it sweeps from both ends."""
    progress.components = native["components"]
    progress.component = min(native["components"], native["components_done"] + 1)
    progress.nodes = native["nodes"]
    progress.swept, progress.states = native["swept_cells"], native["sweep_states"]
    progress.both_ways = bool(native.get("racing"))


def _count_by_cubes(
    prepared: Prepared, options: SearchOptions, deadline: Deadline, stats: dict[str, Any]
) -> Counted:
    """The cubes backend: each independent component split into cubes on a Dask cluster,
    every cube counted by a worker (this module's count, from the cube's domains), and the
    cubes' counts added up; the components' counts multiplied."""
    from satnono.pipeline.counting.cubes import count_by_cubes

    total, exact = 1, True
    factors: list[Factor] = []
    for lines in prepared.parts():
        started = time.perf_counter()
        residual = prepared.residual(lines)
        value, part_exact, cube_stats = count_by_cubes(residual, options, deadline, count_cube)
        stats.setdefault("cubes", []).append(cube_stats)
        seconds = round(time.perf_counter() - started, 4)
        factors.append(Factor(lines, len(residual.cells()), value, part_exact, CUBES, seconds))
        total *= value
        exact = exact and part_exact
        if value == 0 or deadline.expired():
            break
    counted = Counted(total, exact, None if exact else "timeout", stats=stats,
                      factors=tuple(factors))  # fmt: skip
    if total == 0 and exact:
        return replace(counted, reason=NO_GRID)
    return witnessed(Engine(prepared.puzzle), prepared, counted)


def count_cube(puzzle: Puzzle, domains: tuple[int, ...], seconds: float | None) -> tuple[int, bool]:
    """A Dask task: the solutions of the grid allowed by one cube's domains, and whether that
    count is exact (else a lower bound), by the native count, on one core (a worker's)."""
    with share_cores(1):
        counted = count_solutions(puzzle, domains=domains, deadline=Deadline(seconds),
                                  methods=(SEARCH,))  # fmt: skip
    return counted.count, counted.exact
