"""Cube-and-conquer (satnono.backends.cubes) and the sat backend's handover from the native
search to CDCL."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import satnono
from satnono import backends
from satnono.backends import SearchOptions
from satnono.backends import sat as sat_backend
from satnono.backends.cube_task import solve_cube
from satnono.backends.cubes import simulated_makespan
from satnono.backends.lookahead import split
from satnono.core.grids import domains_to_grid
from satnono.core.model import Puzzle
from satnono.formats.generate import puzzle_from_grid
from satnono.pipeline.prepare import prepare
from satnono.runtime.deadline import Deadline
from support import (
    EXAMPLES,
    brute_force_solutions,
    load_tool,
    long_listing,
    puzzles,
    run_satnono,
)


def _cube_solutions(
    puzzle: Puzzle, count: int, listing: bool = False
) -> list[set[tuple[int, ...]]]:
    """Every cube's solutions (whole grids), each cube searched in-process: the lookahead's
    cubes, or with `listing` the search's own branchings."""
    prepared = prepare(puzzle)
    assert prepared.reason is None
    cubes, _ = split(prepared.residual(), count, listing=listing)
    found = []
    for number, cube in enumerate(cubes):
        result = solve_cube(puzzle, None, cube.domains, SearchOptions(), None, number)
        assert result.exhausted
        found.append({tuple(d) for d in result.solutions})
    return found


#: Cubes searched by the sat backend, split again when they give way (a cube the engine
#: lists gives away the rest of its search instead).
GIVING_WAY = SearchOptions(solver="glucose3")


def _conquered(
    puzzle: Puzzle, count: int, options: SearchOptions = GIVING_WAY
) -> tuple[list[tuple[int, ...]], int]:
    """The solutions of a dynamic conquest (a cube stopped at its budget is split again), its
    tasks run here one after another as Dask would run them, and how many cubes it split
    again."""
    from satnono.backends.cubes import _Conquest

    prepared = prepare(puzzle)
    cubes, _ = split(prepared.residual(), count, listing=backends.lists_natively(options))
    conquest = _Conquest(prepared.residual(), cubes, options, Deadline(None), 2)
    conquest.event = None  # no Dask here: a cube gives way at every look
    found: list[tuple[int, ...]] = []
    tasks = list(conquest)
    while tasks:
        result = solve_cube(*tasks.pop(0))
        assert not result.timed_out
        found += result.solutions
        conquest.finished(result)
        tasks += list(conquest)  # the parts of a stopped cube
    return found, conquest.resplit


@pytest.mark.parametrize("listing", [False, True])
def test_cubes_partition_the_solutions(listing: bool) -> None:
    puzzle = satnono.read_puzzle(str(EXAMPLES / "switches-8.non"))
    parts = _cube_solutions(puzzle, 16, listing)
    assert len(parts) >= 16
    every = set().union(*parts)
    assert sum(len(part) for part in parts) == len(every) == 256  # disjoint, and all of them


