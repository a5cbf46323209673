"""What the native engine's belief propagation tells the SAT solver that takes the probed
residual (satnono.backends.sat): its guesses as the solver's first phases. A hint only: phases
choose where the search starts, never what it finds. (Probing's implications, the other hint,
come from the engine as clauses: `native.Search.implication_clauses`.)
"""

from __future__ import annotations

from satnono.backends import Residual
from satnono.encode.formula import CnfFormula
from satnono.logic import native


def guessed_phases(
    formula: CnfFormula, residual: Residual, estimate: native.Estimate | None = None
) -> list[int]:
    """Phases from belief propagation over the residual: each cell's most likely color true,
    and each block's order variables true up to its median start. `estimate`: belief
    propagation's over the residual when made before (the sampler makes it in the parent, so
    that its forked child does no engine work)."""
    guess = (
        native.Engine(residual.puzzle).estimate(residual.domains) if estimate is None else estimate
    )
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
