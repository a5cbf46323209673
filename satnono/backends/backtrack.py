"""The classic backend: line propagation, probing and depth-first search, in pure Python.

No SAT or CP library inside; it needs nothing beyond satnono's own line solver and propagator.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from satnono.backends import OnSolution, Residual, SearchOptions, SearchReport
from satnono.linesolver import colors_of
from satnono.propagate import LineContradiction, undo
from satnono.runtime.deadline import Deadline, Timeout


class _Stop(Exception):  # noqa: N818 - control flow, not an error
    """The caller has enough solutions."""


class _Timeout(Exception):  # noqa: N818 - control flow, not an error
    """The deadline passed."""


class _Probe:
    """What assuming one color in one cell implies, and the time at which that was computed.

    The probe's propagation read only `lines` (the probed cell's row and column, and both lines
    of every cell it narrowed). While no cell on those lines changes, running it again would
    give exactly the same result, so it is kept and reused instead.
    """

    __slots__ = ("changes", "fixed", "lines", "time")

    def __init__(self, changes: dict[int, int], fixed: int, lines: set[int], time: int) -> None:
        self.changes = changes  # cell -> its domain after the probe, for every narrowed cell
        self.fixed = fixed  # how many cells the probe decides (the probed cell included)
        self.lines = lines
        self.time = time


@dataclass
class _Branch:
    """One level of the depth-first search: a cell and the colors not yet tried there."""

    mark: int  # trail length before the branch: backtracking restores the state there
    cell: int
    colors: list[int]


class _Search:
    """One search over a residual: the grid state and its trail, the probe cache, the stats."""

    def __init__(
        self,
        residual: Residual,
        deadline: Deadline,
        on_solution: OnSolution,
        report_probes: bool = True,
    ) -> None:
        puzzle = residual.puzzle
        # False keeps a probe that decides every cell instead of reporting and excluding it,
        # so that probing alone fixes only what holds in every solution (see probe_fixpoint).
        self.report_probes = report_probes
        self.propagator = residual.propagator
        self.deadline = deadline
        self.on_solution = on_solution
        self.colors = len(puzzle.palette)
        self.domains = list(residual.domains)
        self.trail: list[tuple[int, int]] = []
        # Only these cells belong to this search (one component; others stay undecided).
        self.cells = residual.cells()
        self.lines = residual.scope()
        self.unknown = len(self.cells)
        width, height = puzzle.width, puzzle.height
        self.row_of = [cell // width for cell in range(width * height)]
        self.column_of = [height + cell % width for cell in range(width * height)]
        self.neighbors = _Neighborhoods(width, height, self.cells)
        # A logical clock: stamp[line] is the time its cells last changed outside a probe.
        self.clock = 0
        self.stamp = [0] * puzzle.line_count
        self.probes_cache: dict[int, _Probe] = {}  # key: cell * colors + color
        self.changed: list[int] = []  # cells narrowed since the last look (see _near_changes)
        self.probes = self.nodes = self.max_depth = 0

    # -- the state: every narrowing goes on the trail; backtracking undoes it ---------------

    def _account(self, entries: list[tuple[int, int]], undoing: bool) -> None:
        """Stamp the lines of cells about to be undone or just narrowed; count decided cells."""
        self.clock += 1
        clock, stamp, domains = self.clock, self.stamp, self.domains
        cells = dict.fromkeys(cell for cell, _ in entries)
        decided = 0
        for cell in cells:
            stamp[self.row_of[cell]] = stamp[self.column_of[cell]] = clock
            domain = domains[cell]
            if not domain & (domain - 1):
                decided += 1
        if undoing:
            self.unknown += decided
        else:
            self.unknown -= decided
            self.changed.extend(cells)

    def _narrow(self, updates: dict[int, int], lines: Iterable[int] = ()) -> bool:
        """Set narrower domains and propagate them (and `lines`); False on a contradiction.

        After a contradiction the state is part-way narrowed: the caller backtracks past it.
        """
        domains, trail = self.domains, self.trail
        mark = len(trail)
        queue = set(lines)
        for cell, domain in updates.items():
            trail.append((cell, domains[cell]))
            domains[cell] = domain
            queue.add(self.row_of[cell])
            queue.add(self.column_of[cell])
        try:
            self.propagator.propagate(domains, queue, trail)
            return True
        except LineContradiction:
            return False
        finally:
            self._account(trail[mark:], undoing=False)

    def _backtrack(self, mark: int) -> None:
        """Restore the state the trail had when it was `mark` entries long."""
        if len(self.trail) > mark:
            self._account(self.trail[mark:], undoing=True)
            undo(self.domains, self.trail, mark)

    # -- probing ----------------------------------------------------------------------------

    def _probe(self, cell: int, color: int) -> _Probe | None:
        """Assume `cell` has `color` and propagate; None on a contradiction. Leaves no trace."""
        self.probes += 1
        domains, trail = self.domains, self.trail
        mark = len(trail)
        trail.append((cell, domains[cell]))
        domains[cell] = 1 << color
        try:
            self.propagator.propagate(domains, (self.row_of[cell], self.column_of[cell]), trail)
        except LineContradiction:
            undo(domains, trail, mark)
            return None
        changes = {c: domains[c] for c, _ in trail[mark:]}
        undo(domains, trail, mark)
        fixed = sum(1 for domain in changes.values() if not domain & (domain - 1))
        lines = {self.row_of[c] for c in changes}
        lines.update(self.column_of[c] for c in changes)
        return _Probe(changes, fixed, lines, self.clock)

    def _cached(self, cell: int, color: int) -> _Probe | None:
        """The cached probe, if no cell on its lines has changed since it was made."""
        probe = self.probes_cache.get(cell * self.colors + color)
        if probe is None or max(map(self.stamp.__getitem__, probe.lines)) > probe.time:
            return None
        return probe

    def _probe_cell(self, cell: int) -> bool | None:
        """Probe every color left in `cell` and apply what that proves.

        A color that leads to a contradiction is removed. A color whose probe decides every
        cell is a solution, the only one with that color there: it is reported, then removed.
        A cell narrowed the same way by every color is narrowed (the probes' intersection).
        Returns None on a contradiction, True when the state changed, False otherwise.
        """
        results = []
        fresh = False
        # The background last: painted colors are the ones that run into contradictions (306
        # against 4 on Light), and a contradiction ends the cell's turn one probe earlier.
        for color in reversed(colors_of(self.domains[cell])):
            probe = self._cached(cell, color)
            if probe is None:
                probe = self._probe(cell, color)
                if probe is not None:
                    self.probes_cache[cell * self.colors + color] = probe
                    fresh = True
            if probe is not None and self.report_probes and probe.fixed == self.unknown:
                self._report(probe.changes)
                probe = None
            if probe is None:
                return self._narrow({cell: self.domains[cell] & ~(1 << color)}) or None
            results.append(probe)
        implied = self._intersection(cell, results) if fresh else None
        if not implied:
            return False
        return self._narrow(implied) or None

    def _intersection(self, cell: int, results: list[_Probe]) -> dict[int, int]:
        """Cells that every color of `cell` narrows: each can only take the union of results."""
        domains = self.domains
        smallest = min(results, key=lambda probe: len(probe.changes))
        implied = {}
        for other in smallest.changes:
            if other == cell:
                continue
            union = 0
            for probe in results:
                domain = probe.changes.get(other)
                if domain is None:
                    break
                union |= domain
            else:
                if union != domains[other]:
                    implied[other] = union
        return implied

    def _settle(self, candidates: Iterable[int], root: bool = False) -> bool:
        """Probe the candidates, then the neighbors of whatever that narrows, until none is
        left; False on a contradiction.

        Below the root the candidates are the neighbors of what the branch narrowed (and of
        the last contradiction): what a change makes provable lies mostly next to it. Probing
        the whole grid at every node instead proves a little more per node, yet on 9-Dom it
        took 16,000 nodes and 120 s against about 1,000 nodes and 5 s (see _branch for why).

        At the root, probing starts next to what is known (decided cells and the grid's edge)
        and goes depth first: the neighbors of each change are probed next, where line logic
        has the most to work with. That cut Light from 3,693 probes to 576 (0.80 s -> 0.29 s)
        and Hot from 2,254 to 751 (0.64 -> 0.47 s). Below the root the same order made Lion's
        tree twice as large (1,222 nodes against 621), so there the order stays arbitrary.
        """
        domains = self.domains
        pending: list[int] | set[int]
        pending = self._root_order(candidates) if root else set(candidates)
        while pending:
            cell = pending.pop()
            domain = domains[cell]
            if not domain & (domain - 1):
                continue
            if self.deadline.expired():
                raise _Timeout
            outcome = self._probe_cell(cell)
            if outcome is None:
                return False
            if not self.unknown:
                return True
            if outcome:
                near = self._near_changes()
                if isinstance(pending, list):
                    pending.extend(near)  # the last pushed is probed first
                else:
                    pending.update(near)
        return True

    def _root_order(self, cells: Iterable[int]) -> list[int]:
        """`cells` by _known_around, the most known last (probed first).

        It looks at the deadline as it goes: on a wide residual the neighborhoods this builds
        take long (1 s for the 160,000 cells of a random 400 x 400 grid).
        """
        known: dict[int, int] = {}
        for counted, cell in enumerate(cells):
            if not counted & 1023 and self.deadline.expired():
                raise _Timeout
            known[cell] = self._known_around(cell)
        return sorted(known, key=known.__getitem__)

    def _known_around(self, cell: int) -> int:
        """Decided cells next to `cell`, counting the cells beyond the grid's edge as decided."""
        domains = self.domains
        around = self.neighbors.around(cell)
        known = sum(1 for other in around if not domains[other] & (domains[other] - 1))
        return known + 9 - len(around)

    def _near_changes(self) -> set[int]:
        """Undecided cells next to (or at) a cell narrowed since the last call.

        Backtracking keeps the list, so after a contradiction its surroundings are probed
        again in the next node's state.
        """
        domains, neighbors = self.domains, self.neighbors
        near = {
            other
            for cell in self.changed
            for other in neighbors[cell]
            if domains[other] & (domains[other] - 1)
        }
        self.changed.clear()
        return near

    def _settle_root(self) -> bool:
        """Probe every cell, again and again until a whole sweep changes nothing."""
        while True:
            clock = self.clock
            if not self._settle(self.cells, root=True):
                return False
            if self.clock == clock or not self.unknown:
                return True

    # -- search -----------------------------------------------------------------------------

    def _report(self, changes: dict[int, int] | None = None) -> None:
        decided = list(self.domains)
        for cell, domain in (changes or {}).items():
            decided[cell] = domain
        if not self.on_solution(decided):
            raise _Stop

    def _branch(self) -> _Branch:
        """Branch on the cell whose probes decide the most cells in its weakest color.

        Ties go to the most cells over all colors; the strongest color is tried first. Most
        cached probes are stale here (made in an ancestor's state, or in the subtree that just
        failed), and that is deliberate: scores from fresh probes of every cell cost 15 times
        the nodes on 9-Dom, while stale scores remember where earlier branches and the last
        contradiction had their effect, and steer the search there. (Restoring the cache
        exactly on backtracking, so that every score is current, was 10 times worse too.)
        The tree size is sensitive to such details: small changes in probing order move
        Lion between about 600 and 2,500 nodes.
        """
        domains, colors, cache = self.domains, self.colors, self.probes_cache

        def fixed(cell: int, color: int) -> int:
            probe = cache.get(cell * colors + color)
            return probe.fixed if probe is not None else 0

        best, best_score = -1, (-1, -1)
        for cell in self.cells:
            domain = domains[cell]
            if domain & (domain - 1):
                counts = [fixed(cell, color) for color in colors_of(domain)]
                score = (min(counts), sum(counts))
                if score > best_score:
                    best, best_score = cell, score
        order = sorted(colors_of(domains[best]), key=lambda color: -fixed(best, color))
        return _Branch(len(self.trail), best, order)

    def _node(self, root: bool = False) -> bool:
        """Settle a new node; True when it needs branching (neither failed nor solved)."""
        self.nodes += 1
        if self.deadline.expired():
            raise _Timeout
        if root:
            # Line propagation first: a no-op after the pipeline's, but it makes the backend
            # complete on any residual, which the tests use to exercise the search.
            settled = self._narrow({}, self.lines) and self._settle_root()
        else:
            settled = self._settle(self._near_changes())
        if not settled:
            return False
        if not self.unknown:
            self._report()
            return False
        return True

    def run(self) -> bool:
        """Enumerate every solution; True when the whole search space was explored."""
        stack = [self._branch()] if self._node(root=True) else []
        while stack:
            self.max_depth = max(self.max_depth, len(stack))
            branch = stack[-1]
            self._backtrack(branch.mark)
            if not branch.colors:
                stack.pop()
                continue
            color = branch.colors.pop(0)
            if self._narrow({branch.cell: 1 << color}) and self._node():
                stack.append(self._branch())
        return True


class _Neighborhoods(dict[int, list[int]]):
    """For each cell of the search, itself and its (up to 8) adjacent cells of the search.

    Each is made when first asked for: making them all up front took 0.56 s on a 400 x 400
    grid, all of it spent before the search could look at the clock, so a short --timeout
    overran by that much. Lookups of cells already made cost what a plain dict's do.
    """

    def __init__(self, width: int, height: int, cells: list[int]) -> None:
        super().__init__()
        self.width, self.height = width, height
        self.inside = set(cells)

    def around(self, cell: int) -> list[int]:
        """Every cell next to `cell`, in the search or not."""
        width = self.width
        row, column = divmod(cell, width)
        return [
            r * width + c
            for r in range(max(0, row - 1), min(self.height, row + 2))
            for c in range(max(0, column - 1), min(width, column + 2))
        ]

    def __missing__(self, cell: int) -> list[int]:
        width, inside = self.width, self.inside
        row, column = divmod(cell, width)
        near = [
            r * width + c
            for r in range(max(0, row - 1), min(self.height, row + 2))
            for c in range(max(0, column - 1), min(width, column + 2))
            if r * width + c in inside
        ]
        self[cell] = near
        return near


def probe_fixpoint(residual: Residual, deadline: Deadline) -> tuple[int, ...] | None:
    """The residual's domains once probing changes nothing more, without any branching.

    None when probing proves that no grid fits; raises satnono.runtime.deadline.Timeout when the
    deadline passes. Unlike the search, it does not report a probe that decides every cell as
    a solution and then exclude it, so every cell it fixes has that color in every solution:
    this is how `satnono analyze` tells how far probing alone gets.
    """
    search = _Search(residual, deadline, lambda _: True, report_probes=False)
    try:
        settled = search._settle_root()
    except _Timeout:
        raise Timeout from None
    return tuple(search.domains) if settled else None


class BacktrackBackend:
    name: ClassVar[str] = "backtrack"

    def search(
        self,
        residual: Residual,
        options: SearchOptions,
        deadline: Deadline,
        on_solution: OnSolution,
    ) -> SearchReport:
        """Reads no options: the search is deterministic and single-threaded."""
        started = time.perf_counter()
        search = _Search(residual, deadline, on_solution)
        report = SearchReport(exhausted=False)
        try:
            report.exhausted = search.run()
        except _Timeout:
            report.timed_out = True
        except _Stop:
            pass
        stats: dict[str, Any] = {
            "solver": "backtrack",
            "probes": search.probes,
            "nodes": search.nodes,
            "max_depth": search.max_depth,
            "search_seconds": round(time.perf_counter() - started, 4),
        }
        report.stats = stats
        return report


BACKEND = BacktrackBackend()
