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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from satnono.core.model import Grid
from satnono.core.progress import Progress
from satnono.core.symmetry import symmetries
from satnono.encode.cnf import encode_puzzle
from satnono.encode.formula import CnfFormula
from satnono.pipeline.flipping import Flipping
from satnono.pipeline.prepare import Prepared
from satnono.runtime.deadline import Deadline, Timeout
from satnono.runtime.sat_solvers import SatSolver

if TYPE_CHECKING:
    from satnono.logic.jobs import Job

#: Interruptible (so the deadline stops it), and fast on the many small incremental calls.
SOLVER = "glucose42"
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
    take_over: bool = True,
) -> Backbone | None:
    """The backbone from the state line logic left; None when there is no solution.

    Components are independent, so each is settled with its own (smaller) formula. `solver`
    names the PySAT solver (tools/tune_backbone.py compares them); `workers` solvers settle
    a large component at once (default: one per usable core). `known` are solutions found
    before (analyze's first two): they save the first SAT call of every component.
    `progress`, when given, counts the cells settled (phase "backbone"). `seen`: the colors
    each cell takes in solutions listed before (a domain bitmask a cell), settling at once
    the cells they color differently (a count's listing, satnono.pipeline.counting).
    `take_over`: CaDiCaL may take a component over from Glucose (satnono.pipeline.flipping);
    False beside work on another thread of this process, which CaDiCaL's calls hold back.
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
            guess = _guess(formula, prepared, lines) if take_over and solver == SOLVER else None
            settle = Flipping(formula, sat, workers, inner, guess)
            if progress is not None:
                settle.changed = lambda each=settle, before=done: setattr(
                    progress, "settled", before + each.settled()
                )
            try:
                result = settle.run(flat, seen)
            finally:
                calls += settle.calls
                settle.close()
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


def _guess(
    formula: CnfFormula, prepared: Prepared, lines: tuple[int, ...]
) -> Callable[[], list[int]]:
    """Belief propagation's phases for the component's formula, when asked for (a solver
    taking over with no model known: satnono.pipeline.flipping)."""

    def guess() -> list[int]:
        from satnono.backends.guidance import guessed_phases

        return guessed_phases(formula, prepared.residual(lines))

    return guess


def _cells_of(prepared: Prepared, parts: Sequence[tuple[int, ...]]) -> list[int]:
    """The undecided cells of the components `parts` (left unsettled by the deadline)."""
    return [cell for lines in parts for cell in prepared.residual(lines).cells()]
