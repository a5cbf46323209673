"""The cubes backend: cube-and-conquer, one hard puzzle spread over the cores of a Dask cluster.

Split (here): a lookahead with the exact line solver picks the cell whose colors, each tried and
propagated, decide the most cells in all branches (the product of the cells fixed, as march
does), and splits the cube with the most undecided cells on it, until there are enough cubes.
A color that leads to a contradiction is a failed literal: the cell gets its other colors in
that cube, for free. The cubes partition the solutions.
Conquer (on the cluster): every cube is a Dask task solved by the sat backend, under the same
options and deadline. The first solutions found are reported as they come; when every cube
is exhausted, no other solution exists. Each cube's time is kept, so that the run's makespan
can be simulated for more workers than this machine has (`simulated_makespan`).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from satnono.backends import OnSolution, Residual, SearchOptions, SearchReport, usable_cores
from satnono.model import Puzzle
from satnono.propagate import LineContradiction, Propagator, Trail, undo
from satnono.runtime.deadline import Deadline, Timeout

#: Cubes per worker when the number is not given: enough that a slow cube does not leave the
#: other workers idle at the end. Measured on the cubes set (cubes-5000007-30, every cube
#: searched to the end, BENCHMARKS.md frontier section): from 1 to 2 workers, 32 cubes gave
#: 1.55x and 64 cubes 1.94x; the split itself takes 0.1 s.
CUBES_PER_WORKER = 32
#: Cells whose branches the lookahead tries at each split (the most constrained first).
LOOKAHEAD_CELLS = 16
#: Residuals with fewer undecided cells are searched here by the sat backend, without a
#: cluster: starting one takes 1-2 s, more than such a residual takes to solve (every survey
#: puzzle, 300-3,300 cells left, is decided by the sat backend in at most 1.1 s).
IN_PROCESS_CELLS = 200
#: Worker counts the makespan is simulated for (issue 21: beyond this 2-core machine).
SIMULATED_WORKERS = (8, 64, 512)
#: Seconds a cube of the first split is searched before it is split again (its parts get
#: twice as long, and so on down): see _Conquest.
CUBE_BUDGET = 4.0


@dataclass(frozen=True)
class Cube:
    """A part of the search space: the colors decided on the way down, and the domains that
    line logic gives under them."""

    decisions: tuple[tuple[int, int], ...]
    domains: tuple[int, ...]


@dataclass(frozen=True)
class CubeResult:
    """What a worker found in one cube (solutions as decided domains, at most the cap).
    `stopped` when the cube's own time ran out first (the run's did not): it is split again."""

    number: int
    solutions: tuple[tuple[int, ...], ...]
    exhausted: bool
    timed_out: bool
    seconds: float
    stopped: bool = False


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
    workers; the split's figures go into `stats`. Raises Timeout as `split` does."""
    workers = options.workers or usable_cores()
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


def solve_cube(
    puzzle: Puzzle,
    lines: tuple[int, ...] | None,
    domains: tuple[int, ...],
    options: SearchOptions,
    seconds: float | None,
    number: int,
    budget: float | None = None,
    excluded: tuple[tuple[int, ...], ...] = (),
) -> CubeResult:
    """A Dask task: one cube searched by the sat backend, up to `options.limit` solutions,
    for at most `budget` of the run's `seconds`; none of the solutions `excluded` (found in
    it before, when a larger cube holding it was stopped)."""
    from satnono.backends.sat import BACKEND as SAT

    started = time.perf_counter()
    found: list[tuple[int, ...]] = []

    def keep(decided: list[int]) -> bool:
        found.append(tuple(decided))
        return options.limit == 0 or len(found) < options.limit

    run = Deadline(seconds)
    own = run if budget is None else run.sooner(budget)
    residual = Residual(puzzle, Propagator(puzzle), domains, lines)
    report = SAT.search_excluding(residual, options, own, keep, excluded)
    stopped = report.timed_out and not run.expired()
    return CubeResult(
        number, tuple(found), report.exhausted, report.timed_out and not stopped,
        round(time.perf_counter() - started, 4), stopped,
    )  # fmt: skip


def simulated_makespan(
    seconds: Sequence[float], workers: int, parents: Sequence[int | None] | None = None
) -> float:
    """When the last cube would end on `workers` workers, each taking the next cube in order
    as soon as it is free (Dask's order for tasks submitted together, without stealing). A
    cube with a parent (a part of a cube that was stopped and split) can start only once its
    parent has ended."""
    import heapq

    parents = parents or [None] * len(seconds)
    ends: list[float] = []
    free = [0.0] * min(workers, max(1, len(seconds)))
    for duration, parent in zip(seconds, parents, strict=True):
        start = heapq.heappop(free)
        if parent is not None:
            start = max(start, ends[parent])
        ends.append(start + duration)
        heapq.heappush(free, start + duration)
    return max(ends, default=0.0)


