"""The library's contract at its edge (issue 23): every public call given a bad argument raises
InputError naming the parameter, never a TypeError, OverflowError or AttributeError from deep
inside; an unsolvable or timed-out sample is a status, as a solve is.

Each case below was found raising something else before the arguments were checked once
(satnono/core/arguments.py); the list is the audit's, plus its neighbours.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import satnono
from satnono import InputError, Puzzle
from support import EXAMPLES

SMALL = Puzzle.from_clues(rows=[[1], [1]], columns=[[1], [1]])
DUCK = str(EXAMPLES / "duck.non")


def _generator() -> Any:
    yield [1]


#: (call, the parameter or text the message must name).
BAD_CALLS: dict[str, tuple[Callable[[], object], str]] = {
    # Puzzle.from_clues
    "a clue of 10**100": (
        lambda: Puzzle.from_clues(rows=[[10**100]], columns=[[1]]),
        "longer than any line",
    ),
    "70 colors": (
        lambda: Puzzle.from_clues(
            rows=[[(1, f"c{i}")] for i in range(70)], columns=[[(1, f"c{i}")] for i in range(70)]
        ),
        "at most 64",
    ),
    "a color that is not one": (
        lambda: Puzzle.from_clues([[(1, "red")]], [[(1, "red")]], colors={"red": "notacolor"}),
        "colors",
    ),
    "a 2000-cell block": (lambda: Puzzle.from_clues(rows=[[2000]], columns=[[1]]), "longer"),
    "None as a clue": (lambda: Puzzle.from_clues(rows=[[None]], columns=[[1]]), "clue number"),
    "rows None": (lambda: Puzzle.from_clues(rows=None, columns=[[1]]), "rows"),  # type: ignore[arg-type]
    "a clue that is a number": (lambda: Puzzle.from_clues(rows=[1], columns=[[1]]), "rows"),  # type: ignore[list-item]
    "colors as a list": (
        lambda: Puzzle.from_clues([[1]], [[1]], colors=["red"]),  # type: ignore[arg-type]
        "colors",
    ),
    "a title that is a number": (lambda: Puzzle.from_clues([[1]], [[1]], title=5), "title"),  # type: ignore[arg-type]
    # solve, count, analyze, start_solve, iter_solutions
    "timeout '5'": (lambda: satnono.solve(SMALL, timeout="5"), "timeout"),  # type: ignore[arg-type]
    "timeout True": (lambda: satnono.solve(SMALL, timeout=True), "timeout"),
    "timeout 10**400": (lambda: satnono.solve(SMALL, timeout=10**400), "timeout"),
    "timeout NaN": (lambda: satnono.solve(SMALL, timeout=float("nan")), "timeout"),
    "timeout -1": (lambda: satnono.solve(SMALL, timeout=-1), "timeout"),
    "max_solutions '2'": (lambda: satnono.solve(SMALL, max_solutions="2"), "max_solutions"),  # type: ignore[arg-type]
    "max_solutions None": (lambda: satnono.solve(SMALL, max_solutions=None), "max_solutions"),  # type: ignore[arg-type]
    "max_solutions 1.5": (lambda: satnono.solve(SMALL, max_solutions=1.5), "max_solutions"),  # type: ignore[arg-type]
    "max_solutions -1": (lambda: satnono.solve(SMALL, max_solutions=-1), "max_solutions"),
    "seed 'x'": (lambda: satnono.solve(SMALL, seed="x"), "seed"),
    "threads '2'": (lambda: satnono.solve(SMALL, threads="2"), "threads"),
    "backend 5": (lambda: satnono.solve(SMALL, backend=5), "backend"),  # type: ignore[arg-type]
    "an unknown solver": (lambda: satnono.solve(SMALL, solver="nosuch"), "solver"),
    "an unknown option": (lambda: satnono.solve(SMALL, colour=1), "options"),
    "keep 'x'": (lambda: satnono.solve(SMALL, keep="x"), "keep"),  # type: ignore[arg-type]
    "deadline 5": (lambda: satnono.solve(SMALL, deadline=5), "deadline"),  # type: ignore[arg-type]
    "on_solution 5": (lambda: satnono.solve(SMALL, on_solution=5), "on_solution"),  # type: ignore[arg-type]
    "solve None": (lambda: satnono.solve(None), "puzzle"),  # type: ignore[arg-type]
    "solve a path": (lambda: satnono.solve(DUCK), "puzzle"),  # type: ignore[arg-type]
    "start_solve stream 'x'": (lambda: satnono.start_solve(SMALL, stream="x"), "stream"),  # type: ignore[arg-type]
    "iter_solutions None": (lambda: list(satnono.iter_solutions(None)), "puzzle"),  # type: ignore[arg-type]
    "count timeout '5'": (lambda: satnono.count(SMALL, timeout="5"), "timeout"),  # type: ignore[arg-type]
    "count limit '5'": (lambda: satnono.count(SMALL, limit="5"), "limit"),  # type: ignore[arg-type]
    "count epsilon without approximate": (lambda: satnono.count(SMALL, epsilon=0.5), "epsilon"),
    "count epsilon 'x'": (
        lambda: satnono.count(SMALL, approximate=True, epsilon="x"),  # type: ignore[arg-type]
        "epsilon",
    ),
    "count delta 1": (lambda: satnono.count(SMALL, approximate=True, delta=1), "delta"),
    "count None": (lambda: satnono.count(None), "puzzle"),  # type: ignore[arg-type]
    "analyze max_solutions '3'": (
        lambda: satnono.analyze(SMALL, max_solutions="3"),  # type: ignore[arg-type]
        "max_solutions",
    ),
    "analyze max_solutions 1": (lambda: satnono.analyze(SMALL, max_solutions=1), "unique"),
    "analyze exact_count 'x'": (
        lambda: satnono.analyze(SMALL, exact_count="x"),  # type: ignore[arg-type]
        "exact_count",
    ),
    # sample, iter_samples
    "sample n '3'": (lambda: satnono.sample(SMALL, "3"), "n"),  # type: ignore[arg-type]
    "sample n 1.5": (lambda: satnono.sample(SMALL, 1.5), "n"),  # type: ignore[arg-type]
    "sample n 0": (lambda: satnono.sample(SMALL, 0), "n"),
    "sample a path": (lambda: satnono.sample("path", 2), "puzzle"),  # type: ignore[arg-type]
    "sample seed 'x'": (lambda: satnono.sample(SMALL, 2, seed="x"), "seed"),  # type: ignore[arg-type]
    "sample timeout 'x'": (lambda: satnono.sample(SMALL, 2, timeout="x"), "timeout"),  # type: ignore[arg-type]
    "sample an unknown sampler": (lambda: satnono.sample(SMALL, 2, sampler="x"), "sampler"),
    # reading and writing
    "read_puzzle None": (lambda: satnono.read_puzzle(None), "source"),  # type: ignore[arg-type]
    "read_puzzle 123": (lambda: satnono.read_puzzle(123), "source"),  # type: ignore[arg-type]
    "read_puzzle bytes": (lambda: satnono.read_puzzle(b"x.non"), "source"),  # type: ignore[arg-type]
    "read_puzzle index 0": (lambda: satnono.read_puzzle(DUCK, index=0), "index"),
    "read_puzzle format 5": (lambda: satnono.read_puzzle(DUCK, format=5), "format"),  # type: ignore[arg-type]
    "read_puzzle timeout 'x'": (lambda: satnono.read_puzzle(DUCK, timeout="x"), "timeout"),  # type: ignore[arg-type]
    "write_puzzles None": (lambda: satnono.write_puzzles(None, "x.non"), "puzzles"),  # type: ignore[arg-type]
    "write_puzzles [None]": (lambda: satnono.write_puzzles([None], "x.non"), "puzzles"),  # type: ignore[list-item]
    "write_puzzles to None": (lambda: satnono.write_puzzles([SMALL], None), "path"),  # type: ignore[arg-type]
    "write_puzzles an unknown suffix": (
        lambda: satnono.write_puzzles([SMALL], "x.zzz"),
        "(use format=)",
    ),
    "residual_cnf None": (lambda: satnono.residual_cnf(None), "puzzle"),  # type: ignore[arg-type]
    "residual_cnf encoding 5": (lambda: satnono.residual_cnf(SMALL, encoding=5), "encoding"),  # type: ignore[arg-type]
    "puzzle_from_grid None": (lambda: satnono.puzzle_from_grid(None), "grid"),  # type: ignore[arg-type]
    "puzzle_from_grid strings": (lambda: satnono.puzzle_from_grid(["ab#", "x"]), "grid"),  # type: ignore[list-item]
    "puzzle_from_grid color 3": (lambda: satnono.puzzle_from_grid(((0, 3), (1, 0))), "grid"),
    "puzzle_from_grid ragged": (lambda: satnono.puzzle_from_grid(((0, 1), (1,))), "grid"),
    "givens_for_uniqueness None": (lambda: satnono.givens_for_uniqueness(None), "puzzle"),  # type: ignore[arg-type]
    "fetch an unknown site": (lambda: satnono.fetch("nosuch", 1), "site"),
    "fetch id 'x'": (lambda: satnono.fetch("webpbn", "x"), "puzzle_id"),  # type: ignore[arg-type]
    # render
    "render None": (lambda: satnono.render(None, None, "x.svg"), "puzzle"),  # type: ignore[arg-type]
    "render to None": (lambda: satnono.render(SMALL, None, None), "path"),  # type: ignore[arg-type]
    "render show 'x'": (lambda: satnono.render(SMALL, None, "x.svg", show="x"), "show"),
    "render partial [1]": (lambda: satnono.render(SMALL, None, "x.svg", partial=[1]), "partial"),
    "render a grid of 5s": (lambda: satnono.render(SMALL, [[5]], "x.svg"), "solution"),
    "render a wrong solution": (lambda: satnono.render(SMALL, ["##", ".."], "x.svg"), "fit"),
}


@pytest.mark.parametrize("case", sorted(BAD_CALLS))
def test_a_bad_argument_is_an_input_error_naming_it(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    call, named = BAD_CALLS[case]
    with pytest.raises(InputError) as raised:
        call()
    message = str(raised.value)
    assert named in message
    assert "\n" not in message and len(message) < 300
    assert not list(tmp_path.iterdir())  # nothing half-written


def test_what_looked_like_mistakes_but_are_fine_still_works(tmp_path: Path) -> None:
    assert Puzzle.from_clues(rows=_generator(), columns=[[1]]).height == 1
    named = Puzzle.from_clues([[(1, "red")]], [[(1, "red")]], colors={"red": "red"})
    assert named.palette[1].rgb == "#ff0000"
    assert satnono.solve(SMALL, timeout=1e300).status == "multiple"
    for seconds in (Fraction(1, 2), Decimal("0.5")):  # any real number, converted once
        assert satnono.solve(SMALL, timeout=seconds).status == "multiple"
        assert satnono.count(SMALL, timeout=seconds).count == 2
    satnono.write_puzzles(SMALL, tmp_path / "one.non")  # one puzzle, not a list
    assert satnono.read_puzzle(tmp_path / "one.non") == SMALL


def test_an_unsolvable_or_timed_out_sample_is_a_status_not_an_exception() -> None:
    unsolvable = Puzzle.from_clues(rows=[[2]], columns=[[1], []])
    drawn = satnono.sample(unsolvable, 1)
    assert (list(drawn), drawn.status) == ([], "unsolvable") and drawn.reason
    timed_out = satnono.sample(SMALL, 2, timeout=0)
    assert timed_out.status == "timeout"
    drawn = satnono.sample(SMALL, 3, seed=1)
    assert drawn.status == "sampled" and len(drawn) == 3 and "uniform" in drawn.guarantee


def test_results_print_short() -> None:
    big = Puzzle.from_clues(rows=[[1, 1, 1]] * 60, columns=[[1] * 20] * 5 + [[]] * 55)
    for value in (big, satnono.solve(big, timeout=5), satnono.count(big, timeout=5)):
        assert len(repr(value)) < 300
    assert repr(satnono.read_puzzle(DUCK)) == "Puzzle('Duck', 15x15, 1 color)"
