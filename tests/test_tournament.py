"""The computer-olympiad tournament format (question and answer files), the tournament run
(`satnono tournament`) and batch on a question file."""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path

import pytest

import satnono
from satnono.core.model import Block, Puzzle
from satnono.core.verify import problems
from satnono.formats.generate import puzzle_from_grid
from satnono.formats.tournament import (
    parse_answers,
    parse_tournament,
    write_answers,
    write_tournament,
)
from support import EXAMPLES, SHARED, run_satnono

# A 3x3 puzzle: columns first (left to right), then rows; an empty line is an empty clue.
# Its picture:  #.#  /  ...  /  ##.
QUESTION = "$7\r\n1\t1\r\n1\r\n1\r\n1\t1\r\n\r\n2\r\n"


def test_columns_come_first_and_an_empty_line_is_an_empty_clue() -> None:
    (puzzle,) = parse_tournament(QUESTION)
    assert puzzle.title == "7" and (puzzle.width, puzzle.height) == (3, 3)
    assert puzzle.columns == ((Block(1), Block(1)), (Block(1),), (Block(1),))
    assert puzzle.rows == ((Block(1), Block(1)), (), (Block(2),))
    result = satnono.solve(puzzle)
    assert result.status == "unique" and result.solutions == [["#.#", "...", "##."]]


def test_the_format_is_read_by_content_whatever_the_suffix(tmp_path: Path) -> None:
    path = tmp_path / "set.txt"
    path.write_text(QUESTION + "$8\n1\n\n\n\n1\n\n", newline="")
    puzzles = satnono.read_puzzles(path)
    assert [p.title for p in puzzles] == ["7", "8"]
    # Columns "1", "", "" and rows "", "1", "": the empty lines, the last included, are clues.
    assert puzzles[1].columns == ((Block(1),), (), ()) and puzzles[1].rows == ((), (Block(1),), ())


def test_questions_and_answers_round_trip() -> None:
    grids = [((1, 0, 1), (0, 0, 0), (1, 1, 0)), ((0, 1), (1, 1))]
    puzzles = [puzzle_from_grid(grid, keep_goal=False) for grid in grids]
    again = parse_tournament(write_tournament(puzzles[:1]))
    assert [(p.rows, p.columns) for p in again] == [(puzzles[0].rows, puzzles[0].columns)]
    text = write_answers([("1", grids[0]), ("2", grids[1])])
    assert text.startswith("$1\n1\t0\t1\n") and parse_answers(text) == {
        "1": grids[0],
        "2": grids[1],
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1\t1\n$1\n1\n1\n", "expected '$1'"),
        ("$1\n1\n1\n1\n", "3 clue lines"),
        ("$1\n1\n1\n$2\n1\n1\n1\n1\n", "puzzle $1: 2 clue lines, where a 2 x 2 puzzle"),
        ("$ one two\n1\n1\n", "a puzzle number"),
        ("$1\n1\tx\n1\n", "cannot read 'x'"),
    ],
)
def test_a_broken_question_file_names_the_line_and_the_problem(text: str, message: str) -> None:
    with pytest.raises(satnono.InputError, match=message.replace("$", r"\$")) as caught:
        parse_tournament(text)
    assert caught.value.line is not None


@pytest.mark.parametrize(
    ("text", "sides"),
    [
        ("$1\n1\n1\n\n\n", [1]),  # blank separators were read as two empty clues: 2x2
        ("$1\n1\n1\n\n\n$2\n1\n1\n\n\n", [1, 1]),  # two blank lines after every puzzle
        ("$1\n1\n1\n\n$2\n1\n1\n\n\n\n$3\n1\n1", [1, 1, 1]),  # any run; no final newline
        ("$1\n1\n\n1\n\n$2\n1\n1\n1\n1\n", [2, 2]),  # an empty last clue is still a clue
        ("\ufeff$1\r\n1\r\n1\r\n", [1]),  # a byte-order mark, CRLF
    ],
)
def test_question_files_are_read_as_leniently_as_the_real_ones(text: str, sides: list[int]) -> None:
    """Found by an audit: blank lines between and after puzzles misread or refused."""
    puzzles = satnono.read_puzzles(text, "tournament")
    assert [p.width for p in puzzles] == sides and all(p.width == p.height for p in puzzles)


