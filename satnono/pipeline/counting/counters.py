"""The field's model counters on satnono's residual CNF: Ganak (exact), ApproxMC (estimates).

Each is a C++ library that cannot be interrupted, so they run in forked children
(satnono.runtime.child) that the deadline kills; these functions are what runs there. Every
call counts or samples over the cell variables only (a projection), so the answer is about
grids, whatever auxiliary variables the encoding adds.
"""

from __future__ import annotations

from dataclasses import dataclass

from satnono.encode.formula import CnfFormula

#: Names of the counters, as they appear in `"method"` of `satnono count --json`.
GANAK = "ganak"
APPROXMC = "approxmc"
_MODULES = {GANAK: "pyganak", APPROXMC: "pyapproxmc"}


def installed(counter: str) -> bool:
    """Whether the counter's Python package can be imported (checked without importing it)."""
    from satnono.core.extras import installed as importable

    return importable(_MODULES[counter])


def sampling_set(formula: CnfFormula) -> list[int]:
    """The variables counted or sampled over: the cells' (a projection)."""
    # The constant-true variable 1 stands in for a formula without cells (one empty grid).
    return sorted(set(formula.cell_variables())) or [1]


def ganak_count(formula: CnfFormula, seed: int = 0) -> int:
    """The exact number of cell assignments that extend to a model (Ganak, projected)."""
    import pyganak

    counter = pyganak.Counter(seed=seed)
    counter.new_vars(formula.variables)
    counter.add_clauses(formula.clauses)
    counter.set_sampling_set(sampling_set(formula))
    return int(counter.count())


@dataclass(frozen=True)
class Estimate:
    """ApproxMC's answer: `cells * 2**hashes`; with no hash the count is exact."""

    cells: int
    hashes: int

    @property
    def value(self) -> int:
        return self.cells << self.hashes

    @property
    def exact(self) -> bool:
        # ApproxMC first enumerates up to its threshold; a count found without any hash
        # constraint is that enumeration, complete (checked against brute force in the tests).
        return self.hashes == 0


def approxmc_count(formula: CnfFormula, epsilon: float, delta: float, seed: int = 1) -> Estimate:
    """An (epsilon, delta) estimate: within a factor 1 + epsilon with probability 1 - delta."""
    import pyapproxmc

    counter = pyapproxmc.Counter(seed=seed, epsilon=epsilon, delta=delta)
    counter.add_clauses(formula.clauses)
    cells, hashes = counter.count(sampling_set(formula))
    return Estimate(int(cells), int(hashes))


def share_of_guarantee(epsilon: float, delta: float, factors: int) -> tuple[float, float]:
    """The (epsilon, delta) each of `factors` independent estimates needs for their product.

    Ratios multiply, so factors within 1 + e each give a product within (1 + e)^k; failures
    add up at worst (union bound), so each may fail with delta / k.
    """
    if factors <= 1:
        return epsilon, delta
    return (1 + epsilon) ** (1 / factors) - 1, delta / factors
