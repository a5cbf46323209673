"""Blotted clues (a hidden number: a run of unknown length; `?` in .non, 0 in webpbn XML): every
backend, the counters and the line solver agree with brute force over all grids of small puzzles."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings

from satnono.backends import SearchOptions
from satnono.backends import sat as sat_backend
from satnono.core.model import BLOTTED, Block, Puzzle
from satnono.encode.cnf import DEFAULT_ENCODING, ENCODINGS
from satnono.errors import InputError
from satnono.formats import FORMATS, parse_text, write_puzzles
from satnono.logic.counted import CountKnobs
from satnono.pipeline.counting import Approximation, count_solutions
from satnono.pipeline.solutions import solve
from satnono.runtime.deadline import Deadline
from support import backend_solutions, blotted_puzzles, every_grid

BACKENDS = ["sat", "cpsat", "backtrack", "portfolio"]


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=40, deadline=None)
@given(puzzle=blotted_puzzles())
def test_every_backend_finds_exactly_the_grids_that_fit(backend: str, puzzle: Puzzle) -> None:
    expected = every_grid(puzzle)
    result = solve(puzzle, backend=backend, limit=0)
    assert result.complete
    assert set(result.grids) == expected


BLOTTED_FIVE = Puzzle.from_clues(rows=[["?"], ["?", 1]], columns=[[1], [1], ["?"], ["?"]])


def test_the_handover_to_cdcl_after_the_native_search_loses_no_solution(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Regression: a solution that probing found and ruled out at the root lies outside the
    probed residual, at a cell that is decided there. Its blocking clause over the residual's
    cells alone was the clause of another solution, which CDCL then never reported."""
    monkeypatch.setattr(sat_backend, "SEARCH_WORK", 0)  # CDCL right after the root's probing
    monkeypatch.setattr(sat_backend, "SMALL_SEARCH_WORK", 0)
    found, report = backend_solutions("sat", BLOTTED_FIVE)
    assert "cnf_variables" in report.stats and report.exhausted  # CDCL took over and finished
    assert sorted(found) == sorted(every_grid(BLOTTED_FIVE)) and len(found) == 5


@pytest.mark.parametrize("backend", ["sat", "backtrack"])
@settings(max_examples=60, deadline=None)
@given(puzzle=blotted_puzzles())
def test_the_native_paths_find_exactly_the_grids_that_fit(backend: str, puzzle: Puzzle) -> None:
    """The backends themselves on the whole grid (the pipeline sends such small puzzles to the
    classic search); the sat backend hands over to CDCL right after probing the root."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sat_backend, "SEARCH_WORK", 0)
        patch.setattr(sat_backend, "SMALL_SEARCH_WORK", 0)
        found, report = backend_solutions(backend, puzzle)
    assert report.exhausted
    assert len(found) == len(set(found)) and set(found) == every_grid(puzzle)


# The default encoding is the sat backend's, tested above.
@pytest.mark.parametrize("encoding", sorted(set(ENCODINGS) - {DEFAULT_ENCODING}))
@settings(max_examples=25, deadline=None)
@given(puzzle=blotted_puzzles())
def test_every_cnf_encoding_finds_exactly_the_grids_that_fit(encoding: str, puzzle: Puzzle) -> None:
    result = solve(puzzle, backend="sat", limit=0, options=SearchOptions(encoding=encoding))
    assert result.complete and set(result.grids) == every_grid(puzzle)


@settings(max_examples=40, deadline=None)
@given(puzzle=blotted_puzzles())
def test_every_counting_method_counts_them(puzzle: Puzzle) -> None:
    expected = len(every_grid(puzzle))
    search_only = CountKnobs(sweep_width=0, sweep_trial=0)
    for methods, knobs in ((("search",), search_only), (("search",), None), (("ganak",), None)):
        counted = count_solutions(puzzle, methods=methods, knobs=knobs, deadline=Deadline(30))
        assert counted.exact and counted.count == expected, methods


def test_the_non_format_reads_and_writes_question_marks() -> None:
    text = "width 3\nheight 3\nrows\n?\n1 1\n?\ncolumns\n?\n1\n?\n"
    (puzzle,) = parse_text(text, "blotted.non")
    assert puzzle.rows[0] == (Block(BLOTTED, 1),) and puzzle.has_blotted
    assert puzzle.clue_text(puzzle.rows[0]) == "?"
    assert len(every_grid(puzzle)) == 16
    assert solve(puzzle, limit=0).solutions_found == 16
    again = parse_text(FORMATS["non"].write([puzzle]), "again.non")[0]
    assert again.rows == puzzle.rows and again.columns == puzzle.columns


def test_webpbn_xml_writes_a_blot_as_zero_and_reads_it_back() -> None:
    text = (
        "width 3\nheight 2\nrows\n?r 1b\n1b ?r\ncolumns\n1r 1b\n?r\n1b 1r\n"
        "color r #ff0000\ncolor b #0000ff\n"
    )
    (puzzle,) = parse_text(text, "blotted.non")
    xml = FORMATS["xml"].write([puzzle])
    assert '<line><count color="b">1</count><count>0</count></line>' in xml  # red is the default
    (again,) = parse_text(xml, "blotted.xml")
    assert again.rows == puzzle.rows and again.columns == puzzle.columns
    assert len(every_grid(again)) == solve(again, limit=0).solutions_found


def test_formats_that_cannot_hold_a_blot_refuse_it(tmp_path: Path) -> None:
    (puzzle,) = parse_text("width 1\nheight 1\nrows\n?\ncolumns\n1\n", "b.non")
    with pytest.raises(InputError, match="cannot hold a blotted"):
        write_puzzles([puzzle], tmp_path / "b.g")


@pytest.mark.parametrize(
    ("clue", "message"),
    [("??", "cannot read '??'"), ("?0", "cannot read '?0'"), ("1?", "cannot read '1?'")],
)
def test_a_question_mark_is_a_number_never_a_color(clue: str, message: str) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        parse_text(f"width 2\nheight 1\nrows\n{clue}\ncolumns\n1\n1\n", "bad.non")
    declared = "width 1\nheight 1\nrows\n1r\ncolumns\n1r\ncolor ? #ff0000\ncolor r #00ff00\n"
    with pytest.raises(InputError, match="clue numbers, not colors"):
        parse_text(declared, "bad.non")


def test_approxmc_estimates_a_blotted_puzzle_within_its_guarantee() -> None:
    (puzzle,) = parse_text("width 4\nheight 4\nrows\n?\n?\n?\n?\ncolumns\n?\n1 1\n?\n1\n", "b.non")
    expected = len(every_grid(puzzle))  # 200
    counted = count_solutions(
        puzzle, methods=("approxmc",), approximation=Approximation(0.8, 0.2), deadline=Deadline(60)
    )
    assert [factor.method for factor in counted.factors] == ["approxmc"]
    assert counted.estimate is not None
    assert expected / 1.8 <= counted.estimate <= expected * 1.8
