"""What the native engine's probing and belief propagation tell the SAT solver that takes the
probed residual (satnono.backends.sat): probing's implications as binary clauses, and belief
propagation's guesses as the solver's first phases. Both are hints only: the clauses are
implied by the formula, and phases choose where the search starts, never what it finds.
"""

from __future__ import annotations

from collections.abc import Sequence

from satnono.backends import Residual
from satnono.encode.formula import CnfFormula
from satnono.logic import native


def implication_clauses(
    formula: CnfFormula, implications: Sequence[tuple[int, int, int, int]]
) -> list[list[int]]:
    """Probing's implications as binary clauses: "cell has color" rules out "other cell has
    other color" (a unit clause when the other cell is -1). Those on cells the formula does
    not hold are left out."""
    literal = {
        (cell, color): lit
        for cell, options in formula.cell_literals.items()
        for color, lit in options
    }
    clauses = []
    for cell, color, other, other_color in implications:
        first = literal.get((cell, color))
        if first is None:
            continue
        if other < 0:
            clauses.append([-first])
            continue
        second = literal.get((other, other_color))
        if second is not None:
            clauses.append([-first, -second])
    return clauses


def guessed_phases(formula: CnfFormula, residual: Residual) -> list[int]:
    """Phases from belief propagation over the residual: each cell's most likely color true,
    and each block's order variables true up to its median start."""
    guess = native.Engine(residual.puzzle).estimate(residual.domains)
    preferred: dict[int, int] = {}
    for cell, options in formula.cell_literals.items():
        best = guess.colors[cell]
        for color, literal in options:
            chosen = literal if color == best else -literal
            preferred[abs(chosen)] = chosen
    cells = residual.geometry.cells
    for line, medians in enumerate(guess.starts):
        blocks = formula.start_variables.get(cells[line]) if medians else None
        for (lo, variables), median in zip(blocks or (), medians, strict=False):
            for offset, variable in enumerate(variables):
                preferred[variable] = variable if lo + 1 + offset <= median else -variable
    return list(preferred.values())
