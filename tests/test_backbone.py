"""The backbone against brute force: every cell that differs between solutions, no other.

`analyze` tells an author which cells are ambiguous; a missing cell hides a flaw, an extra
one sends them to fix a cell that is fine, so both directions are checked exactly.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import satnono.pipeline.backbone
import satnono.pipeline.flipping
from satnono.core.model import Puzzle
from satnono.formats import read_puzzle
from satnono.formats.generate import puzzle_from_grid, random_grid, switch_board
from satnono.pipeline.backbone import backbone
from satnono.pipeline.prepare import prepare
from satnono.runtime.deadline import Deadline
from satnono.runtime.sat_solvers import SatSolver
from support import (
    EXAMPLES,
    SHARED,
    brute_force_colors,
    brute_force_solutions,
    children,
    puzzles,
    thin_20020,
)


def _backbone(
    puzzle: Puzzle, deadline: Deadline | None = None
) -> satnono.pipeline.backbone.Backbone | None:
    prepared = prepare(puzzle)
    if prepared.reason is not None:
        return None
    return backbone(prepared, deadline)


@settings(max_examples=130, deadline=None)
@given(
    puzzles(max_width=5, max_height=5, max_colors=2)
    | puzzles(max_width=4, max_height=4, max_colors=4)
)
def test_the_backbone_lists_every_color_of_every_cell(puzzle: Puzzle) -> None:
    """Black and white up to 5x5, color up to 4x4: exactly the colors the solutions use."""
    union = brute_force_colors(puzzle)
    found = _backbone(puzzle)
    if union is None:
        assert found is None or not found.colors  # no solution: nothing to settle
        return
    assert found is not None and found.exact
    assert list(found.colors) == union


def test_every_switch_of_a_switch_board_is_ambiguous() -> None:
    board = puzzle_from_grid(switch_board(4, 6))
    found = _backbone(board)
    assert found is not None and found.exact
    switches = {cell for cell, colors in enumerate(found.colors) if colors == 0b11}
    assert len(switches) == 4 * 24 and found.backbone == board.width * board.height - 96
    assert children() == []


def test_a_deadline_leaves_only_proven_answers() -> None:
    squares = read_puzzle(EXAMPLES / "permutations-11x6-color.non")
    found = _backbone(squares, Deadline(0))
    assert found is not None and not found.exact
    assert found.unsettled  # nothing was settled...
    exact = _backbone(squares)
    assert exact is not None and exact.exact
    # ...and what was reported is consistent with the exact answer.
    for cell, colors in enumerate(found.colors):
        assert exact.colors[cell] & ~colors == 0


def test_a_deadline_passed_while_the_formula_is_made_or_loaded_leaves_it_unsettled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A wide residual's formula takes seconds to make and to load (a random 300x300's 16
    million clauses, 33 s into Glucose): both keep the deadline, and the backbone then reports
    the component unsettled instead of raising (a sample's backbone overran by 2.5 s)."""
    board = puzzle_from_grid(switch_board(2, 3))
    prepared = prepare(board)
    for place in ("encode_puzzle", "SatSolver"):

        def late(*_: object, **__: object) -> None:
            raise satnono.pipeline.backbone.Timeout

        monkeypatch.setattr(satnono.pipeline.backbone, place, late)
        found = backbone(prepared, workers=1)
        monkeypatch.undo()
        assert found is not None and not found.exact, place
        assert set(found.unsettled) == set(prepared.residual().cells()), place


def test_cells_flipped_before_the_deadline_stay_settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """A deadline (or Ctrl-C) keeps the cells already seen in both colors as ambiguous: an
    interrupted analyze of Sierp reported 349 settled cells after its progress showed 531."""
    board = puzzle_from_grid(switch_board(4, 6))
    calls = 0
    solve = satnono.pipeline.flipping.Flipping._solve

    def three_then_stop(self: satnono.pipeline.flipping.Flipping, assumptions: list[int]) -> bool:
        nonlocal calls
        calls += 1
        if calls > 3:
            raise satnono.pipeline.backbone.Timeout
        return solve(self, assumptions)

    monkeypatch.setattr(satnono.pipeline.flipping.Flipping, "_solve", three_then_stop)
    # the board is the same every way, and its images settle it in one call: not used here
    monkeypatch.setattr(satnono.pipeline.backbone, "symmetries", lambda puzzle: {})
    found = backbone(prepare(board), workers=1)
    assert found is not None and not found.exact
    unsettled = set(found.unsettled)
    flipped = {cell for cell in found.ambiguous if cell not in unsettled}
    monkeypatch.undo()
    exact = _backbone(board)
    assert exact is not None and flipped and flipped <= set(exact.ambiguous)


