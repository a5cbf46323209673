"""Counting on a Dask cluster: the residual split into cubes (satnono.backends.cubes), every
cube counted by a worker with satnono's own counting, and the cubes' counts added up.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from satnono.backends import Residual, SearchOptions, usable_cores
from satnono.backends.cubes import CUBES_PER_WORKER, split
from satnono.model import Puzzle
from satnono.runtime.dask import client, each_result
from satnono.runtime.deadline import Deadline

#: Counts the grids one cube's domains allow within some seconds: (count, exact). A function
#: of a module (Dask sends it by name): satnono.counting.count.count_cube.
CubeCounter = Callable[[Puzzle, tuple[int, ...], float | None], tuple[int, bool]]


def count_by_cubes(
    residual: Residual, options: SearchOptions, deadline: Deadline, counter: CubeCounter
) -> tuple[int, bool, dict[str, Any]]:
    """The residual's solutions counted cube by cube on the cluster by `counter`: their sum,
    whether it is exact (every cube counted to the end), and the split's figures."""
    workers = options.workers or usable_cores()
    started = time.perf_counter()
    cubes, failed = split(residual, options.cubes or CUBES_PER_WORKER * workers, deadline)
    stats: dict[str, Any] = {"cubes": len(cubes), "failed_literals": failed,
                             "split_seconds": round(time.perf_counter() - started, 4)}  # fmt: skip
    counts: list[tuple[int, bool] | None] = [None] * len(cubes)
    tasks = [(residual.puzzle, cube.domains, deadline.remaining()) for cube in cubes]

    def finished(number: int, future: Any) -> bool:
        counts[number] = future.result()
        return True

    cluster = client(options.scheduler, workers)
    with cluster as dask:
        done = each_result(dask, counter, tasks, finished, deadline.expired)
        cluster.abandoned = not done
    total = sum(count for count, _ in filter(None, counts))
    exact = done and all(entry is not None and entry[1] for entry in counts)
    stats["counted_cubes"] = sum(1 for entry in counts if entry is not None and entry[1])
    return total, exact, stats
