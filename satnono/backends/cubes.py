"""The cubes backend: cube-and-conquer, one hard puzzle spread over the cores of a Dask cluster.

Split: the lookahead of satnono.backends.lookahead cuts the residual into cubes that partition
its solutions (when the engine lists every solution, along the probing search's own
branchings instead). Conquer (on the cluster): every cube is a Dask task, its solutions listed
by the engine's probing search when many are wanted (as the pipeline lists a hard puzzle's),
else searched by the sat backend, under the same options and deadline (one cube's task:
satnono.backends.cube_task). When workers wait for work, a long cube gives way: the engine's
search gives away the rest of its space, a sat backend's cube is split again.
The first solutions found are reported as they come; when every cube is exhausted, no other
solution exists. Each cube's time is kept, so that the run's makespan can be simulated for
more workers than this machine has (`simulated_makespan`).
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from typing import Any, ClassVar, NamedTuple

from satnono.backends import (
    Residual,
    SearchOptions,
    SearchReport,
    SearchTask,
    lists_natively,
)
from satnono.backends.cube_task import (
    CubeResult,
    every_undecided_cell,
    forget_cubes,
    solve_cube,
    stop_cubes,
)
from satnono.backends.lookahead import Cube, split, split_for
from satnono.runtime.deadline import Deadline, Timeout

#: Residuals with fewer undecided cells are searched here by the sat backend, without a
#: cluster: starting one takes 1-2 s, more than such a residual takes to solve (every survey
#: puzzle, 300-3,300 cells left, is decided by the sat backend in at most 1.1 s).
IN_PROCESS_CELLS = 200
#: Worker counts the makespan is simulated for (issue 21: beyond this 2-core machine).
SIMULATED_WORKERS = (8, 64, 512)
#: Seconds a local cluster takes to start: 8 worker processes 1.4-2.0 s on this 2-core
#: machine (tools: /tmp scratch timing of satnono.runtime.dask.client).
CLUSTER_START = 2.0
#: Seconds a local cluster whose workers are killed at the deadline may take to close on two
#: busy cores (tests/test_abuse.py, eight workers: up to 3 s past a 4 s timeout, 1.9 s past a
#: 9 s one): a local cluster's cubes stop that long before the deadline.
CLUSTER_STOP = 2.0
#: The same for a local cluster whose workers are threads (the engine's listing): it starts
#: in 0.9 s (importing Dask), its cubes end within a slice of their search (0.1 s) at their
#: deadline, and it closes in 0.02 s.
THREADS_START = 1.0
THREADS_STOP = 0.3
#: Seconds between a cube's looks at whether workers wait for work, for the cubes of the first
#: split (twice as long for parts that may give way again, GIVE_WAY_LEVELS): see _GiveWay.
CUBE_BUDGET = 4.0
#: How many times a line of cubes gives way: a cube of the first split may, its parts run to
#: the end. Measured on cubes-5000018-30 (every solution, 2 workers): the lookahead left 61 s of
#: its 67 s in one cube, and at each of three more levels in one part again, each giving way
#: cost a restart and gave the idle worker nothing: 89 s against 70 s on one worker.
GIVE_WAY_LEVELS = 1


def simulated_makespan(
    seconds: Sequence[float], workers: int, parents: Sequence[int | None] | None = None
) -> float:
    """When the last cube would end on `workers` workers, each taking the next cube in order
    as soon as it is free (Dask's order for tasks submitted together, without stealing). A
    cube with a parent (a part of a cube that was stopped and split) can start only once its
    parent has ended."""
    import heapq

    parents = parents or [None] * len(seconds)
    ends: list[float] = []
    free = [0.0] * min(workers, max(1, len(seconds)))
    for duration, parent in zip(seconds, parents, strict=True):
        start = heapq.heappop(free)
        if parent is not None:
            start = max(start, ends[parent])
        ends.append(start + duration)
        heapq.heappush(free, start + duration)
    return max(ends, default=0.0)


class _Task(NamedTuple):
    """A cube to search: the task it is a part of (None: the first split's), its budget
    (seconds between looks; None: it never gives way) and the solutions found in it before."""

    cube: Cube
    parent: int | None
    budget: float | None
    excluded: tuple[tuple[int, ...], ...]


class _Conquest:
    """The cubes to conquer as the run goes, in order: the split's, then the parts of every
    cube that gave way (dynamic cube-and-conquer). When workers wait for work (fewer cubes
    running or queued than workers), a cube still running at its next look (_GiveWay) stops
    and is split again, each part excluding the solutions already found in it; so a cube
    holding most of the work is spread over the workers instead of holding one of them to
    the end. Parts give way again only down to GIVE_WAY_LEVELS (looking twice as seldom).
    An iterator of task arguments that refills: `each_result` takes the next one whenever one
    finishes, after `finished`."""

    def __init__(
        self,
        residual: Residual,
        cubes: list[Cube],
        options: SearchOptions,
        deadline: Deadline,
        workers: int,
    ) -> None:
        """`workers`: how many cubes the cluster runs at once (split_for's count)."""
        import uuid

        self.residual = residual
        self.options = replace(options, workers=None, cubes=None)
        self.deadline = deadline
        self.workers = max(1, workers)
        self.parts = max(2, self.workers) * 2
        self.waiting: deque[_Task] = deque(_Task(cube, None, CUBE_BUDGET, ()) for cube in cubes)
        self.taken: list[_Task] = []
        self.seconds: list[float | None] = []
        self.resplit = 0
        #: The Dask Event set while workers wait for work; None while none is needed (fewer
        #: cubes than workers from the start: they give way at their first look).
        #: This run's name: its workers' Event's, and its cubes' for `stop_cubes`.
        self.key = f"satnono-cubes-{uuid.uuid4().hex}"
        self.event = None if len(cubes) < self.workers else self.key
        self.event_set = False

    def __iter__(self) -> _Conquest:
        return self

    def __next__(self) -> tuple[Any, ...]:
        if not self.waiting:
            raise StopIteration  # for now: a stopped cube may bring more
        cube, _, budget, excluded = entry = self.waiting.popleft()
        number = len(self.taken)
        self.taken.append(entry)
        self.seconds.append(None)
        residual = self.residual
        return (
            residual.puzzle, residual.lines, cube.domains, self.options,
            self.deadline.remaining(), number, budget, excluded, self.event, self.key,
        )  # fmt: skip

    def finished(self, result: CubeResult, client: Any = None) -> None:
        """A task's result is in: a cube that gave way is split (its parts wait their turn),
        and the Event says again whether workers wait for work (through `client`)."""
        self.seconds[result.number] = result.seconds
        if result.stopped:
            self.split_again(result)
        left = self.seconds.count(None) + len(self.waiting)  # running or queued, and waiting
        wanted = 0 < left < self.workers
        if client is not None and self.event is not None and wanted != self.event_set:
            from distributed import Event

            event = Event(self.event, client=client)
            if wanted:
                event.set()
            else:
                event.clear()
            self.event_set = wanted

    def split_again(self, result: CubeResult) -> None:
        """Split the cube of a task that gave way; its parts wait their turn."""
        cube, _, budget, excluded = self.taken[result.number]
        found = (*excluded, *result.solutions)
        if result.parts:  # the engine's search gave away what it had not done: no level limit
            children = [Cube((), part) for part in result.parts]
            found = excluded  # the parts hold none of the solutions it found
            looks = budget
            self.resplit += 1
        else:
            part = replace(self.residual, domains=cube.domains)
            children, _ = split(part, self.parts, self.deadline)
            if len(children) == 1 and children[0].domains == cube.domains:
                children = [cube]  # nothing left to split on: the same cube, for longer
            else:
                self.resplit += 1
            again = self.level(result.number) + 1 < GIVE_WAY_LEVELS
            looks = budget * 2 if budget is not None and again else None
        for child in children:
            inside = tuple(s for s in found if all(map(_within, s, child.domains)))
            self.waiting.append(_Task(child, result.number, looks, inside))

    def level(self, number: int) -> int:
        """How many times the cubes holding task `number`'s cube gave way before it."""
        parent = self.taken[number].parent
        return 0 if parent is None else self.level(parent) + 1


def cluster_start(threads: bool = False) -> float:
    """Seconds a local cluster may take to start now: CLUSTER_START on an idle machine
    (THREADS_START when its workers are threads), longer in proportion to the load on its cores
    (8 workers took 10.5 s to start on 2 cores busy with 6 other processes, 1.4-2.0 s on idle
    ones)."""
    from satnono.backends import usable_cores  # read at the call: the tests replace it

    try:
        load = os.getloadavg()[0]
    except OSError:  # not measured here
        load = 0.0
    return (THREADS_START if threads else CLUSTER_START) * (1.0 + load / usable_cores())


def _in_process(task: SearchTask, stats: dict[str, Any] | None = None) -> SearchReport:
    """The sat backend on the whole residual in this process: for a residual too small to
    split, or a deadline too near for a cluster."""
    from satnono.backends import load_backend

    report = load_backend("sat").search(task)
    report.stats.update(stats or {}, cubes=0, in_process=True)
    return report


def _within(value: int, domain: int) -> bool:
    return not value & ~domain


class CubesBackend:
    name: ClassVar[str] = "cubes"

    def search(self, task: SearchTask) -> SearchReport:
        """Reads `workers`, `scheduler` and `cubes`; solver, encoding and seed go to the sat
        backend in every cube."""
        residual, options, deadline, on_solution = task.parts()
        from satnono.runtime.dask import check_worker_processes_can_start, run_on_cluster
        from satnono.runtime.solver_kinds import canonical_solver

        if residual.unknown < IN_PROCESS_CELLS:
            return _in_process(task)
        listing = lists_natively(options) and every_undecided_cell(residual)
        # When the engine lists every cube, a local cluster's workers are threads of this
        # process (its search lets the GIL go): no worker process to start (0.9 s against
        # 1.7 s here) or close, no solution pickled on its way back (BENCHMARKS.md "The cubes
        # in threads"); an early end cancels the cubes' deadlines, as a thread cannot be killed.
        threads = listing and options.scheduler == "local"
        if not threads:  # before any work is done
            check_worker_processes_can_start(options.scheduler)
        stats: dict[str, Any] = {"solver": canonical_solver(options.solver)}
        try:
            cubes, workers = split_for(residual, options, deadline, stats, listing)
        except Timeout:
            return SearchReport(exhausted=False, timed_out=True, stats=stats)
        if not cubes:
            return SearchReport(exhausted=True, stats=stats)
        # No cluster started for nothing: one that could not start, work and close by the
        # deadline (with the split in the engine, a 4 s timeout leaves 3.9 s, and eight
        # workers killed at the deadline overran it by up to 3 s on two busy cores). The
        # time left goes to the sat backend in this process instead.
        remaining = deadline.remaining()
        stopping = THREADS_STOP if threads else CLUSTER_STOP
        starting = cluster_start(threads) + stopping if options.scheduler == "local" else 0.0
        if remaining is not None and remaining <= starting:
            return _in_process(task, stats)
        report = SearchReport(exhausted=False, stats=stats)
        # A local cluster's cubes stop CLUSTER_STOP before the deadline, the time its killed
        # workers take to close on busy cores (8 workers on 2 cores overran a 9 s timeout by
        # 1.9 s when the cubes ran to the deadline itself); THREADS_STOP for threads.
        if remaining is not None and options.scheduler == "local":
            deadline = deadline.sooner(remaining - stopping)
        conquest = _Conquest(residual, cubes, options, deadline, workers)
        conquer_started = time.perf_counter()

        def finished(_: int, future: Any) -> bool:
            result: CubeResult = future.result()
            if result.timed_out:
                report.timed_out = True
            try:  # first, so that the cube's time is kept even if its solutions end the run
                conquest.finished(result, future.client)
            except Timeout:
                report.timed_out = True
            for decided in result.solutions:
                if deadline.expired():  # checking a large result must not outrun the run
                    report.timed_out = True
                    return False
                if not on_solution(list(decided)):
                    return False
            return not report.timed_out

        # Stopped early (enough solutions, the deadline): the cubes running are not waited for.
        try:
            report.exhausted = run_on_cluster(
                options.scheduler, workers, solve_cube, conquest, finished, deadline.expired,
                threads=threads, stop_tasks=partial(stop_cubes, conquest.key) if threads else None,
            )  # fmt: skip
        finally:
            forget_cubes(conquest.key)
        report.timed_out = report.timed_out or (not report.exhausted and deadline.expired())
        report.exhausted = report.exhausted and not report.timed_out
        stats["conquer_seconds"] = round(time.perf_counter() - conquer_started, 4)
        stats["cube_seconds"] = times = conquest.seconds
        stats["cubes_split_again"] = conquest.resplit
        if all(t is not None for t in times):
            done = [t for t in times if t is not None]
            parents = [task.parent for task in conquest.taken]
            stats["cpu_seconds"] = round(sum(done), 4)
            stats["simulated_makespan"] = {
                str(n): round(simulated_makespan(done, n, parents), 4) for n in SIMULATED_WORKERS
            }
        return report


BACKEND = CubesBackend()
