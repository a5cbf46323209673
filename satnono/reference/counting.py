"""satnono's own counting search: line propagation, decomposition into independent
sub-components and a cache of sub-problem counts (a permutation square has 2^n sub-problems,
not n! solutions), with an incremental SAT solver to refute dead sub-trees early."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Hashable, Iterator, Sequence
from itertools import chain

from satnono.core.grids import colors_of, initial_domains
from satnono.core.model import LineContradiction, Puzzle
from satnono.encode.cnf import encode_puzzle
from satnono.logic.components import components
from satnono.reference.propagate import Propagator, Trail, propagate_root, undo
from satnono.runtime.deadline import Deadline
from satnono.runtime.sat_solvers import SatSolver

#: Bytes of cache keys kept before the cache is emptied (keys dominate its memory).
CACHE_BYTES = 200_000_000

#: Components with at least this many undecided cells are checked by a SAT solver before the
#: counting search branches on them; line propagation finds the dead ends of smaller ones as
#: cheaply. Measured between 10 and 120: the hard survey puzzles barely notice, and
#: permutation-9 and the large unfinished counts (flag, center) are faster with fewer checks.
SAT_CHECK_CELLS = 64
#: Supports interrupt(), so the deadline stops a long check; fast on incremental calls.
SAT_CHECK_SOLVER = "glucose42"


def share(need: int, others: int) -> int:
    """What one factor must reach for the product with `others` (>= 1) to reach `need`."""
    return max(1, -(-need // others))


def product(values: Sequence[int]) -> int:
    total = 1
    for value in values:
        total *= value
    return total


@contextlib.contextmanager
def recursion_limit(frames: int) -> Iterator[None]:
    """Allow the search to nest as deep as the grid needs, then restore the limit.

    Since Python 3.11 calls between Python functions use no C stack, so the limit only
    guards against runaway recursion, which the number of undecided cells already bounds.
    """
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, frames))
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


class CountingSearch:
    """The counting search over one shared grid state, undone along a trail.

    `component(lines, need)` returns (count, exact). When exact is False the count is a lower
    bound made only of fully counted branches, and either it reached `need` or the deadline
    passed (then `timed_out` is set and every level returns at once).
    """

    def __init__(self, propagator: Propagator, domains: list[int], deadline: Deadline) -> None:
        self.propagator = propagator
        self.domains = domains
        self.deadline = deadline
        self.trail: Trail = []
        self.timed_out = False
        self.cache: dict[tuple[tuple[int, ...], Hashable], int] = {}
        self.cache_bytes = 0
        puzzle = propagator.puzzle
        width, height = puzzle.width, puzzle.height
        self.lines_of = [(c // width, height + c % width) for c in range(width * height)]
        # Domains fit in a byte up to 8 colors: pack cache keys as bytes, 8x smaller than tuples.
        self.pack = len(puzzle.palette) <= 8
        self.side = max(width, height)
        self.nodes = self.hits = self.contradictions = self.sat_checks = 0
        #: Set for the top-level component being counted, when PySAT is installed.
        self.sat: SatCheck | None = None
        #: Looked at with the deadline: True stops the search (a counter in the race answered).
        self.tick: Callable[[], bool] | None = None

    def stats(self) -> dict[str, int]:
        return {
            "count_nodes": self.nodes,
            "count_cache_hits": self.hits,
            "count_contradictions": self.contradictions,
            "count_cache_size": len(self.cache),
            "count_sat_checks": self.sat_checks,
        }

    def component(self, lines: tuple[int, ...], need: int | None) -> tuple[int, bool]:
        """Count one component (its lines hold undecided cells; no other component shares them)."""
        if self.timed_out or ((self.nodes & 63) == 0 and self._stopped()):
            self.timed_out = True
            return 0, False
        self.nodes += 1
        domains, read = self.domains, self.propagator.read
        views = [read[line](domains) for line in lines]
        # The count depends only on these lines' contents (undecided and decided cells alike):
        # the component shares no undecided cell with the rest of the grid.
        packed = bytes(chain.from_iterable(views)) if self.pack else tuple(views)
        key = (lines, packed)
        known = self.cache.get(key)
        if known is not None:
            self.hits += 1
            return known, True
        cell, undecided = self._choose(lines, views)
        if self.sat is not None and self.trail and undecided >= SAT_CHECK_CELLS:
            satisfiable = self.sat.satisfiable(domains, self.trail)
            self.sat_checks += 1
            if satisfiable is None:
                self.timed_out = True
                return 0, False
            if not satisfiable:
                self._remember(key, 0)
                return 0, True
        total = 0
        options = colors_of(domains[cell])
        trail, propagator = self.trail, self.propagator
        for position, color in enumerate(options):
            mark = len(trail)
            trail.append((cell, domains[cell]))
            domains[cell] = 1 << color
            try:
                propagator.propagate(domains, self.lines_of[cell], trail)
            except LineContradiction:
                self.contradictions += 1
                undo(domains, trail, mark)
                continue
            parts = components(propagator, domains, lines)
            value, exact = self.product(parts, None if need is None else need - total)
            undo(domains, trail, mark)
            total += value
            if not exact:
                return total, False
            if need is not None and total >= need and position < len(options) - 1:
                return total, False
        self._remember(key, total)
        return total, True

    def _stopped(self) -> bool:
        return self.deadline.expired() or (self.tick is not None and self.tick())

    def _remember(self, key: tuple[tuple[int, ...], Hashable], count: int) -> None:
        packed = key[1]
        size = len(packed) if isinstance(packed, bytes) else 8 * len(key[0]) * self.side
        self.cache_bytes += size + 100  # + the dict entry, the key and the count objects
        if self.cache_bytes > CACHE_BYTES:
            self.cache.clear()
            self.cache_bytes = 0
        self.cache[key] = count

    def product(self, parts: list[tuple[int, ...]], need: int | None) -> tuple[int, bool]:
        """Count independent components and multiply; an exact zero anywhere is exact."""
        total = 1
        exact = True
        for index in range(len(parts) - 1, -1, -1):  # smallest first
            part_need = None if need is None else share(need, total)
            value, part_exact = self.component(parts[index], part_need)
            if value == 0:
                return 0, part_exact
            total *= value
            if not part_exact:
                if self.timed_out:
                    # Components not counted yet have no lower bound above 0.
                    return (total if index == 0 else 0), False
                exact = False  # reached its share of the limit; the rest need just 1 each
        return total, exact

    def _choose(self, lines: tuple[int, ...], views: list[tuple[int, ...]]) -> tuple[int, int]:
        """An undecided cell of the line with the fewest undecided cells, and how many there are.

        Finishing short lines first decides whole lines early, which splits the component
        apart and makes the remaining sub-problems repeat (and hit the cache).
        """
        best = -1
        fewest = 1 << 30
        seen = 0  # each undecided cell is seen twice: from its row and from its column
        for index, view in enumerate(views):
            left = 0
            for domain in view:
                if domain & (domain - 1):
                    left += 1
            seen += left
            if 0 < left < fewest:
                best, fewest = index, left
        cells = self.propagator.cells[lines[best]]
        for position, domain in enumerate(views[best]):
            if domain & (domain - 1):
                return cells[position], seen // 2
        raise AssertionError("a component without undecided cells")  # pragma: no cover


class SatCheck:
    """Is the current state of one component still satisfiable? An incremental SAT solver says.

    Line propagation alone misses contradictions that only show across many lines, and the
    counting search would then explore a dead sub-tree cell by cell; the solver refutes it at
    once and learns clauses that make later checks cheap. Narrowed cells become assumptions.
    """

    def __init__(
        self, propagator: Propagator, domains: list[int], lines: tuple[int, ...], deadline: Deadline
    ) -> None:
        formula = encode_puzzle(propagator, domains, lines)
        self.literals = formula.cell_literals
        # In use until close(): the deadline interrupts it from now on.
        self.stoppable = SatSolver(SAT_CHECK_SOLVER, deadline, formula.clauses).__enter__()

    def satisfiable(self, domains: list[int], trail: Trail) -> bool | None:
        """None when the deadline interrupted the solver."""
        assumptions: list[int] = []
        seen: set[int] = set()
        literals = self.literals
        for cell, _ in trail:
            if cell in seen:
                continue
            seen.add(cell)
            domain = domains[cell]
            for color, literal in literals.get(cell, ()):
                if not domain >> color & 1:
                    assumptions.append(-literal)  # a one-hot cell is decided by its exclusions
        return self.stoppable.solve(assumptions)

    def close(self) -> None:
        self.stoppable.__exit__()


def count_grids(puzzle: Puzzle) -> int:
    """Every grid that fits the clues, counted the reference's way: Python line logic, the
    independent components, and this search over each (no deadline: for small puzzles)."""
    domains = initial_domains(puzzle)
    propagator, reason = propagate_root(puzzle, domains)
    if reason is not None:
        return 0
    value, exact = CountingSearch(propagator, domains, Deadline(None)).product(
        components(propagator, domains), None
    )
    assert exact  # no deadline, no budget
    return value