def test_a_utf16_question_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "questions.txt"
    text = (EXAMPLES / "tournament-4.txt").read_text()
    path.write_bytes(text.encode("utf-16"))  # with its byte-order mark, as Windows saves
    assert satnono.read_puzzles(path) == satnono.read_puzzles(EXAMPLES / "tournament-4.txt")


def test_only_square_black_and_white_puzzles_are_written() -> None:
    wide = puzzle_from_grid(((1, 0, 1),), keep_goal=False)
    with pytest.raises(satnono.InputError, match="square"):
        write_tournament([wide])
    color = Puzzle.from_clues([[(1, "red"), (1, "blue")]], [[(1, "red")], [(1, "blue")]])
    with pytest.raises(satnono.InputError, match="black-and-white"):
        write_tournament([color])


def test_a_tournament_run_writes_verified_answers_and_a_time_log(tmp_path: Path) -> None:
    grids = [((1, 0, 1), (0, 0, 0), (1, 1, 0)), ((0, 1, 0), (1, 1, 1), (0, 1, 0))]
    puzzles = [puzzle_from_grid(grid, keep_goal=False) for grid in grids]
    broken = Puzzle(3, 3, ((Block(3),),) * 3, ((Block(1),),) * 3)  # 9 black cells against 3
    questions = tmp_path / "q.txt"
    questions.write_text(write_tournament([*puzzles, broken]))
    answers, log = tmp_path / "a.txt", tmp_path / "log.tsv"
    done = run_satnono("tournament", str(questions), "-o", str(answers), "--log", str(log))
    assert done.returncode == 1, done.stderr  # one puzzle has no answer: it has no solution
    assert done.stdout.startswith("solved 2/3 in ")
    written = parse_answers(answers.read_text())
    assert set(written) == {"1", "2"}
    for number, puzzle in (("1", puzzles[0]), ("2", puzzles[1])):
        assert not problems(puzzle, written[number])
    rows = list(csv.DictReader(log.read_text().splitlines()[:-1], delimiter="\t"))
    assert [row["puzzle"] for row in rows] == ["1", "2", "3"]
    assert [row["status"] for row in rows][2] == "unsolvable"
    assert all(float(row["seconds"]) >= 0 and float(row["cpu_seconds"]) >= 0 for row in rows)
    assert log.read_text().splitlines()[-1].startswith("# solved 2/3")


def test_batch_stores_one_row_per_puzzle_of_a_question_file(tmp_path: Path) -> None:
    grids = [((1, 0), (1, 1)), ((0, 1), (1, 1)), ((1, 1), (0, 1))]
    questions = tmp_path / "set.txt"
    questions.write_text(
        write_tournament([puzzle_from_grid(grid, keep_goal=False) for grid in grids])
    )
    db = tmp_path / "r.sqlite"
    done = run_satnono("batch", str(questions), "--db", str(db), "--workers", "1", timeout=180)
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT COUNT(*) FROM names").fetchone()
    assert rows == (3,)


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/puzzles is absent")
def test_the_first_puzzles_of_a_tournament_set_are_answered_correctly(tmp_path: Path) -> None:
    """A real set's first 40 puzzles: every answer satisfies the clues (any solution counts,
    so it need not be the published one)."""
    text = (SHARED / "tournament" / "question" / "taai2011.txt").read_text()
    first = "".join(text.splitlines(keepends=True)[: 40 * 51])
    questions = tmp_path / "first.txt"
    questions.write_text(first)
    answers = tmp_path / "answers.txt"
    done = run_satnono("tournament", str(questions), "-o", str(answers), "--timeout", "30")
    assert done.returncode == 0, done.stderr
    written = parse_answers(answers.read_text())
    puzzles = parse_tournament(first)
    assert len(written) == len(puzzles) == 40
    for puzzle in puzzles:
        assert not problems(puzzle, written[puzzle.title])
