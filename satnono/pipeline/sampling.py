"""Random solutions, exactly uniform wherever the count is exact.

The native engine counts the solutions (engine/src/count/) and draws each one with probability
exactly 1/N from the counts: a color is chosen at each branch with probability (solutions
with it) / (solutions of the node), in exact integers (a component the sweep counts is drawn
backwards through the sweep's states, engine/src/count/layers.rs), and independent components
are drawn independently. Beside the count the engine lists every solution (as many as 64 MB
hold, satnono.pipeline.counting.listing): where that ends first, the draws come from the list,
each solution with probability exactly 1/N. Where neither finishes within EXACT_BUDGET,
each independent component is sampled on its own: one with few solutions is enumerated and
drawn from exactly uniformly, a larger one goes to a sampler from the field (CMSGen or
UniGen3, see SAMPLERS for what each guarantees) running on its CNF in a forked child. Where
CMSGen gives a component no solution within SAMPLER_FIRST, the component is sampled
by CaDiCaL instead (PHASES: from belief propagation's phases, each sample then made to differ
from the one before in one of FLIP_GROUP random cells; no uniformity guarantee, and said
so): CMSGen found none of webpbn's Sierp in 60 s, where this gives one a second or two. With a
second core that sampler starts beside CMSGen, so the seconds CMSGen is given are not waited
for where it gives nothing, and it is stopped by CMSGen's first sample.
Every grid is checked by the independent verifier before it is handed out.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from satnono.backends import Residual, SearchOptions, load_backend, usable_cores
from satnono.backends.guidance import guessed_phases
from satnono.core.grids import colors_to_grid, decided_colors, domains_to_grid
from satnono.core.model import Grid, Puzzle
from satnono.core.verify import Verifier
from satnono.encode.cnf import encode_puzzle
from satnono.errors import Contradiction
from satnono.logic.jobs import SLICE, Sampler
from satnono.logic.native import Engine, Estimate
from satnono.pipeline.counting import narrowing
from satnono.pipeline.counting.listing import NativeListing, listing_due
from satnono.pipeline.prepare import (
    NO_GRID,
    Assignment,
    Enumerated,
    Prepared,
    enumerate_part,
    no_grid,
    prepare,
)
from satnono.pipeline.samplers import (
    DEFAULT_SAMPLER,
    FLIP_GROUP,
    PHASES,
    SAMPLERS,
    sample_cells,
)
from satnono.runtime.child import ForkedChild, Send, stream_from
from satnono.runtime.deadline import Deadline, Timeout

#: Seconds the exact count may take before the samplers take over (never past the deadline),
#: unless it is sweeping a component then: a sweep counts what it takes on within its memory,
#: and its draws are exactly uniform where the samplers' are not (thin-20049, 6 x 195, 2.5 x
#: 10^22 solutions: its sweep's layers took 9.6 s, at the budget's edge, BENCHMARKS.md
#: round 24). It goes on while the deadline leaves the samplers as long, should it not end.
EXACT_BUDGET = 10.0
#: Draws asked of the engine at a time.
DRAW_BATCH = 256
#: Where no exact count finishes: components with at most this many solutions are enumerated
#: and drawn from exactly uniformly (enumeration costs about 0.1-0.3 ms a solution).
EXACT_LIMIT = 1000

#: Seconds a component's enumeration (up to EXACT_LIMIT + 1 solutions, by SAT) may take,
#: once it has found a solution, before the component goes to the sampler: the corpus's
#: Faase (one component, 6,176 open cells) was still being listed 20 s in, and `sample` gave
#: nothing in 60 s (BENCHMARKS.md, round 34).
ENUMERATION_FIRST = 5.0
#: Seconds CMSGen (the default sampler) may take over a component's first sample before it
#: is sampled by CaDiCaL instead (satnono.pipeline.samplers.PHASES): twice the
#: slowest first sample CMSGen gave a survey puzzle it samples (Lion's, 2.8 s; BENCHMARKS.md,
#: round 33).
SAMPLER_FIRST = 5.0
#: What every way of sampling a component promises (`SampleRun.guarantee`).
GUARANTEES = {
    **SAMPLERS,
    PHASES: "CaDiCaL from belief propagation's phases, each sample made to differ from the one "
    f"before in one of {FLIP_GROUP} random cells, where CMSGen gave no solution in "
    f"{SAMPLER_FIRST:g} s: no uniformity guarantee",
}


@dataclass(frozen=True)
class ComponentSampling:
    """How one component is sampled: "exact" (enumerated) or the sampler's name."""

    cells: int
    solutions: int | None  # known when enumerated
    method: str


