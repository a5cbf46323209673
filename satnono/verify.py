"""The independent checker: recompute a grid's clues and compare them with the puzzle's.

It shares nothing with the solvers (no automaton, no line solver, no encoding), so a bug there
cannot hide itself here. Every solution is checked before anything reports it.
"""

from __future__ import annotations

from collections.abc import Sequence

from satnono.model import Block, Grid, Puzzle


class VerificationError(AssertionError):
    """A solver produced a grid that breaks the clues: a satnono bug, never a user error."""


def runs(cells: Sequence[int]) -> list[tuple[int, int]]:
    """The (length, color) runs of non-background cells, left to right."""
    found: list[tuple[int, int]] = []
    previous = 0
    for cell in cells:
        if cell:
            if cell == previous:
                length, color = found[-1]
                found[-1] = (length + 1, color)
            else:
                found.append((1, cell))
        previous = cell
    return found


def line_clues(grid: Grid) -> tuple[list[list[tuple[int, int]]], list[list[tuple[int, int]]]]:
    """The (length, color) runs of every row and every column of a grid."""
    return [runs(row) for row in grid], [runs(column) for column in zip(*grid, strict=True)]


def matches(actual: Sequence[tuple[int, int]], clue: Sequence[Block]) -> bool:
    """Whether a line's runs are its clue's: same colors in order, and the same lengths
    except where the clue's number is blotted (any length)."""
    return len(actual) == len(clue) and all(
        color == block.color and (block.blotted or length == block.length)
        for (length, color), block in zip(actual, clue, strict=True)
    )


def problems(puzzle: Puzzle, grid: Grid) -> list[str]:
    """Every line whose recomputed clue differs from the puzzle's; empty when the grid is right."""
    if len(grid) != puzzle.height or any(len(row) != puzzle.width for row in grid):
        return [f"grid is not {puzzle.width}x{puzzle.height}"]
    colors = len(puzzle.palette)
    if any(not 0 <= cell < colors for row in grid for cell in row):
        return ["grid uses a color outside the palette"]
    rows, columns = line_clues(grid)
    found = []
    for kind, expected, actual in (("row", puzzle.rows, rows), ("column", puzzle.columns, columns)):
        for i, clue in enumerate(expected):
            if not matches(actual[i], clue):
                found.append(f"{kind} {i + 1}")
    return found


def verify(puzzle: Puzzle, grid: Grid) -> Grid:
    """Return the grid if it satisfies every clue; raise VerificationError otherwise."""
    wrong = problems(puzzle, grid)
    if wrong:
        raise VerificationError(
            f"internal error: a solver returned a wrong grid ({', '.join(wrong[:5])})"
        )
    return grid


class Verifier:
    """`verify` for a stream of solutions of one puzzle, remembering lines already checked.

    Successive solutions mostly repeat lines (they differ in a few regions), and whether a
    line's contents match its clue depends on nothing else, so each distinct (line, contents)
    pair is checked once. The check itself is the same run-length comparison as `problems`.
    """

    def __init__(self, puzzle: Puzzle) -> None:
        self.puzzle = puzzle
        self.expected = [*puzzle.rows, *puzzle.columns]
        #: Each line's runs as `runs` gives them, for a clue without a blotted number (one
        #: list comparison instead of `matches`); None where a number is blotted.
        self.exact: list[list[tuple[int, int]] | None] = []
        for clue in self.expected:
            wanted = [(block.length, block.color) for block in clue]
            self.exact.append(wanted if not wanted or min(wanted)[0] > 0 else None)
        self.good: set[tuple[int, tuple[int, ...]]] = set()

    def __call__(self, grid: Grid) -> Grid:
        puzzle = self.puzzle
        if len(grid) != puzzle.height or any(len(row) != puzzle.width for row in grid):
            return verify(puzzle, grid)
        colors = len(puzzle.palette)
        good, expected, exact = self.good, self.expected, self.exact
        lines = enumerate((*grid, *zip(*grid, strict=True)))
        for index, cells in lines:
            key = (index, tuple(cells))
            if key in good:
                continue
            found, wanted = runs(cells), exact[index]
            right = found == wanted if wanted is not None else matches(found, expected[index])
            if not right or min(cells) < 0 or max(cells) >= colors:
                return verify(puzzle, grid)  # raises, naming every wrong line
            if len(good) > 1_000_000:
                good.clear()
            good.add(key)
        return grid
