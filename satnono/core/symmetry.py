"""The symmetries of a puzzle's clues: the flips and turns of the grid that take every solution
to a solution.

A flip or turn of a grid lays each of its lines onto a line of the grid it came from, forwards
or backwards; when every line's clue is the clue of the line it lands on (reversed when it runs
backwards, colors and all), the turned image of any solution fits the clues too. Many drawn
puzzles are symmetric (of webpbn's survey: Sierp and Mum left to right; Center and Flag left
to right, top to bottom and half round; Knot every way), and what one solution shows, its
images show as well: the backbone settles a cell and its images with one SAT call
(satnono.pipeline.backbone).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from satnono.core.model import Clue, Puzzle

#: A flip or turn as where each cell of the image comes from: (row, column, height, width)
#: -> (row, column) in the original, for an image as tall and wide as the original.
_Move = Callable[[int, int, int, int], tuple[int, int]]

_MOVES: dict[str, tuple[_Move, bool]] = {
    # name: (source of image cell (r, c), whether it needs a square grid)
    "mirror left-right": (lambda r, c, h, w: (r, w - 1 - c), False),
    "mirror top-bottom": (lambda r, c, h, w: (h - 1 - r, c), False),
    "turn half": (lambda r, c, h, w: (h - 1 - r, w - 1 - c), False),
    "transpose": (lambda r, c, h, w: (c, r), True),
    "transpose across": (lambda r, c, h, w: (w - 1 - c, h - 1 - r), True),
    "turn quarter": (lambda r, c, h, w: (w - 1 - c, r), True),
    "turn three quarters": (lambda r, c, h, w: (c, h - 1 - r), True),
}


def symmetries(puzzle: Puzzle) -> dict[str, tuple[int, ...]]:
    """Every flip or turn (but the identity) under which the clues are the same, by name, as
    where each cell goes (row-major indices): cell `c` of a solution is cell `moved[c]` of its
    image. They make a group: with a move, its inverse is there too."""
    height, width = puzzle.height, puzzle.width
    found: dict[str, tuple[int, ...]] = {}
    for name, (move, square) in _MOVES.items():
        if square and height != width:
            continue
        if _keeps_clues(puzzle, move):
            found[name] = _destinations(_MOVES[_INVERSE.get(name, name)][0], height, width)
    return found


#: The moves that are not their own inverse (each undoes the other).
_INVERSE = {"turn quarter": "turn three quarters", "turn three quarters": "turn quarter"}


def _destinations(inverse: _Move, height: int, width: int) -> tuple[int, ...]:
    """Where each cell goes under a move, given the move that undoes it: the cell the inverse
    takes each image cell from. A row's destinations run in even steps, so each row is a
    `range` (a fully symmetric 1000 x 1000 grid's seven moves took seconds cell by cell)."""

    def at(row: int, column: int) -> int:
        source_row, source_column = inverse(row, column, height, width)
        return source_row * width + source_column

    rows = []
    for row in range(height):
        start = at(row, 0)
        step = at(row, 1) - start if width > 1 else 1
        rows.append(range(start, start + step * width, step))
    return tuple(itertools.chain.from_iterable(rows))


def _keeps_clues(puzzle: Puzzle, move: _Move) -> bool:
    """Whether every line of the image has the clue of the line it comes from. A flip or turn
    takes a whole line to a whole line, so its two ends say which (and which way): a check
    per line, not per cell (a 1000 x 1000 grid's cells took seconds)."""
    height, width = puzzle.height, puzzle.width
    rows = (
        (puzzle.rows[row], move(row, 0, height, width), move(row, width - 1, height, width))
        for row in range(height)
    )
    columns = (
        (
            puzzle.columns[column],
            move(0, column, height, width),
            move(height - 1, column, height, width),
        )
        for column in range(width)
    )
    return all(
        _source_clue(puzzle, first, last) == clue
        for clue, first, last in itertools.chain(rows, columns)
    )


def _source_clue(puzzle: Puzzle, first: tuple[int, int], last: tuple[int, int]) -> Clue | None:
    """The clue of the original line that runs from cell `first` to cell `last` (the ends of a
    line of the image, in its order), as read that way; None when it is not a whole line."""
    (first_row, first_column), (last_row, last_column) = first, last
    if first_row == last_row and abs(last_column - first_column) == puzzle.width - 1:
        clue = puzzle.rows[first_row]
        backwards = first_column > last_column
    elif first_column == last_column and abs(last_row - first_row) == puzzle.height - 1:
        clue = puzzle.columns[first_column]
        backwards = first_row > last_row
    else:
        return None
    return tuple(reversed(clue)) if backwards else clue
