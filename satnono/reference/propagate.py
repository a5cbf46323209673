"""Line propagation over the whole grid, in Python: solve lines until no line can narrow any
cell.

satnono propagates in its native engine (satnono.logic.native); this is the reference the
engine is held to by the tests, and the Python counting search's propagation. The
grid state is a flat list of domain bitmasks (satnono.core.grids). Changed cells re-queue their
crossing line, so work is proportional to what actually changes. An optional trail records
every narrowing so that search can undo it.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from operator import itemgetter

from satnono.core.geometry import Geometry, line_cells
from satnono.core.model import LineContradiction, Puzzle, find_contradiction
from satnono.reference.linesolver import Domains, LineSolver, clue_numbers
from satnono.runtime.deadline import Deadline, Timeout

Trail = list[tuple[int, int]]  # (cell, domain before the change)


@dataclass
class PropagationStats:
    line_solves: int = 0
    narrowed_cells: int = 0
    seconds: float = 0.0
    extra: dict[str, int] = field(default_factory=dict)


class Propagator(Geometry):
    """The grid's lines and one LineSolver per distinct (clue, length), each made when a line
    first needs it: satnono's own line logic runs in the native engine (satnono.logic.native),
    and this Python one is its reference."""

    def __init__(self, puzzle: Puzzle) -> None:
        super().__init__(puzzle)
        self.read = _readers(puzzle.width, puzzle.height)
        #: solvers[line], or None until `solver(line)` makes it.
        self.solvers: list[LineSolver | None] = [None] * puzzle.line_count
        self._shared: dict[tuple[tuple[int, ...], int], LineSolver] = {}
        self.stats = PropagationStats()

    def solver(self, line: int) -> LineSolver:
        """The line solver of `line` (shared by every line with the same clue and length)."""
        solver = self.solvers[line]
        if solver is None:
            puzzle = self.puzzle
            clue = puzzle.line_clue(line)
            numbers = clue_numbers(clue, len(puzzle.palette))
            key = (numbers, puzzle.width if line < puzzle.height else puzzle.height)
            solver = self._shared.get(key)
            if solver is None:
                solver = self._shared[key] = LineSolver(clue, key[1], len(puzzle.palette), numbers)
            self.solvers[line] = solver
        return solver

    def propagate(
        self,
        domains: list[int],
        lines: Iterable[int] | None = None,
        trail: Trail | None = None,
        deadline: Deadline | None = None,
    ) -> None:
        """Narrow `domains` in place to the line-logic fixpoint; raise LineContradiction.

        `lines` limits the starting queue (by default every line); lines whose cells change
        are queued again. On a contradiction `domains` is left part-way: undo with the trail.
        `deadline` is looked at before each line solve the cache cannot answer (the costly
        ones: 7 s of them on a 1000 x 1000 puzzle); when it has passed, Timeout is raised and
        `domains` keeps every narrowing made so far, each of them sound.
        """
        puzzle = self.puzzle
        height, width = puzzle.height, puzzle.width
        queue = deque(range(puzzle.line_count) if lines is None else lines)
        queued = bytearray(puzzle.line_count)
        for line in queue:
            queued[line] = 1
        solvers, cells_of, read = self.solvers, self.cells, self.read
        solves = narrowed = 0
        try:
            while queue:
                line = queue.popleft()
                queued[line] = 0
                current = read[line](domains)
                solves += 1
                solver = solvers[line] or self.solver(line)
                new = solver.cache.get(current)  # inlined solver.solve(): most lookups hit
                if new is None:
                    if deadline is not None and deadline.expired():
                        raise Timeout
                    new = solver.solve_uncached(current)
                if new == current:
                    continue
                if not new:
                    raise LineContradiction(puzzle, line)
                cells = cells_of[line]
                is_row = line < height
                for k, value in enumerate(new):
                    if value != current[k]:
                        cell = cells[k]
                        domains[cell] = value
                        narrowed += 1
                        if trail is not None:
                            trail.append((cell, current[k]))
                        other = height + cell % width if is_row else cell // width
                        if not queued[other]:
                            queued[other] = 1
                            queue.append(other)
        finally:
            self.stats.line_solves += solves
            self.stats.narrowed_cells += narrowed


def propagate_root(
    puzzle: Puzzle, domains: list[int], deadline: Deadline | None = None
) -> tuple[Propagator, str | None]:
    """Line logic over the whole grid from `domains` (initial_domains(puzzle), narrowed in place),
    in Python: the reference that satnono.logic.native.line_logic is held to.

    Returns the propagator and, when the clues or line logic prove that no grid fits, why.
    Raises Timeout when the deadline passes first; `domains` then holds what line logic had
    decided, all of it sound.
    """
    reason = find_contradiction(puzzle)
    propagator = Propagator(puzzle)
    if reason is None:
        try:
            propagator.propagate(domains, deadline=deadline)
        except LineContradiction as error:
            reason = str(error)
    return propagator, reason


@functools.lru_cache(maxsize=64)
def _readers(width: int, height: int) -> list[Callable[[list[int]], Domains]]:
    """A reader of each line's domains (shared by every puzzle of a size; never changed)."""
    return [_reader(each) for each in line_cells(width, height)]


def _reader(cells: tuple[int, ...]) -> Callable[[list[int]], Domains]:
    """A fast `lambda domains: tuple(domains[c] for c in cells)`."""
    if len(cells) == 1:
        only = cells[0]
        return lambda domains: (domains[only],)
    return itemgetter(*cells)


def undo(domains: list[int], trail: Trail, mark: int) -> None:
    """Restore every domain changed since the trail had length `mark`."""
    while len(trail) > mark:
        cell, old = trail.pop()
        domains[cell] = old
