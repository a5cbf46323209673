"""The lookahead split of a residual into cubes, for the cubes backend and counting by cubes.

The engine splits (engine/src/lookahead.rs): the cell whose colors, each tried and
propagated, decide the most cells in all branches (the product of the cells decided, as march
does) splits the cube with the most undecided cells, until there are enough cubes. A color that
leads to a contradiction is a failed literal: the cell gets its other colors in that cube, for
free. The cubes partition the solutions. For the engine's listing of every solution the
cubes follow the probing search's own first branchings instead (engine/src/branches.rs).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from satnono.backends import Residual, SearchOptions, cluster_workers
from satnono.logic.native import Engine
from satnono.runtime.deadline import Deadline

#: Cubes per worker when the number is not given: enough that a slow cube does not leave the
#: other workers idle at the end. Measured on the cubes set (cubes-5000007-30, every cube
#: searched to the end, BENCHMARKS.md frontier section): from 1 to 2 workers, 32 cubes gave
#: 1.55x and 64 cubes 1.94x; the split itself takes 0.1 s.
CUBES_PER_WORKER = 32
#: Cubes per worker when the engine lists every solution: its search gives away the rest of
#: a long cube to idle workers without losing what it did, so a few cubes suffice, and each
#: more costs its root's probing again (BENCHMARKS.md, issue 43).
LISTING_CUBES_PER_WORKER = 2
#: Cells whose branches the lookahead tries at each split (the most constrained first).
LOOKAHEAD_CELLS = 16


@dataclass(frozen=True)
class Cube:
    """A part of the search space: the colors decided on the way down, and the domains that
    line logic gives under them."""

    decisions: tuple[tuple[int, int], ...]
    domains: tuple[int, ...]


def split(
    residual: Residual, count: int, deadline: Deadline | None = None, listing: bool = False
) -> tuple[list[Cube], int]:
    """At least `count` cubes (fewer when the space is smaller), and the failed literals found.
    `listing`: split on the probing search's own branchings (engine/src/branches.rs), for the
    engine's listing of every solution, instead of the lookahead.

    An empty list means that line logic refuted every branch: no grid fits. Raises Timeout
    when the deadline passes first. The most open cubes come first: they take longest, and a
    long cube started last would leave the other workers idle at the end.
    """
    cubes, failed = Engine(residual.puzzle).split(
        residual.domains, residual.scope(), count, LOOKAHEAD_CELLS, deadline, search=listing
    )
    return [Cube(tuple(decisions), tuple(domains)) for decisions, domains in cubes], failed


def split_for(
    residual: Residual,
    options: SearchOptions,
    deadline: Deadline,
    stats: dict[str, Any],
    listing: bool = False,
) -> tuple[list[Cube], int]:
    """The cubes for `options` (`cubes`, or CUBES_PER_WORKER per worker; LISTING_CUBES_PER_
    WORKER along the search's branchings when the engine is `listing` every solution) and the
    number of workers (`workers`, else the threads of the cluster at `scheduler`, else this
    machine's usable cores); the split's figures go into `stats`. Raises Timeout as `split`
    does."""
    workers = options.workers or cluster_workers(options.scheduler)
    stats["workers"] = workers
    started = time.perf_counter()
    per_worker = LISTING_CUBES_PER_WORKER if listing else CUBES_PER_WORKER
    cubes, failed = split(residual, options.cubes or per_worker * workers, deadline, listing)
    stats.update(
        cubes=len(cubes), failed_literals=failed,
        split_seconds=round(time.perf_counter() - started, 4),
    )  # fmt: skip
    return cubes, workers
