"""Exact counting: brute force agrees, huge counts come out exact, bounds stay lower bounds.

A count is only useful if it is right to the last unit, so random puzzles are counted every
way (the native count by its search alone and by its sweep where it can, Ganak alone,
ApproxMC alone, and the Python reference counting search) and compared with brute force;
puzzles whose counts are proven by construction check the large counts; and every early stop
(limit, deadline) is checked to report a true lower bound.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from satnono.backends import installed_backends
from satnono.cli import app
from satnono.core.model import BLOTTED, Block, Puzzle
from satnono.formats import read_puzzle
from satnono.formats.generate import puzzle_from_grid, switch_board
from satnono.logic.counted import CountKnobs
from satnono.pipeline.counting import Approximation, Counted, count_solutions
from satnono.pipeline.solutions import count
from satnono.reference.counting import count_grids as reference_count
from satnono.runtime.deadline import Deadline
from support import (
    EXAMPLES,
    SHARED,
    THIN_20020,
    brute_force_solutions,
    children,
    load_tool,
    puzzles,
    thin_20020,
)

PERMUTATION_9 = math.factorial(9)
PERMUTATIONS_11X6 = 720**11


#: The native count by its search alone, and by its sweep wherever a sweep can count.
SEARCH_ONLY = CountKnobs(sweep_width=0, sweep_trial=0)
SWEEP_FIRST = CountKnobs(sweep_width=10**6, sweep_trial=1 << 30)
#: A 40x40 permutation square: 40! solutions, in one component no method here finishes.
PERMUTATION_40 = puzzle_from_grid(tuple(tuple(int(r == c) for c in range(40)) for r in range(40)))


def _counts(puzzle: Puzzle) -> list[tuple[int, bool]]:
    """(count, exact) by the default race, the listing alone, the native search alone, the
    native sweep first, Ganak alone, and the Python reference."""
    search: tuple[str, ...] = ("search",)
    counted = [
        count_solutions(puzzle),
        count_solutions(puzzle, methods=("enumerate",)),
        count_solutions(puzzle, methods=search, knobs=SEARCH_ONLY),
        count_solutions(puzzle, methods=search, knobs=SWEEP_FIRST),
        count_solutions(puzzle, methods=("ganak",)),
    ]
    for each in counted:  # every nonzero count comes with a verified grid
        assert (each.witness is not None) == (each.count > 0)
    return [(c.count, c.exact) for c in counted] + [(reference_count(puzzle), True)]


def _approximate(puzzle: Puzzle, expected: int) -> None:
    """ApproxMC alone: exact when it needed no hash, else within its (seeded) tolerance."""
    counted = count_solutions(puzzle, methods=("approxmc",), approximation=Approximation(0.8, 0.2))
    if counted.exact:
        assert counted.count == expected
    else:
        assert counted.estimate is not None and counted.count <= expected
        assert expected / 1.8 <= counted.estimate <= expected * 1.8


@settings(max_examples=100, deadline=None)
@given(
    puzzles(max_width=5, max_height=5, max_colors=2)
    | puzzles(max_width=4, max_height=4, max_colors=4)
)
def test_counts_match_brute_force(puzzle: Puzzle) -> None:
    """Black and white up to 5x5, color up to 4x4 with four colors: every method exact."""
    expected = len(brute_force_solutions(puzzle))
    assert _counts(puzzle) == [(expected, True)] * 6
    _approximate(puzzle, expected)


@settings(max_examples=40, deadline=None)
@given(puzzles(max_width=5, max_height=4, max_colors=3), st.integers(1, 12))
def test_a_limit_caps_the_count_at_a_true_lower_bound(puzzle: Puzzle, limit: int) -> None:
    expected = len(brute_force_solutions(puzzle))
    counted = count_solutions(puzzle, limit=limit, methods=("search",))
    assert counted.count == min(expected, limit)
    if expected < limit:
        assert counted.exact and counted.stopped is None
    elif expected > limit:
        assert not counted.exact and counted.stopped == "limit"


@settings(max_examples=60, deadline=None)
@given(
    puzzles(max_width=5, max_height=5, max_colors=2)
    | puzzles(max_width=4, max_height=4, max_colors=4),
    st.integers(0, 6),
)
def test_the_engines_listing_counts_what_the_backend_leaves(puzzle: Puzzle, limit: int) -> None:
    """The backend lists only the first solution here; the engine's listing counts them all,
    or up to the limit, each once."""
    from satnono.pipeline.counting import count as count_module

    expected = len(brute_force_solutions(puzzle))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(count_module, "ENUMERATION_LIMIT", 1)
        counted = count_solutions(puzzle, methods=("enumerate",), limit=limit)
    assert counted.count == (min(expected, limit) if limit else expected)
    if not limit or expected < limit:
        assert counted.exact and counted.stopped is None
    elif expected > limit:
        assert not counted.exact and counted.stopped == "limit"
    assert (counted.witness is not None) == (counted.count > 0)


def test_the_engines_listing_counts_a_puzzle_the_count_search_is_slow_on() -> None:
    """A random 25x25 of density 0.45 with 121 solutions: the counting search had not finished
    after 15 s, Ganak took 3.1 s, the engine's listing lists them in 0.7 s."""
    import random

    from satnono.formats.generate import random_grid

    puzzle = puzzle_from_grid(random_grid(25, 25, 2, 0.45, random.Random(5)))
    counted = count_solutions(puzzle, methods=("enumerate", "search"), deadline=Deadline(60))
    assert counted.exact and counted.count == 121 and counted.witness is not None
    assert [factor.method for factor in counted.factors] == ["enumerate"]


