"""Exact counting: brute force agrees, huge counts come out exact, bounds stay lower bounds.

A count is only useful if it is right to the last unit, so random puzzles are counted both
ways (enumeration first, and the counting search alone) and compared with brute force, and
every early stop (limit, deadline) is checked to report a true lower bound.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from satnono.backends import installed_backends
from satnono.cli import app
from satnono.counting import count_solutions
from satnono.deadline import Deadline
from satnono.formats import read_puzzle
from satnono.generate import puzzle_from_grid
from satnono.model import Block, Puzzle
from satnono.propagate import Propagator, initial_domains
from satnono.solutions import count
from support import EXAMPLES, brute_force_solutions, puzzles

PERMUTATION_9 = math.factorial(9)
PERMUTATIONS_11X6 = 720**11


class CountdownDeadline(Deadline):
    """A deadline that passes after a number of checks: stops the search at a chosen point."""

    __slots__ = ("checks",)

    def __init__(self, checks: int) -> None:
        super().__init__(None)
        self.checks = checks

    def expired(self) -> bool:
        self.checks -= 1
        return self.checks < 0


def after_line_logic(puzzle: Puzzle, checks: int) -> CountdownDeadline:
    """A countdown of `checks` that starts once the root's line logic has made its own."""
    probe = CountdownDeadline(10**9)
    Propagator(puzzle, probe).propagate(initial_domains(puzzle), deadline=probe)
    return CountdownDeadline(10**9 - probe.checks + checks)


def _counts(puzzle: Puzzle) -> list[tuple[int, bool]]:
    """(count, exact) by enumeration first, by the search alone, and without SAT checks."""
    return [
        (c.count, c.exact)
        for c in (
            count_solutions(puzzle, backend="sat"),
            count_solutions(puzzle, backend="sat", enumeration_limit=1),
            count_solutions(puzzle, backend="sat", enumeration_limit=1, sat_checks=False),
        )
    ]


@settings(max_examples=60, deadline=None)
@given(puzzles(max_width=5, max_height=5, max_colors=2))
def test_black_and_white_counts_match_brute_force(puzzle: Puzzle) -> None:
    expected = len(brute_force_solutions(puzzle))
    assert _counts(puzzle) == [(expected, True)] * 3


@settings(max_examples=40, deadline=None)
@given(puzzles(max_width=4, max_height=4, max_colors=4))
def test_color_counts_match_brute_force(puzzle: Puzzle) -> None:
    expected = len(brute_force_solutions(puzzle))
    assert _counts(puzzle) == [(expected, True)] * 3


@settings(max_examples=40, deadline=None)
@given(puzzles(max_width=5, max_height=4, max_colors=3), st.integers(1, 12))
def test_a_limit_caps_the_count_at_a_true_lower_bound(puzzle: Puzzle, limit: int) -> None:
    expected = len(brute_force_solutions(puzzle))
    counted = count_solutions(puzzle, backend="sat", limit=limit, enumeration_limit=1)
    assert counted.count == min(expected, limit)
    if expected < limit:
        assert counted.exact and counted.stopped is None
    elif expected > limit:
        assert not counted.exact and counted.stopped == "limit"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("permutation-9", PERMUTATION_9),
        ("permutations-11x6-color", PERMUTATIONS_11X6),
        ("switches-8", 256),
    ],
)
def test_examples_with_counts_known_by_hand(name: str, expected: int) -> None:
    result = count(read_puzzle(EXAMPLES / f"{name}.non"), backend="sat")
    assert (result.count, result.exact, result.stopped) == (expected, True, None)
    assert result.result.status == "multiple" and len(result.result.solutions) == 1


@pytest.mark.parametrize("backend", installed_backends())
def test_every_backend_counts_the_same(backend: str) -> None:
    # A 4x4 permutation square: 4! = 24 solutions, more than the enumeration cap of 1 below.
    square = puzzle_from_grid(tuple(tuple(int(r == c) for c in range(4)) for r in range(4)))
    assert count_solutions(square, backend=backend).count == 24
    counted = count_solutions(square, backend=backend, enumeration_limit=1)
    assert (counted.count, counted.exact) == (24, True)


def test_limits_on_the_examples() -> None:
    switches = read_puzzle(EXAMPLES / "switches-8.non")
    result = count(switches, backend="sat", limit=5)
    assert (result.count, result.exact, result.stopped) == (5, False, "limit")
    assert count(switches, backend="sat", limit=300).count == 256
    squares = read_puzzle(EXAMPLES / "permutations-11x6-color.non")
    result = count(squares, backend="sat", limit=10**6)
    assert (result.count, result.exact, result.stopped) == (10**6, False, "limit")


