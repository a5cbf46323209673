"""The exact line solver against brute force over every arrangement of small lines."""

from __future__ import annotations

from itertools import product

from satnono.core.model import Block
from satnono.core.verify import runs
from satnono.encode.automaton import line_automaton
from satnono.reference.linesolver import LineSolver
from support import brute_force_line


def test_black_and_white_overlap() -> None:
    # The classic overlap: a 6 in a line of 10 fixes the middle two cells.
    solver = LineSolver((Block(6),), 10, 2)
    result = solver.solve((3,) * 10)
    assert result == (3, 3, 3, 3, 2, 2, 3, 3, 3, 3)


def test_different_colors_need_no_gap() -> None:
    # 2 red then 2 blue fill a line of 4 exactly: no gap between different colors.
    solver = LineSolver((Block(2, 1), Block(2, 2)), 4, 3)
    assert solver.solve((7, 7, 7, 7)) == (2, 2, 4, 4)
    # The same colors need a gap, so they cannot fit in 4.
    assert LineSolver((Block(2, 1), Block(2, 1)), 4, 3).solve((7,) * 4) is None


def test_empty_clue_is_all_background() -> None:
    assert LineSolver((), 3, 3).solve((7, 7, 7)) == (1, 1, 1)
    assert LineSolver((), 2, 2).solve((3, 2)) is None


def test_automaton_transitions() -> None:
    automaton = line_automaton((Block(1, 1), Block(1, 1)), 2)
    # States: 0 start, 1 first block, 2 gap, 3 second block.
    assert automaton.next_state(0, 0) == 0
    assert automaton.next_state(0, 1) == 1
    assert automaton.next_state(1, 1) is None
    assert automaton.next_state(1, 0) == 2
    assert automaton.next_state(2, 0) == 2
    assert automaton.next_state(3, 0) == 3
    assert automaton.accept == 3


def _black_and_white_clues(length: int) -> set[tuple[int, ...]]:
    """Every black-and-white clue that fits a line of `length` cells (and a few that do not)."""
    found = {tuple(n for n, _ in runs(cells)) for cells in product((0, 1), repeat=length)}
    return found | {(length + 1,), (length, 1)}


def test_an_empty_black_and_white_line_is_solved_as_the_automaton_and_brute_force_do() -> None:
    """The closed form of an empty line (linesolver._empty_line) against the automaton's
    pass over every cell and brute force, for every clue of lines up to 12 cells."""
    for length in range(1, 13):
        for lengths in _black_and_white_clues(length):
            clue = tuple(Block(n) for n in lengths)
            solver = LineSolver(clue, length, 2)
            empty = (3,) * length
            by_automaton = LineSolver._solve_blotted(solver, empty) or None
            assert solver.solve(empty) == by_automaton, (lengths, length)
            if length <= 8:
                assert by_automaton == brute_force_line(clue, empty, 2)
