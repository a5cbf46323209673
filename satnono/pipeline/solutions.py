"""Solve, enumerate and count: propagation, then a backend on the residual, every grid verified.

This is the one pipeline behind the CLI and the library API, so the verdict logic (unique,
multiple, unsolvable, timeout) and the verification of every solution exist exactly once.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from satnono.backends import (
    BACKENDS,
    DEFAULT_BACKEND,
    NATIVE_FIRST_SOLUTION,
    STREAM_BATCH,
    SearchOptions,
    SearchTask,
    lists_natively,
    load_backend,
    usable_cores,
)
from satnono.core.grids import colors_to_grid, decided_colors, domains_to_grid, palette_domains
from satnono.core.model import Grid, Puzzle
from satnono.core.progress import Progress
from satnono.core.rows import RowCache
from satnono.core.status import Status
from satnono.core.verify import Verifier
from satnono.pipeline.prepare import (
    NO_GRID,
    Assignment,
    Prepared,
    enumerate_part,
    no_grid,
    prepare,
)
from satnono.runtime.deadline import Deadline, Timeout

if TYPE_CHECKING:
    from satnono.pipeline.counting import Approximation, Factor
    from satnono.proof.certify import Certificate


@dataclass(frozen=True)
class SolveResult:
    """What a solve found: the verdict, the verified solutions kept, and how it went.

    `status` is one of unique, multiple (at least two), solved (one found, uniqueness not
    checked), unsolvable (then `reason` says why) or timeout. `grids` are the solutions as
    palette indices; `solutions` the same as row strings, exactly as `satnono solve --json`.
    """

    puzzle: Puzzle
    status: Status
    #: True when every solution was found (so the count is exact).
    complete: bool
    grids: tuple[Grid, ...]
    solutions_found: int
    seconds: float
    backend: str
    solver: str | None = None
    #: Why there is no solution, when status is "unsolvable".
    reason: str | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    #: The certificate written when one was asked for (solve's `proof`), else None.
    certificate: Certificate | None = None

    def __repr__(self) -> str:
        # Short: the grids of a large puzzle run to thousands of characters (see .solutions).
        return (
            f"SolveResult(status={self.status!r}, solutions_found={self.solutions_found}, "
            f"complete={self.complete}, seconds={self.seconds}, backend={self.backend!r}, "
            f"puzzle={self.puzzle!r})"
        )

    @property
    def solutions(self) -> list[list[str]]:
        """The kept solutions as row strings of palette characters ('.' is the background)."""
        return [self.puzzle.grid_rows(grid) for grid in self.grids]

    @property
    def verdict(self) -> str:
        """The one-line verdict the CLI prints."""
        n = self.solutions_found
        plural = "solution" if n == 1 else "solutions"
        if self.status == "unsolvable":
            return f"no solution: {self.reason}"
        if self.status == "unique":
            return "unique solution"
        if self.status in ("timeout", "interrupted"):
            if n:
                return f"{self.status}: at least {n} {plural} found, search not finished"
            return f"{self.status}: no solution found yet"
        if self.status == "solved":
            return "solved (uniqueness not checked: stopped at the first solution)"
        if self.complete:
            return f"{n} solutions (complete)"
        return f"at least {n} solutions"


def solve(
    puzzle: Puzzle,
    *,
    backend: str = DEFAULT_BACKEND,
    limit: int = 2,
    timeout: float | None = None,
    options: SearchOptions | None = None,
    keep: int | None = None,
    on_solution: Callable[[Grid], bool | None] | None = None,
    progress: Progress | None = None,
    deadline: Deadline | None = None,
    search_with: Callable[[Callable[[], SolveResult]], SolveResult] | None = None,
) -> SolveResult:
    """Find up to `limit` solutions (0 = all), verified; keep at most `keep` of them.

    `on_solution` sees each verified solution as soon as it is found (for streaming), and
    stops the search by returning False; `progress`, when given, is kept up to date for a
    live display or an interrupted run. `deadline`, when given, replaces `timeout` (a caller
    that may cancel the solve from another thread passes its own). `search_with(phase)`
    runs the search phase, when line logic leaves one (the API: off the main thread, where
    solvers may run; line logic is plain Python and runs in the caller's thread).
    """
    started = time.perf_counter()
    deadline = deadline or Deadline(timeout)
    progress = progress or Progress()
    progress.cells = puzzle.width * puzzle.height
    stats: dict[str, Any] = {"cells": puzzle.width * puzzle.height}
    kept: list[Grid] = []
    found = 0

    def finish(
        status: Status, complete: bool, reason: str | None = None, solver: str | None = None
    ) -> SolveResult:
        return SolveResult(
            puzzle, status, complete, tuple(kept), found, round(time.perf_counter() - started, 4),
            backend, solver, reason, stats,
        )  # fmt: skip

    verify = Verifier(puzzle)

    def accept(grid: Grid, colors: bytes | None = None, checked: bool = False) -> bool:
        """Take a solution: verified here, unless `checked` says verify.all_right passed its
        batch."""
        nonlocal found
        if not checked:
            verify(grid, colors)
        found += 1
        progress.solutions = found
        if keep is None or len(kept) < keep:
            kept.append(grid)
        wanted = on_solution is None or on_solution(grid) is not False
        return wanted and (limit == 0 or found < limit)

    domains = palette_domains(puzzle)
    progress.phase = "line logic"
    propagation_started = time.perf_counter()
    try:
        prepared = prepare(puzzle, deadline, domains)
    except Timeout:
        progress.domains = tuple(domains)
        return finish(Status.TIMEOUT, False)
    except KeyboardInterrupt:  # in the caller's thread: what line logic decided stays shown
        progress.domains = tuple(domains)
        raise
    finally:
        stats["propagation_seconds"] = round(time.perf_counter() - propagation_started, 4)
    stats["line_solves"] = prepared.line_solves
    if prepared.reason is not None:
        return finish(Status.UNSOLVABLE, True, prepared.reason)
    stats["cells_left"] = prepared.cells_left
    progress.cells_left = stats["cells_left"]
    progress.domains = tuple(domains)
    if not stats["cells_left"]:
        accept(domains_to_grid(puzzle, domains))
        return finish(Status.UNIQUE, True)

    # Backends that cannot stream to on_solution (the portfolio's workers) need the limit.
    searched = replace(options or SearchOptions(), limit=limit)

    def search_phase(name: str = backend) -> SolveResult:
        # Small components first (a contradiction there ends the search early); the largest one
        # last, streaming: each of its solutions combines with every solution of the others.
        parts = prepared.parts()
        stats["components"] = len(parts)
        if deadline.expired():  # passed in line logic, or in finding a wide grid's components
            return finish(Status.TIMEOUT, False)
        chosen_backend = load_backend(name)
        search = chosen_backend.search
        chosen: list[list[Assignment]] = []
        exhausted = True
        solver: str | None = None
        progress.components = len(parts)
        progress.phase = "search"
        for progress.component, part in enumerate(parts[:-1], start=1):
            found_here = enumerate_part(
                chosen_backend, prepared.residual(part), searched, deadline, limit
            )
            _merge_stats(stats, found_here.report.stats)
            solver = stats.pop("solver", solver)
            if not found_here.solutions:
                if found_here.report.timed_out:
                    return finish(Status.TIMEOUT, False, solver=solver)
                return finish(Status.UNSOLVABLE, True, no_grid(puzzle, part), solver)
            exhausted = exhausted and found_here.complete
            chosen.append(found_here.solutions)

        ran_out = False

        def combine(decided: list[int]) -> bool:
            # The product can be astronomically long: the deadline is checked per grid here too.
            nonlocal ran_out
            for choice in itertools.product(*chosen):
                if deadline.expired():
                    ran_out = True
                    return False
                grid = list(decided)
                for assignment in choice:
                    for cell, domain in assignment:
                        grid[cell] = domain
                if not accept(domains_to_grid(puzzle, grid)):
                    return False
            return True

        progress.component = len(parts)
        report = search(SearchTask(prepared.residual(parts[-1]), searched, deadline, combine))
        _merge_stats(stats, report.stats)
        solver = stats.pop("solver", solver)
        exhausted = exhausted and report.exhausted and not ran_out
        if (report.timed_out or ran_out) and found < 2:
            return finish(Status.TIMEOUT, False, solver=solver)
        if found == 0:
            return finish(Status.UNSOLVABLE, True, NO_GRID, solver)
        if found == 1:
            return finish(Status.UNIQUE if exhausted else Status.SOLVED, exhausted, solver=solver)
        return finish(Status.MULTIPLE, exhausted, solver=solver)

    if stats["cells_left"] <= BACKENDS[backend].branch_below and not (
        searched.solver or searched.encoding
    ):  # a few cells: the classic search, here (see BackendInfo.branch_below)
        return search_phase("backtrack")

    def searched_phase() -> SolveResult:
        return search_phase() if search_with is None else search_with(search_phase)

    if backend == DEFAULT_BACKEND and lists_natively(searched):  # many, nothing named
        return _stream(prepared, deadline, accept, verify, progress, finish, searched_phase)
    return searched_phase()


def _stream(
    prepared: Prepared,
    deadline: Deadline,
    accept: Callable[[Grid, bytes, bool], bool],
    verify: Verifier,
    progress: Progress,
    finish: Callable[..., SolveResult],
    searched: Callable[[], SolveResult],
) -> SolveResult:
    """Every solution (up to the limit) from the engine's enumeration, each verified before
    anything sees it: a batch at once by `verify.all_right` (a black-and-white puzzle's),
    else each by `accept`. Where the engine has found none within GUIDE_AFTER seconds, the
    sat backend seeks one (`guide_for`, within the whole deadline: the listing waits, so the
    search has the cores): found, the listing starts again guided by it; proven not to exist,
    the stream ends. `searched` (the backend's search) takes over when neither has found one
    within NATIVE_FIRST_SOLUTION."""
    from satnono.logic.native import MAX_THREADS, Engine
    from satnono.pipeline.guide import GUIDE_AFTER, guide_for

    puzzle, width = prepared.puzzle, prepared.puzzle.width
    rows: RowCache[bytes, tuple[int, ...]] = RowCache()  # the grids' rows made so far
    # Both cores (all usable ones) on a hard puzzle's listing, once the probing search takes
    # the whole rest over (BENCHMARKS.md, issue 43 round 7).
    threads = min(usable_cores(), MAX_THREADS)
    solutions = Engine(puzzle).solutions(prepared.domains, threads=threads, deadline=deadline)
    progress.phase = "search"
    found = 0
    first, unguided = deadline.sooner(NATIVE_FIRST_SOLUTION), deadline.sooner(GUIDE_AFTER)
    sought = guided = False
    while not solutions.done:
        if found == 0 and not sought and unguided.expired() and not deadline.expired():
            sought = True  # once
            # Its threads would take the cores from the search (frontier-4500001-45: no
            # solution in 150 s beside them, the first in 58 s alone).
            solutions.close()
            guide = guide_for(prepared, deadline)
            if guide.unsolvable:  # the listing would only go on to find none
                return finish(Status.UNSOLVABLE, True, NO_GRID, guide.solver)
            # Nothing was handed out yet: the listing starts again, guided if it can be.
            solutions = Engine(puzzle).solutions(
                prepared.domains, threads=threads, deadline=deadline, guide=guide.colors
            )
            guided = guide.colors is not None
            continue
        if found == 0 and not guided and first.expired() and not deadline.expired():
            solutions.close()
            return searched()  # nothing was handed out: the backend starts afresh
        if deadline.expired():
            status = Status.TIMEOUT if found < 2 else Status.MULTIPLE
            return finish(status, False, solver=NATIVE_SOLVER)
        until = deadline if found or guided else first if sought else unguided
        batch = [decided_colors(domains) for domains in solutions.batch(STREAM_BATCH, until)]
        checked = verify.all_right(batch)
        for colors in batch:
            found += 1
            # False: the limit is reached, or the caller stops the stream.
            if not accept(colors_to_grid(width, colors, rows), colors, checked):
                status = Status.MULTIPLE if found >= 2 else Status.SOLVED
                return finish(status, False, solver=NATIVE_SOLVER)
    if found == 0:
        return finish(Status.UNSOLVABLE, True, NO_GRID, NATIVE_SOLVER)
    return finish(Status.UNIQUE if found == 1 else Status.MULTIPLE, True, solver=NATIVE_SOLVER)


#: The `solver` of a solve the engine's enumeration answered.
NATIVE_SOLVER = "native"


def _merge_stats(stats: dict[str, Any], more: dict[str, Any]) -> None:
    """Add up numeric stats of several component searches; keep the last of the others.

    Depths are not additive: the components are searched one after another, so the deepest
    search is what describes the puzzle.
    """
    for key, value in more.items():
        if key in stats and isinstance(value, int | float) and not isinstance(value, bool):
            merged = max(stats[key], value) if key.startswith("max_") else stats[key] + value
            stats[key] = round(merged, 4)
        else:
            stats[key] = value


@dataclass(frozen=True)
class CountResult:
    count: int
    exact: bool
    seconds: float
    result: SolveResult
    #: Why a count is only a lower bound: "limit" (the count is then exactly the limit),
    #: "timeout", or "estimate" (ApproxMC answered first); None when the count is exact.
    stopped: Literal["limit", "timeout", "estimate"] | None = None
    #: Each independent component's count and the method that produced it.
    factors: tuple[Factor, ...] = ()
    #: The (epsilon, delta) estimate, when one was asked for and every factor has one.
    estimate: int | None = None
    approximation: Approximation | None = None
    #: What would help where the count is not exact: the model counter's extra, when it is
    #: not installed (Ganak counts some puzzles the engine does not); else None.
    hint: str | None = None

    def __repr__(self) -> str:
        # Short: `result` holds the puzzle and grids (see .result).
        return (
            f"CountResult(count={self.count}, exact={self.exact}, stopped={self.stopped!r}, "
            f"seconds={self.seconds}, puzzle={self.result.puzzle!r})"
        )


def count(
    puzzle: Puzzle,
    *,
    backend: str = DEFAULT_BACKEND,
    limit: int = 0,
    timeout: float | None = None,
    options: SearchOptions | None = None,
    approximation: Approximation | None = None,
    deadline: Deadline | None = None,
    progress: Progress | None = None,
    memory: int | None = None,
) -> CountResult:
    """The number of solutions: exact when counting finished, else a lower bound.

    Counting is satnono.pipeline.counting (enumeration for small components, then the
    counting search racing Ganak), not enumeration of whole grids: counts far beyond what
    could be listed come out exact. `limit` > 0 caps the count: it is then reported as
    exactly `limit`. `approximation` adds ApproxMC to the race, for an estimate where no
    exact count finishes. `memory` (bytes; default native.CountKnobs's) bounds what the
    engine's count keeps.
    """
    from satnono.logic.counted import CountKnobs
    from satnono.pipeline.counting import count_solutions

    started = time.perf_counter()
    counted = count_solutions(
        puzzle, backend=backend, limit=limit, deadline=deadline or Deadline(timeout),
        options=options, approximation=approximation, progress=progress,
        knobs=None if memory is None else CountKnobs(memory=memory),
    )  # fmt: skip
    seconds = round(time.perf_counter() - started, 4)
    n = counted.count
    status: Status
    if counted.stopped == "timeout" or (counted.stopped == "estimate" and n < 2):
        status = Status.TIMEOUT
    elif n == 0:
        status = Status.UNSOLVABLE
    elif n == 1:
        status = Status.UNIQUE if counted.exact else Status.SOLVED
    else:
        status = Status.MULTIPLE
    solutions = () if counted.witness is None else (counted.witness,)
    result = SolveResult(
        puzzle=puzzle, status=status, complete=counted.exact, grids=solutions,
        solutions_found=n, seconds=seconds, backend=backend, solver=counted.solver,
        reason=counted.reason, stats=counted.stats,
    )  # fmt: skip
    hint = None
    if counted.stopped == "timeout":
        from satnono.core.extras import installed, packages_of

        if not installed("pyganak"):
            hint = ("Ganak counts some puzzles the engine does not; it is "
                    "satnono's 'counting' extra, not installed here: pip install "
                    + " ".join(packages_of("counting")))  # fmt: skip
    return CountResult(
        n, counted.exact, seconds, result, counted.stopped, counted.factors, counted.estimate,
        counted.approximation, hint,
    )  # fmt: skip
