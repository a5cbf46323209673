"""The native engine's counting side held to its references: the Python counting search and
line logic (satnono.reference.counting, satnono.reference.propagate) and brute force over
every grid, on small black-and-white, color and blotted puzzles: counts, the stream of
every solution, the colors each cell takes, and the frequencies of exactly uniform draws (a
chi-square test).
"""

from __future__ import annotations

import math
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings

from satnono.backends import share_cores, usable_cores
from satnono.core.grids import colors_to_grid, decided_colors, palette_domains
from satnono.core.model import Block, Grid, Puzzle
from satnono.core.verify import VerificationError, Verifier
from satnono.formats.generate import puzzle_from_grid
from satnono.logic.counted import CountKnobs
from satnono.logic.jobs import Job
from satnono.logic.native import Engine
from satnono.pipeline.counting import count_solutions
from satnono.pipeline.prepare import prepare
from satnono.pipeline.sampling import Sampling
from satnono.pipeline.solutions import solve
from satnono.reference.counting import count_grids as _reference_count
from satnono.runtime.deadline import Deadline
from support import (
    blotted_puzzles,
    brute_force_solutions,
    every_grid,
    grids,
    puzzles,
    thin_20020,
)

SEARCH_ONLY = CountKnobs(sweep_width=0, sweep_trial=0)
SWEEP_FIRST = CountKnobs(sweep_width=10**6, sweep_trial=1 << 30)


def _native_count(puzzle: Puzzle, knobs: CountKnobs) -> int:
    counted = count_solutions(puzzle, methods=("search",), knobs=knobs)
    assert counted.exact
    if counted.count:
        assert counted.witness is not None and Verifier(puzzle)(counted.witness) is not None
    return counted.count


def _all_colors(puzzle: Puzzle, grids: set[Grid]) -> list[int]:
    """Every color each cell takes in `grids`, as domains."""
    colors = [0] * (puzzle.width * puzzle.height)
    for grid in grids:
        for cell, color in enumerate(color for row in grid for color in row):
            colors[cell] |= 1 << color
    return colors


def _check(puzzle: Puzzle) -> None:
    expected = every_grid(puzzle) if puzzle.has_blotted else brute_force_solutions(puzzle)
    # Counts: the native search, the native sweep, the Python reference.
    assert _native_count(puzzle, SEARCH_ONLY) == len(expected)
    assert _native_count(puzzle, SWEEP_FIRST) == len(expected)
    assert _reference_count(puzzle) == len(expected)
    # The stream: every solution once.
    streamed = solve(puzzle, limit=0, keep=None)
    assert streamed.complete and streamed.solutions_found == len(streamed.grids)
    assert set(streamed.grids) == expected and len(set(streamed.grids)) == len(streamed.grids)
    # The colors each cell takes.
    job = Engine(puzzle).ambiguity(palette_domains(puzzle), Deadline(None))
    job.finish(Deadline(None))
    solvable, colors, unsettled = job.ambiguity()
    assert solvable == bool(expected) and not unsettled
    if expected:
        assert colors == _all_colors(puzzle, expected)


@settings(max_examples=140, deadline=None)
@given(
    puzzles(max_width=5, max_height=4, max_colors=2)
    | puzzles(max_width=4, max_height=3, max_colors=3)
    | blotted_puzzles()
)
def test_the_engine_counts_as_the_references_do(puzzle: Puzzle) -> None:
    """Black and white up to 5x4, three colors up to 4x3, blotted clues."""
    _check(puzzle)


@settings(max_examples=200, deadline=None)
@given(puzzles(max_width=6, max_height=5, max_colors=2), grids(6, 5, 2))
def test_the_stream_s_checker_agrees_with_the_grid_checker(
    puzzle: Puzzle, drawn: tuple[Grid, int]
) -> None:
    """The verifier's pass over a grid's bytes (the stream's) and over its tuples agree, on
    solutions and on any other grid of the size."""
    grid = drawn[0]
    candidates = [*brute_force_solutions(puzzle)][:3]
    if len(grid) == puzzle.height and len(grid[0]) == puzzle.width:
        candidates.append(grid)
    for candidate in candidates:
        flat = bytes(color for row in candidate for color in row)
        verdicts = []
        for colors in (flat, None):
            try:
                Verifier(puzzle)(candidate, colors)
                verdicts.append(True)
            except VerificationError:
                verdicts.append(False)
        assert verdicts[0] == verdicts[1]


