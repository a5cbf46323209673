"""CNF encoding of the residual puzzle: one unrolled clue automaton per line.

Specified in encodings/automaton-cnf.md; keep the two in agreement. Only cells with more than
one color left get variables; decided cells are constants that fold away, and every line keeps
only the automaton states that lie on some accepted path under the propagated domains.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from satnono.linesolver import LineSolver, colors_of
from satnono.model import Puzzle
from satnono.propagate import Propagator

Clause = list[int]

#: Variable 1 is the constant true (a unit clause pins it), so constants fold like literals.
TRUE = 1
FALSE = -1


@dataclass
class CnfFormula:
    """Clauses plus the map from residual cells to their color literals."""

    variables: int = 1
    clauses: list[Clause] = field(default_factory=lambda: [[TRUE]])
    #: cell -> (color, literal) for every color still possible in a residual cell.
    cell_literals: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    #: clause counts by family, for the stats and the specification's size table.
    families: dict[str, int] = field(default_factory=dict)

    def new_variable(self) -> int:
        self.variables += 1
        return self.variables

    def add(self, clause: Sequence[int], family: str) -> None:
        """Add a clause, folding the constants TRUE and FALSE away."""
        if TRUE in clause:
            return
        kept = [lit for lit in clause if lit != FALSE]
        self.clauses.append(kept if kept else [FALSE])
        self.families[family] = self.families.get(family, 0) + 1

    def conjunction(self, a: int, b: int, family: str) -> int:
        """A literal equivalent to a AND b (a new variable only when neither is constant)."""
        if a == TRUE:
            return b
        if b == TRUE:
            return a
        if a == FALSE or b == FALSE:
            return FALSE
        t = self.new_variable()
        self.add([-t, a], family)
        self.add([-t, b], family)
        self.add([t, -a, -b], family)
        return t

    def literal_meanings(self) -> dict[int, tuple[int, int]]:
        """literal -> (cell, color) for every literal that says "this cell has this color"."""
        return {
            literal: (cell, color)
            for cell, options in self.cell_literals.items()
            for color, literal in options
        }

    def decode(self, true: Iterable[int], domains: Sequence[int]) -> list[int]:
        """Decided domains: `domains` with every residual cell set from its true literal."""
        meanings = self._meanings()
        decided = list(domains)
        for literal in true:
            meaning = meanings.get(literal)
            if meaning is not None:
                decided[meaning[0]] = 1 << meaning[1]
        return decided

    def cell_variables(self) -> list[int]:
        return [
            abs(lit) for options in self.cell_literals.values() for _, lit in options if lit > 0
        ]

    def blocking_clause(self, true: Iterable[int]) -> Clause:
        """Forbids exactly this assignment of the residual cells (given its true literals)."""
        meanings = self._meanings()
        return [-literal for literal in true if literal in meanings]

    def _meanings(self) -> dict[int, tuple[int, int]]:
        # Computed once, after encoding: the formula's cells do not change while solving.
        cached = self.__dict__.get("_meanings_cache")
        if cached is None:
            cached = self.__dict__["_meanings_cache"] = self.literal_meanings()
        return cached

    def dimacs(self, comments: Iterable[str] = ()) -> str:
        lines = [f"c {comment}" for comment in comments]
        lines.append(f"p cnf {self.variables} {len(self.clauses)}")
        lines += [" ".join(map(str, clause)) + " 0" for clause in self.clauses]
        return "\n".join(lines) + "\n"


def encode_cells(formula: CnfFormula, domains: Sequence[int], cells: Iterable[int]) -> None:
    """One-hot color literals for every residual cell.

    A two-color cell is one variable (true = the higher palette index), which is the one-hot
    encoding with its two clauses resolved away; larger domains get one variable per color,
    at-least-one and pairwise at-most-one.
    """
    for cell in cells:
        domain = domains[cell]
        if not domain & (domain - 1):
            continue
        colors = colors_of(domain)
        if len(colors) == 2:
            v = formula.new_variable()
            formula.cell_literals[cell] = ((colors[0], -v), (colors[1], v))
            continue
        literals = [formula.new_variable() for _ in colors]
        formula.cell_literals[cell] = tuple(zip(colors, literals, strict=True))
        formula.add(literals, "cell-at-least-one")
        for i, a in enumerate(literals):
            for b in literals[i + 1 :]:
                formula.add([-a, -b], "cell-at-most-one")


def color_literal(formula: CnfFormula, cell: int, domain: int, color: int) -> int:
    if not domain & (domain - 1):
        return TRUE if domain == 1 << color else FALSE
    for option, literal in formula.cell_literals[cell]:
        if option == color:
            return literal
    return FALSE


def encode_line_automaton(
    formula: CnfFormula, solver: LineSolver, cells: Sequence[int], domains: Sequence[int]
) -> None:
    """Unroll the clue automaton over one line (see encodings/automaton-cnf.md).

    Transitions are literals equivalent to (source state AND cell color). A state entered by a
    single transition *is* that transition, and a transition that is its source state's only
    way out *is* that state, so inside a block the states collapse into one variable per
    start position and only branching points cost fresh variables.
    """
    line = [domains[cell] for cell in cells]
    live = solver.live_states(line)
    if live is None:
        formula.add([FALSE], "line-contradiction")
        return
    automaton = solver.automaton
    entry, loops = automaton.entry_color, automaton.loops
    # Literal of each live state at the current boundary; a lone live state is certain.
    current = {_only_state(live[0]): TRUE}
    for j, cell in enumerate(cells):
        domain = line[j]
        colors = colors_of(domain)
        after = live[j + 1]
        # Transitions (source, color, target) between live states.
        transitions: list[tuple[int, int, int]] = []
        for q in current:
            for color in colors:
                if q + 1 < len(entry) and entry[q + 1] == color and after >> (q + 1) & 1:
                    transitions.append((q, color, q + 1))
                elif color == 0 and loops >> q & 1 and after >> q & 1:
                    transitions.append((q, color, q))
        out_count: dict[int, int] = {}
        for q, _, _ in transitions:
            out_count[q] = out_count.get(q, 0) + 1
        single_after = not after & (after - 1)
        following: dict[int, int] = {}
        incoming: dict[int, list[int]] = {}
        outgoing: dict[int, list[int]] = {}
        supports: dict[int, list[int]] = {}
        for q, color, target in transitions:
            source = current[q]
            x = color_literal(formula, cell, domain, color)
            if out_count[q] == 1:
                # The source's only way out: the transition is the source state itself.
                transition = source
                formula.add([-source, x], "state-implies-color")
            else:
                transition = formula.conjunction(source, x, "transition")
            supports.setdefault(color, []).append(transition)
            outgoing.setdefault(q, []).append(transition)
            incoming.setdefault(target, []).append(transition)
        for target, into in incoming.items():
            if single_after:
                state = TRUE
                formula.add(into, "state-support")
            elif len(into) == 1:
                state = into[0]
            else:
                state = formula.new_variable()
                for transition in into:
                    formula.add([-transition, state], "transition-implies-state")
                formula.add([-state, *into], "state-support")
            following[target] = state
        for q, out in outgoing.items():
            if len(out) > 1:
                formula.add([-current[q], *out], "state-continues")
        if domain & (domain - 1):
            for color in colors:
                x = color_literal(formula, cell, domain, color)
                formula.add([-x, *supports.get(color, [])], "color-support")
        current = following


def _only_state(states: int) -> int:
    if states & (states - 1):
        raise ValueError("the start boundary has exactly one live state")
    return states.bit_length() - 1


def encode_puzzle(
    propagator: Propagator, domains: Sequence[int], lines: Sequence[int] | None = None
) -> CnfFormula:
    """The CNF of the residual puzzle: cell literals, then one automaton per unfinished line.

    `lines` restricts the formula to one independent component (default: every line).
    """
    formula = CnfFormula()
    scope = range(len(propagator.cells)) if lines is None else lines
    unfinished = [
        line
        for line in scope
        if any(domains[cell] & (domains[cell] - 1) for cell in propagator.cells[line])
    ]
    encode_cells(
        formula, domains, sorted({c for line in unfinished for c in propagator.cells[line]})
    )
    for line in unfinished:
        encode_line_automaton(formula, propagator.solvers[line], propagator.cells[line], domains)
    return formula


def variable_comments(puzzle: Puzzle, formula: CnfFormula) -> Iterator[str]:
    """DIMACS comment lines naming the cell and color of every cell variable."""
    yield f"satnono residual encoding of a {puzzle.width}x{puzzle.height} puzzle"
    yield "variable 1 is the constant true; cells are (row, column), 1-based"
    for cell, options in formula.cell_literals.items():
        row, column = divmod(cell, puzzle.width)
        names = ", ".join(f"{puzzle.palette[color].name}={literal}" for color, literal in options)
        yield f"cell ({row + 1},{column + 1}): {names}"
