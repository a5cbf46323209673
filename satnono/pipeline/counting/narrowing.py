"""The backbone before a hard count: the cells whose color is the same in every solution,
proven by SAT (satnono.pipeline.backbone), fixed before the engine counts on.

Line logic leaves many such cells open on the hardest puzzles, and the engine's probing does
not find them either: on Marley the backbone holds 2,697 of the 3,276 cells, of which probing
fixes 773. Each cell left open is a branch of the counting search that cannot split the
puzzle into parts, and a row or column the sweep must carry. Fixed, the count is the same
(each of them takes its one color in every solution, and every other cell keeps every color
it takes in some solution) and the problem far smaller: gnonograms_tux's residual becomes
one narrow component, swept exactly in 0.1 s (5,378,871 solutions: the whole count in 2.0 s,
where before Ganak's answer came after 27 s); Marley's lower bound after 30 s rises from
79,041 to 1.6 x 10^11 (BENCHMARKS.md, round 28).

The backbone costs SAT calls (Marley 1.4 s, Lion 6 s, Sierp over 20 s, where it finds
nothing), so a count asks for it only once its own search has had a head start
(`BACKBONE_AFTER`) and is still going (every example, the corpus and all but seven survey and
corpus puzzles are counted before then), and settles it on a thread of its own (`Settling`)
while the count, its listing and the counters go on: where it fixes nothing, they have lost
only the share of the cores it took.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from satnono.core.model import Grid
from satnono.pipeline.backbone import backbone
from satnono.pipeline.prepare import Prepared, prepare
from satnono.runtime.background import Helper
from satnono.runtime.deadline import Deadline, Timeout

#: Seconds the engine's count runs before the backbone is settled beside it, as long as it
#: searches (a sweep counts a narrow component within its memory without it).
BACKBONE_AFTER = 1.0


@dataclass(frozen=True)
class Narrowed:
    """The puzzle with its backbone fixed: line logic again from the narrowed domains (which
    may decide more); the cells the backbone fixed that line logic had left open; its
    seconds, and whether every cell was settled (else only the cells settled are fixed)."""

    prepared: Prepared
    fixed: int
    seconds: float
    exact: bool

    def stats(self) -> dict[str, object]:
        """As a count's stats show it."""
        return {"fixed": self.fixed, "seconds": round(self.seconds, 4), "exact": self.exact}


def narrowed_by_backbone(
    prepared: Prepared,
    deadline: Deadline,
    known: Sequence[Grid] = (),
    seen: Sequence[int] = (),
) -> Narrowed | None:
    """`prepared` with every cell SAT proves to be backbone fixed to its color, and every
    other settled cell narrowed to the colors it takes in some solution; None when that
    fixes no cell line logic left open (or the deadline passes first). `known` are verified
    solutions (each saves a SAT call), `seen` the colors each cell took in solutions listed
    before (a domain bitmask a cell: no SAT call flips those it shows in two colors). One
    solver, in this process (it runs beside the count, on a thread: `Settling`).
    A partial backbone (the deadline passed) fixes only the cells it settled: each of those
    is proven."""
    started = time.perf_counter()
    root = list(prepared.domains)
    # Glucose alone (no take_over): CaDiCaL 1.9.5 holds the interpreter's lock through each
    # call, and the count's listing on the main thread stood still meanwhile (Faase's count
    # after 30 s listed 64 solutions so, against 20,000-90,000; BENCHMARKS.md, round 34).
    found = backbone(
        replace(prepared, domains=list(root)), deadline, workers=1, known=known, seen=seen,
        take_over=False,
    )  # fmt: skip
    if found is None or deadline.expired():
        return None
    narrowed = [domain & colors for domain, colors in zip(root, found.colors, strict=True)]
    fixed = sum(
        1
        for before, after in zip(root, narrowed, strict=True)
        if before & (before - 1) and not after & (after - 1)
    )
    if not fixed or not all(narrowed):
        return None
    try:
        again = prepare(prepared.puzzle, deadline, narrowed)
    except Timeout:
        return None
    if again.reason is not None:  # cannot be: the backbone's cells hold in every solution
        return None
    return Narrowed(again, fixed, time.perf_counter() - started, found.exact)


class Settling:
    """The backbone beside one count (or a sampler's count), from start to end: started once
    due (`narrowed_by_backbone` on a thread of its own, its solver interrupted when closed),
    its narrowing taken once settled (None: nothing fixed; `error`: what went wrong, for the
    stats, the count going on without it), closed with the count."""

    def __init__(self) -> None:
        self.beside: Helper[Narrowed | None] | None = None
        self.taken = False

    @property
    def running(self) -> bool:
        """Started and not yet taken: the counters wait meanwhile (`_Race._counted`)."""
        return self.beside is not None and not self.taken

    @property
    def error(self) -> str | None:
        return None if self.beside is None else self.beside.error

    def step(
        self,
        prepared: Prepared,
        deadline: Deadline,
        started: float,
        searching: bool,
        known: Sequence[Grid] = (),
        seen: Callable[[], Sequence[int]] = tuple,
    ) -> Narrowed | None:
        """Start settling the backbone of `prepared` once due (BACKBONE_AFTER seconds after
        `started`, a perf_counter, while the count is `searching`: not sweeping, not ended);
        once settled, its narrowing, once (None before, after, and where it fixed nothing).
        `known` and `seen()` (asked when it starts): see `narrowed_by_backbone`."""
        if self.beside is None:
            if searching and time.perf_counter() - started >= BACKBONE_AFTER:
                known, colors = tuple(known), tuple(seen())
                self.beside = Helper(
                    lambda until: narrowed_by_backbone(prepared, until, known, colors),
                    deadline, "satnono-backbone",
                )  # fmt: skip
            return None
        if self.taken or self.beside.running:
            return None
        self.taken = True
        return self.beside.answer()

    def close(self) -> None:
        if self.beside is not None:
            self.beside.close()
