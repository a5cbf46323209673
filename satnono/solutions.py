"""Solve, enumerate and count: propagation, then a backend on the residual, every grid verified.

This is the one pipeline behind the CLI and the library API, so the verdict logic (unique,
multiple, unsolvable, timeout) and the verification of every solution exist exactly once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from satnono.backends import DEFAULT_BACKEND, Residual, SearchOptions, load_backend
from satnono.deadline import Deadline
from satnono.errors import Contradiction
from satnono.model import Grid, Puzzle, find_contradiction
from satnono.propagate import Propagator, domains_to_grid, initial_domains
from satnono.verify import verify

Status = Literal["unique", "multiple", "solved", "unsolvable", "timeout"]


@dataclass(frozen=True)
class SolveResult:
    puzzle: Puzzle
    status: Status
    #: True when every solution was found (so the count is exact).
    complete: bool
    solutions: tuple[Grid, ...]
    solutions_found: int
    seconds: float
    backend: str
    solver: str | None = None
    #: Why there is no solution, when status is "unsolvable".
    reason: str | None = None
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        """The one-line verdict the CLI prints."""
        n = self.solutions_found
        plural = "solution" if n == 1 else "solutions"
        if self.status == "unsolvable":
            return f"no solution: {self.reason}"
        if self.status == "unique":
            return "unique solution"
        if self.status == "timeout":
            if n:
                return f"timeout: at least {n} {plural} found, search not finished"
            return "timeout: no solution found yet"
        if self.status == "solved":
            return "solved (uniqueness not checked: --max-solutions 1)"
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
    on_solution: Callable[[Grid], None] | None = None,
) -> SolveResult:
    """Find up to `limit` solutions (0 = all), verified; keep at most `keep` of them.

    `on_solution` sees each verified solution as soon as it is found (for streaming).
    """
    started = time.perf_counter()
    deadline = Deadline(timeout)
    options = options or SearchOptions()
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

    def accept(grid: Grid) -> bool:
        nonlocal found
        verify(puzzle, grid)
        found += 1
        if keep is None or len(kept) < keep:
            kept.append(grid)
        if on_solution is not None:
            on_solution(grid)
        return limit == 0 or found < limit

    reason = find_contradiction(puzzle)
    if reason is not None:
        return finish("unsolvable", True, reason)
    propagator = Propagator(puzzle)
    domains = initial_domains(puzzle)
    propagation_started = time.perf_counter()
    try:
        propagator.propagate(domains)
    except Contradiction as error:
        return finish("unsolvable", True, str(error))
    finally:
        stats["propagation_seconds"] = round(time.perf_counter() - propagation_started, 4)
        stats["line_solves"] = propagator.stats.line_solves
    residual = Residual(puzzle, propagator, tuple(domains))
    stats["cells_left"] = residual.unknown
    if not residual.unknown:
        accept(domains_to_grid(puzzle, domains))
        return finish("unique", True)
    report = load_backend(backend).search(
        residual, options, deadline, lambda d: accept(domains_to_grid(puzzle, d))
    )
    stats.update(report.stats)
    solver = stats.pop("solver", None)
    if report.timed_out and found < 2:
        return finish("timeout", False, solver=solver)
    if found == 0:
        return finish("unsolvable", True, "search proved that no grid fits the clues", solver)
    if found == 1:
        return finish("unique" if report.exhausted else "solved", report.exhausted, solver=solver)
    return finish("multiple", report.exhausted, solver=solver)


@dataclass(frozen=True)
class CountResult:
    count: int
    exact: bool
    seconds: float
    result: SolveResult


def count(
    puzzle: Puzzle,
    *,
    backend: str = DEFAULT_BACKEND,
    limit: int = 0,
    timeout: float | None = None,
    options: SearchOptions | None = None,
) -> CountResult:
    """The number of solutions: exact when the search finished, else a lower bound."""
    result = solve(puzzle, backend=backend, limit=limit, timeout=timeout, options=options, keep=0)
    return CountResult(result.solutions_found, result.complete, result.seconds, result)
