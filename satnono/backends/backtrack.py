"""The backtrack backend: satnono's native search alone, with no SAT or CP library.

Propagation, full probing and a depth-first search that branches on probing scores with Luby
restarts, in the native engine (satnono.logic.native): the search of the field's standard, so that
`satnono compare` pits the SAT backends against it. Restarts serve finding one or two
solutions; enumerating more runs without them.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

from satnono.backends import SearchReport, SearchTask
from satnono.logic import native


class BacktrackBackend:
    name: ClassVar[str] = "backtrack"

    def search(self, task: SearchTask) -> SearchReport:
        """Reads `limit` (restarts only up to two solutions) and `seed` (the restarts' noise)."""
        residual, options, deadline, on_solution = task.parts()
        started = time.perf_counter()
        search = native.Engine(residual.puzzle).search(
            residual.domains, residual.lines, restarts=0 < options.limit <= 2,
            seed=max(options.seed, 0),
        )  # fmt: skip
        report = SearchReport(exhausted=False)
        for decided in search.solutions(deadline):
            if not on_solution(decided):
                break
        else:
            report.exhausted = search.outcome == "exhausted"
            report.timed_out = search.outcome == "timeout"
        stats: dict[str, Any] = {"solver": "backtrack", **search.stats()}
        stats["search_seconds"] = round(time.perf_counter() - started, 4)
        report.stats = stats
        return report


BACKEND = BacktrackBackend()
