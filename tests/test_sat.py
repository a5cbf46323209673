"""The SAT backend against brute force, and the encoding's promise: unit propagation on the
CNF deduces exactly what line propagation deduces."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver

from satnono.backends import SearchOptions, models
from satnono.backends import sat as sat_backend
from satnono.backends.models import ALL_TRUE
from satnono.core.grids import domains_to_grid, initial_domains
from satnono.core.model import Puzzle
from satnono.core.verify import problems
from satnono.encode.cnf import encode_puzzle
from satnono.formats import read_puzzle
from satnono.formats.generate import puzzle_from_grid
from satnono.pipeline.prepare import prepare
from satnono.pipeline.solutions import solve
from satnono.reference.propagate import Propagator
from satnono.runtime.deadline import Deadline
from satnono.runtime.solver_kinds import NO_PROPAGATE, available_solvers
from support import (
    EXAMPLES,
    PALETTES,
    assume_a_few_cells,
    backend_solutions,
    brute_force_solutions,
    grids,
    long_listing,
    puzzles,
)


@settings(max_examples=150, deadline=None)
@given(puzzles(max_width=5, max_height=5, max_colors=3))
def test_sat_counts_match_brute_force(puzzle: Puzzle) -> None:
    expected = brute_force_solutions(puzzle)
    result = solve(puzzle, limit=0)
    assert result.complete
    assert result.solutions_found == len(expected)
    assert set(result.grids) == expected
    if not expected:
        assert result.status == "unsolvable" and result.reason


@pytest.mark.parametrize(
    ("head_start", "second_core", "early"),
    [(models.RIVAL_HEAD_START, True, False), (0, True, False), (0, False, False), (0, True, True)],
)
@settings(max_examples=100, deadline=None)
@given(puzzles(max_width=5, max_height=5, max_colors=3))
def test_native_search_then_cdcl_finds_exactly_the_solutions(
    head_start: int, second_core: bool, early: bool, puzzle: Puzzle
) -> None:
    """The default path with no native search budget: root probing, then CDCL on what it
    leaves, with probing's implications and belief propagation's phases; no solution twice.
    With no head start, Glucose races CaDiCaL from the first conflict: on a core of its own
    (a forked child: its answer is the first, CaDiCaL goes on from there), or taking turns
    with it on one core (whichever answers first enumerates the rest). `early`: the
    finisher's child, decimating first, starts with the head start (models._early)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sat_backend, "SEARCH_WORK", 0)
        patch.setattr(sat_backend, "SMALL_SEARCH_WORK", 0)
        patch.setattr(models, "RIVAL_HEAD_START", head_start)
        patch.setattr(models, "_second_core", lambda: second_core)
        patch.setattr(models, "_early", lambda cells: early)
        found, report = backend_solutions("sat", puzzle)
    assert report.exhausted
    assert len(found) == len(set(found)) and set(found) == brute_force_solutions(puzzle)


@settings(max_examples=60, deadline=None)
@given(grids(max_width=7, max_height=7, max_colors=4))
def test_the_picture_is_among_the_solutions(case: tuple) -> None:
    grid, colors = case
    puzzle = puzzle_from_grid(grid, PALETTES[colors])
    result = solve(puzzle, limit=0)
    assert grid in result.grids


@settings(max_examples=60, deadline=None)
@given(grids(max_width=6, max_height=6, max_colors=3), st.data())
def test_unit_propagation_equals_line_propagation(case: tuple, data: st.DataObject) -> None:
    grid, colors = case
    puzzle = puzzle_from_grid(grid, PALETTES[colors])
    propagator = Propagator(puzzle)
    domains = initial_domains(puzzle)
    propagator.propagate(domains)
    formula = encode_puzzle(propagator, domains, encoding="automaton")
    if not formula.cell_literals:
        return
    assumptions, line_result = assume_a_few_cells(data, formula, propagator, domains)
    with Solver(name="minisat22", bootstrap_with=formula.clauses) as solver:
        ok, implied = solver.propagate(assumptions=assumptions)
    if line_result is None:
        assert not ok
        return
    assert ok
    true = set(implied) | set(assumptions)
    for cell, options in formula.cell_literals.items():
        possible = 0
        for color, literal in options:
            if -literal not in true:
                possible |= 1 << color
        assert possible == line_result[cell], f"cell {cell}"