@settings(max_examples=40, deadline=None)
@given(puzzles(max_width=5, max_height=5, max_colors=3))
def test_forked_solvers_settle_the_same_backbone(puzzle: Puzzle) -> None:
    """Several solvers at once (each given a share of the candidates and told what the
    others flip) give brute force's answer too; none of them outlives the call."""
    union = brute_force_colors(puzzle)
    prepared = prepare(puzzle)
    if union is None or prepared.reason is not None:
        return
    threshold = satnono.pipeline.flipping.PARALLEL_CANDIDATES
    satnono.pipeline.flipping.PARALLEL_CANDIDATES = (
        1  # hypothesis: no monkeypatch fixture per example
    )
    try:
        found = backbone(prepared, workers=3)
    finally:
        satnono.pipeline.flipping.PARALLEL_CANDIDATES = threshold
    assert found is not None and found.exact and list(found.colors) == union
    assert children() == []


def test_forked_solvers_stop_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(satnono.pipeline.flipping, "PARALLEL_CANDIDATES", 1)
    board = puzzle_from_grid(switch_board(6, 8))
    started = time.monotonic()
    found = backbone(prepare(board), Deadline(0.05), workers=2)
    assert time.monotonic() - started < 2
    assert found is not None and children() == []
    exact = _backbone(board)
    assert exact is not None
    for cell, colors in enumerate(found.colors):  # what it says is true
        assert exact.colors[cell] & ~colors == 0


@settings(max_examples=60, deadline=None)
@given(puzzles(max_width=5, max_height=5, max_colors=3))
def test_known_solutions_stand_for_the_first_model(puzzle: Puzzle) -> None:
    """analyze hands over the two solutions it found: the same backbone, one call fewer."""
    solutions = sorted(brute_force_solutions(puzzle))
    prepared = prepare(puzzle)
    if not solutions or prepared.reason is not None:
        return
    union = brute_force_colors(puzzle)
    for known in (solutions[:1], solutions[-2:]):
        found = backbone(prepare(puzzle), known=known)
        assert found is not None and found.exact and list(found.colors) == union


def test_a_thin_boards_map_comes_from_its_sweep_past_the_native_budget() -> None:
    # thin-20020 (6 x 137, 1.9 x 10^21 solutions): the engine sweeps it in 0.4 s (both ways),
    # past NATIVE_BUDGET, where the SAT solvers' flipping took 1.1 s; once the native map is
    # sweeping it goes on. The same cells either way.
    prepared = prepare(thin_20020())
    native = satnono.pipeline.backbone.ambiguity(prepared, Deadline(60))
    assert native is not None and native.exact
    assert native.sat_calls == 0  # the engine's map, not the solvers'
    flipped = backbone(prepared, Deadline(60))
    assert flipped is not None and flipped.sat_calls > 0
    assert native.colors == flipped.colors


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/puzzles is absent")
def test_past_its_budget_the_native_map_stops_unless_it_sweeps() -> None:
    # Sierp's residual is one wide component: the engine's map does not sweep it and gets
    # nowhere, so the solvers take over at NATIVE_BUDGET (a deadline of 1 s leaves them most).
    puzzle = read_puzzle(SHARED / "webpbn-survey" / "12548-sierp.non")
    prepared = prepare(puzzle)
    started = time.perf_counter()
    found = satnono.pipeline.backbone.ambiguity(prepared, Deadline(1.0))
    assert time.perf_counter() - started < 2.0
    assert found is not None and not found.exact and found.sat_calls > 0


