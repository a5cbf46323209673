"""tools/transfer_count.py, the independent count that confirms the engine's sweep on thin
boards: held to brute force on small blotted boards, and to the engine on larger ones."""

from __future__ import annotations

import random

import pytest

import satnono
from support import every_grid, load_tool


def _board(seed: int, height: int, width: int, blot: float) -> satnono.Puzzle:
    generate = load_tool("generate")
    rng = random.Random(seed)
    grid = generate.random_grid(width, height, 2, 0.5, rng)
    puzzle = generate.puzzle_from_grid(grid, title=f"test {seed}")
    return generate.blotted_board(puzzle, blot, rng)


@pytest.mark.parametrize("seed", range(40))
def test_the_transfer_count_is_brute_force_s_on_small_blotted_boards(seed: int) -> None:
    rng = random.Random(seed)
    puzzle = _board(seed, rng.randint(1, 4), rng.randint(2, 6), 0.3)
    assert load_tool("transfer_count").transfer_count(puzzle) == len(every_grid(puzzle))


@pytest.mark.parametrize("seed", range(4))
def test_the_transfer_count_is_the_engine_s_on_thin_boards(seed: int) -> None:
    puzzle = _board(seed, 5, 40, 0.2)
    counted = satnono.count(puzzle, timeout=30)
    assert counted.exact
    assert load_tool("transfer_count").transfer_count(puzzle) == counted.count % 2**64


def test_a_board_the_transfer_count_cannot_take_is_refused() -> None:
    wide = satnono.Puzzle.from_clues(rows=[[1]] * 9, columns=[[9]])
    with pytest.raises(ValueError, match="8 rows"):
        load_tool("transfer_count").transfer_count(wide)