def test_every_pysat_solver_name_is_accepted() -> None:
    from satnono.runtime.solver_kinds import solver_names

    names = solver_names()
    assert names["cadical195"] == "cadical195"
    assert names["g42"] == "glucose42"


def test_solvers_agree_on_a_small_ambiguous_puzzle() -> None:
    # A 2x2 diagonal: two solutions.
    puzzle = puzzle_from_grid(((1, 0), (0, 1)))
    for name in ("glucose42", "cadical195", "minisat22", "kissat404"):
        result = solve(puzzle, limit=0, options=SearchOptions(solver=name), timeout=30)
        assert result.solutions_found == 2 and result.complete, name


def test_an_expired_deadline_is_a_timeout_for_every_kind_of_solver() -> None:
    # Line logic cannot finish this one, so the search must start, and must stop at once.
    puzzle = puzzle_from_grid(((1, 0), (0, 1)))
    for name in ("cadical195", "glucose42"):  # killed in a child / interrupted in process
        result = solve(puzzle, timeout=0, options=SearchOptions(solver=name))
        assert result.status == "timeout" and result.solutions_found == 0, name


@settings(max_examples=40, deadline=None)
@given(puzzles(max_width=5, max_height=5, max_colors=3), st.sampled_from([1, 7, ALL_TRUE]))
def test_phase_seeds_change_the_path_not_the_answer(puzzle: Puzzle, seed: int) -> None:
    expected = brute_force_solutions(puzzle)
    for name in ("glucose3", "minisat22"):
        options = SearchOptions(solver=name, seed=seed, encoding="blocks")
        result = solve(puzzle, backend="sat", limit=0, options=options)
        assert result.complete and set(result.grids) == expected


@pytest.mark.parametrize("solver", [*sorted(NO_PROPAGATE & set(available_solvers())), "glucose3"])
def test_every_solver_enumerates_past_the_blocking_phase(solver: str) -> None:
    # Lingeling and CaDiCaL 1.0.3 have no propagate(): enumeration beyond the blocking phase
    # (64) crashed with "Simple literal propagation is not yet implemented" (issue 23).
    puzzle = read_puzzle(EXAMPLES / "switches-8.non")
    result = solve(puzzle, limit=0, options=SearchOptions(solver=solver))
    assert (result.status, result.solutions_found, result.complete) == ("multiple", 256, True)
    assert len(set(result.grids)) == 256


