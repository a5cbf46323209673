"""The public API: docs/api.md and the package docstring run as doctests, and the promises
the docs make that output alone cannot show (no thread left, errors are ValueErrors)."""

from __future__ import annotations

import doctest
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import satnono
from support import EXAMPLES

ROOT = Path(__file__).resolve().parent.parent


def test_docs_api_md_runs_as_printed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    failures, tried = doctest.testfile(
        str(ROOT / "docs" / "api.md"), module_relative=False, optionflags=doctest.ELLIPSIS
    )
    assert tried > 20 and failures == 0


def test_package_docstring_runs() -> None:
    failures, tried = doctest.testmod(satnono)
    assert tried >= 3 and failures == 0


def test_the_five_line_script() -> None:
    script = (
        "import satnono\n"
        "p = satnono.Puzzle.from_clues([[1], [1]], [[1], [1]])\n"
        "r = satnono.solve(p)\n"
        "print(r.status, satnono.count(p).count, len(satnono.analyze(p).ambiguous_cells))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.split() == ["multiple", "2", "4"]


@pytest.mark.parametrize("backend", satnono.available_backends())
def test_no_thread_or_process_outlives_a_call(backend: str) -> None:
    before = set(threading.enumerate())
    puzzle = satnono.read_puzzle(EXAMPLES / "permutation-9.non")
    satnono.solve(puzzle, backend=backend, timeout=30)
    satnono.count(puzzle, timeout=30)
    for _ in zip(range(3), satnono.iter_solutions(puzzle, backend=backend), strict=False):
        pass
    assert set(threading.enumerate()) == before
    assert not _children()


def test_bad_arguments_are_value_errors_with_the_cli_message() -> None:
    puzzle = satnono.Puzzle.from_clues([[1]], [[1]])
    for call, message in [
        (lambda: satnono.solve(puzzle, max_solutions=-1), "max_solutions: must be 0 or more"),
        (lambda: satnono.solve(puzzle, timeout=float("nan")), "timeout: must be a finite number"),
        (lambda: satnono.solve(puzzle, solver="nosuch"), "unknown SAT solver 'nosuch'"),
        (lambda: satnono.count(puzzle, epsilon=0.5), "epsilon: only an estimate"),
        (lambda: satnono.analyze(puzzle, max_solutions=1), "cannot tell unique"),
        (lambda: satnono.sample(puzzle, 0), "n: must be 1 or more"),
        (lambda: satnono.Puzzle.from_clues([["x"]], [[1]]), "is not a clue number"),
        (lambda: satnono.Puzzle.from_clues([[(1, "r")], [1]], [[(1, "b")]]), "needs a color"),
    ]:
        with pytest.raises(ValueError, match=message):
            call()


def test_an_error_raised_in_the_search_reaches_the_iterator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import satnono.pipeline.solutions

    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("backend broke")

    monkeypatch.setattr(satnono.pipeline.solutions, "solve", broken)
    with pytest.raises(RuntimeError, match="backend broke"):
        list(satnono.iter_solutions(satnono.Puzzle.from_clues([[1]], [[1]])))
    assert [t for t in threading.enumerate() if t.name == "satnono solve"] == []


def _children() -> list[str]:
    task = Path(f"/proc/{os.getpid()}/task")
    if not task.is_dir():
        return []
    found = []
    for thread in task.iterdir():
        children = thread / "children"
        if children.is_file():
            found += children.read_text().split()
    return found


def test_line_logic_runs_in_the_callers_thread_and_a_search_off_it() -> None:
    """A thread costs about a tenth of a line-solvable puzzle's solve: only a search (where
    solvers run, which must not run in the main thread) gets one."""
    threads: dict[str, list[str]] = {}
    for name in ("duck", "switches-8"):
        puzzle = satnono.read_puzzle(EXAMPLES / f"{name}.non")
        seen = threads.setdefault(name, [])
        satnono.solve(puzzle, on_solution=lambda _, seen=seen: seen.append(
            threading.current_thread().name
        ))  # fmt: skip
    assert threads["duck"] == [threading.main_thread().name]
    assert threads["switches-8"] and threading.main_thread().name not in threads["switches-8"]


#: Line logic leaves 4 of its 100 cells (two solutions).
FOUR_LEFT = satnono.puzzle_from_grid((
    (1, 1, 0, 1, 1, 1, 0, 0, 1, 0), (1, 1, 0, 0, 1, 1, 0, 0, 0, 0), (1, 1, 1, 1, 1, 0, 0, 0, 1, 1),
    (1, 1, 1, 0, 1, 1, 1, 1, 0, 1), (0, 0, 0, 0, 0, 1, 0, 0, 1, 1), (0, 1, 0, 0, 1, 1, 0, 1, 0, 1),
    (1, 0, 1, 1, 0, 0, 1, 1, 1, 1), (1, 0, 1, 1, 0, 0, 0, 1, 1, 1), (0, 0, 1, 1, 0, 1, 0, 0, 1, 1),
    (0, 0, 1, 0, 1, 1, 0, 0, 0, 1),
))  # fmt: skip


def test_a_few_cells_left_are_searched_by_branching_in_the_callers_thread() -> None:
    """Starting a SAT solver and its thread costs more than branching on a few cells with the
    line solver (backends.SMALL_RESIDUAL): the sat backend's answer for them is the classic
    search's, the same solutions as the SAT solver's when one is named."""
    from satnono.backends import SMALL_RESIDUAL

    assert SMALL_RESIDUAL >= 4
    seen: list[str] = []
    result = satnono.solve(FOUR_LEFT, max_solutions=0, on_solution=lambda _: seen.append(
        threading.current_thread().name
    ))  # fmt: skip
    assert result.stats["cells_left"] == 4 and result.solver == "backtrack"
    assert result.backend == "sat" and seen == [threading.main_thread().name] * 2
    by_sat = satnono.solve(FOUR_LEFT, max_solutions=0, solver="glucose3")
    assert by_sat.solver == "glucose3"  # a named solver searches itself
    assert sorted(map(tuple, by_sat.solutions)) == sorted(map(tuple, result.solutions))
    assert result.status == by_sat.status == "multiple" and result.complete and by_sat.complete


def test_progress_sums_its_grid_up_in_its_repr() -> None:
    """`handle.progress` printed every cell's domain: 5,767 characters on Sierp (issue 33)."""
    progress = satnono.Progress(phase="search", cells=1880, domains=(1, 2, 3) * 600)
    text = repr(progress)
    assert len(text) < 200 and "domains=<1800 cells, 600 undecided>" in text
    assert text.startswith("Progress(phase='search', cells=1880,")


def test_count_and_analyze_report_how_far_they_got() -> None:
    """A long count or analysis showed only its seconds (issue 33): both now keep a Progress
    current, as solve does: the count so far, the component, the backbone's cells settled."""
    switches = satnono.read_puzzle(EXAMPLES / "switches-8.non")
    progress = satnono.Progress()
    counted = satnono.count(switches, progress=progress)
    assert counted.count == 256 and progress.solutions == 256
    assert progress.cells == 100 and progress.cells_left == 32
    assert (progress.swept, progress.states) == (0, 0)  # its sweep is over: none is shown
    analysis_progress = satnono.Progress()
    satnono.analyze(switches, progress=analysis_progress)
    assert analysis_progress.to_settle == 32 and analysis_progress.settled == 32
    with pytest.raises(satnono.InputError):
        satnono.count(switches, progress="not a progress")  # type: ignore[arg-type]


def test_a_cancelled_analysis_stops_at_once() -> None:
    """The analysis gave its inner solve a number of seconds, not its deadline: cancelling
    the analysis (the page's Cancel, a Ctrl-C) left that solve running to its own timeout."""
    import random
    import threading
    import time

    from satnono.formats.generate import puzzle_from_grid, random_grid

    hard = puzzle_from_grid(random_grid(45, 45, 2, 0.45, random.Random(45)))
    deadline = satnono.Deadline(60)
    cancelled: list[float] = []

    def cancel() -> None:  # timed from the cancel itself: the timer may wait for the GIL
        cancelled.append(time.monotonic())
        deadline.cancel()

    threading.Timer(1.0, cancel).start()
    analysis = satnono.analyze(hard, deadline=deadline)
    assert cancelled and time.monotonic() - cancelled[0] < 1.5
    assert analysis.timed_out


def test_a_count_shows_its_sweep_and_its_search_as_they_go() -> None:
    """Issue 40 asks a count's Progress to say how far it got (states or nodes, how far the
    sweep got): it said only the component and the solutions so far. Once a sweep is over it
    shows none (the engine kept its last layer's figures)."""
    from satnono.cli.live import describe

    board = satnono.read_puzzle(EXAMPLES / "switchboard-10.non")  # swept: 2^100 solutions
    progress = satnono.Progress()
    assert satnono.count(board, progress=progress).exact
    assert (progress.swept, progress.states) == (0, 0)
    shown = satnono.Progress(phase="counting", cells=100, cells_left=90, swept=12, states=4096)
    assert "sweeping, 12 cells passed, 4,096 states" in describe(shown)
    shown.both_ways = True  # raced from the other end on the second core
    assert "sweeping both ways, 12 cells passed, 4,096 states" in describe(shown)
    searched = satnono.Progress(phase="counting", nodes=123456)
    assert "123,456 nodes searched" in describe(searched)
