"""The lookahead split of a residual into cubes, for the cubes backend and counting by cubes.

A lookahead with the exact line solver picks the cell whose colors, each tried and propagated,
decide the most cells in all branches (the product of the cells fixed, as march does), and
splits the cube with the most undecided cells on it, until there are enough cubes. A color
that leads to a contradiction is a failed literal: the cell gets its other colors in that
cube, for free. The cubes partition the solutions.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from satnono.backends import Residual, SearchOptions, cluster_workers
from satnono.model import LineContradiction
from satnono.propagate import Propagator, Trail, undo
from satnono.runtime.deadline import Deadline

#: Cubes per worker when the number is not given: enough that a slow cube does not leave the
#: other workers idle at the end. Measured on the cubes set (cubes-5000007-30, every cube
#: searched to the end, BENCHMARKS.md frontier section): from 1 to 2 workers, 32 cubes gave
#: 1.55x and 64 cubes 1.94x; the split itself takes 0.1 s.
CUBES_PER_WORKER = 32
#: Cells whose branches the lookahead tries at each split (the most constrained first).
LOOKAHEAD_CELLS = 16


@dataclass(frozen=True)
class Cube:
    """A part of the search space: the colors decided on the way down, and the domains that
    line logic gives under them."""

    decisions: tuple[tuple[int, int], ...]
    domains: tuple[int, ...]


def split(
    residual: Residual, count: int, deadline: Deadline | None = None
) -> tuple[list[Cube], int]:
    """At least `count` cubes (fewer when the space is smaller), and the failed literals found.

    An empty list means that line logic refuted every branch: no grid fits. Raises Timeout
    when the deadline passes first.
    """
    propagator = residual.propagator
    scope = set(residual.cells())
    root = list(residual.domains)
    cubes: list[Cube] = [Cube((), tuple(root))]
    failed = 0
    while len(cubes) < count:
        # The cube with the most undecided cells is split next: it is likely the hardest.
        cubes.sort(key=lambda cube: _undecided(cube.domains, scope))
        cube = cubes.pop()
        if not _undecided(cube.domains, scope):
            cubes.append(cube)
            break
        children, found = _split_cube(propagator, cube, scope, deadline)
        failed += found
        cubes.extend(children)
        if not cubes:
            break
    # The most open cubes first: they take longest, and a long cube started last would leave
    # the other workers idle at the end (longest processing time first, as in scheduling).
    cubes.sort(key=lambda cube: _undecided(cube.domains, scope), reverse=True)
    return cubes, failed


def split_for(
    residual: Residual, options: SearchOptions, deadline: Deadline, stats: dict[str, Any]
) -> tuple[list[Cube], int]:
    """The cubes for `options` (`cubes`, or CUBES_PER_WORKER per worker) and the number of
    workers (`workers`, else the threads of the cluster at `scheduler`, else this machine's
    usable cores); the split's figures go into `stats`. Raises Timeout as `split` does."""
    workers = options.workers or cluster_workers(options.scheduler)
    stats["workers"] = workers
    started = time.perf_counter()
    cubes, failed = split(residual, options.cubes or CUBES_PER_WORKER * workers, deadline)
    stats.update(
        cubes=len(cubes), failed_literals=failed,
        split_seconds=round(time.perf_counter() - started, 4),
    )  # fmt: skip
    return cubes, workers


def _undecided(domains: Sequence[int], scope: set[int]) -> int:
    return sum(1 for cell in scope if domains[cell] & (domains[cell] - 1))


def _split_cube(
    propagator: Propagator, cube: Cube, scope: set[int], deadline: Deadline | None
) -> tuple[list[Cube], int]:
    """The cube's children on its best lookahead cell, after its failed literals are set."""
    domains = list(cube.domains)
    decisions = cube.decisions
    failed = 0
    while True:
        best: tuple[float, int, list[int]] | None = None
        restart = False
        for cell in _candidates(propagator, domains, scope):
            branches: list[int] = []
            fixed: list[int] = []
            for color in _colors(domains[cell]):
                changed = _try(propagator, domains, cell, color, deadline)
                if changed is None:
                    failed += 1
                else:
                    branches.append(color)
                    fixed.append(changed)
            if not branches:
                return [], failed  # every color of this cell fails: no solution in the cube
            if len(branches) == 1:  # a failed literal: the cell has its one color left
                decisions = (*decisions, (cell, branches[0]))
                if not _set(propagator, domains, cell, branches[0], deadline):
                    return [], failed
                restart = True
                break
            score = 1.0
            for changes in fixed:
                score *= changes + 1
            if best is None or score > best[0]:
                best = (score, cell, branches)
        if restart:
            continue
        if best is None:  # every cell of the scope is decided
            return [Cube(decisions, tuple(domains))], failed
        _, cell, branches = best
        children = []
        for color in branches:
            child = list(domains)
            if _set(propagator, child, cell, color, deadline):
                children.append(Cube((*decisions, (cell, color)), tuple(child)))
        return children, failed


def _candidates(propagator: Propagator, domains: list[int], scope: set[int]) -> list[int]:
    """The undecided cells whose row and column have the fewest undecided cells."""
    undecided_in = [
        sum(1 for cell in cells if domains[cell] & (domains[cell] - 1))
        for cells in propagator.cells
    ]
    open_cells = [cell for cell in scope if domains[cell] & (domains[cell] - 1)]
    open_cells.sort(key=lambda cell: sum(undecided_in[line] for line in propagator.lines_of(cell)))
    return open_cells[:LOOKAHEAD_CELLS]


def _colors(domain: int) -> list[int]:
    return [1 << bit for bit in range(domain.bit_length()) if domain >> bit & 1]


def _try(
    propagator: Propagator, domains: list[int], cell: int, color: int, deadline: Deadline | None
) -> int | None:
    """Cells line logic decides with `cell` set to `color` (None: a contradiction); undone."""
    trail: Trail = [(cell, domains[cell])]
    domains[cell] = color
    try:
        propagator.propagate(domains, propagator.lines_of(cell), trail, deadline)
        return len(trail)
    except LineContradiction:
        return None
    finally:
        undo(domains, trail, 0)


def _set(
    propagator: Propagator, domains: list[int], cell: int, color: int, deadline: Deadline | None
) -> bool:
    """`cell` set to `color` and propagated in place; False (domains part-way) on a
    contradiction."""
    domains[cell] = color
    try:
        propagator.propagate(domains, propagator.lines_of(cell), None, deadline)
    except LineContradiction:
        return False
    return True
