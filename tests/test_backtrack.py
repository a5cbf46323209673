"""The pure-Python backtrack backend against brute force and against the SAT backend.

Exact counts matter here: probing reports some solutions itself and then excludes them, so a
solution found twice or lost on backtracking shows up as a wrong count.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from satnono.backends import Residual, SearchOptions, SearchTask
from satnono.backends.backtrack import BACKEND
from satnono.core.grids import domains_to_grid, initial_domains
from satnono.core.model import Grid, Puzzle
from satnono.formats import read_puzzles
from satnono.formats.generate import puzzle_from_grid
from satnono.pipeline.solutions import solve
from satnono.reference.propagate import Propagator
from satnono.runtime.deadline import Deadline
from support import EXAMPLES, PALETTES, SHARED, brute_force_solutions, grids, puzzles


def _check_against_brute_force(puzzle: Puzzle, expected: set[Grid] | None = None) -> None:
    expected = brute_force_solutions(puzzle) if expected is None else expected
    result = solve(puzzle, backend="backtrack", limit=0)
    assert result.complete
    assert result.solutions_found == len(expected)
    assert set(result.grids) == expected
    if not expected:
        assert result.status == "unsolvable"


@st.composite
def ambiguous_puzzles(draw: st.DrawFn, max_side: int, colors: int) -> Puzzle:
    """A random grid with a k x k permutation matrix in one corner.

    Random small puzzles almost never need a branch (line logic and probing solve them), but
    a permutation block has up to k! solutions, so about half of these do.
    """
    k = draw(st.integers(3, min(4, max_side)))
    width, height = draw(st.integers(k, max_side)), draw(st.integers(k, max_side))
    cell = st.integers(0, colors - 1)
    grid = [draw(st.lists(cell, min_size=width, max_size=width)) for _ in range(height)]
    permutation = draw(st.permutations(range(k)))
    for r in range(k):
        for c in range(k):
            grid[r][c] = draw(st.integers(1, colors - 1)) if permutation[r] == c else 0
    return puzzle_from_grid(tuple(map(tuple, grid)), PALETTES[colors], keep_goal=False)


def _search_whole_grid(puzzle: Puzzle) -> list[Grid]:
    """Every solution the backend reports when it gets the whole grid as one search.

    (The pipeline splits independent regions apart; here the backend must combine them.)
    """
    found: list[Grid] = []

    def keep(decided: list[int]) -> bool:
        found.append(domains_to_grid(puzzle, decided))
        return True

    residual = Residual(puzzle, Propagator(puzzle), tuple(initial_domains(puzzle)))
    report = BACKEND.search(SearchTask(residual, SearchOptions(), Deadline(None), keep))
    assert report.exhausted and not report.timed_out
    return found


@settings(max_examples=160, deadline=None)
@given(
    ambiguous_puzzles(max_side=6, colors=2)
    | ambiguous_puzzles(max_side=4, colors=3)
    | ambiguous_puzzles(max_side=4, colors=4)
)
def test_branching_matches_brute_force(puzzle: Puzzle) -> None:
    """Black and white up to 6x6, color up to 4x4: every solution once, and the counts."""
    expected = brute_force_solutions(puzzle)
    found = _search_whole_grid(puzzle)
    assert len(found) == len(set(found)) == len(expected)
    assert set(found) == expected
    _check_against_brute_force(puzzle, expected)


@settings(max_examples=160, deadline=None)
@given(
    puzzles(max_width=5, max_height=5, max_colors=2)
    | puzzles(max_width=4, max_height=4, max_colors=4)
)
def test_counts_match_brute_force(puzzle: Puzzle) -> None:
    _check_against_brute_force(puzzle)


@settings(max_examples=40, deadline=None)
@given(grids(max_width=8, max_height=8, max_colors=3))
def test_the_picture_is_among_the_solutions(case: tuple) -> None:
    grid, colors = case
    result = solve(puzzle_from_grid(grid, PALETTES[colors]), backend="backtrack", limit=0)
    assert result.complete
    assert grid in result.grids


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.non")), ids=lambda p: p.stem)
def test_examples_agree_with_the_sat_backend(path: Path) -> None:
    limit = 20
    for puzzle in read_puzzles(path):
        ours = solve(puzzle, backend="backtrack", limit=limit, timeout=30)
        theirs = solve(puzzle, backend="sat", limit=limit, timeout=30)
        assert (ours.status, ours.solutions_found) == (theirs.status, theirs.solutions_found)
        if ours.complete:
            assert set(ours.grids) == set(theirs.grids)


def test_stopping_early_and_the_stats() -> None:
    # 2^8 solutions: eight independent switches.
    (puzzle,) = read_puzzles(EXAMPLES / "switches-8.non")
    result = solve(puzzle, backend="backtrack", limit=1)
    assert result.status == "solved" and result.solutions_found == 1
    assert result.solver == "backtrack"
    for key in ("probes", "nodes", "max_depth", "search_seconds"):
        assert key in result.stats
    # Probing re-solves lines in states met before: the cache answers those.
    assert result.stats["line_solves"] > 0 and result.stats["line_cache_hits"] > 0
    json.dumps(result.stats)


def test_an_expired_deadline_is_a_timeout() -> None:
    (puzzle,) = read_puzzles(EXAMPLES / "needs-search-25.non")
    result = solve(puzzle, backend="backtrack", timeout=0)
    assert result.status == "timeout" and result.solutions_found == 0


def test_counting_stops_at_the_deadline() -> None:
    # 9! solutions take about 40 s to enumerate.
    (puzzle,) = read_puzzles(EXAMPLES / "permutation-9.non")
    started = time.perf_counter()
    result = solve(puzzle, backend="backtrack", limit=0, timeout=0.25, keep=0)
    assert not result.complete and result.solutions_found >= 2
    assert time.perf_counter() - started < 2


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/puzzles is absent")
def test_a_hard_puzzle_stops_at_the_deadline() -> None:
    # 9-Dom takes about a thousand search nodes and seconds; a quarter second is too little.
    (puzzle,) = read_puzzles(SHARED / "webpbn-survey" / "8098-9_dom.non")
    started = time.perf_counter()
    result = solve(puzzle, backend="backtrack", timeout=0.25)
    assert result.status == "timeout"
    assert time.perf_counter() - started < 2
