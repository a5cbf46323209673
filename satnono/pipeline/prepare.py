"""The start every pipeline shares: line logic on the whole grid, the independent components
of what it leaves, and one component enumerated by a backend.

solve (solutions), count (counting), sample (sampling) and analyze all begin with `prepare`
and search components with `enumerate_part`, so "what line logic decides", "which regions
are independent" and "no grid fits the clues (the region of ...)" are written once.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from satnono.backends import Backend, Residual, SearchOptions, SearchReport, SearchTask
from satnono.core.geometry import Geometry
from satnono.core.grids import palette_domains
from satnono.core.model import LineContradiction, Puzzle, find_contradiction
from satnono.logic.components import components
from satnono.logic.native import Engine
from satnono.runtime.deadline import Deadline, Timeout


def line_logic(
    puzzle: Puzzle, domains: list[int], deadline: Deadline | None = None
) -> tuple[str | None, int]:
    """Line logic over the whole grid, narrowing `domains` in place: why no grid fits (the
    clues alone, or line logic), or None; and the number of lines solved. Every solve,
    count, analysis and CNF starts here. Raises Timeout when the deadline passes first (a
    deadline passed already stops it before it starts); `domains` then holds what line logic
    had decided, all of it sound."""
    if deadline is not None and deadline.expired():
        raise Timeout
    reached = Engine(puzzle).propagate(domains, None, deadline)
    if reached.domains is not None:
        domains[:] = reached.domains
    if reached.status == "solved":  # a grid fits: the clues cannot contradict each other
        return None, reached.work
    # Otherwise the clues' own contradiction, when there is one, says best why no grid fits
    # (and spares a search that could only prove it).
    reason = find_contradiction(puzzle)
    if reason is not None:
        return reason, reached.work
    if reached.status == "timeout":
        raise Timeout
    if reached.status == "conflict":
        if reached.line is None:
            return "line logic: no grid fits the clues", reached.work
        return str(LineContradiction(puzzle, reached.line)), reached.work
    return None, reached.work


#: One component's solution: (cell, decided domain) for each of its undecided cells.
Assignment = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Prepared:
    """A puzzle after line logic: `domains` (narrowed in place by later searches, which
    restore them), the puzzle's lines (`geometry`), `reason` when line
    logic (or the clues alone) proved that no grid fits, and the lines it solved."""

    puzzle: Puzzle
    geometry: Geometry
    domains: list[int]
    reason: str | None
    line_solves: int = 0

    @property
    def cells_left(self) -> int:
        return sum(1 for d in self.domains if d & (d - 1))

    def parts(self) -> list[tuple[int, ...]]:
        """The lines of each independent component, smallest first: a component without a
        solution, found early, ends the search early."""
        found = components(self.geometry, self.domains)
        found.reverse()
        return found

    def residual(self, lines: tuple[int, ...] | None = None) -> Residual:
        """What is left for a backend to search: one component, or all of it."""
        return Residual(self.puzzle, self.geometry, tuple(self.domains), lines)


def prepare(
    puzzle: Puzzle, deadline: Deadline | None = None, domains: list[int] | None = None
) -> Prepared:
    """Line logic on the whole grid, from `domains` (default: nothing decided), narrowed in
    place. Raises Timeout when the deadline passes first; `domains` then holds what line
    logic had decided, all of it sound."""
    if domains is None:
        domains = palette_domains(puzzle)
    reason, solves = line_logic(puzzle, domains, deadline)
    return Prepared(puzzle, Geometry(puzzle), domains, reason, solves)


#: The reason given when a search proves that the clues have no solution.
NO_GRID = "search proved that no grid fits the clues"


def no_grid(puzzle: Puzzle, lines: tuple[int, ...]) -> str:
    """Why a component proved that no grid fits, naming its first lines."""
    names = ", ".join(puzzle.line_name(line) for line in lines[:4])
    more = "" if len(lines) <= 4 else f" and {len(lines) - 4} more lines"
    return f"{NO_GRID} (the region of {names}{more})"


@dataclass
class Enumerated:
    """A component's solutions as found (at most the cap), and the backend's report."""

    solutions: list[Assignment] = field(default_factory=list)
    report: SearchReport = field(default_factory=lambda: SearchReport(exhausted=False))

    @property
    def complete(self) -> bool:
        """Every solution of the component is in `solutions`."""
        return self.report.exhausted


def enumerate_part(
    backend: Backend,
    residual: Residual,
    options: SearchOptions,
    deadline: Deadline,
    cap: int,
    found: Enumerated | None = None,
) -> Enumerated:
    """Up to `cap` solutions (0: all) of one component, by the backend; into `found` when
    given, as they come (a deadline may watch it)."""
    found = Enumerated() if found is None else found
    cells = residual.cells()

    def keep(decided: list[int]) -> bool:
        found.solutions.append(tuple((cell, decided[cell]) for cell in cells))
        return cap == 0 or len(found.solutions) < cap

    found.report = backend.search(SearchTask(residual, replace(options, limit=cap), deadline, keep))
    return found
