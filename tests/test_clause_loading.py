"""The engine's clauses (`satnono.logic.native.Clauses`) read as lists, and loaded into CaDiCaL
by the engine itself (satnono.runtime.clause_loading): the same formula as PySAT's own
loading, chunk by chunk, under a deadline, and by the lists' way for the other solvers."""

from __future__ import annotations

import pickle
import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver

from satnono.encode.cnf import encode_puzzle
from satnono.encode.formula import CnfFormula
from satnono.formats.generate import puzzle_from_grid
from satnono.logic.native import Clauses
from satnono.pipeline.prepare import prepare
from satnono.runtime import clause_loading
from satnono.runtime.clause_loading import _cadical_addresses, add_clauses
from satnono.runtime.deadline import Deadline, Timeout
from support import PALETTES


def _residual_formulas(count: int, size: int = 14) -> list[CnfFormula]:
    """The blocks CNF (the engine's) of the residuals of seeded random black-and-white grids
    that line logic leaves unfinished."""
    formulas = []
    rng = random.Random(11)
    while len(formulas) < count:
        grid = tuple(tuple(int(rng.random() < 0.55) for _ in range(size)) for _ in range(size))
        prepared = prepare(puzzle_from_grid(grid, PALETTES[2], keep_goal=False))
        if prepared.cells_left:
            residual = prepared.residual()
            formulas.append(encode_puzzle(residual.geometry, residual.domains, residual.lines))
    return formulas


def test_engine_clauses_read_as_the_lists_they_stand_for() -> None:
    lists = [[1], [-2, 3], [], [4, -5, 6], [-7]]
    clauses = Clauses(lists)
    assert isinstance(clauses, Sequence)
    assert len(clauses) == 5 and list(clauses) == lists and clauses == lists
    assert clauses[1] == [-2, 3] and clauses[2] == [] and clauses[-1] == [-7]
    for part in (slice(1, 4), slice(None, None, 2), slice(-2, None), slice(4, 0, -1)):
        assert clauses[part] == lists[part]
    assert clauses != [[1], [-2, 3]] and clauses != "clauses" and clauses == Clauses(lists)
    assert pickle.loads(pickle.dumps(clauses)) == lists
    with pytest.raises(IndexError):
        clauses[5]
    with pytest.raises(TypeError):
        clauses["1"]  # type: ignore[call-overload]
    for bad in ([[1, 0]], [[-(2**31)]]):
        with pytest.raises(ValueError):
            Clauses(bad)
    formula = _residual_formulas(1)[0]
    assert isinstance(formula.clauses, Clauses)
    assert formula.clauses == formula.exported_clauses()  # no tautology, as DIMACS gets them


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(st.integers(1, 40).map(lambda v: v if v % 3 else -v), max_size=6), max_size=30
    ),
    st.integers(-35, 35),
    st.integers(-35, 35),
    st.sampled_from([None, 1, 2, 3, -1, -2]),
)
def test_engine_clauses_slice_and_index_as_a_list_does(
    lists: list[list[int]], start: int, stop: int, step: int | None
) -> None:
    clauses = Clauses(lists)
    assert len(clauses) == len(lists) and clauses == lists and list(clauses) == lists
    assert clauses[start:stop:step] == lists[start:stop:step]
    for index in (start, stop):
        if -len(lists) <= index < len(lists):
            assert clauses[index] == lists[index]
        else:
            with pytest.raises(IndexError):
                clauses[index]


def test_random_formulas_loaded_by_the_engine_answer_as_pysat_loaded_them() -> None:
    """Random 3-SAT formulas near the threshold, each with a unit clause (some satisfiable,
    some not): CaDiCaL loaded by the engine says what CaDiCaL loaded from the lists says, with
    the same model."""
    rng = random.Random(5)
    answers = set()
    for _ in range(60):
        variables = rng.randint(10, 30)
        literals = [
            rng.choice([-1, 1]) * rng.randint(1, variables)
            for _ in range(3 * int(variables * 4.2) + 1)
        ]
        lists = [literals[at : at + 3] for at in range(0, len(literals), 3)]  # the last a unit
        with (
            Solver(name="cadical195") as straight,
            Solver(name="cadical195", bootstrap_with=lists) as listed,
        ):
            add_clauses(straight, Clauses(lists))
            answer = straight.solve()
            assert answer == listed.solve()
            assert straight.get_model() == listed.get_model()
            answers.add(answer)
    assert answers == {True, False}


def test_cadical_loaded_by_the_engine_is_the_formula_pysat_loads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The engine's own loading (asserted taken: PySAT's pinned build exports CaDiCaL's add)
    gives CaDiCaL the same formula as PySAT's lists: the same answer and, CaDiCaL being
    deterministic, the same model, whole or in chunks of 7 clauses; with probing's implied
    clauses added after it; and an unsatisfiable one stays unsatisfiable."""
    checked = 0
    for formula in _residual_formulas(6):
        lists = list(formula.clauses)
        for chunk in (clause_loading.LOAD_CHUNK, 7):
            monkeypatch.setattr(clause_loading, "LOAD_CHUNK", chunk)
            with (
                Solver(name="cadical195") as straight,
                Solver(name="cadical195", bootstrap_with=lists) as listed,
            ):
                assert _cadical_addresses(straight.solver) is not None
                add_clauses(straight, formula.clauses, Deadline(30))
                assert straight.solve() == listed.solve() is True
                assert straight.get_model() == listed.get_model()
                # A solution's negation on the cells, then its literals: no model now.
                cells = formula.cell_variables()
                model = set(straight.get_model() or ())
                blocking = [[-v if v in model else v for v in cells]]
                units = [[v if v in model else -v] for v in cells]
                add_clauses(straight, Clauses(blocking + units))
                assert straight.solve() is False
            checked += 1
    assert checked == 12


def test_engine_clauses_go_to_other_solvers_as_lists() -> None:
    """Glucose, MiniSat (no straight way into them) load the engine's clauses as lists."""
    formula = _residual_formulas(1)[0]
    for name in ("glucose3", "glucose42", "minisat22"):
        with (
            Solver(name=name) as loaded,
            Solver(name=name, bootstrap_with=list(formula.clauses)) as listed,
        ):
            assert _cadical_addresses(loaded.solver) is None
            add_clauses(loaded, formula.clauses)
            assert loaded.solve() == listed.solve() is True
            assert loaded.get_model() == listed.get_model()


def test_loading_stops_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    formula = _residual_formulas(1)[0]
    monkeypatch.setattr(clause_loading, "LOAD_CHUNK", 10)
    for name in ("cadical195", "glucose3"):
        with Solver(name=name) as solver, pytest.raises(Timeout):
            add_clauses(solver, formula.clauses, Deadline(0))


def test_a_solver_is_loaded_within_its_deadline() -> None:
    """`SatSolver` hands its deadline to the loading (a backbone's Glucose took 33 s to load a
    300x300's clauses, past every deadline): Timeout once it has passed, the solver freed."""
    from satnono.runtime.sat_solvers import SatSolver

    clauses = [[1, 2], [-1, 2]] * (2 * clause_loading.LOAD_CHUNK)
    with pytest.raises(Timeout):
        SatSolver("glucose42", Deadline(0), clauses)
    with SatSolver("glucose42", Deadline(None), clauses) as sat:
        assert sat.solve() is True