class Sampling:
    """`n` random verified solutions of a puzzle, produced lazily by iterating.

    `methods` (filled once iteration starts) says how each component is sampled.
    Raises Contradiction when the puzzle has no solution, Timeout at the deadline.
    """

    def __init__(
        self,
        puzzle: Puzzle,
        n: int,
        *,
        seed: int = 0,
        sampler: str = DEFAULT_SAMPLER,
        deadline: Deadline | None = None,
    ) -> None:
        if sampler not in SAMPLERS:
            raise ValueError(f"unknown sampler {sampler!r}; choose one of: {', '.join(SAMPLERS)}")
        self.puzzle = puzzle
        self.n = n
        self.seed = seed
        self.sampler = sampler
        self.deadline = deadline or Deadline(None)
        self.methods: list[ComponentSampling] = []
        #: Whether the listing beside the exact count listed more than EXACT_LIMIT solutions
        #: (a single component then need not be enumerated to learn that it has many).
        self.listed_many = False

    def __iter__(self) -> Iterator[Grid]:
        puzzle, deadline = self.puzzle, self.deadline
        prepared = prepare(puzzle, deadline)
        if prepared.reason is not None:
            raise Contradiction(prepared.reason)
        exact = self._exactly(prepared)
        if exact is not None:
            yield from exact
            return
        if deadline.expired():
            raise Timeout
        yield from self._by_components(prepared)

    def _exactly(self, prepared: Prepared) -> Iterator[Grid] | None:
        """The draws from the engine's exact count, or from the engine's listing of every
        solution when it ends first (once `listing_due`, as many as KEPT_BYTES hold:
        satnono.pipeline.counting.listing), within EXACT_BUDGET or while the count sweeps past
        it and the deadline leaves EXACT_BUDGET more; None when neither ends (the samplers
        take over), or when the budget is 0 (off: a count that ends at once would otherwise
        still race a zero budget)."""
        if EXACT_BUDGET <= 0:
            return None
        puzzle, deadline = self.puzzle, self.deadline
        engine = Engine(puzzle)
        sampler = engine.sampler(prepared.domains, self.seed, deadline)
        budget, started = deadline.sooner(EXACT_BUDGET), time.perf_counter()
        settling = narrowing.Settling()
        try:
            return self._exact_draws(engine, sampler, prepared, budget, started, settling)
        finally:
            settling.close()

    def _exact_draws(
        self,
        engine: Engine,
        sampler: Sampler,
        prepared: Prepared,
        budget: Deadline,
        started: float,
        settling: narrowing.Settling,
    ) -> Iterator[Grid] | None:
        """`_exactly`'s loop. Once the count has searched for a while, the backbone is
        settled beside it; where it fixes cells, the narrowed puzzle is counted instead (the
        same solutions, drawn from as exactly: satnono.pipeline.counting.narrowing)."""
        deadline = self.deadline
        listing: NativeListing | None = None
        try:
            while True:
                searching = sampler.ended is None and not sampler.sweeping()
                narrowed = settling.step(prepared, deadline, started, searching)
                if narrowed is not None and sampler.ended is None:
                    sampler.cancel()
                    sampler = engine.sampler(narrowed.prepared.domains, self.seed, deadline)
                # Past the budget, a sweep goes on while the caller's deadline leaves the samplers
                # as long again, should it not end.
                left = deadline.remaining()
                going_on = sampler.sweeping() and (left is None or left > EXACT_BUDGET)
                over = budget.expired() and not going_on
                within = deadline if budget.expired() else budget
                if listing is None and listing_due(started, sampler.nodes):
                    listing = NativeListing(engine, prepared, keep=True)
                if listing is not None and listing.going:
                    listing.step(within)  # on this thread, while the engine counts on its own
                    total = sampler.total(Deadline(0), cancel=False)
                elif sampler.ended is None:
                    total = sampler.total(within.sooner(SLICE), cancel=False)
                else:
                    total = None
                if total is not None:
                    self.methods.append(ComponentSampling(prepared.cells_left, total, "exact"))
                    return self._drawn_exactly(sampler)
                if sampler.ended == "zero" or (listing is not None and listing.exhausted):
                    sampler.cancel()
                    if sampler.ended == "zero" or listing is None or not listing.kept:
                        raise Contradiction(NO_GRID)
                    self.methods.append(
                        ComponentSampling(prepared.cells_left, listing.found, "exact")
                    )
                    return self._drawn_from(listing.kept)
                going = sampler.ended is None or (listing is not None and listing.going)
                if over or not going:
                    sampler.cancel()
                    self.listed_many = listing is not None and listing.found > EXACT_LIMIT
                    return None
        finally:
            if listing is not None:
                listing.close()  # its search for a guide, if one is going

    def _drawn_from(self, listed: list[bytes] | list[list[int]]) -> Iterator[Grid]:
        """Draws from every solution, listed: each with probability exactly 1/len(listed)."""
        puzzle, deadline = self.puzzle, self.deadline
        verify = Verifier(puzzle)
        rng = random.Random(self.seed)
        for _ in range(self.n):
            if deadline.expired():
                raise Timeout
            colors = decided_colors(rng.choice(listed))
            yield verify(colors_to_grid(puzzle.width, colors), colors)

    def _drawn_exactly(self, sampler: Sampler) -> Iterator[Grid]:
        puzzle, deadline = self.puzzle, self.deadline
        verify = Verifier(puzzle)
        drawn = 0
        try:
            while drawn < self.n:
                batch = sampler.draw(min(DRAW_BATCH, self.n - drawn), deadline)
                if not batch:
                    raise Timeout
                for domains in batch:
                    colors = decided_colors(domains)
                    yield verify(colors_to_grid(puzzle.width, colors), colors)
                    drawn += 1
        finally:
            sampler.cancel()

    def _by_components(self, prepared: Prepared) -> Iterator[Grid]:
        """Each component drawn on its own: enumerated and drawn from when it has few
        solutions, by the sampler otherwise (at once where it is the only one and the count's
        listing already listed more than EXACT_LIMIT)."""
        puzzle, deadline = self.puzzle, self.deadline
        domains = prepared.domains
        rng = random.Random(self.seed)
        streams: list[Iterator[Assignment]] = []
        sat = load_backend("sat")
        parts = prepared.parts()
        for lines in parts:
            residual = prepared.residual(lines)
            cells = residual.cells()
            if len(parts) == 1 and self.listed_many:  # Sierp: 7.6 s to enumerate 1001 by SAT
                found = None
            else:
                # ENUMERATION_FIRST past its first solution, the component has many or is slow
                # to list, and goes to the sampler (Faase: still listing by SAT 20 s in).
                found = Enumerated()
                until = _ListedFor(deadline, found, ENUMERATION_FIRST)
                enumerate_part(sat, residual, SearchOptions(), until, EXACT_LIMIT + 1, found)
                if found.report.timed_out and (deadline.expired() or not found.solutions):
                    raise Timeout
                if not found.solutions:
                    raise Contradiction(no_grid(puzzle, lines))
            if found is not None and found.complete and len(found.solutions) <= EXACT_LIMIT:
                self.methods.append(ComponentSampling(len(cells), len(found.solutions), "exact"))
                streams.append(_drawn(found.solutions, rng))
            else:
                self.methods.append(ComponentSampling(len(cells), None, self.sampler))
                index, seed = len(self.methods) - 1, rng.randrange(1, 2**31)
                streams.append(self._sampled(residual, cells, seed, index))
        verify = Verifier(puzzle)
        try:
            for _ in range(self.n):
                if deadline.expired():  # drawing from enumerated components takes no time
                    raise Timeout  # per sample, but a million samples do
                grid = list(domains)
                for stream in streams:
                    for cell, domain in next(stream):
                        grid[cell] = domain
                yield verify(domains_to_grid(puzzle, grid))
        finally:
            for stream in streams:
                close = getattr(stream, "close", None)
                if close is not None:
                    close()  # ends a sampler's child now, not when collected

    def _sampled(
        self, residual: Residual, cells: list[int], seed: int, index: int
    ) -> Iterator[Assignment]:
        """The sampler's solutions of one component (the `index`th of `methods`), from a forked
        child; by CaDiCaL (PHASES) where CMSGen gives none within SAMPLER_FIRST. With a
        second core, the PHASES child starts beside CMSGen's and is stopped by CMSGen's first
        sample: where CMSGen gives none, its SAMPLER_FIRST seconds were not waited for
        (Nature, Sierp, Faase)."""
        geometry, domains, lines = residual.geometry, residual.domains, residual.lines
        n = self.n

        def by(sampler: str, estimate: Estimate | None = None) -> Callable[[Send], None]:
            def run(send: Send) -> None:
                formula = encode_puzzle(geometry, domains, lines)
                guess = None if estimate is None else guessed_phases(formula, residual, estimate)
                for true in sample_cells(formula, sampler, n, seed, guess):
                    send(formula.decode(true, domains))

            return run

        def by_phases() -> ForkedChild:
            # Belief propagation's guesses made here, so that the forked child runs nothing
            # but the encoding and the solver: this process's threads (the engine's among
            # them) may hold locks as it forks. A precaution, not a failure seen.
            estimate = Engine(residual.puzzle).estimate(domains)
            return ForkedChild(by(PHASES, estimate), "phases sampler", quiet=True)

        # UniGen3 hashes for a minute before its first sample, and is chosen for its proof of
        # near-uniformity: it is never replaced.
        sampler = self.sampler
        replaceable = sampler == DEFAULT_SAMPLER
        first = _UntilFirst(self.deadline, SAMPLER_FIRST if replaceable else None)
        beside: ForkedChild | None = None
        try:
            with ForkedChild(by(sampler), f"{sampler} sampler", quiet=True) as child:
                if replaceable and usable_cores() > 1:
                    with contextlib.suppress(OSError):  # no fork now: started if CMSGen fails
                        beside = by_phases()
                try:
                    for decided in stream_from(child, first):
                        first.had = True
                        if beside is not None:
                            beside.kill()
                            beside = None
                        yield tuple((cell, decided[cell]) for cell in cells)
                    raise RuntimeError(f"{sampler} gave fewer samples than asked for")
                except Timeout:
                    if first.had or self.deadline.expired():
                        raise
            self.methods[index] = replace(self.methods[index], method=PHASES)
            if beside is None:  # one core, or the fork beside CMSGen was refused
                beside = by_phases()
            for decided in stream_from(beside, self.deadline):
                yield tuple((cell, decided[cell]) for cell in cells)
            raise RuntimeError(f"{PHASES} gave fewer samples than asked for")
        finally:
            if beside is not None:
                beside.kill()


