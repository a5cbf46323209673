"""Counting by listing: the engine's own search lists every solution of the residual, on the
calling thread, while the engine's count runs on its own; where the solutions run out first,
their number is the count.

The counting search keeps a store of sub-counts, which pays where parts of the grid repeat;
on a random puzzle's one large component it finds few repeats and branches cell by cell
without probing, while the probing search that lists solutions (engine/src/count/enumerate.rs)
reaches each of a few thousand in microseconds: a random 25x25 of density 0.45 with 121
solutions listed in 0.7 s, counted by neither the engine (past 15 s) nor Ganak (3.1 s) sooner
(BENCHMARKS.md, "Counting by listing"). Past LISTING_LIMIT solutions (KEPT_BYTES of them
when they are kept to draw from) the listing gives up: a count that large is the counters'
work.

Where it has listed none after GUIDE_AFTER seconds, it is guided as the solution stream is
(satnono.pipeline.guide): one solution is sought on a thread of its own while the listing
waits (it lists on the caller's thread: the search has the core), and the listing starts
again trying that solution's colors first; where that search proves there is none, the
listing is over (a count of 0).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

from satnono.logic.native import Engine
from satnono.pipeline.guide import GUIDE_AFTER, Sought, guide_for
from satnono.pipeline.prepare import Prepared
from satnono.runtime.background import Helper
from satnono.runtime.deadline import Deadline

#: Solutions listed at most before the listing gives up: 8-16 s of a core on a random 25x25
#: (15,000-30,000 a second), about 35 s on Lion, whose stream is the slowest measured.
LISTING_LIMIT = 250_000
#: Bytes the solutions kept to draw from may take (a byte a cell up to 8 colors).
KEPT_BYTES = 64 << 20
#: Seconds the engine's count runs alone before the listing joins it: Flag's and Center's
#: counts (a sweep, 0.1-0.2 s) took 0.25 s and 0.13 s longer as whole processes with the
#: listing beside them from the start.
LISTING_HEAD_START = 0.3
#: Solutions asked of the engine per call.
BATCH = 4096
#: Seconds of listing between two looks at the count beside it: a count that ends first
#: (most do, in milliseconds) waits no longer than this for its answer to be taken.
STEP = 0.02


def listing_due(started: float, nodes: Callable[[], int] | None) -> bool:
    """Whether the engine's listing joins now a count begun at `started` (perf_counter)
    whose search has visited `nodes()` nodes (None: no count beside it, so at once): once the
    count has had LISTING_HEAD_START (most end well before) and has begun to search. While it
    sweeps, the listing stands aside: a sweep counts what it takes on, bound by memory, which
    a listing beside it only slowed (thin-9008: 9.4 s and 10.2 s as whole processes without,
    15.0 s and 14.5 s with)."""
    if nodes is None:
        return True
    return time.perf_counter() - started >= LISTING_HEAD_START and nodes() > 0


class NativeListing:
    """Every solution of `prepared`, counted as the engine lists them, a slice at a time;
    with `keep`, each kept as the engine gives it (its domains, decided: bytes up to 8 colors)
    to draw from. `close()` stops its search for a guide, if one is going."""

    __slots__ = (
        "_asked", "_engine", "_none", "_prepared", "_seeking", "_seen", "_solutions", "_started",
        "first", "found", "guide_error", "kept", "limit", "seeing",
    )  # fmt: skip

    def __init__(
        self, engine: Engine, prepared: Prepared, limit: int | None = None, keep: bool = False
    ):
        self._engine, self._prepared = engine, prepared
        # Not from the sweeps' layers: where the count sweeps every component it ends first,
        # and the layers' setup would take the first slice past its end (1.2 s on Faase).
        self._solutions = engine.solutions(list(prepared.domains), layers=False)
        self._started = time.perf_counter()
        self._seeking: Helper[Sought] | None = None  # None again once its answer was taken
        self._asked = False  # a guide was sought (once at most)
        self._none = False  # the guide's search proved there is no solution
        #: What went wrong in the search for a guide, if anything (for the stats).
        self.guide_error: str | None = None
        self.limit = LISTING_LIMIT if limit is None else limit
        if keep:
            self.limit = min(self.limit, max(1, KEPT_BYTES // max(1, len(prepared.domains))))
        #: Solutions listed so far, each once, and the first of them (its domains, decided).
        self.found = 0
        self.first: list[int] | None = None
        self.kept: list[Any] | None = [] if keep else None
        #: While True, the colors each cell takes in the solutions listed are gathered
        #: (`seen`: what a backbone need not flip); a little of the listing's time.
        self.seeing = False
        self._seen: int | list[int] = 0

    @property
    def exhausted(self) -> bool:
        """Every solution listed: `found` is the count."""
        return self._solutions.done or self._none

    @property
    def going(self) -> bool:
        """Neither exhausted nor past its limit."""
        return not self.exhausted and self.found < self.limit

    def step(self, deadline: Deadline) -> None:
        """List for STEP seconds at most (or to the deadline)."""
        if self.found == 0:
            self._guide(deadline)
            if self._none:
                return
            if self._seeking is not None:  # the search for a guide has the cores meanwhile
                left = deadline.remaining()
                self._seeking.wait(STEP if left is None else min(STEP, left))
                return
        most = min(BATCH, self.limit - self.found)
        batch: list[Any] = self._solutions.batch(most, deadline.sooner(STEP))
        if batch and self.first is None:
            self.first = list(batch[0])
        self.found += len(batch)
        if self.kept is not None:
            self.kept += batch
        if self.seeing:
            self._see(batch)

    def _guide(self, deadline: Deadline) -> None:
        """Seek a guide once the listing has gone GUIDE_AFTER seconds without a solution;
        once found, list again guided by it (nothing was counted yet, so nothing twice)."""
        if self._seeking is None:
            due = time.perf_counter() - self._started >= GUIDE_AFTER
            if due and not self._asked and not deadline.expired():
                self._asked = True
                prepared = self._prepared
                self._seeking = Helper(
                    lambda until: guide_for(prepared, until), deadline, "satnono-guide"
                )
            return
        if self._seeking.running:
            return
        sought = self._seeking.answer()
        self.guide_error, self._seeking = self._seeking.error, None
        if sought is None:  # its search went wrong: the listing goes on unguided
            return
        if sought.unsolvable:
            self._none = True
        elif sought.colors is not None:
            domains = list(self._prepared.domains)
            self._solutions = self._engine.solutions(domains, layers=False, guide=sought.colors)

    def close(self) -> None:
        """Stop the search for a guide, if one is going, and wait for it (a moment: its
        solver is interrupted)."""
        if self._seeking is not None:
            self._seeking.close()
            self._seeking = None

    def _see(self, batch: list[Any]) -> None:
        """Gather the colors of `batch`'s solutions: a byte a cell ORed as one integer, else
        (more than 8 colors) cell by cell."""
        for solution in batch:
            if isinstance(solution, bytes) and isinstance(self._seen, int):
                self._seen |= int.from_bytes(solution, "little")
            else:
                seen = self._seen if isinstance(self._seen, list) else []
                self._seen = [a | b for a, b in itertools.zip_longest(seen, solution, fillvalue=0)]

    def seen(self, cells: int) -> list[int]:
        """The colors each of the grid's `cells` took in the solutions listed while `seeing`
        (a domain bitmask a cell; 0 where none was)."""
        if isinstance(self._seen, list):
            return [*self._seen, *[0] * (cells - len(self._seen))][:cells]
        return list(self._seen.to_bytes(cells, "little"))
