"""The CNF formula the encodings build: clauses over a residual's cells, with the constants
TRUE and FALSE folded away as clauses are added, and each undecided cell's color literals.

Only cells with more than one color left get variables; decided cells are constants.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from satnono.core.grids import colors_of

Clause = list[int]

#: Variable 1 is the constant true (a unit clause pins it), so constants fold like literals.
TRUE = 1
FALSE = -1


@dataclass
class CnfFormula:
    """Clauses plus the map from residual cells to their color literals."""

    variables: int = 1
    #: A list as the Python encoders build it; the engine's `Clauses` as it builds the blocks
    #: encoding (read as lists, loaded into CaDiCaL without becoming lists:
    #: satnono.runtime.clause_loading).
    clauses: Sequence[Clause] = field(default_factory=lambda: [[TRUE]])
    #: cell -> (color, literal) for every color still possible in a residual cell.
    cell_literals: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    #: clause counts by family, for the stats and the specification's size table.
    families: dict[str, int] = field(default_factory=dict)
    #: The encoding variant that built the formula (a key of ENCODINGS; "blocks+automaton" when
    #: lines with blotted numbers needed the automaton).
    encoding: str = "blocks"
    #: True when unit propagation alone refutes every non-solution once all cells are assigned
    #: (enumeration may then accept a fully propagated assignment without a solver call).
    checks_by_propagation: bool = True
    #: The blocks encoding's order variables, per encoded line (its cells) and block:
    #: (lo, [y(lo + 1), ..., y(hi)]), y(p) meaning "the block starts at p or later". The sat
    #: backend sets their phases from where belief propagation expects each block.
    start_variables: dict[tuple[int, ...], list[tuple[int, list[int]]]] = field(
        default_factory=dict
    )

    def new_variable(self) -> int:
        self.variables += 1
        return self.variables

    def add(self, clause: list[int], family: str) -> None:
        """Add a clause, folding the constants TRUE and FALSE away."""
        if TRUE in clause:
            return
        if FALSE in clause:
            clause = [lit for lit in clause if lit != FALSE] or [FALSE]
        self._built().append(clause)
        families = self.families
        families[family] = families.get(family, 0) + 1

    def conjunction(self, a: int, b: int, family: str, redundant: bool = True) -> int:
        """A literal for a AND b (a new variable only when neither is constant).

        Without `redundant` only t -> a and t -> b are stated, which is all that soundness
        needs when t is used only positively (see encodings/automaton-cnf.md, lean variant).
        """
        if a == TRUE:
            return b
        if b == TRUE:
            return a
        if a == FALSE or b == FALSE:
            return FALSE
        t = self.new_variable()
        if redundant:
            self._built().extend(([-t, a], [-t, b], [t, -a, -b]))
            count = 3
        else:
            self._built().extend(([-t, a], [-t, b]))
            count = 2
        self.families[family] = self.families.get(family, 0) + count
        return t

    def _built(self) -> list[Clause]:
        """The clauses as the Python encoders add to them: a list (the engine's are final)."""
        if not isinstance(self.clauses, list):
            raise TypeError("the engine's clauses take no more")
        return self.clauses

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

    def blocking_clause_of(self, decided: Sequence[int]) -> Clause:
        """Forbids the residual cells' assignment in `decided` (domains, one color each)."""
        return [
            -literal
            for cell, options in self.cell_literals.items()
            for color, literal in options
            if decided[cell] == 1 << color
        ]

    def _meanings(self) -> dict[int, tuple[int, int]]:
        # Computed once, after encoding: the formula's cells do not change while solving.
        cached = self.__dict__.get("_meanings_cache")
        if cached is None:
            cached = self.__dict__["_meanings_cache"] = self.literal_meanings()
        return cached

    def exported_clauses(self) -> list[list[int]]:
        """The clauses as DIMACS gets them: no clause that names a variable twice.

        The automaton encodings produce a few tautologies (x or not x): harmless to a solver,
        but strict DIMACS readers refuse them (tididi-cnf: "clause N names variable V twice"),
        so the export drops them and repeated literals.
        """
        exported = []
        for clause in self.clauses:
            literals = list(dict.fromkeys(clause))
            seen = set(literals)
            if not any(-literal in seen for literal in literals):
                exported.append(literals)
        return exported

    def dimacs(self, comments: Iterable[str] = ()) -> str:
        clauses = self.exported_clauses()
        lines = [f"c {comment}" for comment in comments]
        lines.append(f"p cnf {self.variables} {len(clauses)}")
        lines += [" ".join(map(str, clause)) + " 0" for clause in clauses]
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