def test_a_count_the_listing_took_further_says_so_in_its_factors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the engine's listing had counted more than the count beside it when the deadline
    came, the count was the listing's but its factors the count's: 100 solutions counted, from
    one factor of 0, by "search"."""
    import random

    from satnono.formats.generate import random_grid
    from satnono.pipeline.counting import listing, narrowing

    monkeypatch.setattr(listing, "LISTING_LIMIT", 100)  # it gives up at 100 of the 121
    monkeypatch.setattr(narrowing, "BACKBONE_AFTER", 60.0)  # which would count the 121 at once
    puzzle = puzzle_from_grid(random_grid(25, 25, 2, 0.45, random.Random(5)))
    counted = count_solutions(puzzle, methods=("enumerate", "search"), deadline=Deadline(3))
    assert (counted.count, counted.exact, counted.stopped) == (100, False, "timeout")
    assert [(f.method, f.count, f.exact) for f in counted.factors] == [("enumerate", 100, False)]


def test_the_engines_listing_gives_up_past_its_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from satnono.pipeline.counting import listing

    monkeypatch.setattr(listing, "LISTING_LIMIT", 10)
    board = read_puzzle(EXAMPLES / "switchboard-10.non")  # 2^100 solutions
    counted = count_solutions(board, methods=("enumerate",), deadline=Deadline(30))
    assert not counted.exact and counted.stopped == "limit"
    assert counted.count == 64  # the backend's listing, which the engine's did not pass


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
    assert result.result.status == "multiple" and len(result.result.grids) == 1


@pytest.mark.parametrize("backend", installed_backends())
def test_every_backend_counts_the_same(backend: str) -> None:
    # A 4x4 permutation square: 4! = 24 solutions.
    square = puzzle_from_grid(tuple(tuple(int(r == c) for c in range(4)) for r in range(4)))
    counted = count_solutions(square, backend=backend)
    assert (counted.count, counted.exact) == (24, True)


def test_limits_on_the_examples() -> None:
    switches = read_puzzle(EXAMPLES / "switches-8.non")
    result = count(switches, backend="sat", limit=5)
    assert (result.count, result.exact, result.stopped) == (5, False, "limit")
    assert count(switches, backend="sat", limit=300).count == 256
    squares = read_puzzle(EXAMPLES / "permutations-11x6-color.non")
    result = count(squares, backend="sat", limit=10**6)
    assert (result.count, result.exact, result.stopped) == (10**6, False, "limit")


@pytest.mark.parametrize("seconds", [0.0, 0.3, 1.0])
def test_a_deadline_leaves_a_true_lower_bound_and_keeps_time(seconds: float) -> None:
    started = time.perf_counter()
    counted = count_solutions(PERMUTATION_40, methods=("search",), deadline=Deadline(seconds))
    assert time.perf_counter() - started < seconds + 1.0
    assert not counted.exact and counted.stopped == "timeout"
    assert 0 <= counted.count < math.factorial(40)
    assert (counted.witness is not None) == (counted.count > 0)


def test_a_count_stopped_inside_a_sweep_is_at_least_one_solution_a_component() -> None:
    # A sweep counts nothing until it ends, so a deadline inside one left the count at "at
    # least 0", though the other components were counted and a witness shows each has a
    # solution (thin-20049 under `--timeout 1.5`; found measuring the race). The count as the
    # engine leaves it then: the small component counted, the long one stopped in its sweep.
    from satnono.logic.counted import CountedPart, NativeCount
    from satnono.logic.native import Engine
    from satnono.pipeline.counting.result import Factor
    from satnono.pipeline.counting.witness import witnessed
    from satnono.pipeline.prepare import prepare

    prepared = prepare(load_tool("generate").thin_board(9016, 0.2))
    parts = (
        CountedPart((0,), 4, 4, True, "sweep", 0.0),
        CountedPart((1,), 400, 0, False, "sweep", 0.5),
    )
    native = NativeCount(0, False, prepared.cells_left, parts, {})
    factors = tuple(Factor(p.lines, p.cells, p.count, p.exact, "sweep", p.seconds) for p in parts)
    stopped = Counted(0, False, "timeout", factors=factors)
    counted = witnessed(Engine(prepared.puzzle), prepared, stopped, native)
    assert counted.witness is not None  # verified against the clues
    assert (counted.count, counted.exact, counted.stopped) == (4, False, "timeout")
    assert [factor.count for factor in counted.factors] == [4, 1]
    # Not where the deadline came before any component was reached, nor on a verdict.
    assert (
        witnessed(Engine(prepared.puzzle), prepared, stopped, replace(native, parts=())).count == 0
    )
    verdict = Counted(0, True, factors=factors)
    assert witnessed(Engine(prepared.puzzle), prepared, verdict, native) == verdict


def test_a_deadline_passed_before_line_logic_counts_nothing() -> None:
    puzzle = read_puzzle(EXAMPLES / "rocket-30.non")  # line logic alone solves it
    assert count_solutions(puzzle).exact
    expired = Deadline(0)
    counted = count_solutions(puzzle, deadline=expired)
    assert (counted.count, counted.exact, counted.stopped) == (0, False, "timeout")


def test_a_cancelled_count_stops_within_a_slice() -> None:
    import threading

    deadline = Deadline(None)
    threading.Timer(0.3, deadline.cancel).start()
    started = time.perf_counter()
    counted = count_solutions(PERMUTATION_40, methods=("search",), deadline=deadline)
    assert time.perf_counter() - started < 1.5
    assert not counted.exact


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
    code, out = _cli(path, "--backend", "sat", "--timeout", "0")  # not even read
    assert code == 3 and out == ""
    code, out = _cli(path, "--backend", "sat", "--timeout", "0", "--json")
    assert code == 3 and json.loads(out)["stopped"] == "timeout"
    code, out = _cli(str(EXAMPLES / "permutations-11x6-color.non"), "--backend", "sat")
    assert code == 0 and "(exact, about 2.70e+31)" in out


# --- counts proven by construction, and the race between the methods ---------------------


@pytest.mark.parametrize(("rows", "columns"), [(1, 3), (2, 2), (3, 4), (8, 8), (30, 30)])
def test_connected_switch_boards_have_two_to_the_switches(rows: int, columns: int) -> None:
    """Every row and column of switches shares its lines, so the lines make one component;
    but each line splits between its switches (its automaton's state there is known), so each
    switch is a component of its own: 2^900 for the 30 x 30 board, at once."""
    board = puzzle_from_grid(switch_board(rows, columns))
    counted = count_solutions(board, methods=("search",))
    assert (counted.count, counted.exact) == (2 ** (rows * columns), True)
    assert [factor.cells for factor in counted.factors] == [4] * (rows * columns)


def test_the_2_to_the_100_board_is_counted_natively() -> None:
    counted = count_solutions(read_puzzle(EXAMPLES / "switchboard-10.non"))
    assert (counted.count, counted.exact) == (2**100, True)
    assert {factor.method for factor in counted.factors} == {"sweep"}


@pytest.mark.parametrize("size", [3, 4, 5, 6, 7])
def test_permutation_squares_have_n_factorial(size: int) -> None:
    square = puzzle_from_grid(tuple(tuple(int(r == c) for c in range(size)) for r in range(size)))
    for methods, knobs, method in (
        (("search",), SEARCH_ONLY, "search"),
        (("search",), SWEEP_FIRST, "sweep"),
        (("ganak",), None, "ganak"),
    ):
        counted = count_solutions(square, methods=methods, knobs=knobs)
        assert (counted.count, counted.exact) == (math.factorial(size), True)
        assert counted.factors[0].method == method


def test_independent_components_multiply_and_say_how_each_was_counted() -> None:
    counted = count_solutions(read_puzzle(EXAMPLES / "permutations-11x6-color.non"))
    assert (counted.count, counted.exact) == (PERMUTATIONS_11X6, True)
    assert [(f.count, f.exact, f.cells) for f in counted.factors] == [(720, True, 36)] * 11
    # The engine settles each square at once: no counter's child is started.
    assert {f.method for f in counted.factors} == {"sweep"}


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/puzzles is absent")
def test_ganak_wins_where_it_is_ahead_and_leaves_no_process() -> None:
    center = read_puzzle(SHARED / "webpbn-survey" / "10810-center.non")
    knobs = CountKnobs(sweep_width=0, sweep_trial=0, memory=1 << 20)  # a slow native count
    counted = count_solutions(center, head_start=0.05, knobs=knobs)
    assert (counted.count, counted.exact) == (5222571924721419, True)
    assert [factor.method for factor in counted.factors] == ["ganak"]
    assert counted.witness is not None
    assert children() == []


def test_a_counter_keeps_within_the_count_s_memory_and_the_count_goes_on(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Ganak, in its child, runs out of the count's memory (its C++ allocation fails, past the
    bound its child is given): the count says why in its stats, prints nothing of Ganak's,
    and the engine's count beside it is the answer. Ganak alone is counted in a fresh
    interpreter: the bound (RLIMIT_DATA) holds new mappings, not the free heap the child
    inherits, and a test worker that has run many tests before may have tens of megabytes of
    it (regression: Ganak counted in 8.3 s within a "4 MB" bound so, on a clean clone's CI)."""
    import subprocess
    import sys

    from satnono.pipeline.counting import race

    script = (
        "import json\n"
        "from satnono.formats import read_puzzle\n"
        "from satnono.logic.counted import CountKnobs\n"
        "from satnono.pipeline.counting import count_solutions, race\n"
        "from satnono.runtime.deadline import Deadline\n"
        "race.COUNTER_MEMORY = 0\n"
        f"puzzle = read_puzzle({str(EXAMPLES / 'permutation-9.non')!r})\n"
        "knobs = CountKnobs(memory=4 << 20)\n"
        "alone = count_solutions(puzzle, methods=('ganak',), knobs=knobs, deadline=Deadline(30))\n"
        "print(json.dumps([alone.exact, alone.stats.get('counter_errors')]))\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert ran.stderr == ""
    exact, errors = json.loads(ran.stdout)
    assert not exact
    assert errors == [
        "the Ganak counter process failed: out of memory: past its 4 MB "
        "(RuntimeError: std::bad_alloc)"
    ]
    monkeypatch.setattr(race, "COUNTER_MEMORY", 0)
    puzzle = read_puzzle(EXAMPLES / "permutation-9.non")
    knobs = CountKnobs(memory=4 << 20)
    both = count_solutions(puzzle, methods=("search", "ganak"), knobs=knobs, head_start=0)
    assert (both.count, both.exact) == (PERMUTATION_9, True)
    assert children() == []
    assert capfd.readouterr() == ("", "")
    # `count --json` says why a counter dropped out.
    from satnono.output import contract

    counted = count(puzzle)
    assert "counter_errors" not in contract.count_object("p.non", counted)
    counted.result.stats["counter_errors"] = errors
    said = contract.count_object("p.non", counted)["counter_errors"]
    assert said == errors


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/puzzles is absent")
def test_a_frame_is_swept_band_by_band() -> None:
    """Center's residual is a frame of bands three and four cells wide: swept row by row or
    column by column it holds about 40 lines' states at once and gave way to the search (4 s)
    and Ganak; cut into bands, each taken its own way, the sweep counts it at once."""
    center = read_puzzle(SHARED / "webpbn-survey" / "10810-center.non")
    counted = count_solutions(center, methods=("search",), deadline=Deadline(30))
    assert (counted.count, counted.exact) == (5222571924721419, True)
    assert [factor.method for factor in counted.factors] == ["sweep"]


def test_a_swept_count_s_witness_is_drawn_not_searched_for() -> None:
    """Two rows of 400 cells whose blocks' lengths are all blotted, one black cell a column:
    the sweep counted its 3.6 x 10^115 grids in 0.1 s, then the engine searched for one of them
    as the count's witness and did not find it in minutes (`satnono count` without a timeout
    never returned). The witness now comes from the sweep's layers."""
    import random

    rng = random.Random(5)
    top: list[int] = []
    while len(top) < 400:
        top += [1] * rng.randint(1, 3) + [0] * rng.randint(1, 3)
    grid = (tuple(top[:400]), tuple(1 - cell for cell in top[:400]))
    made = puzzle_from_grid(grid)
    hidden = tuple(tuple(Block(BLOTTED, block.color) for block in clue) for clue in made.rows)
    puzzle = Puzzle(made.width, made.height, hidden, made.columns, made.palette)
    started = time.perf_counter()
    counted = count_solutions(puzzle, deadline=Deadline(30))
    assert time.perf_counter() - started < 10
    assert counted.exact and counted.count > 2**128
    assert counted.witness is not None  # verified against the clues where it was made


def test_no_counter_joins_while_the_engine_sweeps(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ganak's child, forked at its head start beside a sweep, took a core from it and made a
    copy of every page the sweep wrote after the fork: thin-20049 took 10.5-13.1 s as a whole
    process, against 7.2-8.4 s with no counter. The counters now wait till the sweep ends."""
    from satnono.pipeline.counting.count import _Race
    from satnono.pipeline.counting.race import CounterRace

    started: list[float] = []
    sweeping: list[float] = []  # when the race saw the engine sweep
    start, seen = CounterRace.start, _Race._sweeping

    def noted(race: CounterRace) -> None:
        started.append(time.perf_counter())
        start(race)

    def watched(race: _Race) -> bool:
        if seen(race):
            sweeping.append(time.perf_counter())
            return True
        return False

    monkeypatch.setattr(CounterRace, "start", noted)
    monkeypatch.setattr(_Race, "_sweeping", watched)
    # thin-20020 (6 x 137): one way, a sweep of 1.3 s, far past the head start. On a loaded
    # machine (`pytest -n 2` beside heavy tests) probing may outlast the head start, and a
    # counter join before the sweep begins, as it may: once the sweep is seen, none joins.
    board = thin_20020()
    counted = count_solutions(board, head_start=0.3, knobs=CountKnobs(race=False))
    assert (counted.count, counted.exact) == (THIN_20020, True)
    assert "sweep" in {factor.method for factor in counted.factors}
    assert sweeping
    assert [moment for moment in started if moment > sweeping[0]] == []
    assert children() == []


def test_a_timeout_while_ganak_runs_kills_it_and_keeps_the_lower_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import satnono.pipeline.counting.race

    def stuck(formula: object) -> int:
        time.sleep(60)  # a counter that never answers in time (the child inherits this)
        return 0

    monkeypatch.setattr(satnono.pipeline.counting.race, "ganak_count", stuck)
    # 20!: beyond the native count within the deadline, which counts some branches by then.
    square = puzzle_from_grid(tuple(tuple(int(r == c) for c in range(20)) for r in range(20)))
    started = time.perf_counter()
    counted = count_solutions(square, deadline=Deadline(1.5), head_start=0.2)
    assert time.perf_counter() - started < 3
    assert not counted.exact and counted.stopped == "timeout"
    assert 0 < counted.count < math.factorial(20)
    assert children() == []


def test_a_failing_counter_leaves_the_search_to_finish(monkeypatch: pytest.MonkeyPatch) -> None:
    import satnono.pipeline.counting.race

    def broken(formula: object) -> int:
        raise MemoryError("no room")

    monkeypatch.setattr(satnono.pipeline.counting.race, "ganak_count", broken)
    square = puzzle_from_grid(tuple(tuple(int(r == c) for c in range(7)) for r in range(7)))
    # The native count alone needs a moment on a 9x9 square: time for the counter to fail.
    counted = count_solutions(square, head_start=0, knobs=SEARCH_ONLY)
    assert (counted.count, counted.exact, counted.factors[0].method) == (5040, True, "search")
    errors = counted.stats.get("counter_errors", [])
    assert not errors or "MemoryError: no room" in errors[0]


def test_approximation_reports_its_guarantee() -> None:
    board = puzzle_from_grid(switch_board(12, 12))  # 2^144
    counted = count_solutions(board, methods=("approxmc",), approximation=Approximation(0.8, 0.2))
    assert counted.stopped == "estimate" and counted.estimate is not None
    assert 2**144 / 1.8 <= counted.estimate <= 2**144 * 1.8
    (factor,) = counted.factors
    assert factor.method == "approxmc" and (factor.epsilon, factor.delta) == (0.8, 0.2)
    assert counted.witness is not None


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/puzzles is absent")
def test_search_and_ganak_agree_on_the_corpus() -> None:
    """Every corpus puzzle with a residual: the native count and Ganak, each alone, agree
    where both finish."""
    compared = 0
    for path in sorted((SHARED / "corpus").rglob("*.non")):
        puzzle = read_puzzle(path)
        native = count_solutions(puzzle, methods=("search",), deadline=Deadline(0.5))
        if not native.factors:
            continue  # line logic and probing decide it: nothing for either method to count
        if not native.exact:
            continue  # nothing to compare Ganak's count with (those it counts take 0.1 s)
        counts = [native, count_solutions(puzzle, methods=("ganak",), deadline=Deadline(1))]
        finished = [c.count for c in counts if c.exact]
        assert len(set(finished)) <= 1, f"{path.name}: {[c.count for c in counts]}"
        compared += len(finished) == 2
    assert compared >= 8


def test_approxmc_counts_two_when_there_are_two() -> None:
    """The reason pyapproxmc is pinned: 4.3.0 to 4.4.0 answer 1 here (a wrong count)."""
    from satnono.encode.formula import CnfFormula
    from satnono.pipeline.counting.counters import approxmc_count

    formula = CnfFormula(variables=3, clauses=[[1], [2, 3], [-2, -3]])
    formula.cell_literals = {0: ((0, -2), (1, 2)), 1: ((0, -3), (1, 3))}
    assert approxmc_count(formula, 0.8, 0.2).value == 2
