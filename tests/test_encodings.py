"""Every CNF encoding variant against brute force, and each one's propagation promise.

The variants must accept exactly the same grids; they differ only in size and in how much unit
propagation deduces, which is what encodings/*.md states and what is checked here.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver

from satnono.backends import SearchOptions
from satnono.core.grids import initial_domains
from satnono.core.model import Puzzle
from satnono.encode.cnf import ENCODINGS, encode_puzzle
from satnono.encode.formula import CnfFormula
from satnono.errors import Contradiction, InputError
from satnono.formats import read_puzzle
from satnono.formats.generate import puzzle_from_grid
from satnono.pipeline.solutions import solve
from satnono.reference.propagate import Propagator
from support import (
    EXAMPLES,
    PALETTES,
    assume_a_few_cells,
    brute_force_solutions,
    grids,
    puzzles,
)

SPECS = Path(__file__).resolve().parent.parent / "encodings"
#: The specification that documents each variant's clause families.
SPEC_OF = {
    "automaton": "automaton-cnf.md",
    "automaton-lean": "automaton-cnf.md",
    "blocks": "blocks-cnf.md",
}
#: Variants whose unit propagation is exactly line propagation (the specs prove it).
LINE_COMPLETE = {"automaton"}


@pytest.mark.parametrize("encoding", list(ENCODINGS))
@settings(max_examples=60, deadline=None)
@given(puzzle=puzzles(max_width=5, max_height=5, max_colors=3))
def test_every_encoding_matches_brute_force(encoding: str, puzzle: Puzzle) -> None:
    expected = brute_force_solutions(puzzle)
    for solver in ("minisat22", "cadical195"):
        options = SearchOptions(solver=solver, encoding=encoding)
        result = solve(puzzle, backend="sat", limit=0, options=options)
        assert result.complete
        assert set(result.grids) == expected
        assert result.solutions_found == len(expected)


def _residual(grid: tuple, colors: int) -> tuple[Propagator, list[int]]:
    puzzle = puzzle_from_grid(grid, PALETTES[colors])
    propagator = Propagator(puzzle)
    domains = initial_domains(puzzle)
    propagator.propagate(domains)
    return propagator, domains


def _unit_propagation(formula: CnfFormula, assumptions: list[int]) -> dict[int, int] | None:
    """Each residual cell's colors left after unit propagation, or None on a conflict."""
    with Solver(name="minisat22", bootstrap_with=formula.clauses) as solver:
        ok, implied = solver.propagate(assumptions=assumptions)
    if not ok:
        return None
    true = set(implied) | set(assumptions)
    left = {}
    for cell, options in formula.cell_literals.items():
        left[cell] = sum(1 << color for color, literal in options if -literal not in true)
    return left


@pytest.mark.parametrize("encoding", list(ENCODINGS))
@settings(max_examples=50, deadline=None)
@given(case=grids(max_width=6, max_height=6, max_colors=3), data=st.data())
def test_unit_propagation_is_sound_and_as_strong_as_specified(
    encoding: str, case: tuple, data: st.DataObject
) -> None:
    """Never more than line propagation; exactly as much for the full automaton."""
    propagator, domains = _residual(*case)
    formula = encode_puzzle(propagator, domains, encoding=encoding)
    if not formula.cell_literals:
        return
    assumptions, lines = assume_a_few_cells(data, formula, propagator, domains)
    units = _unit_propagation(formula, assumptions)
    if lines is None:
        if encoding in LINE_COMPLETE:
            assert units is None
        return
    # Each line's clauses deduce nothing its exact line solver would not: never a conflict
    # where line logic sees none, never a color removed that line logic keeps.
    assert units is not None
    cells = formula.cell_literals
    if encoding in LINE_COMPLETE:
        assert all(units[cell] == lines[cell] for cell in cells)
    else:
        assert all(units[cell] & lines[cell] == lines[cell] for cell in cells)


@pytest.mark.parametrize("encoding", list(ENCODINGS))
@settings(max_examples=40, deadline=None)
@given(case=grids(max_width=6, max_height=6, max_colors=4))
def test_a_full_assignment_is_checked_as_specified(encoding: str, case: tuple) -> None:
    """checks_by_propagation: unit propagation alone refutes every wrong complete grid."""
    propagator, domains = _residual(*case)
    formula = encode_puzzle(propagator, domains, encoding=encoding)
    if not ENCODINGS[encoding].checks_by_propagation or not formula.cell_literals:
        return
    # Every cell takes its lowest color left: usually not a solution.
    assumptions = [options[0][1] for options in formula.cell_literals.values()]
    grid = list(domains)
    for cell, options in formula.cell_literals.items():
        grid[cell] = 1 << options[0][0]
    try:
        propagator.propagate(grid)
        valid = True
    except Contradiction:
        valid = False
    assert (_unit_propagation(formula, assumptions) is not None) == valid