class _ListedFor(Deadline):
    """An enumeration's deadline: the caller's, and `seconds` past the first solution in
    `found` (seen when it is next looked at)."""

    __slots__ = ("found", "outer", "seconds", "since")

    def __init__(self, outer: Deadline, found: Enumerated, seconds: float) -> None:
        super().__init__(None)
        self.outer, self.found, self.seconds = outer, found, seconds
        self.since: Deadline | None = None

    def _budget(self) -> Deadline:
        if self.since is None and self.found.solutions:
            self.since = self.outer.sooner(self.seconds)
        return self.since or self.outer

    def remaining(self) -> float | None:
        return self._budget().remaining()

    def expired(self) -> bool:
        return self._budget().expired()


class _UntilFirst(Deadline):
    """A sampler's deadline: the caller's, and `first` seconds from now until it has given
    a sample (`had`; None: the caller's alone)."""

    __slots__ = ("first", "had", "outer")

    def __init__(self, outer: Deadline, first: float | None) -> None:
        super().__init__(None)
        self.outer, self.first, self.had = outer, outer.sooner(first), False

    def remaining(self) -> float | None:
        return self.outer.remaining() if self.had else self.first.remaining()

    def expired(self) -> bool:
        return self.outer.expired() if self.had else self.first.expired()


