"""What the native engine's belief propagation tells the SAT solver that takes the probed
residual (satnono.backends.sat): its guesses as the solver's first phases, and the grid that
decimation guided by it finds, as phases too. A hint only: phases choose where the search
starts, never what it finds. (Probing's implications, the other hint,
come from the engine as clauses: `native.Search.implication_clauses`.)
"""

from __future__ import annotations

from satnono.backends import Residual
from satnono.encode.formula import CnfFormula
from satnono.logic import native
from satnono.runtime.deadline import Deadline


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


def decimated_phases(
    formula: CnfFormula, residual: Residual, deadline: Deadline, seed: int = 0
) -> list[int] | None:
    """Phases from a grid decimation found (native.Engine.decimation: belief propagation's
    most confident cells fixed a share at a time, probing following): every cell's color and
    every block's start as that grid has them, so that a CDCL solver given them descends
    straight to it and verifies it as a model. None when no grid came before `deadline`."""
    engine = native.Engine(residual.puzzle)
    found = engine.decimation(residual.domains, residual.lines, seed).run(deadline)
    if not isinstance(found, list):
        return None
    colors = [d.bit_length() - 1 if d and not d & (d - 1) else -1 for d in found]
    grid = native.Estimate(colors, block_starts(residual, colors))
    return guessed_phases(formula, residual, grid)


def block_starts(residual: Residual, colors: list[int]) -> list[list[int]]:
    """Every line's blocks' starts in a grid of `colors` (a run of one color other than the
    background's is a block), empty for a line with a cell left open (-1)."""
    starts: list[list[int]] = []
    for line in residual.geometry.cells:
        seen = [colors[cell] for cell in line]
        starts.append(
            []
            if -1 in seen
            else [
                p for p, color in enumerate(seen) if color != 0 and (p == 0 or seen[p - 1] != color)
            ]
        )
    return starts