def _documented_families(spec: str) -> set[str]:
    """The names in the first column of the spec's tables (clause families, variables)."""
    text = (SPECS / spec).read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if line.startswith("| `")]
    return {name for line in lines for name in re.findall(r"`([a-z-]+)`", line.split("|")[1])}


@pytest.mark.parametrize("encoding", list(ENCODINGS))
def test_clause_families_are_the_documented_ones(encoding: str) -> None:
    """Code and specification agree: every family the code emits has a row in the spec."""
    documented = _documented_families(SPEC_OF[encoding])
    seen: set[str] = set()
    for seed in range(30):
        rng = random.Random(seed)
        colors = 2 + seed % 3
        grid = tuple(
            tuple(rng.randrange(colors) if rng.random() < 0.6 else 0 for _ in range(7))
            for _ in range(7)
        )
        propagator, domains = _residual(grid, colors)
        seen |= set(encode_puzzle(propagator, domains, encoding=encoding).families)
    assert seen, "the sample puzzles left nothing to encode"
    assert seen <= documented | {"line-contradiction"}


def test_the_lean_automaton_is_the_automaton_minus_its_redundant_clauses() -> None:
    propagator, domains = _residual(((1, 0, 1, 0), (0, 1, 0, 1), (1, 0, 1, 0), (0, 1, 0, 1)), 2)
    full = encode_puzzle(propagator, domains, encoding="automaton")
    lean = encode_puzzle(propagator, domains, encoding="automaton-lean")
    assert lean.variables == full.variables
    assert len(lean.clauses) < len(full.clauses)
    for family in ("state-continues", "transition-implies-state", "color-support"):
        assert family in full.families and family not in lean.families


def test_an_unknown_encoding_is_an_input_error() -> None:
    puzzle = puzzle_from_grid(((1, 0), (0, 1)))
    with pytest.raises(InputError, match="unknown encoding"):
        solve(puzzle, backend="sat", options=SearchOptions(encoding="nope"))


@pytest.mark.parametrize("encoding", list(ENCODINGS))
@settings(max_examples=40, deadline=None)
@given(puzzle=puzzles(max_width=4, max_height=4, max_colors=3))
def test_every_grid_has_exactly_one_model(encoding: str, puzzle: Puzzle) -> None:
    """The specs' promise that auxiliary variables are functionally determined by the cells.

    Ganak counts the formula's models over all its variables, unprojected: that is the
    number of grids only if each grid extends to exactly one model, in every encoding. It is
    what lets blocking clauses over cells enumerate each grid once, and what makes any
    counter's answer on satnono's CNF a count of grids.
    """
    import pyganak

    propagator = Propagator(puzzle)
    domains = initial_domains(puzzle)
    try:
        propagator.propagate(domains)
    except Contradiction:
        return
    formula = encode_puzzle(propagator, domains, encoding=encoding)
    counter = pyganak.Counter()
    counter.new_vars(formula.variables)
    counter.add_clauses(formula.clauses)
    assert counter.count() == len(brute_force_solutions(puzzle))


@pytest.mark.parametrize("encoding", ["blocks", "automaton", "automaton-lean"])
def test_exported_cnf_names_no_variable_twice_in_a_clause(encoding: str) -> None:
    """Strict DIMACS readers refuse `x -x` (issue 23: 268 such clauses in Nature's automaton
    CNF); the export is equisatisfiable without them, and its header counts what it holds."""
    from satnono import residual_cnf

    puzzle = read_puzzle(EXAMPLES / "needs-search-25.non")
    text, formula = residual_cnf(puzzle, encoding)
    assert formula is not None
    header = next(line for line in text.splitlines() if line.startswith("p cnf"))
    body = [line for line in text.splitlines() if line and line[0] not in "cp"]
    assert int(header.split()[3]) == len(body)
    for line in body:
        literals = [int(x) for x in line.split()[:-1]]
        assert len({abs(literal) for literal in literals}) == len(literals), line
