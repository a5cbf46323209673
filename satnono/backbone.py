"""The backbone of a puzzle: the cells whose color is the same in every solution, and for the
others every color they take in some solution.

A puzzle author needs all the ambiguous cells, not the few where two solutions happen to
differ. Line logic decides most of the backbone; on each independent component of the rest,
an incremental SAT solver settles the others: a model marks the colors it uses as possible,
and a group of candidate cells is proven backbone at once when the solver cannot flip any of
them (chunking, as in Janota, Lynce and Marques-Silva's backbone algorithms). The solver
prefers the opposite of the first model, so that each new model flips as many candidates as
it can (measured: Lion 14 s instead of 26 s). Each new model costs a full SAT solve of a hard
puzzle, and the last ambiguous cells are flipped by few models (a coupon collector's tail), so
the hardest survey puzzles take seconds to minutes (BENCHMARKS.md, counting section).
"""

from __future__ import annotations

from dataclasses import dataclass

from satnono.cnf import CnfFormula, encode_puzzle
from satnono.pipeline import Prepared
from satnono.runtime.deadline import Deadline, Timeout
from satnono.runtime.sat_solvers import SatSolver

#: Interruptible (so the deadline stops it), and fast on the many small incremental calls.
SOLVER = "glucose42"
#: Candidates asked to flip together at first; the group doubles after each proof and
#: halves after each flip, so a backbone cell costs far less than one SAT call.
FIRST_CHUNK = 8


@dataclass(frozen=True)
class Backbone:
    """Every color each cell takes in some solution, as a domain bitmask per cell.

    A cell with a single color left is in the backbone. When `exact` is False the deadline
    stopped the computation: cells in `unsettled` may have more colors than shown, every
    other cell's colors are exact.
    """

    colors: tuple[int, ...]
    exact: bool
    unsettled: tuple[int, ...] = ()
    sat_calls: int = 0

    @property
    def ambiguous(self) -> tuple[int, ...]:
        """Cells proven to take more than one color (row-major flat indices)."""
        return tuple(cell for cell, colors in enumerate(self.colors) if colors & (colors - 1))

    @property
    def backbone(self) -> int:
        """How many cells are proven to have the same color in every solution."""
        settled = set(self.unsettled)
        return sum(
            1
            for cell, colors in enumerate(self.colors)
            if not colors & (colors - 1) and cell not in settled
        )


def backbone(
    prepared: Prepared,
    deadline: Deadline | None = None,
    solver: str = SOLVER,
) -> Backbone | None:
    """The backbone from the state line logic left; None when there is no solution.

    Components are independent, so each is settled with its own (smaller) formula. `solver`
    names the PySAT solver (tools/tune_backbone.py compares them).
    """
    deadline = deadline or Deadline(None)
    propagator, domains = prepared.propagator, prepared.domains
    colors = list(domains)
    # What each cell takes in the solutions found so far: nothing yet for residual cells.
    for cell, domain in enumerate(domains):
        if domain & (domain - 1):
            colors[cell] = 0
    unsettled: list[int] = []
    calls = 0
    parts = prepared.parts()
    for number, lines in enumerate(parts):
        if deadline.expired():
            for later in parts[number:]:
                unsettled += prepared.residual(later).cells()
            break
        formula = encode_puzzle(propagator, domains, lines)
        with SatSolver(solver, deadline, formula.clauses) as sat:
            settle = _Settle(formula, sat)
            try:
                result = settle.run()
            finally:
                calls += settle.calls
        if result is None:
            return None
        for cell, seen in settle.seen.items():
            colors[cell] = seen
        unsettled += settle.unsettled
    for cell in unsettled:
        colors[cell] |= domains[cell]  # not settled: every color it might still take
    return Backbone(tuple(colors), not unsettled, tuple(sorted(unsettled)), calls)


class _Settle:
    """One component's backbone by chunked flipping with an incremental SAT solver."""

    def __init__(self, formula: CnfFormula, sat: SatSolver) -> None:
        self.formula = formula
        self.deadline = sat.deadline
        # A solver that cannot be interrupted mid-call is stopped between calls only.
        self.stoppable = sat
        self.solver = sat.solver
        self.next_variable = formula.variables
        #: cell -> bitmask of the colors seen in some model.
        self.seen: dict[int, int] = {cell: 0 for cell in formula.cell_literals}
        self.unsettled: list[int] = []
        self.calls = 0
        #: Cells proven to have one color in every solution.
        self.proven: set[int] = set()
        #: True once every color of every ambiguous cell is known.
        self.colors_done = False

    def _solve(self, assumptions: list[int]) -> bool:
        self.calls += 1
        result = self.stoppable.solve(assumptions)
        if result is None:
            raise Timeout
        return result

    def _record(self) -> set[int]:
        """Mark the current model's colors as seen; return its true literals."""
        true = set(self.solver.get_model())
        for cell, options in self.formula.cell_literals.items():
            for color, literal in options:
                if literal in true:
                    self.seen[cell] |= 1 << color
        return true

    def run(self) -> bool | None:
        """True when settled, None when the component has no solution (the caller's bug)."""
        try:
            if not self._solve([]):
                return None
            true = self._record()
            # Candidate (cell, literal of its color in the first model): backbone until flipped.
            candidates = [
                (cell, literal)
                for cell, options in self.formula.cell_literals.items()
                for _, literal in options
                if literal in true and (len(options) == 2 or literal > 0)
            ]
            # Prefer the other value everywhere: each new model then flips all it can.
            self.solver.set_phases([-literal for _, literal in candidates])
            self._flip_all(candidates)
            self._other_colors()
        except Timeout:
            self.unsettled = [
                cell
                for cell, colors in self.seen.items()
                if cell not in self.proven and (not colors & (colors - 1) or not self.colors_done)
            ]
        return True

    def _flip_all(self, candidates: list[tuple[int, int]]) -> None:
        """Settle every candidate: proven backbone, or flipped by some model."""
        chunk = FIRST_CHUNK
        pending = candidates
        while pending:
            group, rest = pending[:chunk], pending[chunk:]
            self.next_variable += 1
            switch = self.next_variable
            # switch -> at least one of the group takes another color.
            self.solver.add_clause([-switch, *(-literal for _, literal in group)])
            flipped = self._solve([switch])
            true = self._record() if flipped else set()  # before the next clause voids it
            self.solver.add_clause([-switch])  # retire the group's clause for good
            if flipped:
                pending = [(cell, lit) for cell, lit in pending if lit in true]
                chunk = max(1, chunk // 2)
                continue
            for cell, literal in group:
                self.proven.add(cell)
                self.solver.add_clause([literal])  # a proven backbone literal helps later calls
            pending = rest
            chunk *= 2

    def _other_colors(self) -> None:
        """For ambiguous cells with three or more colors left: every color they can take."""
        for cell, options in self.formula.cell_literals.items():
            if len(options) < 3 or cell in self.proven:
                continue
            for color, literal in options:
                if not self.seen[cell] >> color & 1 and self._solve([literal]):
                    self._record()
        self.colors_done = True