def _drawn(solutions: list[Assignment], rng: random.Random) -> Iterator[Assignment]:
    while True:
        yield rng.choice(solutions)


class Samples(list[list[str]]):
    """`satnono.sample`'s answer: the samples drawn (each a list of row strings), and how the
    drawing ended, as a solve says it: `status` ("sampled", "unsolvable" with `reason`, or
    "timeout" with the samples drawn before it) and `guarantee`, what the samples promise."""

    def __init__(self, drawn: list[list[str]], status: str, reason: str | None, guarantee: str):
        super().__init__(drawn)
        self.status = status
        self.reason = reason
        self.guarantee = guarantee

    def __repr__(self) -> str:
        return f"Samples({len(self)} drawn, status={self.status!r})"


class SampleRun:
    """Random verified solutions drawn in the background, handed over as they are drawn.

    Iterate for the grids; afterwards `status` is "sampled", "unsolvable" (`reason` says why)
    or "timeout", `drawn` how many were handed over, `methods` how each component was
    sampled and `guarantee` what the samples promise, in words. Leaving a `with` block (or
    `cancel()`) stops the drawing.
    """

    def __init__(self, puzzle: Puzzle, n: int, seed: int, sampler: str, deadline: Deadline):
        import time

        from satnono.runtime.background import Background, HandOver

        self.puzzle = puzzle
        self.n = n
        self.seed = seed
        self.sampler = sampler
        self.deadline = deadline
        self.status = "sampled"
        self.reason: str | None = None
        self.drawn = 0
        self._started = time.perf_counter()
        self._ended: float | None = None
        self._sampling = Sampling(puzzle, n, seed=seed, sampler=sampler, deadline=deadline)
        self._handed: HandOver[Grid] = HandOver()

        def work() -> None:
            from satnono.runtime.stoppable import stop_watcher

            try:
                for grid in self._sampling:
                    if not self._handed.put(grid):
                        break
            except Contradiction as error:
                self.status, self.reason = "unsolvable", str(error)
            except Timeout:
                self.status = "timeout"
            finally:
                self._ended = time.perf_counter()
                stop_watcher()
                self._handed.finish()

        self._background = Background(work, self.cancel, "satnono sample")

    def __iter__(self) -> Iterator[Grid]:
        for grid in self._handed:
            self.drawn += 1
            yield grid
        self._background.result()  # raises what the drawing raised

    @property
    def methods(self) -> list[ComponentSampling]:
        return self._sampling.methods

    @property
    def guarantee(self) -> str:
        """What the samples promise: exact uniformity where the count is exact, and each
        sampler's own guarantee on the components it drew from."""
        used = sorted({m.method for m in self.methods} - {"exact"})
        if not used and len(self.methods) == 1 and self.methods[0].solutions is not None:
            total = self.methods[0].solutions
            return f"exactly uniform: each of the {total} solutions with probability 1/{total}"
        return "; ".join(
            [f"components with at most {EXACT_LIMIT} solutions: exactly uniform"]
            + [GUARANTEES[name] for name in used]
        )

    @property
    def seconds(self) -> float:
        import time

        return (self._ended or time.perf_counter()) - self._started

    def cancel(self) -> None:
        self._handed.close()
        self.deadline.cancel()

    def __enter__(self) -> SampleRun:
        return self

    def __exit__(self, *_: object) -> None:
        self.cancel()
        self._background.wait()