def test_implied_clauses_do_not_count_as_solutions_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: probing's implications were handed over as blocking clauses, so with more
    than BLOCKING_PHASE of them enumeration believed it had found that many solutions and
    went straight to its splitting walk (Marley's first solution in 0.55 s instead of 0.05)."""
    puzzle = read_puzzle(EXAMPLES / "switches-8.non")
    domains = initial_domains(puzzle)
    propagator = Propagator(puzzle)
    propagator.propagate(domains)
    formula = encode_puzzle(propagator, domains)
    implied = [[1]] * (models.BLOCKING_PHASE + 10)  # true clauses, many of them

    def no_splitting(*_: object) -> object:
        raise AssertionError("the splitting walk started before BLOCKING_PHASE solutions")

    monkeypatch.setattr(models, "_enumerate_by_splitting", no_splitting)
    items = list(
        zip(range(3), models.enumerate_models(formula, "glucose3", Deadline(None),
                                             implied=implied), strict=False)
    )  # fmt: skip
    assert [isinstance(item, list) for _, item in items] == [True] * 3


def test_the_solver_named_is_the_one_that_answered_each_solution(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Regression: once a race's child had answered, `solver` named it to the end, though from
    the splitting walk on (solves under assumptions) this process's CaDiCaL answers."""
    from satnono.runtime.sat_solvers import SatSolver

    puzzle = read_puzzle(EXAMPLES / "switches-8.non")
    domains = initial_domains(puzzle)
    propagator = Propagator(puzzle)
    propagator.propagate(domains)
    formula = encode_puzzle(propagator, domains)
    solve_for = SatSolver.solve_for

    def no_head_start(
        self: SatSolver, seconds: float, conflicts: int | None = None, **rest: Any
    ) -> object:  # the head start ends without an answer: on to the children
        return None if conflicts is not None else solve_for(self, seconds, **rest)

    monkeypatch.setattr(SatSolver, "solve_for", no_head_start)
    monkeypatch.setattr(models, "_second_core", lambda: False)
    items = list(models.enumerate_models(formula, "cadical195", Deadline(60), rival="glucose3"))
    named = [item[1] for item in items if isinstance(item, tuple)]
    assert named == ["cadical195-stable", "cadical195-stable+cadical195"]
    solutions = [tuple(item) for item in items if isinstance(item, list)]
    assert len(solutions) == len(set(solutions)) == 256 and items[-1] == "exhausted"


def test_the_rival_races_on_a_core_of_its_own_only_when_two_are_idle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On busy cores a rival in a child would only take time from CaDiCaL, whose slices must
    keep the deadline: it takes turns then, as on one core."""
    import os

    import satnono.backends as backends

    idle = backends.idle_cores(0.02)
    assert idle is None or 0 <= idle <= (os.cpu_count() or 1)
    monkeypatch.setattr(backends, "usable_cores", lambda: 2)
    for measured, parallel in ((2.0, True), (1.6, True), (1.2, False), (0.0, False), (None, True)):
        monkeypatch.setattr(backends, "idle_cores", lambda measured=measured: measured)
        assert models._second_core() is parallel
    monkeypatch.setattr(backends, "usable_cores", lambda: 1)
    assert models._second_core() is False


@pytest.mark.parametrize(("small", "quick"), [(1_024, None), (0, sat_backend.QUICK_CONFLICTS)])
def test_a_small_probed_residual_keeps_the_probed_options_past_the_quick_try(
    monkeypatch: pytest.MonkeyPatch, small: int, quick: int | None
) -> None:
    """A probed residual of at most SMALL_RESIDUAL undecided cells keeps PROBED_OPTIONS all
    along (no quick try that gives way to the defaults); a larger one has QUICK_CONFLICTS."""
    given: list[Any] = []
    enumerate_models = sat_backend.enumerate_models

    def spied(*args: Any) -> Any:
        given.append(args[8:10])  # the options and the quick try's conflicts
        return enumerate_models(*args)

    monkeypatch.setattr(sat_backend, "enumerate_models", spied)
    monkeypatch.setattr(sat_backend, "SEARCH_WORK", 0)  # straight past the native search
    monkeypatch.setattr(sat_backend, "SMALL_SEARCH_WORK", 0)
    monkeypatch.setattr(sat_backend, "SMALL_RESIDUAL", small)
    puzzle = read_puzzle(EXAMPLES / "switches-8.non")  # 16 undecided cells
    assert len(solve(puzzle, backend="sat", limit=3).grids) == 3
    assert given == [(sat_backend.PROBED_OPTIONS, quick)]


@pytest.mark.parametrize("small", [1_024, 0])
def test_a_small_residual_gets_the_native_search_s_small_budget(
    monkeypatch: pytest.MonkeyPatch, small: int
) -> None:
    """The native search's budget is SMALL_SEARCH_WORK on a residual of at most
    SMALL_RESIDUAL cells (CaDiCaL takes such residuals on cheaply), SEARCH_WORK on others."""
    from satnono.logic.native import Engine

    budgets: list[int | None] = []
    search = Engine.search

    def spied(self: Engine, *args: Any, **options: Any) -> Any:
        budgets.append(options.get("budget"))
        return search(self, *args, **options)

    monkeypatch.setattr(Engine, "search", spied)
    monkeypatch.setattr(sat_backend, "SMALL_RESIDUAL", small)
    puzzle = read_puzzle(EXAMPLES / "switches-8.non")
    assert len(solve(puzzle, backend="sat", limit=3).grids) == 3
    work = sat_backend.SMALL_SEARCH_WORK if small else sat_backend.SEARCH_WORK
    assert budgets == [work // puzzle.line_count]


def test_the_race_past_the_head_start_guesses_by_decimation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The probed residual's race is given decimation as its guess: phases of a grid that
    fits, from which CaDiCaL finds that grid as its model in no conflicts."""
    made: list[Any] = []
    decimation = sat_backend._decimation

    def spied(formula: Any, residual: Any, *rest: Any) -> Any:
        made.append((formula, residual, decimation(formula, residual, *rest)))
        return made[-1][2]

    monkeypatch.setattr(sat_backend, "_decimation", spied)
    monkeypatch.setattr(sat_backend, "SEARCH_WORK", 0)  # straight past the native search
    monkeypatch.setattr(sat_backend, "SMALL_SEARCH_WORK", 0)
    puzzle = long_listing()
    assert len(solve(puzzle, backend="sat", limit=2).grids) == 2
    ((formula, residual, (label, guess)),) = made
    assert label == sat_backend.DECIMATION
    phases = guess()
    assert phases is not None
    assert_found_without_a_conflict(puzzle, formula, residual, phases)


def test_a_large_residual_s_race_guesses_beside_the_head_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The race's guess starts with CaDiCaL on a residual of EARLY_CELLS open cells or more
    where two cores may be used, and after its head start otherwise (a tournament's probed
    25x25 residuals never fork a child they would not use)."""
    from satnono import backends

    monkeypatch.setattr(backends, "usable_cores", lambda: 2)
    assert models._early(models.EARLY_CELLS) and not models._early(models.EARLY_CELLS - 1)
    assert not models._early(625)
    monkeypatch.setattr(backends, "usable_cores", lambda: 1)
    assert not models._early(10 * models.EARLY_CELLS)


def test_whether_to_guess_early_is_asked_of_the_open_cells_not_their_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Regression: `_early` was given the residual's cell variables, up to one per color of
    a cell in a color puzzle (here 21 for 19 open cells), so a color residual could fork the
    early child with fewer than EARLY_CELLS open cells."""
    import random

    from satnono.formats.generate import random_grid

    asked: list[int] = []
    formulas: list[Any] = []
    decimation = sat_backend._decimation

    def spied(formula: Any, *rest: Any) -> Any:
        formulas.append(formula)
        return decimation(formula, *rest)

    def early(cells: int) -> bool:
        asked.append(cells)
        return False

    monkeypatch.setattr(sat_backend, "_decimation", spied)
    monkeypatch.setattr(models, "_early", early)
    monkeypatch.setattr(sat_backend, "SEARCH_WORK", 0)
    monkeypatch.setattr(sat_backend, "SMALL_SEARCH_WORK", 0)
    puzzle = puzzle_from_grid(random_grid(20, 20, 3, 0.5, random.Random(43)), PALETTES[3])
    assert solve(puzzle, backend="sat", limit=2).grids
    ((formula,),) = [formulas]
    assert asked == [len(formula.cell_literals)]
    assert len(formula.cell_variables()) > len(formula.cell_literals)


@pytest.mark.parametrize("colors", [2, 3, 4])
def test_decimation_s_grid_as_phases_is_a_model_found_without_a_conflict(colors: int) -> None:
    """The phases made of decimation's grid (its cells' colors and its blocks' starts, blocks
    of different colors side by side included) are a whole model of the residual's blocks CNF:
    CaDiCaL given them finds that grid in no conflicts, and it fits the clues."""
    import random

    from satnono.backends.guidance import decimated_phases
    from satnono.formats.generate import random_grid

    puzzle = puzzle_from_grid(
        random_grid(20, 20, colors, 0.5, random.Random(40 + colors)), PALETTES[colors]
    )
    prepared = prepare(puzzle)
    residual = prepared.residual()
    assert residual.unknown > 0
    formula = encode_puzzle(residual.geometry, residual.domains, residual.lines)
    phases = decimated_phases(formula, residual, Deadline(30))
    assert phases is not None
    assert_found_without_a_conflict(puzzle, formula, residual, phases)


def assert_found_without_a_conflict(
    puzzle: Puzzle, formula: Any, residual: Any, phases: list[int]
) -> None:
    """CaDiCaL given `phases` finds a model of `formula` in no conflicts, and it fits."""
    with Solver("cadical195", bootstrap_with=formula.clauses) as cadical:
        cadical.set_phases(phases)
        assert cadical.solve() is True and cadical.accum_stats()["conflicts"] == 0
        model = cadical.get_model()
        decided = formula.decode([model[v - 1] for v in formula.cell_variables()], residual.domains)
    assert problems(puzzle, domains_to_grid(puzzle, decided)) == []


def test_a_solver_s_options_are_set_before_its_clauses_are_loaded() -> None:
    """CaDiCaL takes options only before anything is loaded (else it aborts the process): the
    adapter sets them first, then loads the clauses it was given. Restarts off shows in its
    statistics."""
    from pysat.examples.genhard import PHP

    from satnono.runtime.sat_solvers import SatSolver

    restarts = []
    for options in ((), sat_backend.PROBED_OPTIONS):
        with SatSolver("cadical195", Deadline(30), PHP(6).clauses, options=options) as solver:
            assert solver.solve() is False
            restarts.append(solver.solver.accum_stats()["restarts"])
    assert restarts[0] > 0 and restarts[1] == 0


def test_the_probed_residual_goes_to_cadical_with_the_probed_options(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The probed residual's CaDiCaL starts with a quick try that keeps to belief
    propagation's phases (PROBED_OPTIONS: no restarts, no chronological backtracking); a
    solver named for comparison keeps its defaults."""
    from satnono.runtime.sat_solvers import SatSolver

    given: list[tuple[str, tuple[tuple[str, int], ...]]] = []
    made = SatSolver.__init__

    def spied(self: SatSolver, name: str, *args: Any, **rest: Any) -> None:
        given.append((name, tuple(rest.get("options", ()))))
        made(self, name, *args, **rest)

    monkeypatch.setattr(SatSolver, "__init__", spied)
    monkeypatch.setattr(sat_backend, "SEARCH_WORK", 0)  # straight past the native search
    monkeypatch.setattr(sat_backend, "SMALL_SEARCH_WORK", 0)
    puzzle = read_puzzle(EXAMPLES / "switches-8.non")
    assert len(solve(puzzle, backend="sat", limit=3).grids) == 3
    assert given == [("cadical195", sat_backend.PROBED_OPTIONS)]
    given.clear()
    named = SearchOptions(solver="glucose3")
    assert len(solve(puzzle, backend="sat", limit=3, options=named).grids) == 3
    assert given == [("glucose3", ())]


@pytest.mark.parametrize("limit", [0, 2, 3])
def test_the_collector_is_off_through_a_hand_over_only_for_a_solve(
    monkeypatch: pytest.MonkeyPatch, limit: int
) -> None:
    """A hand-over asked for at most PAUSED_THROUGH solutions keeps Python's collector off
    through its solving, so that no collection walks the formula's lists; one asked for more
    (a stream, whose consumer's code runs between solutions) has it on whenever it calls
    back; and either way it is on again afterwards."""
    import gc

    from satnono.backends import SearchTask
    from satnono.pipeline.prepare import prepare

    monkeypatch.setattr(sat_backend, "SEARCH_WORK", 0)  # straight past the native search
    monkeypatch.setattr(sat_backend, "SMALL_SEARCH_WORK", 0)
    residual = prepare(read_puzzle(EXAMPLES / "switches-8.non")).residual()
    collecting: list[bool] = []

    def take(decided: list[int]) -> bool:
        collecting.append(gc.isenabled())
        return limit == 0 or len(collecting) < limit

    assert gc.isenabled()
    options = SearchOptions(limit=limit)
    sat_backend.BACKEND.search(SearchTask(residual, options, Deadline(30), take))
    assert gc.isenabled()
    assert len(collecting) == (limit or 256)
    assert set(collecting) == {limit > sat_backend.PAUSED_THROUGH or limit == 0}
