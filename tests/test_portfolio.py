"""The portfolio backend: right answers, and never a worker process left behind.

Workers are forked; whatever ends the race (a winner, a timeout, an error, Ctrl-C, the parent
being killed) must leave no child, running or zombie. Children are found in /proc, so these
tests also catch processes that multiprocessing itself has lost track of.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given, settings

from satnono.backends import DEFAULT_BACKEND, SearchOptions, portfolio
from satnono.core.model import Puzzle
from satnono.formats import read_puzzle
from satnono.formats.generate import puzzle_from_grid
from satnono.pipeline.solutions import solve
from support import EXAMPLES, SHARED, brute_force_solutions, children, puzzles

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def race_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    """Race even the smallest residuals, so that small random puzzles exercise the workers."""
    monkeypatch.setattr(portfolio, "SMALL_RESIDUAL", 0)


@pytest.fixture
def no_children_left() -> None:
    assert children() == [], "a child was running before the test"
    yield
    assert children() == []


# A 2x2 diagonal: two solutions, nothing decided by line logic.
DIAGONAL = puzzle_from_grid(((1, 0), (0, 1)))


@settings(max_examples=40, deadline=None)
@given(puzzle=puzzles(max_width=5, max_height=5, max_colors=3))
def test_raced_answers_match_brute_force(puzzle: Puzzle) -> None:
    saved = portfolio.SMALL_RESIDUAL
    portfolio.SMALL_RESIDUAL = 0
    try:
        expected = brute_force_solutions(puzzle)
        for limit in (1, 2, 5):
            result = solve(puzzle, backend="portfolio", limit=limit)
            assert set(result.grids) <= expected
            assert result.solutions_found == min(limit, len(expected))
            if len(expected) < limit:
                assert result.complete
    finally:
        portfolio.SMALL_RESIDUAL = saved
    assert children() == []


def test_a_race_reports_its_winner_and_leaves_no_child(
    race_everything: None, no_children_left: None
) -> None:
    result = solve(DIAGONAL, backend="portfolio", limit=2)
    assert result.status == "multiple" and result.solutions_found == 2
    assert result.stats["portfolio_configs"] == portfolio.race_size()
    assert result.stats["portfolio_winner"] in {c.name for c in portfolio.CONFIGS}
    assert result.solver == result.stats["portfolio_winner"]


def test_a_timeout_kills_every_worker(race_everything: None, no_children_left: None) -> None:
    result = solve(DIAGONAL, backend="portfolio", limit=2, timeout=0)
    assert result.status == "timeout"


def _slow(*args: object) -> object:
    """Stands in for a worker's solve that takes far longer than any test."""
    time.sleep(60)
    yield ("done", True, {})