@settings(max_examples=60, deadline=None)
@given(
    puzzles(max_width=5, max_height=5, max_colors=3),
    st.booleans(),
    st.sampled_from([1, 3]),
    st.integers(1, 4),
)
def test_cadical_taking_over_settles_the_same_backbone(
    puzzle: Puzzle, known: bool, workers: int, over: int
) -> None:
    """A Glucose call past TAKE_OVER_AFTER conflicts hands the component to CaDiCaL, which
    settles the rest from what was proven and asked so far: here at the `over`th call, from
    a model or from known solutions' cells, in this process or in forked solvers."""
    union = brute_force_colors(puzzle)
    prepared = prepare(puzzle)
    if union is None or prepared.reason is not None:
        return
    solutions = sorted(brute_force_solutions(puzzle))[:2] if known else []
    flipping = satnono.pipeline.flipping
    within, threshold = SatSolver.solve_within, flipping.PARALLEL_CANDIDATES
    calls = 0

    def past_its_budget_once(
        self: SatSolver,
        conflicts: int,
        assumptions: Sequence[int] = (),
        propagations: int | None = None,
    ) -> bool | None:
        nonlocal calls
        calls += 1
        return None if calls == over else within(self, conflicts, assumptions, propagations)

    SatSolver.solve_within = past_its_budget_once  # type: ignore[method-assign]
    flipping.PARALLEL_CANDIDATES = 1  # no monkeypatch fixture per example
    try:
        found = backbone(prepared, workers=workers, known=solutions)
    finally:
        SatSolver.solve_within = within  # type: ignore[method-assign]
        flipping.PARALLEL_CANDIDATES = threshold
    assert found is not None and found.exact and list(found.colors) == union
    assert children() == []


@pytest.mark.parametrize("budget", ["TAKE_OVER_AFTER", "TAKE_OVER_PROPAGATIONS"])
def test_a_glucose_call_past_its_conflicts_gives_the_component_to_cadical(
    monkeypatch: pytest.MonkeyPatch, budget: str
) -> None:
    """Glucose found no model of Faase's residual in 60 s (nor Knotty's); CaDiCaL did in
    10 s. Past its budget, of conflicts or of propagations, Glucose gives way, and the answer
    is the one it would have given."""
    taken: list[str] = []
    take_over = satnono.pipeline.flipping.Flipping._take_over

    def counted(self: satnono.pipeline.flipping.Flipping) -> None:
        take_over(self)
        assert self.took_over is not None
        taken.append(self.took_over.name)

    puzzle = puzzle_from_grid(random_grid(30, 30, 2, 0.5, random.Random(2)))
    exact = _backbone(puzzle)
    monkeypatch.setattr(satnono.pipeline.flipping, budget, 1)
    monkeypatch.setattr(satnono.pipeline.flipping.Flipping, "_take_over", counted)
    found = backbone(prepare(puzzle), workers=1)
    assert taken == [satnono.pipeline.flipping.TAKE_OVER]
    assert exact is not None and found is not None and found.exact
    assert found.colors == exact.colors


def test_a_solver_stops_at_its_conflict_budget() -> None:
    """`solve_within` answers None once its conflicts are spent, and leaves no budget
    behind: the pigeons of PHP(7) need thousands of conflicts to be proven unplaceable."""
    from pysat.examples.genhard import PHP

    for name in ("glucose42", "cadical195"):
        with SatSolver(name, Deadline(60), PHP(7).clauses) as sat:
            assert sat.solve_within(100) is None, name
            assert sat.conflicts() < 2_000, name
            assert sat.solve() is False, name


def test_glucose_stops_at_its_propagation_budget() -> None:
    """`solve_within` with `propagations` answers None once they are spent, whatever conflicts
    are left, and leaves no budget behind."""
    from pysat.examples.genhard import PHP

    with SatSolver("glucose42", Deadline(60), PHP(7).clauses) as sat:
        assert sat.solve_within(10**9, propagations=1_000) is None
        assert sat.solver.accum_stats()["propagations"] < 20_000
        assert sat.solve() is False