@pytest.mark.parametrize("levels", [1, 100])
def test_cubes_stopped_at_their_budget_are_split_again_and_lose_or_repeat_nothing(
    levels: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A budget far too short for any cube: every one stops, part-way through its solutions,
    and is split again (and again); the solutions found before each stop are excluded from
    its parts, so each of the 256 comes out exactly once."""
    from satnono.backends import cubes

    monkeypatch.setattr(cubes, "CUBE_BUDGET", 0.0002)
    monkeypatch.setattr(cubes, "GIVE_WAY_LEVELS", levels)  # 100: parts of parts give way too
    puzzle = satnono.read_puzzle(str(EXAMPLES / "switches-8.non"))
    found, resplit = _conquered(puzzle, 2)
    assert resplit > 0
    assert len(found) == len(set(found)) == 256


@settings(max_examples=40, deadline=None)
@given(puzzles(max_width=5, max_height=5, max_colors=3))
def test_a_dynamic_conquest_finds_exactly_the_brute_force_solutions(puzzle: Puzzle) -> None:
    from satnono.backends import cubes

    expected = brute_force_solutions(puzzle)
    if prepare(puzzle).reason is not None:
        assert not expected
        return
    budget, levels = cubes.CUBE_BUDGET, cubes.GIVE_WAY_LEVELS
    # hypothesis: no monkeypatch fixture per example
    cubes.CUBE_BUDGET, cubes.GIVE_WAY_LEVELS = 0.0001, 100
    try:
        conquests = [_conquered(puzzle, 2, options)[0] for options in (GIVING_WAY, SearchOptions())]
    finally:
        cubes.CUBE_BUDGET, cubes.GIVE_WAY_LEVELS = budget, levels
    for found in conquests:  # the sat backend's, giving way; the engine's listing
        grids = [domains_to_grid(puzzle, list(decided)) for decided in found]
        assert len(grids) == len(set(grids))
        assert set(grids) == expected


def test_a_cube_gives_way_only_at_a_look_that_finds_workers_waiting() -> None:
    from satnono.backends.cube_task import _GiveWay

    waiting = [False]
    run = Deadline(None)
    own = _GiveWay(run, 0.2, lambda: waiting[0])
    time.sleep(0.3)
    assert not own.expired() and own.remaining() is None  # busy workers: the cube goes on
    waiting[0] = True
    assert not own.expired()  # not before its next look, 0.2 s on
    time.sleep(0.25)
    assert own.expired() and own.remaining() == 0.0
    waiting[0] = False
    assert own.expired()  # once given way, for good
    assert _GiveWay(Deadline(0), 60, lambda: False).expired()  # the run's deadline still holds


def test_the_conquest_tells_the_cubes_through_dask_when_workers_wait() -> None:
    """Four cubes on two workers: the Event is set once fewer cubes are left than workers,
    cleared when a cube that gave way brings parts, and read in a task by `_workers_waiting`."""
    from distributed import Client, Event

    from satnono.backends.cube_task import CubeResult, _workers_waiting
    from satnono.backends.cubes import _Conquest

    puzzle = satnono.read_puzzle(str(EXAMPLES / "switches-8.non"))
    residual = prepare(puzzle).residual()
    cubes, _ = split(residual, 4)
    assert len(cubes) == 4
    conquest = _Conquest(residual, cubes, SearchOptions(workers=2), Deadline(None), 2)
    assert len(list(conquest)) == 4 and conquest.event is not None
    with Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as dask:
        event = Event(conquest.event, client=dask)

        def end(number: int, stopped: bool = False) -> bool:
            conquest.finished(CubeResult(number, (), not stopped, False, 0.1, stopped), dask)
            return bool(event.is_set())

        assert [end(0), end(1)] == [False, False]  # two cubes left for two workers
        assert end(2)  # one left: a worker waits
        assert dask.submit(_workers_waiting, conquest.event).result() is not None
        assert dask.submit(lambda name: _workers_waiting(name)(), conquest.event).result()
        assert not end(3, stopped=True)  # it gave way: its parts are work for both
        assert conquest.resplit == 1
        parts = list(conquest)
        assert len(parts) >= 2
        assert {part[6] for part in parts} == {None}  # the parts do not give way again
        assert [end(4 + n) for n in range(len(parts))][-2:] == [True, False]  # none left


def test_on_a_scheduler_the_workers_are_the_clusters_threads_not_this_machines_cores() -> None:
    """Without --workers, a run on an existing cluster splits for, and judges "workers wait"
    by, the threads of the cluster's workers (three here), not the cores of the machine that
    submits (found while closing issue 21: both used this machine's core count)."""
    from distributed import LocalCluster

    from satnono.backends.lookahead import CUBES_PER_WORKER, split_for

    puzzle = satnono.read_puzzle(str(EXAMPLES / "switches-8.non"))
    residual = prepare(puzzle).residual()
    with LocalCluster(
        n_workers=1, threads_per_worker=3, processes=False, dashboard_address=None
    ) as cluster:
        stats: dict[str, Any] = {}
        options = SearchOptions(scheduler=cluster.scheduler_address)
        cubes, workers = split_for(residual, options, Deadline(None), stats)
    assert workers == stats["workers"] == 3
    assert len(cubes) >= 3 * CUBES_PER_WORKER
    stats = {}
    assert split_for(residual, SearchOptions(workers=5), Deadline(None), stats)[1] == 5


def test_the_makespan_waits_for_a_stopped_cube_before_its_parts() -> None:
    # Two workers: cube 0 (4 s) is stopped and split into 2 and 3 (1 s each), cube 1 takes 1 s:
    # the parts start at 4 s, one on each worker.
    assert simulated_makespan([4.0, 1.0, 1.0, 1.0], 2, [None, None, 0, 0]) == 5.0
    assert simulated_makespan([4.0, 1.0, 1.0, 1.0], 2) == 4.0


@settings(max_examples=60, deadline=None)
@given(puzzles(max_width=5, max_height=5, max_colors=3), st.booleans())
def test_cubes_find_exactly_the_brute_force_solutions(puzzle: Puzzle, listing: bool) -> None:
    """Either split (the lookahead's, the search's branchings) partitions the solutions."""
    expected = brute_force_solutions(puzzle)
    prepared = prepare(puzzle)
    if prepared.reason is not None:
        assert not expected
        return
    found = [
        domains_to_grid(puzzle, list(decided))
        for part in _cube_solutions(puzzle, 4, listing)
        for decided in part
    ]
    assert len(found) == len(set(found))
    assert set(found) == expected


def test_simulated_makespan_takes_the_next_cube_on_the_first_free_worker() -> None:
    assert simulated_makespan([3, 1, 1, 1], 1) == 6
    assert simulated_makespan([3, 1, 1, 1], 2) == 3
    assert simulated_makespan([1, 1, 1, 3], 2) == 4  # the long one comes last
    assert simulated_makespan([2, 2], 512) == 2


def _json_of(*args: str) -> dict[str, Any]:
    """The CLI's JSON, run in a process of its own: a Dask cluster started in the test
    process would leave its resource tracker running as a child of the tests."""
    result = run_satnono(*args, "--json")
    assert result.returncode in (0, 1), result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def _two_regions(folder: Path) -> Path:
    """needs-search-25 (578 cells left, one solution) beside a 2x2 switch (two): a puzzle
    whose large region goes to the cluster and whose small one is searched in-process."""
    from satnono.formats import write_puzzles

    large = satnono.solve(satnono.read_puzzle(str(EXAMPLES / "needs-search-25.non"))).grids[0]
    width = len(large[0])
    switch = [(1, 0), (0, 1)]
    grid = [*large, (0,) * width, *(row + (0,) * (width - 2) for row in switch)]
    path = folder / "two-regions.non"
    write_puzzles([puzzle_from_grid(tuple(grid), keep_goal=False)], path)
    return path


def test_the_cubes_backend_solves_on_a_local_dask_cluster(tmp_path: Path) -> None:
    both = _json_of(
        "solve", str(_two_regions(tmp_path)), "--backend", "cubes", "--max-solutions", "0",
        "--workers", "1", "--cubes", "8",
    )  # fmt: skip
    assert both["status"] == "multiple" and both["complete"]
    assert both["solutions_found"] == 2
    unique = _json_of(
        "solve", str(EXAMPLES / "needs-search-25.non"), "--backend", "cubes", "--workers", "1",
        "--cubes", "8",
    )  # fmt: skip
    assert unique["status"] == "unique" and unique["backend"] == "cubes"
    stats = unique["stats"]
    assert stats["cubes"] >= 1 and len(stats["cube_seconds"]) == stats["cubes"]
    assert set(stats["simulated_makespan"]) == {"8", "64", "512"}


def test_the_cube_that_ends_the_run_keeps_its_time(tmp_path: Path) -> None:
    """15x15 with one black cell in every row and column (15! solutions, 225 cells left: the
    cluster's): the first cube to find two solutions ends the run, and its time is in the
    stats (it was dropped when the solutions were reported before the time was kept)."""
    from satnono.formats import write_puzzles

    identity = tuple(tuple(int(row == column) for column in range(15)) for row in range(15))
    path = tmp_path / "permutation-15.non"
    write_puzzles([puzzle_from_grid(identity, keep_goal=False)], path)
    ended = _json_of(
        "solve", str(path), "--backend", "cubes", "--workers", "1", "--cubes", "4",
        "--max-solutions", "2",
    )  # fmt: skip
    assert ended["status"] == "multiple" and ended["stats"]["cubes"] >= 4
    assert any(seconds is not None for seconds in ended["stats"]["cube_seconds"])


def test_a_small_residual_is_searched_without_a_cluster() -> None:
    puzzle = satnono.read_puzzle(str(EXAMPLES / "switches-8.non"))
    result = satnono.solve(puzzle, backend="cubes", max_solutions=0)
    assert result.solutions_found == 256 and result.stats["in_process"]


def test_counts_add_up_over_the_cubes() -> None:
    counted = _json_of(
        "count", str(EXAMPLES / "permutation-9.non"), "--backend", "cubes", "--workers", "1",
        "--cubes", "6",
    )  # fmt: skip
    assert counted["exact"] and counted["count"] == 362880
    assert [factor["method"] for factor in counted["factors"]] == ["cubes"]


def test_the_cubes_backend_checks_its_options() -> None:
    puzzle = satnono.read_puzzle(str(EXAMPLES / "duck.non"))
    for name, value in (("workers", 0), ("cubes", "8"), ("scheduler", 3)):
        with pytest.raises(satnono.InputError, match=name):
            satnono.solve(puzzle, backend="cubes", **{name: value})


def test_the_handover_to_cdcl_goes_on_past_the_solutions_already_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With no budget for the native search, CaDiCaL on the probed residual must find the
    same solutions, none twice, whatever probing had reported."""
    puzzle = satnono.read_puzzle(str(EXAMPLES / "switches-8.non"))
    monkeypatch.setattr(sat_backend, "SEARCH_WORK", 0)
    monkeypatch.setattr(sat_backend, "SMALL_SEARCH_WORK", 0)
    monkeypatch.setattr(backends, "NATIVE_STREAM_FROM", 10**9)  # the sat backend lists them
    result = satnono.solve(puzzle, max_solutions=300, timeout=60)
    assert result.complete and result.solutions_found == 256
    assert result.solver == sat_backend.PROBED_SOLVER and "native_probes" in result.stats
    assert len({tuple(map(tuple, grid)) for grid in result.grids}) == len(result.grids)


def test_the_second_solver_skips_blocked_solutions() -> None:
    puzzle = satnono.read_puzzle(str(EXAMPLES / "switches-8.non"))
    residual = prepare(puzzle).residual()
    first: list[list[int]] = []
    sat_backend._search(
        residual, SearchOptions(), "glucose3", Deadline(None), lambda d: first.append(d) or True
    )
    rest: list[list[int]] = []
    report = sat_backend._search(
        residual, SearchOptions(), "cadical195", Deadline(None),
        lambda d: rest.append(d) or True, first[:100],
    )  # fmt: skip
    assert report.exhausted and len(first) == 256
    assert {tuple(d) for d in rest} == {tuple(d) for d in first[100:]}


def test_a_named_solver_gets_line_logics_residual_alone() -> None:
    """A named solver is what is being compared: no native search or probing before it."""
    puzzle = satnono.read_puzzle(str(EXAMPLES / "needs-search-25.non"))
    result = satnono.solve(puzzle, solver="glucose3")
    assert result.status == "unique" and result.solver == "glucose3"
    assert "native_probes" not in result.stats


def test_a_sooner_deadline_passes_with_the_outer_one() -> None:
    outer = Deadline(None)
    inner = outer.sooner(60)
    assert not inner.expired() and 59 < (inner.remaining() or 0) <= 60
    outer.cancel()
    assert inner.expired() and inner.remaining() == 0
    assert (Deadline(1).sooner(60).remaining() or 0) <= 1
    short = Deadline(60).sooner(0.01)
    time.sleep(0.02)
    assert short.expired()


def test_compare_runs_the_cubes_backend_inside_its_own_workers(tmp_path: Path) -> None:
    """A Dask worker may not start processes: there the cubes are solved by threads."""
    csv = tmp_path / "runs.csv"
    result = run_satnono(
        "compare", str(EXAMPLES / "needs-search-25.non"), str(EXAMPLES / "switches-8.non"),
        "--backends", "sat,cubes", "--timeout", "60", "--csv", str(csv),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "daemonic" not in result.stderr and "Port" not in result.stderr
    rows = [line.split(",") for line in csv.read_text().splitlines()[1:]]
    cubes = [row for row in rows if "cubes" in row]
    assert len(cubes) == 2 and not any("error" in row for row in cubes)
    # Decided, not timed out: a solver forked from a process running a Dask cluster of
    # threads could start no cluster of its own (it waited out the 60 s).
    assert sorted(row[2] for row in cubes) == ["multiple", "unique"]


def test_the_scaling_benchmark_reports_both_worker_counts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    tool = load_tool("bench_cubes")
    puzzle = str(EXAMPLES / "needs-search-25.non")
    assert tool.main([puzzle, "--cubes", "4", "--repeat", "1", "--solver", "glucose3"]) == 0
    table = capsys.readouterr().out
    assert "| 1 |" in table and "| 2 |" in table and "Speed-up from 1 to 2 workers" in table
    assert table.count("| unique | 1 |") == 2


_SCRIPT = """import random
import satnono
from satnono.formats.generate import puzzle_from_grid, random_grid

def main():
    hard = puzzle_from_grid(random_grid(45, 45, 2, 0.45, random.Random(45)))
    try:
        result = satnono.solve(hard, backend="cubes", workers=2, timeout=4, max_solutions={wanted})
    except satnono.InputError as error:
        print("refused:", error)
    else:
        print("status:", result.status)
{call}
"""


@pytest.mark.parametrize(("guarded", "wanted"), [(False, 2), (True, 2), (False, 0)])
def test_a_plain_script_on_the_cubes_backend_works_or_gets_one_clear_line(
    tmp_path: Path, guarded: bool, wanted: int
) -> None:
    """A script without `if __name__ == "__main__":` died with "Nanny failed to start" and
    dozens of tracebacks (issue 32): Dask's worker processes re-run the script. It is refused
    at once with one line saying so; the guarded script solves. A listing of every solution
    starts no process (the engine lists its cubes in threads): the plain script runs it."""
    import subprocess
    import sys

    call = 'if __name__ == "__main__":\n    main()' if guarded else "main()"
    script = tmp_path / "plain.py"
    script.write_text(_SCRIPT.format(call=call, wanted=wanted))
    started = time.monotonic()
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    if guarded or wanted == 0:
        assert done.stdout.startswith("status: ") and "Traceback" not in done.stderr
    else:
        assert done.stdout.splitlines() == [
            f"refused: {script}: the cubes backend starts worker processes, which re-run this "
            'script: put its work under `if __name__ == "__main__":`'
        ]
        assert done.stderr == "" and time.monotonic() - started < 5


def test_a_local_cluster_is_given_longer_to_start_on_a_loaded_machine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """8 workers took 10.5 s to start on 2 cores busy with 6 other processes (1.4-2.0 s idle):
    the time a cubes run must have left before it starts one grows with the load."""
    import os

    from satnono.backends import cubes

    monkeypatch.setattr("satnono.backends.usable_cores", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert cubes.cluster_start() == cubes.CLUSTER_START
    assert cubes.cluster_start(threads=True) == cubes.THREADS_START < cubes.CLUSTER_START
    monkeypatch.setattr(os, "getloadavg", lambda: (6.0, 6.0, 6.0))
    assert cubes.cluster_start() == 4 * cubes.CLUSTER_START


def test_no_cluster_is_started_for_work_already_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    from satnono.runtime import dask

    def no_cluster(*_: object) -> None:
        raise AssertionError("a cluster was started")

    monkeypatch.setattr(dask, "client", no_cluster)
    assert not dask.run_on_cluster("local", 8, print, [()], lambda *_: True, lambda: True)


def _switches_cube() -> tuple[Puzzle, tuple[int, ...]]:
    """A cube of switches-8 (256 solutions) that holds more than one solution."""
    puzzle = satnono.read_puzzle(str(EXAMPLES / "switches-8.non"))
    cubes, _ = split(prepare(puzzle).residual(), 4)
    return puzzle, max(cubes, key=lambda cube: sum(d == 3 for d in cube.domains)).domains


def test_a_cube_lists_many_solutions_with_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every solution wanted: the engine's enumeration lists the cube (the sat backend is
    never asked), skipping those excluded; a few wanted: the sat backend searches it."""
    puzzle, domains = _switches_cube()
    expected = {
        tuple(d) for d in solve_cube(puzzle, None, domains, SearchOptions(), None, 0).solutions
    }
    asked: list[int] = []
    search_excluding = sat_backend.BACKEND.search_excluding

    def counted(*args: Any) -> Any:
        asked.append(1)
        return search_excluding(*args)

    monkeypatch.setattr(sat_backend.BACKEND, "search_excluding", counted)
    skipped = tuple(sorted(expected))[:3]
    listed = solve_cube(puzzle, None, domains, SearchOptions(), None, 0, excluded=skipped)
    assert listed.exhausted and not asked
    assert set(listed.solutions) == expected - set(skipped) and len(expected) > 3
    assert len(listed.solutions) == len(set(listed.solutions))
    two = solve_cube(puzzle, None, domains, SearchOptions(limit=2), None, 0)
    assert asked and len(two.solutions) == 2 and set(two.solutions) <= expected


def test_stopping_a_run_ends_its_cubes_running_in_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """A local cluster's workers are threads of the caller's process when the engine lists
    every cube, and a thread cannot be killed: an early end cancels the run's cubes, the ones
    running (within a slice of their search) and any that starts later (at once). (The cube
    gives its rest away only at the stop: on a fast machine it listed RESULT_CELLS cells of
    solutions within the 0.3 s before it, and gave its rest away then, not timed out.)"""
    import threading

    from satnono.backends import cube_task
    from satnono.backends.cube_task import _RUNNING, forget_cubes, stop_cubes

    monkeypatch.setattr(cube_task, "RESULT_CELLS", 10**12)

    puzzle = long_listing()
    domains = tuple(prepare(puzzle).residual().domains)
    results: list[Any] = []

    def cube() -> None:
        options = SearchOptions()  # every solution: the engine lists it
        results.append(solve_cube(puzzle, None, domains, options, None, 0, run_key="run"))

    running = threading.Thread(target=cube)
    started = time.monotonic()
    running.start()
    while "run" not in _RUNNING and running.is_alive():
        time.sleep(0.01)
    time.sleep(0.3)
    stop_cubes("run")
    running.join(10)
    assert not running.is_alive() and time.monotonic() - started < 5
    (stopped,) = results
    assert stopped.timed_out and not stopped.exhausted and "run" not in _RUNNING
    later = solve_cube(puzzle, None, domains, SearchOptions(), None, 1, run_key="run")
    assert later.timed_out and not later.solutions and later.seconds < 1
    forget_cubes("run")
    again = solve_cube(puzzle, None, domains, SearchOptions(limit=65), None, 2, run_key="run")
    assert len(again.solutions) == 65  # a run forgotten is not stopped
    forget_cubes("run")


def test_a_listing_on_eight_thread_workers_keeps_its_timeout(tmp_path: Path) -> None:
    """The cubes of a listing run in threads, which stop themselves at their deadline: so
    they keep 0.3 s for the end, not the 2 s a cluster of killed worker processes needs
    (a 6 s timeout listed for 4 s). A random 30x30 whose listing takes far longer, --timeout
    4: exit 3 when no cube has listed a solution by then (a slow machine), else 0 with the
    listing incomplete (it asserted 3 alone, which a faster machine's first cubes broke)."""
    from satnono.formats import write_puzzles

    path = tmp_path / "r30.non"
    write_puzzles([long_listing()], path)
    started = time.monotonic()
    done = run_satnono(
        "solve", str(path), "--backend", "cubes", "--workers", "8", "--max-solutions", "0",
        "--json", "--timeout", "4", timeout=60,
    )  # fmt: skip
    elapsed = time.monotonic() - started
    assert "Traceback" not in done.stderr, done.stderr[-500:]
    # (Once, on a loaded CI machine, it printed nothing: say how it ended, if it does again.)
    assert done.stdout, (done.returncode, elapsed, done.stderr[-500:])
    data = json.loads(done.stdout)
    assert done.returncode == (0 if data["solutions_found"] else 3) and not data["complete"]
    assert not data["stats"].get("in_process") and data["stats"]["workers"] == 8
    assert 3.3 < elapsed < 4 + 1.5  # its cubes ran past where a 2 s margin stops them (2.4 s)


def test_a_cube_the_engine_finds_nothing_in_goes_to_the_sat_backend(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from satnono.backends import cube_task

    puzzle, domains = _switches_cube()
    listed = solve_cube(puzzle, None, domains, SearchOptions(), None, 0)
    monkeypatch.setattr(cube_task, "NATIVE_FIRST_SOLUTION", -1.0)  # no time for its first
    searched = solve_cube(puzzle, None, domains, SearchOptions(), None, 0)
    assert searched.exhausted and set(searched.solutions) == set(listed.solutions)


def test_only_a_residual_holdingevery_undecided_cell_is_listed_by_the_engine() -> None:
    """The engine's enumeration decides every undecided cell of the grid: one of several
    components goes to the sat backend, the only one (or the whole grid) to the engine."""
    from satnono.backends.cube_task import every_undecided_cell

    several = prepare(satnono.read_puzzle(str(EXAMPLES / "permutations-11x6-color.non")))
    assert len(several.parts()) > 1
    assert not any(every_undecided_cell(several.residual(part)) for part in several.parts())
    assert every_undecided_cell(several.residual())
    single = prepare(satnono.read_puzzle(str(EXAMPLES / "switches-8.non")))
    assert [every_undecided_cell(single.residual(part)) for part in single.parts()] == [True]


def test_a_cube_the_engine_lists_gives_away_what_it_has_not_searched(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At every look (a budget far too short) the engine's search stops and gives away the
    rest of its space: its parts, given no solution to exclude, list each of the 256 exactly
    once between them."""
    from satnono.backends import cubes

    monkeypatch.setattr(cubes, "CUBE_BUDGET", 0.0002)
    puzzle = satnono.read_puzzle(str(EXAMPLES / "switches-8.non"))
    found, resplit = _conquered(puzzle, 2, SearchOptions())
    assert resplit > 2 and len(found) == len(set(found)) == 256


def test_a_cube_of_many_solutions_sends_them_back_as_it_goes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A cube the engine lists gives away its rest every RESULT_CELLS cells of solutions (here
    every 3 solutions), workers waiting or not: each result stays small, and nothing is lost
    or listed twice."""
    from satnono.backends import cube_task

    puzzle = satnono.read_puzzle(str(EXAMPLES / "switches-8.non"))
    monkeypatch.setattr(cube_task, "RESULT_CELLS", 3 * puzzle.width * puzzle.height)
    puzzle, domains = _switches_cube()
    first = solve_cube(puzzle, None, domains, SearchOptions(), None, 0)
    assert first.stopped and first.parts and 3 <= len(first.solutions) < 16
    found, resplit = _conquered(puzzle, 2, SearchOptions())
    assert resplit > 8 and len(found) == len(set(found)) == 256


def test_checking_a_large_result_stops_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """15! solutions, cubes listed by the engine and run here in turn (no cluster), each
    result up to RESULT_CELLS of them (37,282 here): checking them (slow here, 2 ms each) stops
    at the run's deadline, mid-result, instead of going through the whole result (75 s)."""
    from satnono.backends import SearchTask, cube_task
    from satnono.backends.cubes import BACKEND
    from satnono.runtime import dask

    def in_turn(
        _: str, __: int, function: Any, arguments: Any, on_result: Any, *___: Any, **____: Any
    ) -> bool:
        class Done:
            client = None

            def __init__(self, result: Any) -> None:
                self.value = result

            def result(self) -> Any:
                return self.value

        for number, task in enumerate(arguments):
            if not on_result(number, Done(function(*task))):
                return False
        return True

    monkeypatch.setattr(dask, "run_on_cluster", in_turn)
    monkeypatch.setattr(dask, "check_worker_processes_can_start", lambda *_: None)
    monkeypatch.setattr(cube_task, "_workers_waiting", lambda _: lambda: False)  # no Dask here
    identity = tuple(tuple(int(row == column) for column in range(15)) for row in range(15))
    residual = prepare(puzzle_from_grid(identity, keep_goal=False)).residual()
    checked: list[int] = []

    def slow(decided: list[int]) -> bool:
        time.sleep(0.002)
        checked.append(1)
        return True

    options = SearchOptions(workers=1, scheduler="tcp://127.0.0.1:1")  # no local cluster's stop
    started = time.monotonic()
    # 3 s: the first cube's result must be in hand before the deadline (it took over 1.5 s in
    # a CI run whose cores a build shared with the suite, and nothing was checked).
    report = BACKEND.search(SearchTask(residual, options, Deadline(3), slow))
    assert report.timed_out and not report.exhausted
    # Past the deadline: the cube in hand, listed here (a second or two on cores busy with
    # the suite); going through the whole result took 75 s.
    assert time.monotonic() - started < 6.5 and 0 < len(checked) < 37_282  # one result's worth


def test_the_engine_lists_cubes_split_along_its_search() -> None:
    """Every solution wanted: the cubes follow the search's own branchings (they cost about
    what the whole does; the lookahead's cost the engine several times more), a few give way
    to idle workers when a cube runs long."""
    from satnono.backends.cube_task import every_undecided_cell
    from satnono.backends.lookahead import LISTING_CUBES_PER_WORKER, split_for

    residual = prepare(satnono.read_puzzle(str(EXAMPLES / "switches-8.non"))).residual()
    assert every_undecided_cell(residual)
    stats: dict[str, Any] = {}
    cubes, workers = split_for(residual, SearchOptions(workers=2), Deadline(10), stats, True)
    assert workers == 2 and stats["cubes"] == len(cubes) >= LISTING_CUBES_PER_WORKER * 2
    listed = set()
    for number, cube in enumerate(cubes):
        result = solve_cube(residual.puzzle, None, cube.domains, SearchOptions(), None, number)
        assert result.exhausted and not listed & set(result.solutions)
        listed |= set(result.solutions)
    assert len(listed) == 256


def test_a_cube_keeps_to_one_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker of the cubes backend is one core: the sat backend's rival solver takes turns
    with CaDiCaL in its cube rather than racing it from a core the other workers use."""
    from satnono.backends import SearchReport, cube_task, usable_cores
    from satnono.backends.sat import BACKEND as SAT

    seen: list[int] = []

    def searched(*_: Any) -> SearchReport:
        seen.append(usable_cores())
        return SearchReport(exhausted=True)

    monkeypatch.setattr(SAT, "search_excluding", searched)
    residual = prepare(puzzle_from_grid(((1, 0), (0, 1)), keep_goal=False)).residual()
    options = SearchOptions(limit=2)
    cube_task.solve_cube(residual.puzzle, None, residual.domains, options, 10.0, 0)
    assert seen == [1] and usable_cores() >= 1
