"""Exact and approximate solution counting: each independent component by the method that fits.

The residual splits into independent components whose counts multiply. Each is first enumerated
by the backend up to a small cap, which settles components with few solutions. The others go to
a race: satnono's own counting search (line propagation, decomposition into sub-components and
a cache of sub-problem counts: a permutation square has 2^n sub-problems, not n! solutions)
against Ganak, an exact model counter run on the component's CNF in a forked child, which is far
ahead where a region does not factorise line by line. The search runs alone for a head start,
so components it settles at once never pay for a child. With `approximate`, ApproxMC joins the
race and gives an (epsilon, delta)-guaranteed estimate where no exact count finishes.
Every count is a Python int, exact however large; the rule and its measurements are in
BENCHMARKS.md (counting section).
"""

from satnono.counting.count import (
    ENUMERATION_LIMIT,
    RACE_HEAD_START,
    SEARCH,
    Approximation,
    Counted,
    Factor,
    Method,
    Stopped,
    count_solutions,
    default_methods,
)
from satnono.counting.counters import APPROXMC, GANAK, Estimate

__all__ = [
    "APPROXMC",
    "ENUMERATION_LIMIT",
    "GANAK",
    "RACE_HEAD_START",
    "SEARCH",
    "Approximation",
    "Counted",
    "Estimate",
    "Factor",
    "Method",
    "Stopped",
    "count_solutions",
    "default_methods",
]
