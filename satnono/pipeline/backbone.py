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
the hardest survey puzzles take seconds to minutes (BENCHMARKS.md, counting section). A large
component is therefore settled by one forked solver per core, each flipping its share of the
candidates and told what the others flip (Sierp on 2026-11-25: 22 s on 2 cores instead of 48
s). Where the clues are the same after a flip or turn of the grid (satnono.core.symmetry),
each model's images are models too, so a cell and its images are settled together (Sierp on
2026-11-28's slower machine: 22 s, against 51 s without).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from satnono.core.model import Grid
from satnono.core.progress import Progress
from satnono.core.symmetry import symmetries
from satnono.encode.cnf import encode_puzzle
from satnono.encode.formula import CnfFormula
from satnono.pipeline.prepare import Prepared
from satnono.runtime.deadline import Deadline, Timeout
from satnono.runtime.sat_solvers import SatSolver

if TYPE_CHECKING:
    from satnono.logic.jobs import Job

#: Interruptible (so the deadline stops it), and fast on the many small incremental calls.
SOLVER = "glucose42"
#: Candidates asked to flip together at first; the group doubles after each proof and
#: halves after each flip, so a backbone cell costs far less than one SAT call.
FIRST_CHUNK = 8
#: Candidates from which a component is settled by several forked solvers (`workers`): fewer
#: settle in a few calls, sooner than solvers are forked and loaded.
PARALLEL_CANDIDATES = 256
#: Seconds between two looks at the deadline while the forked solvers work.
_LOOK = 0.1
#: Seconds the native engine's ambiguity map may take before the SAT solvers take over,
#: unless it is sweeping a component then (`_NativeBudget`): it settles every example and
#: Karate in under 0.1 s (permutations-11x6-color 0.07 s) and Center in 0.14 s (its frame
#: swept band by band, the colors read off the sweep's states), and gets nowhere on the
#: survey's hardest, where the solvers' flipping does; Flag (0.4 s natively, 0.35 s by SAT)
#: pays the budget in full (BENCHMARKS.md, issue 40): 0.5 s doubled its `analyze`.
NATIVE_BUDGET = 0.2


def ambiguity(
    prepared: Prepared,
    deadline: Deadline | None = None,
    known: Sequence[Grid] = (),
    progress: Progress | None = None,
) -> Backbone | None:
    """Every color each cell takes in some solution: by the native engine when it settles
    every cell within NATIVE_BUDGET, else by `backbone` (SAT); None when there is none."""
    from satnono.logic.native import Engine

    deadline = deadline or Deadline(None)
    if progress is not None:
        progress.phase, progress.settled = "backbone", 0
        progress.to_settle = prepared.cells_left
    job = Engine(prepared.puzzle).ambiguity(prepared.domains, deadline)
    job.finish(_NativeBudget(deadline, job))
    solvable, colors, unsettled = job.ambiguity()
    if not solvable:
        return None
    if not unsettled:
        if progress is not None:
            progress.settled = prepared.cells_left
        return Backbone(tuple(colors), True)
    return backbone(prepared, deadline, known=known, progress=progress)