def test_workers_that_outlive_the_deadline_are_killed(
    race_everything: None, no_children_left: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(portfolio, "_solve", _slow)
    started = time.monotonic()
    result = solve(DIAGONAL, backend="portfolio", limit=2, timeout=0.5)
    assert result.status == "timeout"
    assert result.stats["portfolio_started"] == portfolio.race_size()
    assert time.monotonic() - started < 30


def test_ctrl_c_during_the_race_kills_every_worker(
    race_everything: None, no_children_left: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from satnono.runtime import race

    real_wait = race.wait_any
    calls = []

    def interrupted(receivers: list, timeout: float | None) -> list:
        calls.append(len(receivers))
        if len(receivers) < portfolio.race_size():
            return real_wait(receivers, timeout)  # the first worker's head start
        assert len(children()) == portfolio.race_size()
        raise KeyboardInterrupt

    monkeypatch.setattr(portfolio, "_solve", _slow)
    monkeypatch.setattr(race, "wait_any", interrupted)
    with pytest.raises(KeyboardInterrupt):
        solve(DIAGONAL, backend="portfolio", limit=2)
    assert calls[-1] == portfolio.race_size()


def test_an_easy_residual_is_settled_by_the_first_worker_alone(
    race_everything: None, no_children_left: None
) -> None:
    result = solve(DIAGONAL, backend="portfolio", limit=2)
    assert result.stats["portfolio_started"] == 1
    assert result.stats["portfolio_winner"] == portfolio.CONFIGS[0].name


def test_failing_workers_are_an_error_not_a_hang(
    race_everything: None, no_children_left: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> object:
        raise ValueError("boom")
        yield  # a generator, like the real one

    monkeypatch.setattr(portfolio, "_solve", broken)
    with pytest.raises(RuntimeError, match=r"every portfolio worker failed.*boom"):
        solve(DIAGONAL, backend="portfolio", limit=2)


def test_workers_die_with_a_killed_parent(tmp_path: Path) -> None:
    """SIGKILL leaves no `finally` to run: the kernel's parent-death signal must do it."""
    script = textwrap.dedent(
        """
        import sys, time
        from satnono.backends import portfolio
        from satnono.formats.generate import puzzle_from_grid
        from satnono.pipeline.solutions import solve

        def slow(*args):
            time.sleep(120)
            yield ("done", True, {})

        portfolio._solve = slow
        portfolio.SMALL_RESIDUAL = 0
        print("racing", flush=True)
        solve(puzzle_from_grid(((1, 0), (0, 1))), backend="portfolio", limit=2)
        """
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        assert parent.stdout is not None
        assert parent.stdout.readline().strip() == "racing"
        deadline = time.monotonic() + 20
        while len(workers := children(parent.pid)) < portfolio.race_size():
            assert time.monotonic() < deadline, "the workers never started"
            time.sleep(0.02)
        time.sleep(0.2)  # let every worker reach its prctl call
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 10
        while any(Path(f"/proc/{pid}").exists() for pid in workers):
            assert time.monotonic() < deadline, "orphaned portfolio workers"
            time.sleep(0.02)
    finally:
        parent.kill()
        parent.wait()


def test_small_residuals_and_enumerations_do_not_fork(no_children_left: None) -> None:
    # Small: below SMALL_RESIDUAL. All solutions: limit 0, streamed in-process.
    result = solve(DIAGONAL, backend="portfolio", limit=2)
    assert result.stats["portfolio_configs"] == 1
    assert result.solver == portfolio.SINGLE.name
    counted = solve(DIAGONAL, backend="portfolio", limit=0)
    assert counted.solutions_found == 2 and counted.complete


def test_the_race_narrows_to_the_solver_and_encoding_asked_for() -> None:
    only = portfolio.race_configs(SearchOptions(solver="minisat22"))
    assert only and all(c.solver == "minisat22" for c in only)
    assert all(
        c.encoding == "blocks" for c in portfolio.race_configs(SearchOptions(encoding="blocks"))
    )
    # Nothing in the list uses this pair: it races over seeds instead.
    odd = portfolio.race_configs(SearchOptions(solver="lingeling", encoding="automaton-lean"))
    assert {(c.solver, c.encoding) for c in odd} == {("lingeling", "automaton-lean")}
    assert len({c.seed for c in odd}) == len(odd) > 1


def test_the_default_is_the_best_single_configuration() -> None:
    """The race did not pay on the held-out set (BENCHMARKS.md): the default is the single
    configuration the portfolio itself falls back to."""
    from satnono.backends import DEFAULT_SEED
    from satnono.encode.cnf import DEFAULT_ENCODING
    from satnono.runtime.solver_kinds import DEFAULT_SOLVER

    assert DEFAULT_BACKEND == "sat"
    single = portfolio.SINGLE
    assert (single.solver, single.encoding, single.seed) == (
        DEFAULT_SOLVER,
        DEFAULT_ENCODING,
        DEFAULT_SEED,
    )


@pytest.mark.parametrize(
    "path",
    [EXAMPLES / "needs-search-25.non", SHARED / "webpbn-survey" / "6739-karate.non"],
    ids=lambda p: p.stem,
)
def test_real_puzzles_agree_with_the_sat_backend(path: Path, no_children_left: None) -> None:
    if not path.exists():
        pytest.skip(f"{path} is absent")
    puzzle = read_puzzle(path, None, 1)
    raced = solve(puzzle, backend="portfolio", limit=2, timeout=60)
    single = solve(puzzle, backend="sat", limit=2, timeout=60)
    assert raced.status == single.status
    assert raced.solutions_found == single.solutions_found


def test_help_lists_the_portfolio_and_the_encodings() -> None:
    from typer.testing import CliRunner

    from satnono.cli import app

    result = CliRunner().invoke(app, ["solve", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for word in ("portfolio", "--encoding", "blocks", "automaton-lean"):
        assert word in result.output