def test_decided_domains_become_the_same_grid_from_bytes_or_ints() -> None:
    domains = [1, 2, 4, 2, 1, 8]
    grid = colors_to_grid(3, decided_colors(domains))
    assert grid == ((0, 1, 2), (1, 0, 3)) == colors_to_grid(3, decided_colors(bytes(domains)))


def _chi_square_bound(freedom: int) -> float:
    """The chi-square value that `freedom` degrees of freedom pass with probability 0.999
    (Wilson and Hilferty's approximation, within a percent from 10 degrees on)."""
    z = 3.09
    a = 2 / (9 * freedom)
    return freedom * (1 - a + z * math.sqrt(a)) ** 3


def test_draws_are_exactly_uniform_by_a_chi_square_test() -> None:
    """100,000 draws from a puzzle of a few hundred solutions in one component, none of them
    independent of the others: every solution drawn, the frequencies even."""
    # A 6x6 permutation square: 6! = 720 solutions, one component.
    grid = tuple(tuple(int(r == c) for c in range(6)) for r in range(6))
    puzzle = puzzle_from_grid(grid, keep_goal=False)
    expected = brute_force_solutions(puzzle)
    assert len(expected) == 720
    draws = 100_000
    sampling = Sampling(puzzle, draws, seed=11)
    seen = Counter(sampling)
    assert [method.method for method in sampling.methods] == ["exact"]
    assert set(seen) == expected
    mean = draws / len(expected)
    statistic = sum((times - mean) ** 2 / mean for times in seen.values())
    assert statistic < _chi_square_bound(len(expected) - 1), statistic


def test_streamed_lines_reach_the_reader_at_once_though_flushed_in_bursts() -> None:
    """`--json-lines` flushes from a thread of its own every FLUSH_EVERY (a flush per line was
    a fifth of the stream's time): the first lines of an endless stream arrive within a
    moment, and a reader that goes away ends the run with 141, one line, no traceback."""
    import subprocess
    import sys
    import time

    from support import EXAMPLES

    command = [sys.executable, "-m", "satnono", "solve", str(EXAMPLES / "switchboard-10.non")]
    command += ["--max-solutions", "0", "--json-lines"]
    started = time.monotonic()
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        first = process.stdout.readline()
        assert first.startswith('{"solution": [') and time.monotonic() - started < 10
        process.stdout.close()  # the reader goes away mid-stream
        assert process.wait(timeout=20) == 141
        assert "Traceback" not in process.stderr.read()


