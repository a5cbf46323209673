"""One component's backbone by chunked flipping (satnono.pipeline.backbone runs it on each
component): an incremental SAT solver asked, group by group, for a model in which one of the
group's cells takes another color. A model settles every cell it flips; a group no model can
flip is proven backbone at once. With several workers, forked solvers share the candidates
and tell each other what they flip. Where a call of the first solver (Glucose) runs past
TAKE_OVER_AFTER conflicts (or TAKE_OVER_PROPAGATIONS propagations), CaDiCaL settles the rest
of the component in its place.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any

from satnono.encode.formula import CnfFormula
from satnono.runtime.deadline import Deadline, Timeout
from satnono.runtime.sat_solvers import SatSolver

#: Candidates asked to flip together at first; the group doubles after each proof and
#: halves after each flip, so a backbone cell costs far less than one SAT call.
FIRST_CHUNK = 8
#: Candidates from which a component is settled by several forked solvers (`workers`): fewer
#: settle in a few calls, sooner than solvers are forked and loaded.
PARALLEL_CANDIDATES = 256
#: Seconds between two looks at the deadline while the forked solvers work.
_LOOK = 0.1
#: Conflicts a call of the first solver (Glucose 4.2, backbone.SOLVER) may take before
#: TAKE_OVER settles the rest of the component in its place. Glucose is the faster on the
#: survey's many short calls (Sierp's map 19.6 s, CaDiCaL's 163 s); on the largest residuals
#: it finds no model at all: none of Faase's (6,176 open cells) or Knotty's in 60 s, even
#: from belief propagation's phases, from which CaDiCaL finds one in 10.4 s and 0.17 s. The
#: most any call took over the survey, survey-free and the corpus: 36,634 conflicts (Sierp);
#: every other under 18,300 (BENCHMARKS.md, round 34).
TAKE_OVER_AFTER = 100_000
#: Or past this many propagations: a call's conflicts cost more on a larger formula (Faase's
#: first call: 922 propagations a conflict, 100,000 conflicts in 21 s; Sierp's slowest 413,
#: 15.6 million in 1.5 s, the most any call took over the survey; BENCHMARKS.md, round 35).
TAKE_OVER_PROPAGATIONS = 50_000_000
TAKE_OVER = "cadical195"


class Flipping:
    """One component's backbone by chunked flipping with an incremental SAT solver; with
    `workers` above 1, the candidates are flipped by that many forked solvers at once.
    `moves` are the clues' symmetries that take the component to itself (see `symmetries`):
    every model's images are models too, so only one cell of each orbit is a candidate."""

    def __init__(
        self,
        formula: CnfFormula,
        sat: SatSolver,
        workers: int = 1,
        moves: Sequence[Sequence[int]] = (),
        guess: Callable[[], list[int]] | None = None,
    ) -> None:
        """`guess`, when given, gives phases for a first model (belief propagation's) and
        allows TAKE_OVER to take the first solver's place (`_take_over`)."""
        self.formula = formula
        self.moves = moves
        self.deadline = sat.deadline
        # A solver that cannot be interrupted mid-call is stopped between calls only.
        self.stoppable = sat
        self.solver = sat.solver
        self.workers = workers
        self.next_variable = formula.variables
        #: cell -> bitmask of the colors seen in some model.
        self.seen: dict[int, int] = {cell: 0 for cell in formula.cell_literals}
        self.unsettled: list[int] = []
        self.calls = 0
        #: Cells proven to have one color in every solution.
        self.proven: set[int] = set()
        #: True once every color of every ambiguous cell is known.
        self.colors_done = False
        #: In a forked solver: tells the parent what a model flipped, what was proven, and at
        #: the end how many SAT calls it made.
        self.tell: Callable[[tuple[str, Any]], None] | None = None
        #: In a forked solver: what the others flipped meanwhile, (cell, colors) pairs.
        self.heard: Callable[[], list[tuple[int, int]]] | None = None
        #: Told when cells were settled (a progress display reads `settled()` then).
        self.changed: Callable[[], None] | None = None
        #: What a solver taking over must be told besides the formula: the backbone
        #: literals proven, the group clause being asked about; and the last model's true
        #: literals, its phases.
        self.guess = guess
        self.units: list[int] = []
        self.group: list[int] | None = None
        self.model: list[int] = []
        #: TAKE_OVER, once it has taken the first solver's place (closed with `close`).
        self.took_over: SatSolver | None = None

    def settled(self) -> int:
        """Cells settled so far: proven backbone, or seen in two colors."""
        return sum(1 for cell, seen in self.seen.items() if cell in self.proven or _several(seen))

    def _solve(self, assumptions: list[int]) -> bool:
        self.calls += 1
        sat = self.stoppable
        if self.guess is None or self.took_over is not None:
            result = sat.solve(assumptions)
        else:
            result = sat.solve_within(TAKE_OVER_AFTER, assumptions, TAKE_OVER_PROPAGATIONS)
            if result is None and not sat.deadline.expired():
                self._take_over()
                result = self.stoppable.solve(assumptions)
        if result is None:
            raise Timeout
        return result

    def _take_over(self) -> None:
        """TAKE_OVER in the first solver's place from now on: the formula, the backbone
        literals proven so far and the group asked about now; from the last model's phases
        (belief propagation's while none is known), CaDiCaL's own way. Not from the other
        colors of the candidates, as Glucose is started: on Faase CaDiCaL made 7 calls in 51 s
        so, against 59 in 53 s from the last model's (BENCHMARKS.md, round 34)."""
        sat = SatSolver(TAKE_OVER, self.stoppable.deadline, self.formula.clauses)
        for literal in self.units:
            sat.solver.add_clause([literal])
        if self.group is not None:
            sat.solver.add_clause(self.group)
        phases = self.model
        if phases and len(phases) < self.formula.variables:
            # A known solution's cells only: the encoding's other variables as they follow
            # from them (Faase's map settled 542 cells in 120 s from its cells alone).
            consistent, implied = self.solver.propagate(assumptions=phases)
            phases = implied if consistent and implied else phases
        elif not phases and self.guess is not None:
            phases = self.guess()
        if phases:
            sat.solver.set_phases(phases)
        self.took_over = sat.__enter__()
        self.stoppable, self.solver = sat, sat.solver

    def close(self) -> None:
        """Delete the solver that took over, if one did."""
        if self.took_over is not None:
            self.took_over.__exit__()
            self.took_over = None

    def _record(self) -> set[int]:
        """Mark the current model's colors (and its images') as seen; return its true
        literals."""
        assignment = self.solver.get_model()
        self.model = [literal for literal in assignment if abs(literal) <= self.formula.variables]
        true = set(assignment)
        model = {
            cell: color
            for cell, options in self.formula.cell_literals.items()
            for color, literal in options
            if literal in true
        }
        gained = self._see(model)
        if self.tell is not None and gained:
            self.tell(("seen", gained))
        return true

    def _see(self, model: dict[int, int]) -> list[tuple[int, int]]:
        """Mark the colors of a solution of the component (cell -> color) and of its images as
        seen; the cells that gained a color, with all they have now."""
        gained = []
        for moved in [None, *self.moves]:
            for cell, color in model.items():
                at = cell if moved is None else moved[cell]
                if not self.seen[at] >> color & 1:
                    self.seen[at] |= 1 << color
                    gained.append((at, self.seen[at]))
        return gained

    def _images(self, cells: Sequence[int]) -> list[int]:
        """`cells` and their images, each once."""
        images = (moved[cell] for moved in self.moves for cell in cells)
        return list(dict.fromkeys([*cells, *images]))

    def _note(self, known: Sequence[Sequence[int]]) -> set[int]:
        """Mark the colors of solutions found before as seen; the true literals of the first."""
        true: set[int] = set()
        for number, colors in enumerate(known):
            self._see({cell: colors[cell] for cell in self.formula.cell_literals})
            if number == 0:
                for cell, options in self.formula.cell_literals.items():
                    true.update(literal for color, literal in options if color == colors[cell])
                self.model = sorted(true, key=abs)
        return true

    def run(self, known: Sequence[Sequence[int]] = (), seen: Sequence[int] = ()) -> bool | None:
        """True when settled, None when the component has no solution (the caller's bug).
        `known`: solutions found before (each a color per cell of the grid), which stand for
        the first model, saving its SAT call, and flip what they differ in; `seen`: the
        colors each cell of the grid takes in other solutions found before."""
        try:
            if known:
                true = self._note(known)
            elif not self._solve([]):
                return None
            else:
                true = self._record()
            # What other solutions showed, and so their images (a cell and its images are
            # settled together, so their colors seen must be too).
            for cell in self.seen if seen else ():
                for moved in [None, *self.moves]:
                    at = cell if moved is None else moved[cell]
                    self.seen[at] |= seen[cell] & self._all(at)
            # Candidate (cell, literal of its color in the first model): backbone until flipped;
            # of a cell and its images only the first, which settles them all.
            candidates = [
                (cell, literal)
                for cell, options in self.formula.cell_literals.items()
                for _, literal in options
                if literal in true
                and (len(options) == 2 or literal > 0)
                and not _several(self.seen[cell])  # the known solutions differ there
                and all(cell <= moved[cell] for moved in self.moves)
            ]
            # Prefer the other value everywhere: each new model then flips all it can.
            if self.took_over is None:  # (CaDiCaL goes its own way: `_take_over`)
                self.solver.set_phases([-literal for _, literal in candidates])
            if self.workers > 1 and len(candidates) >= PARALLEL_CANDIDATES:
                self._flip_in_children(candidates)
            else:
                self._flip_all(candidates)
            self._other_colors()
        except Timeout:
            # Settled: proven backbone, or seen in every color it has (two of two, at least);
            # a cell seen in two of three or more colors waits for _other_colors.
            self.unsettled = [
                cell
                for cell, colors in self.seen.items()
                if cell not in self.proven
                and not (_several(colors) and (self.colors_done or colors == self._all(cell)))
            ]
        return True

    def _all(self, cell: int) -> int:
        """Every color the cell may take (its literals' colors)."""
        return sum(1 << color for color, _ in self.formula.cell_literals[cell])

    def _flip_all(self, candidates: list[tuple[int, int]]) -> None:
        """Settle every candidate: proven backbone, or flipped by some model."""
        chunk = FIRST_CHUNK
        pending = candidates
        while pending:
            if self.heard is not None:  # flipped by another solver meanwhile: settled
                for cell, colors in self.heard():
                    self.seen[cell] |= colors
                pending = [(c, lit) for c, lit in pending if not _several(self.seen[c])]
                if not pending:
                    break
            group, rest = pending[:chunk], pending[chunk:]
            self.next_variable += 1
            switch = self.next_variable
            # switch -> at least one of the group takes another color.
            self.group = [-switch, *(-literal for _, literal in group)]
            self.solver.add_clause(self.group)
            flipped = self._solve([switch])
            if flipped:
                self._record()  # before the next clause voids the model
            self.solver.add_clause([-switch])  # retire the group's clause for good
            self.group = None
            if self.changed is not None:
                self.changed()
            if flipped:
                # flipped by the model or by one of its images: settled
                pending = [(cell, lit) for cell, lit in pending if not _several(self.seen[cell])]
                chunk = max(1, chunk // 2)
                continue
            for _, literal in group:
                self.solver.add_clause([literal])  # a proven backbone literal helps later calls
                self.units.append(literal)
            proven = self._images([cell for cell, _ in group])  # images of backbone: backbone
            self.proven.update(proven)
            if self.tell is not None:
                self.tell(("proven", proven))
            pending = rest
            chunk *= 2

    def _flip_in_children(self, candidates: list[tuple[int, int]]) -> None:
        """`_flip_all` on `workers` forked solvers, each given every workers-th candidate and
        told what the others flip (a cell flipped once is settled for all). Each starts from
        this solver's state as forked: the first model seen, the phases set."""
        from satnono.runtime.child import ChildFinished, ForkedChild, wait_any

        def flip(share: list[tuple[int, int]]) -> Callable[..., None]:
            def run(send: Callable[[Any], None], receive: Callable[..., Any]) -> None:
                def heard() -> list[tuple[int, int]]:
                    pairs: list[tuple[int, int]] = []
                    while True:
                        try:
                            pairs += receive(0)
                        except Timeout:
                            return pairs

                self.tell, self.heard = send, heard
                self.stoppable.deadline = Deadline(None)  # the parent kills it at the deadline
                before = self.calls
                self._flip_all(share)
                send(("calls", self.calls - before))

            return run

        shares = [candidates[start :: self.workers] for start in range(self.workers)]
        children = [ForkedChild(flip(share), "backbone solver", inbox=True) for share in shares]
        try:
            running = list(children)
            while running:
                left = self.deadline.remaining()
                if left is not None and left <= 0:
                    raise Timeout
                for child in wait_any(running, _LOOK if left is None else min(_LOOK, left)):
                    try:
                        kind, items = child.receive(0)
                    except ChildFinished:
                        running.remove(child)
                        continue
                    if kind == "proven":
                        self.proven.update(items)
                        if self.changed is not None:
                            self.changed()
                        continue
                    if kind == "calls":
                        self.calls += items
                        continue
                    for cell, colors in items:
                        self.seen[cell] |= colors
                    if self.changed is not None:
                        self.changed()
                    for other in running:
                        if other is not child:
                            with contextlib.suppress(OSError):  # it has just finished
                                other.post(items)
        finally:
            for child in children:
                child.kill()

    def _other_colors(self) -> None:
        """For ambiguous cells with three or more colors left: every color they can take."""
        for cell, options in self.formula.cell_literals.items():
            if len(options) < 3 or cell in self.proven:
                continue
            for color, literal in options:
                if not self.seen[cell] >> color & 1 and self._solve([literal]):
                    self._record()
        self.colors_done = True


def _several(colors: int) -> bool:
    return bool(colors & (colors - 1))
