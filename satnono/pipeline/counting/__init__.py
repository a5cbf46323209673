"""Exact and approximate solution counting.

The native engine counts (engine/src/count/): line logic and probing, then the independent
components (cells no unsplit stretch of a line joins), each by a sweep along it when it is
narrow (a dynamic program over the lines' automaton states) or by the counting search (line
logic, decomposition and a store of sub-counts) otherwise, their counts multiplied. Beside
it, the backend lists the first solutions and the engine's probing search lists on (up to
listing.LISTING_LIMIT): where the solutions run out first, that is the count. Ganak, an
exact model counter, joins after a head start on the residual's CNF in a forked child, and
the first exact answer wins; with `approximate`, ApproxMC joins too and gives an
(epsilon, delta)-guaranteed estimate where no exact count finishes. Every count is a Python
int, exact however large; the rule and its measurements are in BENCHMARKS.md (counting).
"""

from satnono.pipeline.counting.count import RACE_HEAD_START, count_solutions, default_methods
from satnono.pipeline.counting.counters import APPROXMC, GANAK, Estimate
from satnono.pipeline.counting.result import (
    SEARCH,
    Approximation,
    Counted,
    Factor,
    Method,
    Stopped,
)

__all__ = [
    "APPROXMC",
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
