"""CNF encodings of the residual puzzle, one constraint per line, selectable by name.

Specified in encodings/automaton-cnf.md and encodings/blocks-cnf.md (code and text agree):
the formula and its cells in `formula`, each line's constraint in `lines`. Every line keeps
only what lies on some accepted path under the propagated domains. Several variants exist
because no single one is fastest on every puzzle and solver: racing them (the portfolio
backend) turns that spread into a gain.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from satnono.core.geometry import Geometry
from satnono.core.model import Puzzle
from satnono.encode.automaton import automaton_of_line
from satnono.encode.formula import CnfFormula, encode_cells
from satnono.encode.lines import (
    LineEncoder,
    encode_line_automaton,
    encode_line_automaton_lean,
    encode_line_blocks,
)
from satnono.runtime.deadline import Deadline, Timeout


@dataclass(frozen=True)
class Encoding:
    """A named CNF encoding variant of the line constraint."""

    name: str
    summary: str
    encode_line: LineEncoder
    #: Unit propagation refutes any full cell assignment that breaks a line.
    checks_by_propagation: bool


ENCODINGS: dict[str, Encoding] = {
    e.name: e
    for e in (
        Encoding(
            "automaton",
            "state-per-position automaton, unit propagation = line solving",
            encode_line_automaton,
            True,
        ),
        Encoding(
            "automaton-lean",
            "the automaton without its redundant (backward) clauses",
            encode_line_automaton_lean,
            False,
        ),
        Encoding("blocks", "block start positions in order encoding", encode_line_blocks, False),
    )
}

#: Measured (BENCHMARKS.md, portfolio section): a third of the automaton's size and several
#: times faster on the hard survey puzzles with every solver tried, and faster to enumerate.
DEFAULT_ENCODING = "blocks"


def check_encoding(name: str | None) -> str:
    """The encoding's name, or the default for None; an unknown name is an input error."""
    if name is None:
        return DEFAULT_ENCODING
    if not isinstance(name, str) or name not in ENCODINGS:
        from satnono.errors import InputError

        known = ", ".join(ENCODINGS)
        raise InputError(f"unknown encoding {name!r}; choose one of: {known}", "encoding")
    return name


def encode_puzzle(
    geometry: Geometry,
    domains: Sequence[int],
    lines: Sequence[int] | None = None,
    encoding: str | None = None,
    deadline: Deadline | None = None,
    reference: bool = False,
) -> CnfFormula:
    """The CNF of the residual puzzle: cell literals, then one constraint per unfinished line
    (or a decided one that does not fit). `lines` restricts the formula to one independent
    component (default: every line). Raises Timeout when `deadline` passes first, looked at
    before each line: a wide residual takes long (76 s for a random 400 x 400 grid's 32
    million clauses).

    The blocks encoding is built by the engine (the same formula, clause for clause, in 5 ms
    for a 25x25 residual's 10,500 clauses where the Python encoder took 30-35 ms, a sixth of
    every hand-over to CaDiCaL on the tournament sets) unless a line has a blotted number or
    `reference` asks for this one."""
    chosen = ENCODINGS[check_encoding(encoding)]
    if chosen.name == "blocks" and not reference:
        built = _native_blocks(geometry, domains, lines, deadline)
        if built is not None:
            return built
    formula = CnfFormula(encoding=chosen.name, checks_by_propagation=chosen.checks_by_propagation)
    puzzle, line_cells = geometry.puzzle, geometry.cells
    scope = range(len(line_cells)) if lines is None else lines
    # Lines with an undecided cell, and decided ones that do not fit (their empty clause).
    unfinished = [
        line
        for line in scope
        if any(domains[cell] & (domains[cell] - 1) for cell in line_cells[line])
        or automaton_of_line(puzzle, line).live_states([domains[c] for c in line_cells[line]])
        is None
    ]
    encode_cells(formula, domains, sorted({c for line in unfinished for c in line_cells[line]}))
    encode_line = chosen.encode_line
    # Blocks need known lengths: a line with a blotted one is encoded by its automaton.
    by_automaton = ENCODINGS["automaton"].encode_line
    for line in unfinished:
        if deadline is not None and deadline.expired():
            raise Timeout
        automaton = automaton_of_line(puzzle, line)
        if chosen.name == "blocks" and not automaton.plain:
            formula.encoding = "blocks+automaton"  # said in the stats and the DIMACS header
            by_automaton(formula, automaton, line_cells[line], domains)
        else:
            encode_line(formula, automaton, line_cells[line], domains)
    return formula


def _native_blocks(
    geometry: Geometry,
    domains: Sequence[int],
    lines: Sequence[int] | None,
    deadline: Deadline | None,
) -> CnfFormula | None:
    """The blocks formula from the engine (engine/src/blocks_cnf.rs); None when a line has a
    blotted number (its automaton is encoded here)."""
    from satnono.logic.native import Engine

    scope = range(len(geometry.cells)) if lines is None else lines
    built = Engine(geometry.puzzle).blocks_cnf(domains, scope, deadline)
    if built is None:
        return None
    formula = CnfFormula(
        variables=built.variables,
        clauses=built.clauses,
        cell_literals=built.cell_literals,
        families=built.families,
        encoding="blocks",
        checks_by_propagation=ENCODINGS["blocks"].checks_by_propagation,
    )
    cells = geometry.cells
    formula.start_variables = {tuple(cells[line]): starts for line, starts in built.start_variables}
    return formula


def variable_comments(
    puzzle: Puzzle,
    encoding: str,
    cell_literals: dict[int, tuple[tuple[int, int], ...]],
    scope: str = "residual",
) -> Iterator[str]:
    """DIMACS comment lines naming the cell and color of every cell variable; `scope` says
    what is encoded (the residual after line logic, or the whole puzzle)."""
    size = f"{puzzle.width}x{puzzle.height}"
    yield f"satnono {scope} encoding ({encoding}) of a {size} puzzle"
    yield "variable 1 is the constant true; cells are (row, column), 1-based"
    for cell, options in cell_literals.items():
        row, column = divmod(cell, puzzle.width)
        names = ", ".join(f"{puzzle.palette[color].name}={literal}" for color, literal in options)
        yield f"cell ({row + 1},{column + 1}): {names}"
