"""A count's witness: one verified solution behind every nonzero count, and the lower bound
a solution gives a count stopped inside its components."""

from __future__ import annotations

import math
from dataclasses import replace

from satnono.core.grids import domains_to_grid
from satnono.core.verify import verify
from satnono.logic.counted import NativeCount
from satnono.logic.native import Engine
from satnono.pipeline.counting.result import Counted
from satnono.pipeline.prepare import Prepared
from satnono.runtime.deadline import Deadline

#: Seconds at most spent finding a witness (a verified grid) for a count stopped early with
#: a nonzero lower bound (an exact count draws its witness from the counts at once).
WITNESS_SECONDS = 0.5


def witnessed(
    engine: Engine, prepared: Prepared, counted: Counted, native: NativeCount | None = None
) -> Counted:
    """`counted` with a verified grid: the native count's own when it is exact (drawn from its
    counts), else one the engine's search finds within WITNESS_SECONDS. A nonzero count
    without one is reported as a lower bound of 0. A native count stopped by the deadline
    inside a component (its lower bound 0: a sweep counts nothing until it ends) is, with
    a witness, at least one solution for each component it reached (`at_least_the_witness`)."""
    if counted.count == 0 and (counted.exact or native is None or not native.parts):
        return counted
    grid = None if native is None else native.witness
    if grid is None:
        search = engine.search(prepared.domains, restarts=True)
        for solution in search.solutions(Deadline(WITNESS_SECONDS)):
            grid = solution
            break
    if grid is None:
        return replace(counted, count=0, exact=False, stopped=counted.stopped or "timeout")
    witness = verify(prepared.puzzle, domains_to_grid(prepared.puzzle, grid))
    return replace(at_least_the_witness(counted), witness=witness)


def at_least_the_witness(counted: Counted) -> Counted:
    """A lower bound given a solution: the components are independent and each has one (the
    solution's part of it), so every factor is at least 1 and the count their product."""
    if counted.exact or counted.count > 0 or not counted.factors:
        return counted
    factors = tuple(replace(factor, count=max(factor.count, 1)) for factor in counted.factors)
    return replace(counted, count=math.prod(f.count for f in factors), factors=factors)