class _Conquest:
    """The cubes to conquer as the run goes, in order: the split's, then the parts of every
    cube stopped at its budget (dynamic cube-and-conquer). A cube that runs out of its own
    time is split again, its parts get twice its budget, and each part excludes the
    solutions already found in it; so a cube holding most of the work is spread over the
    workers instead of holding one of them to the end. An iterator of task arguments that
    refills: `each_result` takes the next one whenever one finishes."""

    def __init__(
        self, residual: Residual, cubes: list[Cube], options: SearchOptions, deadline: Deadline
    ) -> None:
        self.residual = residual
        self.options = replace(options, workers=None, cubes=None)
        self.deadline = deadline
        self.parts = max(2, options.workers or usable_cores()) * 2
        #: (cube, parent task, budget, solutions to exclude), not yet taken.
        self.waiting: deque[tuple[Cube, int | None, float, tuple[tuple[int, ...], ...]]] = deque(
            (cube, None, CUBE_BUDGET, ()) for cube in cubes
        )
        self.taken: list[tuple[Cube, int | None, float, tuple[tuple[int, ...], ...]]] = []
        self.seconds: list[float | None] = []
        self.resplit = 0

    def __iter__(self) -> _Conquest:
        return self

    def __next__(self) -> tuple[Any, ...]:
        if not self.waiting:
            raise StopIteration  # for now: a stopped cube may bring more
        cube, _, budget, excluded = entry = self.waiting.popleft()
        number = len(self.taken)
        self.taken.append(entry)
        self.seconds.append(None)
        residual = self.residual
        return (
            residual.puzzle, residual.lines, cube.domains, self.options,
            self.deadline.remaining(), number, budget, excluded,
        )  # fmt: skip

    def stopped(self, result: CubeResult) -> None:
        """Split the cube of a task stopped at its budget; its parts wait their turn."""
        cube, _, budget, excluded = self.taken[result.number]
        found = (*excluded, *result.solutions)
        part = replace(self.residual, domains=cube.domains)
        children, _ = split(part, self.parts, self.deadline)
        if len(children) == 1 and children[0].domains == cube.domains:
            children = [cube]  # nothing left to split on: the same cube, for longer
        else:
            self.resplit += 1
        for child in children:
            inside = tuple(s for s in found if all(map(_within, s, child.domains)))
            self.waiting.append((child, result.number, budget * 2, inside))


def _within(value: int, domain: int) -> bool:
    return not value & ~domain


class CubesBackend:
    name: ClassVar[str] = "cubes"

    def search(
        self,
        residual: Residual,
        options: SearchOptions,
        deadline: Deadline,
        on_solution: OnSolution,
    ) -> SearchReport:
        """Reads `workers`, `scheduler` and `cubes`; solver, encoding and seed go to the sat
        backend in every cube."""
        from satnono.backends import load_backend
        from satnono.runtime.dask import run_on_cluster
        from satnono.runtime.sat_solvers import canonical_solver

        if residual.unknown < IN_PROCESS_CELLS:
            report = load_backend("sat").search(residual, options, deadline, on_solution)
            report.stats.update(cubes=0, in_process=True)
            return report
        stats: dict[str, Any] = {"solver": canonical_solver(options.solver)}
        try:
            cubes, workers = split_for(residual, options, deadline, stats)
        except Timeout:
            return SearchReport(exhausted=False, timed_out=True, stats=stats)
        if not cubes:
            return SearchReport(exhausted=True, stats=stats)
        if deadline.expired():  # no cluster started for nothing (starting one takes 1-2 s)
            return SearchReport(exhausted=False, timed_out=True, stats=stats)
        report = SearchReport(exhausted=False, stats=stats)
        conquest = _Conquest(residual, cubes, options, deadline)
        conquer_started = time.perf_counter()

        def finished(_: int, future: Any) -> bool:
            result: CubeResult = future.result()
            conquest.seconds[result.number] = result.seconds
            if result.timed_out:
                report.timed_out = True
            for decided in result.solutions:
                if not on_solution(list(decided)):
                    return False
            if result.stopped:
                try:
                    conquest.stopped(result)
                except Timeout:
                    report.timed_out = True
            return not report.timed_out

        # Stopped early (enough solutions, the deadline): the cubes running are not waited for.
        report.exhausted = run_on_cluster(
            options.scheduler, workers, solve_cube, conquest, finished, deadline.expired
        )
        report.timed_out = report.timed_out or (not report.exhausted and deadline.expired())
        report.exhausted = report.exhausted and not report.timed_out
        stats["conquer_seconds"] = round(time.perf_counter() - conquer_started, 4)
        stats["cube_seconds"] = times = conquest.seconds
        stats["cubes_split_again"] = conquest.resplit
        if all(t is not None for t in times):
            done = [t for t in times if t is not None]
            parents = [parent for _, parent, _, _ in conquest.taken]
            stats["cpu_seconds"] = round(sum(done), 4)
            stats["simulated_makespan"] = {
                str(n): round(simulated_makespan(done, n, parents), 4) for n in SIMULATED_WORKERS
            }
        return report


BACKEND = CubesBackend()
