"""The samplers from the field, each drawing models of one component's CNF in the child the
sampling pipeline (satnono.pipeline.sampling) runs it in: CMSGen and UniGen3, and CaDiCaL from
random phases where they give none in time."""

from __future__ import annotations

import random
from collections.abc import Iterator

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
#: samples come from PHASES_SOLVER, started from random phases each time: the field's way to
#: many different solutions fast, with no guarantee on how they are spread. On webpbn's Sierp
#: (1,531 open cells, every one ambiguous) CMSGen gave none in 60 s with either encoding;
#: CaDiCaL from random phases gave 8 in 11.6 s, all different, any two 298-410 cells apart
#: (BENCHMARKS.md, round 33).
PHASES = "phases"
PHASES_SOLVER = "cadical153"


def sample_cells(formula: CnfFormula, sampler: str, count: int, seed: int) -> Iterator[list[int]]:
    """Yield `count` models, each as the true literals of the formula's cell variables.

    CMSGen yields one model per solver call; UniGen3 computes its hash cells first (an
    ApproxMC count) and then yields all its samples at once; PHASES one model per call of
    PHASES_SOLVER, kept with what it learned, each call from new random phases.
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
        from pysat.solvers import Solver

        rng = random.Random(seed)
        every = range(1, formula.variables + 1)
        with Solver(name=PHASES_SOLVER, bootstrap_with=formula.clauses) as solver:
            for _ in range(count):
                solver.set_phases([v if rng.random() < 0.5 else -v for v in every])
                if not solver.solve():
                    return
                true = set(solver.get_model() or ())
                yield [v if v in true else -v for v in variables]
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
