"""The backbone settled beside a hard count (satnono.pipeline.counting.narrowing): sound (every
solution kept, only cells every solution shares fixed), used where the count's search stalls,
and within the count's deadline."""

from __future__ import annotations

import json
import random
import time
from dataclasses import replace

import pytest
from hypothesis import given, settings

from satnono.core.model import Puzzle
from satnono.formats.generate import puzzle_from_grid, random_grid
from satnono.pipeline.counting import count_solutions, narrowing
from satnono.pipeline.prepare import prepare
from satnono.runtime.deadline import Deadline
from support import PALETTES, SHARED, brute_force_solutions, puzzles, run_satnono

#: A random 25x25 of density 0.45 with 121 solutions: the native count's search alone had
#: not finished after 15 s; its backbone (486 cells line logic leaves open) makes the rest
#: one narrow component, swept at once.
STALLS = puzzle_from_grid(random_grid(25, 25, 2, 0.45, random.Random(5)))


def _narrowed_as_brute_force_says(puzzle: Puzzle) -> bool:
    """`narrowed_by_backbone` on `puzzle` against its solutions by brute force: every cell
    keeps exactly the colors its solutions take (none lost, none left over), and the cells
    fixed are those line logic left open that every solution colors alike. Whether it
    narrowed anything."""
    solutions = [[color for row in grid for color in row] for grid in brute_force_solutions(puzzle)]
    prepared = prepare(puzzle)
    if prepared.reason is not None:
        assert not solutions
        return False
    left_open = [cell for cell, domain in enumerate(prepared.domains) if domain & (domain - 1)]
    seen = [0] * len(prepared.domains)
    for solution in solutions:
        for cell, color in enumerate(solution):
            seen[cell] |= 1 << color
    one_color = [cell for cell in left_open if seen[cell] and not seen[cell] & (seen[cell] - 1)]
    narrowed = narrowing.narrowed_by_backbone(prepared, Deadline(None))
    # Given what half the solutions show (as a count's listing tells it), the same.
    shown = [0] * len(seen)
    for solution in solutions[: len(solutions) // 2]:
        for cell, color in enumerate(solution):
            shown[cell] |= 1 << color
    told = narrowing.narrowed_by_backbone(prepared, Deadline(None), seen=shown)
    if narrowed is None:  # no solution, or no cell line logic left open is backbone
        assert not solutions or not one_color
        assert told is None
        return False
    assert narrowed.exact and narrowed.fixed == len(one_color)
    assert narrowed.prepared.domains == seen
    assert told is not None and told.prepared.domains == seen
    return True


@settings(max_examples=60, deadline=None)
@given(puzzles(max_width=5, max_height=5, max_colors=3))
def test_the_backbone_of_small_color_puzzles_is_brute_forces(puzzle: Puzzle) -> None:
    _narrowed_as_brute_force_says(puzzle)


@pytest.mark.parametrize(
    ("colors", "seeds", "least", "mirrored"),
    [(2, 200, 30, False), (3, 60, 10, False), (2, 80, 15, True)],
)
def test_the_backbone_of_random_8x8_puzzles_is_brute_forces(
    colors: int, seeds: int, least: int, mirrored: bool
) -> None:
    """Line logic decides every cell of most small puzzles; on random 8x8 grids it leaves
    backbone cells open in about one in six (up to 53 of the 64 cells). `mirrored`: each
    grid's right half the mirror image of its left, so its clues are the same mirrored and
    the backbone settles each cell with its image."""
    narrowed = 0
    for seed in range(seeds):
        grid = random_grid(4 if mirrored else 8, 8, colors, 0.5, random.Random(seed))
        if mirrored:
            grid = tuple((*row, *reversed(row)) for row in grid)
        if prepare(puzzle := puzzle_from_grid(grid, PALETTES[colors])).cells_left:
            narrowed += _narrowed_as_brute_force_says(puzzle)
    assert narrowed >= least


def test_the_backbone_turns_a_count_the_search_cannot_finish_into_a_sweep() -> None:
    started = time.perf_counter()
    counted = count_solutions(STALLS, methods=("search",), deadline=Deadline(20))
    assert (counted.count, counted.exact) == (121, True)
    assert counted.stats["backbone"]["fixed"] == 486 and counted.stats["backbone"]["exact"]
    assert [factor.method for factor in counted.factors] == ["sweep"]
    assert counted.witness is not None
    assert time.perf_counter() - started < 10


@pytest.mark.skipif(not (SHARED / "corpus").exists(), reason="../shared is absent")
def test_count_says_the_backbone_fixed_cells_first() -> None:
    """gnonograms_tux: 1,457 backbone cells line logic leaves open; with them fixed, one
    narrow component swept at once. The count had no exact answer in 10 s without them."""
    tux = str(SHARED / "corpus" / "nonogram-db" / "removed_upstream_gnonograms_tux.non")
    data = json.loads(run_satnono("count", tux, "--json", "--timeout", "60").stdout)
    assert (data["count"], data["exact"]) == (5_378_871, True)
    assert data["backbone"] == {
        "fixed": 1457,
        "seconds": data["backbone"]["seconds"],
        "exact": True,
    }


def test_the_count_s_line_says_the_backbone_fixed_cells_first() -> None:
    from satnono.cli.present import count_text
    from satnono.core.status import Status
    from satnono.pipeline.solutions import CountResult, SolveResult

    backbone = {"fixed": 1457, "seconds": 0.9, "exact": True}
    solved = SolveResult(STALLS, Status.MULTIPLE, True, (), 121, 2.0, "sat", stats={})
    plain = CountResult(121, True, 2.0, solved)
    narrowed = CountResult(121, True, 2.0, replace(solved, stats={"backbone": backbone}))
    assert "backbone" not in count_text(plain, 0)
    assert count_text(narrowed, 0) == (
        "121 solutions (exact) (2.00 s; SAT backbone fixed 1457 cells first)"
    )


@pytest.mark.serial  # 4.2 s beside a second test worker in CI (2.8-3.4 s alone, before too)
@pytest.mark.skipif(not (SHARED / "webpbn-survey").exists(), reason="../shared is absent")
def test_a_deadline_inside_the_backbone_ends_the_count_on_time() -> None:
    """Sierp's backbone takes over 20 s (every cell line logic leaves is ambiguous): the
    deadline comes while its solver runs beside the count, which still ends on time with its
    lower bound."""
    sierp = str(SHARED / "webpbn-survey" / "12548-sierp.non")
    started = time.monotonic()
    done = run_satnono("count", sierp, "--json", "--timeout", "2.5")
    assert time.monotonic() - started < 2.5 + 1.5, done.stderr[-500:]
    data = json.loads(done.stdout)
    assert data["stopped"] == "timeout" and not data["exact"] and "backbone" not in data


@pytest.mark.skipif(not (SHARED / "corpus").exists(), reason="../shared is absent")
def test_sample_draws_exactly_uniformly_from_the_narrowed_count() -> None:
    """Without the backbone, gnonograms_tux's exact count did not end within the sampler's
    10 s budget, and CMSGen drew its samples (no formal guarantee)."""
    tux = str(SHARED / "corpus" / "nonogram-db" / "removed_upstream_gnonograms_tux.non")
    data = json.loads(run_satnono("sample", tux, "-n", "2", "--json", "--timeout", "60").stdout)
    assert data["sampled_by"] == ["exact"] and len(data["solutions"]) == data["samples"] == 2
    assert data["guarantee"].startswith("exactly uniform: each of the 5378871 solutions")


def test_a_count_s_listing_gathers_the_colors_its_solutions_take() -> None:
    from satnono.logic.native import Engine
    from satnono.pipeline.counting.listing import NativeListing

    for seed in (0, 13, 26):  # random 8x8 grids line logic leaves 10-35 cells of open
        puzzle = puzzle_from_grid(random_grid(8, 8, 2, 0.5, random.Random(seed)))
        seen = [0] * 64
        for grid in brute_force_solutions(puzzle):
            for cell, color in enumerate(color for row in grid for color in row):
                seen[cell] |= 1 << color
        listing = NativeListing(Engine(puzzle), prepare(puzzle))
        listing.seeing = True
        while listing.going:
            listing.step(Deadline(5))
        assert listing.exhausted and listing.seen(64) == seen


def test_the_colors_a_listing_saw_count_for_the_images_of_their_cells_too() -> None:
    """Found by hypothesis in CI: on a puzzle whose clues are the same mirrored left to right,
    the backbone settles a cell and its mirror image together (each model's image is a model
    too), but the colors a listing had seen were not mirrored: a cell seen in two colors
    settled its image, seen in one, and that image was fixed to it though it takes both."""
    from satnono.core.model import Block

    def clue(*lengths: int) -> tuple[Block, ...]:
        return tuple(Block(length, 1) for length in lengths)

    palette = puzzle_from_grid(((0, 1),)).palette
    rows = (clue(1), clue(1, 1), clue(1, 1), clue(4), clue(1, 1))
    columns = (clue(1), clue(4), clue(1), clue(4), clue(1))
    assert _narrowed_as_brute_force_says(Puzzle(5, 5, rows, columns, palette)) is False


def test_the_backbone_beside_a_count_keeps_to_glucose(monkeypatch: pytest.MonkeyPatch) -> None:
    """CaDiCaL 1.9.5 holds the interpreter's lock through each call: taking the backbone over
    beside a count (on a thread of this process) stalled the count's listing on the main
    thread (Faase's count listed 64 solutions in 30 s, against 20,000 or more). Only
    `analyze`'s backbone, which has the process to itself, hands a component to CaDiCaL."""
    import satnono.pipeline.flipping

    def taken_over(self: satnono.pipeline.flipping.Flipping) -> None:
        raise AssertionError("CaDiCaL took over beside a count")

    # A random 30x30 whose backbone has a Glucose call of more than one conflict.
    board = puzzle_from_grid(random_grid(30, 30, 2, 0.5, random.Random(2)))
    monkeypatch.setattr(satnono.pipeline.flipping, "TAKE_OVER_AFTER", 1)
    monkeypatch.setattr(satnono.pipeline.flipping.Flipping, "_take_over", taken_over)
    narrowed = narrowing.narrowed_by_backbone(prepare(board), Deadline(60))
    assert narrowed is None or narrowed.exact