def test_a_deadline_leaves_a_true_lower_bound() -> None:
    # Later deadlines stop the count further on: in encoding, in enumeration, in the search.
    puzzle = read_puzzle(EXAMPLES / "permutation-9.non")
    counts = []
    for checks in [0, 1, 3, 10, 20, 30, 50]:
        deadline = after_line_logic(puzzle, checks)
        counted = count_solutions(puzzle, backend="sat", deadline=deadline, enumeration_limit=1)
        assert not counted.exact and counted.stopped == "timeout"
        assert 0 <= counted.count < PERMUTATION_9
        assert (counted.witness is not None) == (counted.count > 0)
        counts.append(counted.count)
    assert counts == sorted(counts) and counts[-1] > 1


@pytest.mark.parametrize("checks", [0, 1, 5])
def test_a_deadline_during_line_logic_counts_nothing(checks: int) -> None:
    puzzle = read_puzzle(EXAMPLES / "rocket-30.non")  # line logic alone solves it
    assert count_solutions(puzzle, backend="sat", deadline=after_line_logic(puzzle, 0)).exact
    counted = count_solutions(puzzle, backend="sat", deadline=CountdownDeadline(checks))
    assert (counted.count, counted.exact, counted.stopped) == (0, False, "timeout")


@pytest.mark.parametrize("checks", [0, 5, 20])
def test_a_deadline_across_components_leaves_a_true_lower_bound(checks: int) -> None:
    puzzle = read_puzzle(EXAMPLES / "permutations-11x6-color.non")
    counted = count_solutions(
        puzzle, backend="sat", deadline=CountdownDeadline(checks), enumeration_limit=1
    )
    assert not counted.exact and counted.stopped == "timeout"
    assert 0 <= counted.count < PERMUTATIONS_11X6


def test_a_deep_search_does_not_hit_the_recursion_limit() -> None:
    # A 40x40 permutation square: the first descent tries white in ~1,500 cells in a row.
    square = puzzle_from_grid(tuple(tuple(int(r == c) for c in range(40)) for r in range(40)))
    # About 80 checks go to encoding the 80 lines for the enumeration, 30 to the search.
    counted = count_solutions(
        square, backend="sat", deadline=after_line_logic(square, 110), enumeration_limit=1,
        sat_checks=False,
    )  # fmt: skip
    assert counted.stopped == "timeout" and counted.count >= 1


def test_a_real_timeout_stops_quickly() -> None:
    result = count(read_puzzle(EXAMPLES / "permutation-9.non"), backend="sat", timeout=0)
    assert (result.count, result.exact, result.stopped) == (0, False, "timeout")
    assert result.result.status == "timeout" and result.seconds < 2


def test_no_solution_is_an_exact_zero_with_a_reason() -> None:
    # Line logic alone finds no contradiction here; only search proves there is no grid.
    def clues(*texts: str) -> tuple[tuple[Block, ...], ...]:
        return tuple(tuple(Block(int(n)) for n in text.split(",")) for text in texts)

    broken = Puzzle(4, 4, clues("1,1", "1", "1", "1,1"), clues("1", "2", "1,1", "1"))
    result = count(broken, backend="sat")
    assert (result.count, result.exact) == (0, True)
    assert result.result.status == "unsolvable" and result.result.reason


runner = CliRunner()


def _cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["count", *args])
    return result.exit_code, result.stdout


def test_cli_json_keeps_its_fields_and_prints_the_whole_integer() -> None:
    code, out = _cli(str(EXAMPLES / "permutations-11x6-color.non"), "--json", "--backend", "sat")
    assert code == 0
    data = json.loads(out)
    assert list(data)[:4] == ["file", "count", "exact", "seconds"]
    assert data["count"] == PERMUTATIONS_11X6 and data["exact"] is True


def test_cli_text_says_exact_limit_or_timeout() -> None:
    path = str(EXAMPLES / "permutation-9.non")
    code, out = _cli(path, "--backend", "sat")
    assert code == 0 and out.startswith("362880 solutions (exact)")
    code, out = _cli(path, "--backend", "sat", "--limit", "1000")
    assert code == 0 and out.startswith("at least 1000 solutions (stopped at --limit 1000)")
    code, out = _cli(path, "--backend", "sat", "--timeout", "0")
    assert code == 3 and out.startswith("timeout before any solution was counted")
    code, out = _cli(str(EXAMPLES / "permutations-11x6-color.non"), "--backend", "sat")
    assert code == 0 and "(exact, about 2.70e+31)" in out
