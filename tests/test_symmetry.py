"""The clues' symmetries, and the backbone that settles a cell and its images at once.

A symmetry listed that is not one would mark cells ambiguous (or backbone) from a grid that is
no solution: `analyze` would be wrong. So the symmetries are held to the clues of the turned
grid, and the backbone of symmetric puzzles to brute force.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import satnono.pipeline.backbone
import satnono.pipeline.flipping
from satnono.core.model import Grid, Puzzle
from satnono.core.symmetry import _MOVES, symmetries
from satnono.formats.generate import puzzle_from_grid, switch_board
from satnono.pipeline.backbone import backbone
from satnono.pipeline.prepare import prepare
from support import PALETTES, brute_force_colors, grids


def _image(grid: Grid, name: str) -> Grid:
    """The grid turned by the move `name` (a square grid for the square-only moves)."""
    move, _ = _MOVES[name]
    height, width = len(grid), len(grid[0])
    return tuple(
        tuple(
            grid[source[0]][source[1]]
            for source in (move(row, column, height, width) for column in range(width))
        )
        for row in range(height)
    )


@st.composite
def symmetric_grids(draw: st.DrawFn, max_side: int = 5, max_colors: int = 3) -> tuple[Grid, int]:
    """A random grid made the same under one move: each cell takes the color of the first
    cell of its orbit under the move (square grids for the square-only moves)."""
    name = draw(st.sampled_from(sorted(_MOVES)))
    grid, colors = draw(grids(max_side, max_side, max_colors))
    if _MOVES[name][1]:
        side = min(len(grid), len(grid[0]))
        grid = tuple(row[:side] for row in grid[:side])
    height, width = len(grid), len(grid[0])
    cells = [
        [grid[r][c] for r, c in (_first_of_orbit(row, column, height, width, name)
                                 for column in range(width))]
        for row in range(height)
    ]  # fmt: skip
    return tuple(tuple(row) for row in cells), colors


def _first_of_orbit(row: int, column: int, height: int, width: int, name: str) -> tuple[int, int]:
    move, _ = _MOVES[name]
    orbit, at = [(row, column)], move(row, column, height, width)
    while at != (row, column):
        orbit.append(at)
        at = move(*at, height, width)
    return min(orbit)


@settings(max_examples=150, deadline=None)
@given(grids(5, 5, 3) | symmetric_grids())
def test_the_symmetries_are_the_moves_that_keep_the_clues(drawn: tuple[Grid, int]) -> None:
    """A move is listed exactly when the turned grid has the same clues; and it says where
    each cell goes."""
    grid, colors = drawn
    puzzle = puzzle_from_grid(grid, PALETTES[colors], keep_goal=False)
    found = symmetries(puzzle)
    height, width = len(grid), len(grid[0])
    for name, (_, square) in _MOVES.items():
        if square and height != width:
            assert name not in found
            continue
        image = _image(grid, name)
        turned = puzzle_from_grid(image, PALETTES[colors], keep_goal=False)
        keeps = (turned.rows, turned.columns) == (puzzle.rows, puzzle.columns)
        assert (name in found) == keeps
        if keeps:
            flat, flat_image = sum(grid, ()), sum(image, ())
            assert all(flat_image[found[name][cell]] == flat[cell] for cell in range(len(flat)))


@settings(max_examples=120, deadline=None)
@given(symmetric_grids(5, 2) | symmetric_grids(4, 4), st.booleans())
def test_the_backbone_of_a_symmetric_puzzle_is_brute_force_s(
    drawn: tuple[Grid, int], forked: bool
) -> None:
    """Every color of every cell, images settled with their cell, on one solver or several."""
    grid, colors = drawn
    puzzle = puzzle_from_grid(grid, PALETTES[colors], keep_goal=False)
    union = brute_force_colors(puzzle)
    prepared = prepare(puzzle)
    assert union is not None and prepared.reason is None  # the grid is a solution
    threshold = satnono.pipeline.flipping.PARALLEL_CANDIDATES
    satnono.pipeline.flipping.PARALLEL_CANDIDATES = 1 if forked else threshold
    try:
        found = backbone(prepared, workers=2 if forked else 1)
    finally:
        satnono.pipeline.flipping.PARALLEL_CANDIDATES = threshold
    assert found is not None and found.exact and list(found.colors) == union


def _settled(
    puzzle: Puzzle, monkeypatch: pytest.MonkeyPatch, symmetric: bool
) -> tuple[tuple[int, ...], int]:
    """The exact backbone's colors and its SAT calls, with or without the symmetries."""
    with monkeypatch.context() as patch:
        if not symmetric:
            patch.setattr(satnono.pipeline.backbone, "symmetries", lambda puzzle: {})
        found = backbone(prepare(puzzle), workers=1)
    assert found is not None and found.exact
    return found.colors, found.sat_calls


def _fewer_calls(puzzle: Puzzle, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same colors either way, in fewer SAT calls with the symmetries."""
    colors, calls = _settled(puzzle, monkeypatch, True)
    plain_colors, plain_calls = _settled(puzzle, monkeypatch, False)
    assert colors == plain_colors and calls < plain_calls


def test_a_cell_and_its_images_are_settled_by_one_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """A board of switches is the same every way: its images flip what a model flips."""
    board = puzzle_from_grid(switch_board(2, 3))
    assert set(symmetries(board)) == {"mirror left-right", "mirror top-bottom", "turn half"}
    _fewer_calls(board, monkeypatch)


def test_a_component_that_is_the_image_of_another_takes_no_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two switches that share no line: two components, each the other's image turned half
    round; the second is read off the first."""
    rows = (".#..##", "..####", "#.....", ".....#", "####..", "##..#.")
    board = puzzle_from_grid(tuple(tuple(int(char == "#") for char in row) for row in rows))
    assert list(symmetries(board)) == ["turn half"] and len(prepare(board).parts()) == 2
    assert _settled(board, monkeypatch, True)[0] == tuple(brute_force_colors(board) or ())
    _fewer_calls(board, monkeypatch)


def test_where_each_cell_goes_is_the_move_undone_cell_by_cell() -> None:
    """The destinations are made a row at a time from the inverse move; held to the definition
    (cell `c` of a solution is cell `moved[c]` of its image), cell by cell, on every shape."""
    from satnono.core.symmetry import _INVERSE, _destinations

    for height in range(1, 7):
        for width in range(1, 7):
            for name, (move, square) in _MOVES.items():
                if square and height != width:
                    continue
                expected = [0] * (height * width)
                for row in range(height):
                    for column in range(width):
                        source_row, source_column = move(row, column, height, width)
                        expected[source_row * width + source_column] = row * width + column
                inverse = _MOVES[_INVERSE.get(name, name)][0]
                assert _destinations(inverse, height, width) == tuple(expected), name
