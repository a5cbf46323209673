"""Counting on a Dask cluster: the residual split into cubes (satnono.backends.cubes), every
cube counted by a worker with satnono's own counting, and the cubes' counts added up.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from satnono.backends import Residual, SearchOptions
from satnono.backends.lookahead import split_for
from satnono.core.model import Puzzle
from satnono.runtime.dask import run_on_cluster
from satnono.runtime.deadline import Deadline

#: Counts the grids one cube's domains allow within some seconds: (count, exact). A function
#: of a module (Dask sends it by name): satnono.pipeline.counting.count.count_cube.
CubeCounter = Callable[[Puzzle, tuple[int, ...], float | None], tuple[int, bool]]


def count_by_cubes(
    residual: Residual, options: SearchOptions, deadline: Deadline, counter: CubeCounter
) -> tuple[int, bool, dict[str, Any]]:
    """The residual's solutions counted cube by cube on the cluster by `counter`: their sum,
    whether it is exact (every cube counted to the end), and the split's figures."""
    stats: dict[str, Any] = {}
    cubes, workers = split_for(residual, options, deadline, stats)
    counts: list[tuple[int, bool] | None] = [None] * len(cubes)
    tasks = [(residual.puzzle, cube.domains, deadline.remaining()) for cube in cubes]

    def finished(number: int, future: Any) -> bool:
        counts[number] = future.result()
        return True

    done = run_on_cluster(options.scheduler, workers, counter, tasks, finished, deadline.expired)
    total = sum(count for count, _ in filter(None, counts))
    exact = done and all(entry is not None and entry[1] for entry in counts)
    stats["counted_cubes"] = sum(1 for entry in counts if entry is not None and entry[1])
    return total, exact, stats