def test_a_stream_writes_its_lines_in_bursts_and_leaves_none_behind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where stdout is unbuffered (PYTHONUNBUFFERED=1, as in many containers) every write is a
    system call, and a write per line took a third of a 100,000-solution stream's time: lines
    go out WRITE_LINES at a time (the flushing thread may add a write), the rest at the end."""
    import io
    import sys

    from satnono.cli import process

    writes: list[str] = []

    class Counting(io.StringIO):
        def write(self, text: str) -> int:
            writes.append(text)
            return super().write(text)

    out = Counting()
    monkeypatch.setattr(sys, "stdout", out)
    lines = [f'{{"solution": ["{n}"]}}' for n in range(1000)]
    for line in lines:
        process.stream_line(line)
    assert len(writes) <= len(lines) // process.WRITE_LINES + 3
    process.flush_stream()
    assert out.getvalue().splitlines() == lines


def test_a_streamed_line_is_the_solution_objects_json_whatever_the_palette() -> None:
    from satnono.core.model import BLACK_AND_WHITE, Color
    from satnono.output import contract

    grid = ((0, 1, 2), (2, 1, 0))
    for chars in ("#x", '"\\', "é\t"):
        palette = (
            BLACK_AND_WHITE[0],
            *(Color(f"c{i}", char, "#123456") for i, char in enumerate(chars)),
        )
        puzzle = puzzle_from_grid(grid, palette, keep_goal=False)
        line = contract.solution_line(puzzle, grid)
        assert line == contract.dumps(contract.solution_object(puzzle, grid)), chars


def test_a_hard_puzzle_s_stream_goes_on_with_the_probing_search() -> None:
    """Line logic alone wanders thousands of nodes between this random 20x20's solutions (it
    listed its 2,988 in 5 s; a random 30x30's 5,760: none in 300 s); once it goes dry, the
    probing search takes the rest (0.2 s here; engine/src/count/enumerate.rs)."""
    import random

    from satnono.formats.generate import random_grid

    puzzle = puzzle_from_grid(random_grid(20, 20, 2, 0.45, random.Random(5)))
    streamed = solve(puzzle, limit=0, keep=None, timeout=3)
    assert streamed.complete and streamed.solutions_found == 2988
    assert len(set(streamed.grids)) == 2988
    assert count_solutions(puzzle, methods=("ganak",)).count == 2988  # 2 s; the engine's 6 s


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_the_probing_search_lists_a_hard_puzzle_in_any_number_of_threads(threads: int) -> None:
    """Once the probing search takes the rest over, `threads` searches share it (a thread
    that waits for work is given the rest of another's, engine/src/search/parallel.rs): the
    same 2,988 solutions, each once."""
    import random

    from satnono.formats.generate import random_grid
    from satnono.pipeline.prepare import prepare

    puzzle = puzzle_from_grid(random_grid(20, 20, 2, 0.45, random.Random(5)))
    solutions = Engine(puzzle).solutions(prepare(puzzle).domains, threads=threads)
    found: list[tuple[int, ...]] = []
    while not solutions.done:
        found += map(tuple, solutions.batch(512, Deadline(30)))
    assert len(found) == len(set(found)) == 2988


def test_one_thread_s_listing_leaves_a_barren_subtree_for_another_part() -> None:
    """A depth-first listing is held in the first subtree it enters, however barren: on this
    random 25x25 (millions of solutions) one thread listed none in 20 s, and `count --timeout
    20` stopped at the SAT listing's 64. Now a part gone dry rotates to the back of the queue
    of parts (engine/src/search/parallel.rs): the first solution in 1-1.5 s, thousands a
    second after (the count: at least 35,546)."""
    import random

    from satnono.formats.generate import random_grid

    puzzle = puzzle_from_grid(random_grid(25, 25, 2, 0.45, random.Random(102)))
    solutions = Engine(puzzle).solutions(prepare(puzzle).domains, threads=1, layers=False)
    listed: list[bytes] | list[list[int]] = []
    deadline = Deadline(10)
    while len(listed) < 300 and not deadline.expired():
        listed += solutions.batch(300 - len(listed), deadline)  # type: ignore[operator]
    assert len(listed) == len(set(map(tuple, listed))) == 300
    verifier = Verifier(puzzle)  # raises on a wrong grid
    for domains in listed[:50]:
        verifier(colors_to_grid(puzzle.width, decided_colors(domains)))


def test_the_stream_is_guided_by_a_solution_when_the_listing_finds_none() -> None:
    """On this random 30x30 the engine's listing found no solution in 10 s, one thread or
    two (the stream of `solve --max-solutions 0` gave none before handing over after 30 s).
    After GUIDE_AFTER without one, a solution found by the sat backend guides it (each branch
    tries that solution's color first): 300 verified solutions in about 3 s."""
    import random

    import satnono
    from satnono.formats.generate import random_grid

    puzzle = puzzle_from_grid(random_grid(30, 30, 2, 0.45, random.Random(307)), keep_goal=False)
    found = [tuple(rows) for rows in satnono.iter_solutions(puzzle, max_solutions=300, timeout=8)]
    assert len(found) == len(set(found)) == 300


def _unsolvable_30x30() -> Puzzle:
    """A random 30x30 with one number of a row and one of a column made one longer: the same
    number of black cells both ways, and line logic leaves 895 cells open. CaDiCaL proves it
    unsolvable in 0.4 s; the engine's listing takes 7 s to find nothing."""
    import random

    from satnono.formats.generate import random_grid

    puzzle = puzzle_from_grid(random_grid(30, 30, 2, 0.45, random.Random(333)), keep_goal=False)
    rows, columns = list(puzzle.rows), list(puzzle.columns)
    rows[10] = (*rows[10][:2], Block(rows[10][2].length + 1, 1), *rows[10][3:])
    columns[12] = (Block(columns[12][0].length + 1, 1), *columns[12][1:])
    return replace(puzzle, rows=tuple(rows), columns=tuple(columns))


def test_the_stream_ends_where_the_guide_s_search_proves_there_is_no_solution() -> None:
    """`solve` proves `_unsolvable_30x30` unsolvable in 0.4 s, but the stream of `solve
    --max-solutions 0` took 7.8 s, the listing going on though the search for its guide had
    proved there was nothing to list. It ends with that proof now."""
    import time

    import satnono

    started = time.monotonic()
    result = satnono.solve(_unsolvable_30x30(), max_solutions=0, timeout=30)
    assert result.status == "unsolvable" and result.complete and not result.grids
    assert time.monotonic() - started < 5


def test_a_count_s_listing_is_guided_and_ends_where_its_guide_proves_there_is_none() -> None:
    """The listing beside a count (and a sample) is guided as the stream is: on the random
    30x30 whose listing finds no solution in 10 s, a count's lower bound after 10 s was the
    SAT side's 64 (now 143,649 as a whole `count --timeout 10`): its listing finds solutions
    within seconds. Its listing of `_unsolvable_30x30` ends with the guide's proof that there
    is nothing to list rather than after 7 s of finding nothing."""
    import random
    import time

    from satnono.formats.generate import random_grid
    from satnono.pipeline.counting.listing import NativeListing

    def listed(puzzle: Puzzle) -> tuple[NativeListing, float]:
        """Listed till its first solution, or its end."""
        listing = NativeListing(Engine(puzzle), prepare(puzzle))
        started = time.monotonic()
        try:
            while listing.going and not listing.found and time.monotonic() - started < 20:
                listing.step(Deadline(20))
        finally:
            listing.close()
        return listing, time.monotonic() - started

    grid = random_grid(30, 30, 2, 0.45, random.Random(307))
    listing, seconds = listed(puzzle_from_grid(grid, keep_goal=False))
    assert listing.found and seconds < 8
    listing, seconds = listed(_unsolvable_30x30())
    assert listing.exhausted and listing.found == 0 and seconds < 5


def test_a_closed_listing_s_threads_stop_searching() -> None:
    """The stream's two listing threads went on searching while the sat backend sought a
    guide (and after it had taken the stream over): frontier-4500001-45 gave no solution in
    150 s where `solve` alone finds one in 58-114 s. Closed, the listing's threads end: no
    CPU is spent after."""
    import random
    import time

    from satnono.formats.generate import random_grid

    puzzle = puzzle_from_grid(random_grid(30, 30, 2, 0.45, random.Random(307)), keep_goal=False)
    solutions = Engine(puzzle).solutions(prepare(puzzle).domains, threads=2, layers=False)
    solutions.batch(1, Deadline(0.5))  # both threads searching now (a second of CPU in 0.5 s)
    solutions.close()
    assert solutions.batch(1, Deadline(0.5)) == []
    spent = time.process_time()
    time.sleep(0.5)
    assert time.process_time() - spent < 0.3


def test_a_guide_orders_the_listing_and_changes_nothing_else() -> None:
    """Guided by any colors (a solution's or not), the listing gives the same solutions; a
    guide of the wrong length or with a color outside the palette is refused."""
    from satnono.formats.generate import switch_board

    puzzle = puzzle_from_grid(switch_board(3, 3), keep_goal=False)  # 512 solutions
    domains = prepare(puzzle).domains

    def listed(guide: list[int] | None, threads: int) -> set[tuple[int, ...]]:
        solutions = Engine(puzzle).solutions(domains, threads, layers=False, guide=guide)
        found: set[tuple[int, ...]] = set()
        while not solutions.done:
            found.update(map(tuple, solutions.batch(4096, Deadline(10))))
        return found

    every = listed(None, 1)
    cells = puzzle.width * puzzle.height
    assert len(every) == 512
    for guide in ([1] * cells, [(cell * 5) % 2 for cell in range(cells)]):
        for threads in (1, 2):
            assert listed(guide, threads) == every
    for bad in ([1] * (cells - 1), [2] * cells):
        with pytest.raises(ValueError, match="guide"):
            Engine(puzzle).solutions(domains, guide=bad)


@pytest.mark.parametrize("threads", [0, 65])
def test_a_listing_refuses_a_thread_count_out_of_range(threads: int) -> None:
    from satnono.formats import read_puzzle
    from satnono.pipeline.prepare import prepare
    from support import EXAMPLES

    puzzle = read_puzzle(EXAMPLES / "switches-8.non")
    with pytest.raises(ValueError, match="threads"):
        Engine(puzzle).solutions(prepare(puzzle).domains, threads=threads)


def test_the_backend_takes_the_stream_over_when_the_engine_finds_no_first_solution(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the engine's enumeration finds no solution within NATIVE_FIRST_SOLUTION seconds
    (webpbn's Sierp and Nature: none in 30 s), the backend lists them instead, from the
    start: here with no time at all for the engine, every solution still comes, once."""
    import random

    from satnono.formats.generate import random_grid
    from satnono.pipeline import solutions

    puzzle = puzzle_from_grid(random_grid(12, 12, 2, 0.45, random.Random(3)))
    expected = count_solutions(puzzle, methods=("search",)).count
    assert expected > 2
    # The backend's search leaves its own stats (the sat backend's native search's nodes).
    assert "native_nodes" not in solve(puzzle, limit=0, keep=None).stats
    monkeypatch.setattr(solutions, "NATIVE_FIRST_SOLUTION", 0.0)
    taken_over = solve(puzzle, limit=0, keep=None)
    assert "native_nodes" in taken_over.stats
    assert taken_over.complete and taken_over.solutions_found == expected
    assert len(set(taken_over.grids)) == expected


_MEMORY_PROBE = """
import resource, sys
sys.path.insert(0, sys.argv[1])
from support import load_tool
from satnono.logic.counted import CountKnobs
from satnono.pipeline.counting import count_solutions
from satnono.runtime.deadline import Deadline

puzzle = load_tool("generate").thin_board(9004, 0.2)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
count_solutions(puzzle, methods=("search",), knobs=CountKnobs(memory=16 << 20),
                deadline=Deadline(3))
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
"""


def _polled(knobs: CountKnobs, seconds: float, read: str) -> tuple[Job, list[tuple[bool, int]]]:
    """thin-20020's count by the engine, its progress polled every half millisecond till it
    ends: whether it said it sweeps, and its `read` figure, at each poll."""
    board = thin_20020()
    job = Engine(board).count(prepare(board).domains, Deadline(seconds), knobs)
    seen: list[tuple[bool, int]] = []
    while not job.wait(0.0005):
        progress = job.progress()
        seen.append((bool(progress["sweeping"]), progress[read]))
    return job, seen


def test_a_narrow_count_says_it_sweeps_from_the_sweep_s_setup_to_the_count_s_end() -> None:
    """Counters beside a count wait while the engine sweeps (`_Race._sweeping`). The cells
    passed read 0 before the sweep's first group and after its last (while the witness is
    traced), and a counter was forked there (round 27: a counter started after the sweep had
    begun). The engine's own flag covers the whole of it."""
    job, seen = _polled(CountKnobs(race=False), 60, "swept_cells")
    assert job.counted().exact
    assert any(swept for _, swept in seen)  # the polls saw the sweep itself
    first = next(at for at, (sweeping, _) in enumerate(seen) if sweeping)
    assert all(sweeping for sweeping, _ in seen[first:])


def test_a_sweep_out_of_bytes_lets_the_counters_join_the_search() -> None:
    """A narrow component whose sweep runs out of its memory goes to the counting search, which
    counters may join: the engine no longer says it sweeps once the search has begun."""
    job, seen = _polled(CountKnobs(race=False, memory=8 << 20), 2, "nodes")
    assert [part.method for part in job.counted().parts] == ["search"]
    assert any(nodes for _, nodes in seen)  # the polls saw the search
    assert not any(sweeping for sweeping, nodes in seen if nodes)


def test_a_count_s_line_analyses_keep_within_its_memory() -> None:
    """Regression: the counting search's table of line analyses was not in the memory
    budget; on a 6 x 138 board (rows of many blocks, tens of kilobytes an analysis) a count
    under 16 MB grew by 230 MB in 3 s (700 MB in 20 s). Now an eighth of the budget."""
    tests = str(Path(__file__).resolve().parent)
    grown = subprocess.run(
        [sys.executable, "-c", _MEMORY_PROBE, tests], capture_output=True, text=True, check=True
    ).stdout
    assert int(grown) < 48, f"the count grew by {grown.strip()} MB under a 16 MB budget"


def test_a_long_sweep_races_from_the_other_end_only_with_two_cores() -> None:
    """A narrow board's sweep still running after 10 ms is raced from the other end on a
    second thread; not where the count may use one core (a batch worker's share, a cube's
    task): the same count either way."""
    puzzle = thin_20020()  # 6 x 137: 0.2-1 s either way
    with share_cores(1):
        alone = count_solutions(puzzle, methods=("search",), deadline=Deadline(60))
    assert alone.exact
    assert alone.stats["count_races"] == 0
    if usable_cores() < 2:
        pytest.skip("one core: no race")
    raced = count_solutions(puzzle, methods=("search",), deadline=Deadline(60))
    assert raced.exact
    assert raced.count == alone.count
    assert raced.stats["count_races"] >= 1
