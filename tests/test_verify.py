"""The independent checker against a reference written here from the rules (itertools.groupby),
on right and wrong grids, black-and-white and color, blotted clues, first and repeated calls."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from satnono.core.model import BLOTTED, Block, Grid, Puzzle
from satnono.core.verify import VerificationError, Verifier, verify
from satnono.formats.generate import puzzle_from_grid
from support import PALETTES


def follows_the_clues(puzzle: Puzzle, grid: Grid) -> bool:
    """The rules, written out: every line's runs of equal non-background cells are its clue's
    blocks, in order (a blotted block any length)."""
    colors = len(puzzle.palette)
    if len(grid) != puzzle.height or any(len(row) != puzzle.width for row in grid):
        return False
    if any(not 0 <= cell < colors for row in grid for cell in row):
        return False

    def fits(cells: tuple[int, ...], clue: tuple[Block, ...]) -> bool:
        found = [(color, len(list(run))) for color, run in itertools.groupby(cells) if color]
        return len(found) == len(clue) and all(
            color == block.color and (block.length == BLOTTED or size == block.length)
            for (color, size), block in zip(found, clue, strict=True)
        )

    columns = list(zip(*grid, strict=True))
    return all(fits(tuple(row), clue) for row, clue in zip(grid, puzzle.rows, strict=True)) and all(
        fits(column, clue) for column, clue in zip(columns, puzzle.columns, strict=True)
    )


@st.composite
def cases(draw: st.DrawFn) -> tuple[Puzzle, Grid, list[Grid]]:
    """A puzzle made from a random grid (sometimes with blotted numbers), and grids to check:
    its own, and variants with cells changed, some to values outside the palette."""
    colors = draw(st.sampled_from([2, 2, 3, 4]))
    width, height = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    cells = st.integers(0, colors - 1)
    grid = tuple(
        tuple(draw(st.lists(cells, min_size=width, max_size=width))) for _ in range(height)
    )
    puzzle = puzzle_from_grid(grid, PALETTES[colors])
    if draw(st.booleans()):  # hide some numbers
        hidden = draw(st.sets(st.integers(0, puzzle.line_count - 1), max_size=3))

        def blot(line: int, clue: tuple[Block, ...]) -> tuple[Block, ...]:
            if line not in hidden or not clue:
                return clue
            return (Block(BLOTTED, clue[0].color), *clue[1:])

        rows = tuple(blot(n, clue) for n, clue in enumerate(puzzle.rows))
        columns = tuple(blot(puzzle.height + n, clue) for n, clue in enumerate(puzzle.columns))
        puzzle = Puzzle(width, height, rows, columns, puzzle.palette)
    others = []
    for _ in range(draw(st.integers(1, 4))):
        changed = [list(row) for row in grid]
        for _ in range(draw(st.integers(1, 3))):
            r, c = draw(st.integers(0, height - 1)), draw(st.integers(0, width - 1))
            changed[r][c] = draw(st.sampled_from([*range(colors), colors, -1, 255, 300]))
        others.append(tuple(tuple(row) for row in changed))
    return puzzle, grid, others


def _accepts(verifier: Verifier, grid: Grid) -> bool:
    try:
        verifier(grid)
    except VerificationError:
        return False
    return True


@settings(max_examples=300, deadline=None)
@given(cases())
def test_the_verifier_accepts_exactly_the_grids_that_follow_the_rules(
    case: tuple[Puzzle, Grid, list[Grid]],
) -> None:
    puzzle, grid, others = case
    assert _accepts(Verifier(puzzle), grid)
    # First call (no line remembered) and later calls (lines remembered) alike.
    repeated = Verifier(puzzle)
    assert _accepts(repeated, grid)
    for other in others:
        assert _accepts(Verifier(puzzle), other) == follows_the_clues(puzzle, other)
        assert _accepts(repeated, other) == follows_the_clues(puzzle, other)
        assert (not verify_problems(puzzle, other)) == follows_the_clues(puzzle, other)


@settings(max_examples=300, deadline=None)
@given(cases(), st.randoms(use_true_random=False), st.sampled_from([0, 10**9]))
def test_a_batch_is_all_right_exactly_when_every_grid_follows_the_rules(
    case: tuple[Puzzle, Grid, list[Grid]], random: Any, expressions_after: int
) -> None:
    """`all_right` (the solution stream checks its batches so) against the rules, grid by
    grid: a batch of the right grid repeated, with a wrong one put anywhere in it, or two;
    both ways it checks a batch (matched by expressions, or grid by grid written out)."""
    puzzle, grid, others = case

    def flat(each: Grid) -> bytes | None:
        try:
            return bytes(cell for row in each for cell in row)
        except ValueError:  # a cell past a byte: no engine hands such bytes over
            return None

    right = flat(grid)
    assert right is not None
    batch = [right] * random.randint(1, 5)
    checker = Verifier(puzzle, expressions_after)
    # A puzzle without a pattern (colors, blotted numbers) is never checked by the batch.
    assert checker.all_right(batch) == (checker.pattern is not None)
    for other in others:
        wrong = flat(other)
        if wrong is None:
            continue
        mixed = list(batch)
        mixed.insert(random.randint(0, len(mixed)), wrong)
        expected = checker.pattern is not None and follows_the_clues(puzzle, other)
        assert checker.all_right(mixed) == expected
    # Wrong in its columns alone (a row's cells moved one place along it, its runs kept), or
    # in its rows alone (the same down a column): each half of the check must see it.
    for turned in (False, True):
        lines = [list(line) for line in (zip(*grid, strict=True) if turned else grid)]
        for line in lines:
            if line and not line[-1]:
                line.insert(0, line.pop())  # its last cell is background: its runs move right
                break
        moved = tuple(zip(*lines, strict=True)) if turned else tuple(map(tuple, lines))
        wrong = flat(moved)
        assert wrong is not None
        expected = checker.pattern is not None and follows_the_clues(puzzle, moved)
        assert checker.all_right([*batch, wrong]) == expected
    assert not checker.all_right([])
    assert not checker.all_right([right[:-1]])  # a grid of the wrong size


def verify_problems(puzzle: Puzzle, grid: Grid) -> bool:
    try:
        verify(puzzle, grid)
    except VerificationError:
        return True
    return False


@pytest.mark.parametrize(
    "grid",
    [
        ((1, 1, 0), (0, 1, 1)),  # a wrong picture
        ((1, 1), (0, 1)),  # a wrong shape
        ((1, 2, 0), (0, 1, 1)),  # a color outside a black-and-white palette
        ((1, 1, 0), (0, 1, -1)),
        ((1, 1, 0), (0, 1, 256)),
    ],
)
def test_wrong_grids_are_refused_naming_the_problem(grid: Grid) -> None:
    puzzle = puzzle_from_grid(((1, 1, 0), (0, 1, 0)), PALETTES[2])
    with pytest.raises(VerificationError, match="internal error"):
        Verifier(puzzle)(grid)
    verifier = Verifier(puzzle)
    verifier(((1, 1, 0), (0, 1, 0)))  # lines remembered, then the wrong grid
    with pytest.raises(VerificationError):
        verifier(grid)


@pytest.mark.parametrize("expressions_after", [0, 10**9])
@pytest.mark.parametrize("width, height", [(3, 3), (5, 2), (1, 4)])
def test_every_black_and_white_grid_of_a_small_board_is_judged_by_the_rules(
    width: int, height: int, expressions_after: int
) -> None:
    """Every grid of a small black-and-white board, against the clues of every one of a few
    grids made from it: one grid at a time (as rows, and as the engine's bytes), and all of
    them in one batch, agree with the rules written out here, both ways a batch is checked
    (matched by the clues' expressions, or grid by grid written out). A block read one cell
    too short or too long, two blocks run together, a block at either end: each board has
    them all."""
    grids = [
        tuple(tuple(cells[row * width : (row + 1) * width]) for row in range(height))
        for cells in itertools.product((0, 1), repeat=width * height)
    ]
    for made_from in grids[:: max(1, len(grids) // 7)]:
        puzzle = puzzle_from_grid(made_from)
        checker = Verifier(puzzle, expressions_after)
        assert checker.pattern is not None
        right = []
        for grid in grids:
            flat = bytes(cell for row in grid for cell in row)
            expected = follows_the_clues(puzzle, grid)
            for colors in (None, flat):
                try:
                    checker(grid, colors)
                    judged = True
                except VerificationError:
                    judged = False
                assert judged == expected, (made_from, grid, colors is not None)
            assert checker.all_right([flat]) == expected
            if expected:
                right.append(flat)
        assert checker.all_right(right) == bool(right)
        assert not checker.all_right([*right, bytes(width * height)]) or follows_the_clues(
            puzzle, tuple((0,) * width for _ in range(height))
        )
