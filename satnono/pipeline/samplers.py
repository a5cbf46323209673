"""The samplers from the field, each drawing models of one component's CNF in the child the
sampling pipeline (satnono.pipeline.sampling) runs it in: CMSGen and UniGen3, and CaDiCaL
flipping random cells where they give none in time."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from satnono.encode.formula import CnfFormula
from satnono.pipeline.counting.counters import sampling_set

#: What each sampler guarantees, as docs/cli.md and `satnono sample` state it.
SAMPLERS = {
    "cmsgen": "CMSGen: fast, uniform-like, with no formal guarantee (it passes the Barbarik "
    "uniformity tests in its authors' FMCAD 2021 evaluation)",
    "unigen": "UniGen3: almost-uniform, every solution drawn with probability within a "
    "constant factor (1 + epsilon, set by its kappa) of 1/N, with hashing-based proof; slow",
}
DEFAULT_SAMPLER = "cmsgen"
#: Where CMSGen gives a component no solution in time (sampling.SAMPLER_FIRST), its
#: samples come from PHASES_SOLVER: the first from belief propagation's phases, each next one
#: made to color one of FLIP_GROUP random cells otherwise than the sample before (`_flipped`).
#: No guarantee on how they are spread; each differs from the one before. On the puzzles
#: CMSGen gives nothing (`/tmp/x/fsamp.py`, BENCHMARKS.md round 34): Sierp 0.76
#: s to the first, then 0.5-2.4 s each, 292-386 cells from the one before; Nature 0.1 s, then
#: 0.0-0.5 s, 198-300 cells apart; Faase 6.5 s, then 0.1-3.5 s, 764-984 cells apart. Round 33
#: drew each sample from new random phases instead: Sierp much the same (0.8-3.1 s, 298-410
#: cells apart), Faase no solution in 200 s.
PHASES = "phases"
PHASES_SOLVER = "cadical195"
FLIP_GROUP = 64
#: (At most half the component's cell literals.) Random groups a flip tries before asking
#: for any other solution at all: a group of cells every solution colors alike has no model,
#: and a component sampled here has over 1,000 solutions.
GROUP_TRIES = 8


def sample_cells(
    formula: CnfFormula,
    sampler: str,
    count: int,
    seed: int,
    phases: Sequence[int] | None = None,
) -> Iterator[list[int]]:
    """Yield `count` models, each as the true literals of the formula's cell variables.

    CMSGen yields one model per solver call; UniGen3 computes its hash cells first (an
    ApproxMC count) and then yields all its samples at once; PHASES one model per call of
    PHASES_SOLVER, the first from `phases` (random ones without), see `_flipped`.
    """
    variables = sampling_set(formula)
    if sampler == "cmsgen":
        import pycmsgen

        solver = pycmsgen.Solver(seed=seed)
        solver.add_clauses(formula.clauses)
        for _ in range(count):
            satisfiable, model = solver.solve()
            if not satisfiable:
                return
            yield [v if model[v] else -v for v in variables]
        return
    if sampler == PHASES:
        yield from _flipped(formula, variables, count, random.Random(seed), phases)
        return
    if sampler == "unigen":
        import pyunigen

        unigen = pyunigen.Sampler(seed=max(1, seed))
        for clause in formula.clauses:
            unigen.add_clause(clause)
        _, _, samples = unigen.sample(num=count, sampling_set=variables)
        wanted = set(variables)
        for sample in samples:
            yield [literal for literal in sample if abs(literal) in wanted]
        return
    raise ValueError(f"unknown sampler {sampler!r}")


def _flipped(
    formula: CnfFormula,
    variables: Sequence[int],
    count: int,
    rng: random.Random,
    phases: Sequence[int] | None,
) -> Iterator[list[int]]:
    """PHASES: one PHASES_SOLVER kept with what it learned; the first model from `phases`,
    each next one made to take another value for one of FLIP_GROUP random cell literals of
    the model before (a clause switched on by an assumption, then retired), from the solver's
    own phases. Faase's residual, whose solutions CaDiCaL finds from belief propagation's
    guesses but never from random phases, so gives a new solution a second or two apart."""
    from pysat.solvers import Solver

    every = range(1, formula.variables + 1)
    with Solver(name=PHASES_SOLVER, bootstrap_with=formula.clauses) as solver:
        solver.set_phases(
            list(phases) if phases else [v if rng.random() < 0.5 else -v for v in every]
        )
        if not solver.solve():
            return
        switch = formula.variables
        true = set(solver.get_model() or ())
        for drawn in range(count):
            last = [v if v in true else -v for v in variables]
            yield last
            if drawn + 1 == count:
                return
            for tries in range(GROUP_TRIES + 1):
                # At most half the cells: a group of all of them sent a small component's
                # samples back and forth between two solutions (each the other's nearest).
                size = min(FLIP_GROUP, max(1, len(last) // 2))
                group = last if tries == GROUP_TRIES else rng.sample(last, size)
                switch += 1
                solver.add_clause([-switch, *(-literal for literal in group)])
                found = solver.solve(assumptions=[switch])
                true = set(solver.get_model() or ()) if found else true  # before it is voided
                solver.add_clause([-switch])
                if found:
                    break
            else:
                return  # no other solution: the caller says fewer were given than asked for