class _NativeBudget(Deadline):
    """The native map's deadline: NATIVE_BUDGET, or later while the engine sweeps a component
    (a narrow one, counted within the memory budget, whose colors come with its sweep; or
    the trial of a wide one, over within a fraction of a second); the caller's at the latest.
    On 80 random thin boards `analyze` took 28.9 s so, against 37.3 s with the solvers
    flipping after 0.2 s (one board slower, 0.50 s against 0.39 s; BENCHMARKS.md, issue 40
    round 16)."""

    __slots__ = ("budget", "job", "outer")

    def __init__(self, outer: Deadline, job: Job) -> None:
        super().__init__(None)
        self.outer = outer
        self.budget = outer.sooner(NATIVE_BUDGET)
        self.job = job

    def remaining(self) -> float | None:
        return self.outer.remaining()

    def expired(self) -> bool:
        if self.outer.expired():
            return True
        return self.budget.expired() and not self.job.progress().get("swept_cells")


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
    workers: int | None = None,
    known: Sequence[Grid] = (),
    progress: Progress | None = None,
    seen: Sequence[int] = (),
) -> Backbone | None:
    """The backbone from the state line logic left; None when there is no solution.

    Components are independent, so each is settled with its own (smaller) formula. `solver`
    names the PySAT solver (tools/tune_backbone.py compares them); `workers` solvers settle
    a large component at once (default: one per usable core). `known` are solutions found
    before (analyze's first two): they save the first SAT call of every component.
    `progress`, when given, counts the cells settled (phase "backbone"). `seen`: the colors
    each cell takes in solutions listed before (a domain bitmask a cell), settling at once
    the cells they color differently (a count's listing, satnono.pipeline.counting).
    """
    from satnono.backends import usable_cores
    from satnono.runtime.child import can_fork

    deadline = deadline or Deadline(None)
    workers = (usable_cores() if can_fork() else 1) if workers is None else workers
    geometry, domains = prepared.geometry, prepared.domains
    colors = list(domains)
    # What each cell takes in the solutions found so far: nothing yet for residual cells.
    for cell, domain in enumerate(domains):
        if domain & (domain - 1):
            colors[cell] = 0
    unsettled: list[int] = []
    calls = 0
    flat = [[color for row in grid for color in row] for grid in known]
    parts = prepared.parts()
    done = 0  # cells of the components settled before this one
    # Where each cell goes under each symmetry of the clues: what a solution shows, its
    # images show too, so a cell and its images are settled together.
    moves = list(symmetries(prepared.puzzle).values())
    exact: set[int] = set()  # cells of components settled to the end
    if progress is not None:
        progress.phase, progress.settled = "backbone", 0
        progress.to_settle = sum(1 for domain in domains if domain & (domain - 1))
    for number, lines in enumerate(parts):
        # The formula made and loaded within the deadline: a wide residual's takes seconds
        # (a random 300x300: 16 million clauses, 1.5 s to make, 33 s to load into Glucose).
        try:
            if deadline.expired():
                raise Timeout
            formula = encode_puzzle(geometry, domains, lines, deadline=deadline)
        except Timeout:
            unsettled += _cells_of(prepared, parts[number:])
            break
        cells = formula.cell_literals.keys()
        image = next((m for m in moves if all(m[cell] in exact for cell in cells)), None)
        if image is not None:  # an image of a component settled before: its colors, moved
            for cell in cells:
                colors[cell] = colors[image[cell]]
            exact.update(cells)
            done += len(cells)
            continue
        inner = [m for m in moves if all(m[cell] in cells for cell in cells)]
        try:
            sat = SatSolver(solver, deadline, formula.clauses)
        except Timeout:
            unsettled += _cells_of(prepared, parts[number:])
            break
        with sat:
            settle = _Settle(formula, sat, workers, inner)
            if progress is not None:
                settle.changed = lambda each=settle, before=done: setattr(
                    progress, "settled", before + each.settled()
                )
            try:
                result = settle.run(flat, seen)
            finally:
                calls += settle.calls
        if result is None:
            return None
        for cell, taken in settle.seen.items():
            colors[cell] = taken
        unsettled += settle.unsettled
        if not settle.unsettled:
            exact.update(cells)
        done += len(settle.seen) - len(settle.unsettled)
        if progress is not None:
            progress.settled = done
    for cell in unsettled:
        colors[cell] |= domains[cell]  # not settled: every color it might still take
    return Backbone(tuple(colors), not unsettled, tuple(sorted(unsettled)), calls)


def _cells_of(prepared: Prepared, parts: Sequence[tuple[int, ...]]) -> list[int]:
    """The undecided cells of the components `parts` (left unsettled by the deadline)."""
    return [cell for lines in parts for cell in prepared.residual(lines).cells()]


class _Settle:
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
    ) -> None:
        self.formula = formula
        self.moves = moves
        self.deadline = sat.deadline
        # A solver that cannot be interrupted mid-call is stopped between calls only.
        self.stoppable = sat
        self.solver = sat.solver
        self.solver_name = sat.name
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

    def settled(self) -> int:
        """Cells settled so far: proven backbone, or seen in two colors."""
        return sum(1 for cell, seen in self.seen.items() if cell in self.proven or _several(seen))

    def _solve(self, assumptions: list[int]) -> bool:
        self.calls += 1
        result = self.stoppable.solve(assumptions)
        if result is None:
            raise Timeout
        return result

    def _record(self) -> set[int]:
        """Mark the current model's colors (and its images') as seen; return its true
        literals."""
        true = set(self.solver.get_model())
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
            self.solver.add_clause([-switch, *(-literal for _, literal in group)])
            flipped = self._solve([switch])
            if flipped:
                self._record()  # before the next clause voids the model
            self.solver.add_clause([-switch])  # retire the group's clause for good
            if self.changed is not None:
                self.changed()
            if flipped:
                # flipped by the model or by one of its images: settled
                pending = [(cell, lit) for cell, lit in pending if not _several(self.seen[cell])]
                chunk = max(1, chunk // 2)
                continue
            for _, literal in group:
                self.solver.add_clause([literal])  # a proven backbone literal helps later calls
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
