"""One solution for the engine's listing to go around: found by the sat backend (the native
search under its budget, then CaDiCaL), as the color of each cell.

The engine's listing is a depth-first probing search, each branch trying the background
first. On some puzzles it finds no solution for tens of seconds where CDCL finds one in under
one (a random 30x30 none in 10 s; webpbn's Sierp none in 20 s). Told a solution, each branch
tries that solution's color first: the search goes straight to it and lists around it, where
the others are (that 30x30 222,521 solutions in 10 s, Sierp 161,157; BENCHMARKS.md, round 30).
The guide orders the colors tried, nothing else: the listing still gives every solution once.

While the search for it runs, the listing waits: the stream closes its listing's threads
and calls `guide_for`; the listing beside a count runs on the count's thread, which looks at
the search (`guide_for` on a `runtime.background.Helper` thread) between its other work.
Either way the search has the cores: beside the stream's threads, a random 45x45 gave no
solution in 150 s where `solve` finds one in 58-114 s (BENCHMARKS.md, round 31). Where the
search proves there is no solution, the listing need not go on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from satnono.backends import SearchOptions
from satnono.core.grids import decided_colors
from satnono.pipeline.prepare import Prepared
from satnono.runtime.deadline import Deadline

#: Seconds the engine's listing may go without a first solution before a guide is sought
#: (the listing waits meanwhile, and starts again guided when one is found).
GUIDE_AFTER = 1.0


@dataclass(frozen=True)
class Sought:
    """What the search for a guide came to: one solution's colors (a color a cell), or the
    proof that there is none (`unsolvable`: the search was exhausted without one; a listing
    that has found none need not go on), or neither within its deadline. `solver` names the
    search that decided."""

    colors: tuple[int, ...] | None
    unsolvable: bool = False
    solver: str | None = None


def guide_for(prepared: Prepared, deadline: Deadline) -> Sought:
    """One solution's colors, or that there is none, by the sat backend within `deadline`."""
    from satnono.backends.sat import SatBackend

    found: list[Sequence[int]] = []

    def first(decided: Sequence[int]) -> bool:
        found.append(decided)
        return False  # one is enough

    residual = prepared.residual()
    report = SatBackend().search_excluding(residual, SearchOptions(limit=1), deadline, first)
    solver = report.stats.get("solver")
    if not found:
        return Sought(None, report.exhausted and not report.timed_out, solver)
    if len(found[0]) != prepared.puzzle.width * prepared.puzzle.height:
        return Sought(None)
    return Sought(tuple(decided_colors(found[0])), False, solver)
