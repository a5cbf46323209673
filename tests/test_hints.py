"""`satnono hint` and `solve --line-only`: every step checked by the reference line logic
(satnono.reference.linesolver and satnono.reference.propagate, which the engine is held
to), walks to the end, mistakes, partial grids, and the CLI's text, JSON and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import satnono
from satnono.core.model import LineContradiction
from satnono.formats import read_puzzle
from satnono.pipeline.hints import EVERY_COLOR, Hint, hint, partial_domains
from satnono.reference.linesolver import LineSolver
from satnono.reference.propagate import Propagator
from tests.support import EXAMPLES, SHARED, run_satnono


def check_step(puzzle: satnono.Puzzle, domains: list[int], step: Hint) -> None:
    """The step is sound by the reference: a line step narrows exactly as the reference
    line solver does on that line; a probe's assumption leads the reference propagation to
    a contradiction."""
    assert step.cells, step
    if step.kind == "line":
        assert step.line is not None
        cells = list(puzzle.line_cells(step.line))
        solver = LineSolver(puzzle.line_clue(step.line), len(cells), len(puzzle.palette))
        reference = solver.solve(tuple(domains[cell] for cell in cells))
        assert reference is not None
        position = {cell: p for p, cell in enumerate(cells)}
        for cell, domain in step.cells:
            assert reference[position[cell]] == domain != domains[cell]
        return
    assert step.kind == "probe" and step.probe is not None
    cell, color = step.probe
    if color == EVERY_COLOR:  # "either way": every color of `cell` agrees on the cell decided
        ((target, domain),) = step.cells
        union = 0
        for each in range(len(puzzle.palette)):
            if domains[cell] >> each & 1:
                assumed = list(domains)
                assumed[cell] = 1 << each
                try:
                    Propagator(puzzle).propagate(assumed)
                except LineContradiction:
                    continue
                union |= assumed[target]
        assert union and union & ~domain == 0 and domain != domains[target]
        return
    assert domains[cell] >> color & 1
    assumed = list(domains)
    assumed[cell] = 1 << color
    with pytest.raises(LineContradiction):
        Propagator(puzzle).propagate(assumed)
    assert step.cells == ((cell, domains[cell] & ~(1 << color)),)


def walk(puzzle: satnono.Puzzle, most: int = 5000) -> Hint:
    """Hints from an empty grid until none goes on, each checked; the last one."""
    domains = partial_domains(puzzle, None)
    for _ in range(most):
        step = hint(puzzle, domains)
        if step.kind not in ("line", "probe"):
            return step
        check_step(puzzle, domains, step)
        changed = {cell for cell, _ in step.cells}
        assert all(
            (a == b) == (cell not in changed)
            for cell, (a, b) in enumerate(zip(domains, step.domains, strict=True))
        )
        domains = list(step.domains)
    raise AssertionError("no end")


@pytest.mark.parametrize("name", ["duck", "heart-color", "needs-search-25", "mushroom-color"])
def test_hints_walk_a_unique_puzzle_to_its_solution(name: str) -> None:
    puzzle = read_puzzle(EXAMPLES / f"{name}.non")
    last = walk(puzzle)
    assert last.kind == "solved"
    (solution,) = satnono.solve(puzzle).solutions
    assert list(last.domains) == [
        1 << color for row in puzzle.grid_from_rows(solution) for color in row
    ]


def test_either_way_steps_are_sound_by_the_reference() -> None:
    """A step where no probe contradicts, but every color of one cell leads line logic to the
    same color of another (row 5, column 9 decides row 5, column 2: found among random 12x6
    boards); the walk checks it against the reference propagation."""
    from satnono.formats.generate import puzzle_from_grid

    rows = ["....##..##.#", ".###......#.", "#.#..######.", "#......#...#", "........#.#.",
            ".#.......#.#"]  # fmt: skip
    board = puzzle_from_grid(tuple(tuple(int(c == "#") for c in row) for row in rows))
    domains = partial_domains(board, None)
    reasons = []
    while True:
        step = hint(board, domains)
        if step.kind not in ("line", "probe"):
            break
        check_step(board, domains, step)
        reasons.append(step.reason)
        domains = list(step.domains)
    assert "either way" in reasons and step.kind in ("solved", "stuck")


def test_hints_stop_where_only_a_guess_goes_on() -> None:
    last = walk(read_puzzle(EXAMPLES / "switches-8.non"))
    assert last.kind == "stuck" and "guess" in last.text


def test_hints_name_the_reasons_people_give() -> None:
    puzzle = satnono.Puzzle.from_clues(rows=[[], [3], [1, 1]], columns=[[2], [1], [2], []])
    first = hint(puzzle, partial_domains(puzzle, None))
    assert (first.kind, first.reason, first.line) == ("line", "empty line", 0)
    assert first.text.startswith("row 1 (clue 0): cells 1-4 are empty")
    ten = satnono.Puzzle.from_clues(rows=[[7]], columns=[[1]] * 7 + [[]] * 3)
    step = hint(ten, partial_domains(ten, ["??????????"]))
    assert step.reason == "empty line"  # columns 8-10 first: simpler than the overlap
    overlap = hint(ten, partial_domains(ten, ["???????..."]))
    assert overlap.reason == "full line" and overlap.after == "#######..."
    wide = satnono.Puzzle.from_clues(rows=[[3]], columns=[[1]] * 3 + [[]] * 2)
    edge = hint(wide, [2, 3, 3, 3, 3])  # a filled first cell pins the block against the edge
    assert edge.reason in ("edge", "empty line")


def test_a_grid_that_breaks_a_clue_is_a_mistake() -> None:
    puzzle = read_puzzle(EXAMPLES / "duck.non")
    rows = ["?" * puzzle.width] * puzzle.height
    rows[0] = "#" + "?" * (puzzle.width - 1)  # row 1's clue is 0
    step = satnono.hint(puzzle, rows)
    assert step.kind == "mistake" and step.line == 0 and "row 1 cannot be completed" in step.text


def test_partial_grids_are_checked() -> None:
    puzzle = read_puzzle(EXAMPLES / "duck.non")
    with pytest.raises(satnono.InputError, match="has 2 rows, the puzzle 15"):
        satnono.hint(puzzle, ["?", "?"])
    rows = ["?" * 15] * 15
    rows[3] = "?" * 14 + "x"
    with pytest.raises(satnono.InputError, match=r"grid:4: column 15: 'x' is neither"):
        satnono.hint(puzzle, rows)
    with pytest.raises(satnono.InputError, match="row strings or a file"):
        satnono.hint(puzzle, [1, 2])  # type: ignore[list-item]
    with pytest.raises(satnono.InputError, match="no-such-grid"):
        satnono.hint(puzzle, "no-such-grid.txt")


@pytest.mark.skipif(not SHARED.is_dir(), reason="needs ../shared/puzzles")
def test_a_first_step_on_every_survey_and_corpus_puzzle() -> None:
    files = sorted((SHARED / "webpbn-survey").glob("*.non"))
    files += sorted(path for path in (SHARED / "corpus").rglob("*") if path.is_file())
    checked = 0
    for path in files:
        try:
            puzzle = read_puzzle(path)
        except satnono.InputError:
            continue  # the corpus's README and licences
        domains = partial_domains(puzzle, None)
        step = hint(puzzle, domains)
        assert step.kind in ("line", "probe", "stuck"), (path, step.text)
        if step.kind != "stuck":
            check_step(puzzle, domains, step)
        checked += 1
    assert checked >= 270


def test_line_only_grades() -> None:
    grades = {
        name: satnono.line_only(read_puzzle(EXAMPLES / f"{name}.non")).grade
        for name in ("duck", "needs-search-25", "switches-8", "unsolvable-1")
    }
    assert grades == {
        "duck": "line-solvable",
        "needs-search-25": "needs probing",
        "switches-8": "needs search",
        "unsolvable-1": "no solution",
    }
    result = satnono.line_only(read_puzzle(EXAMPLES / "duck.non"))
    assert result.solution is not None and result.by_lines == 225 and result.by_probing == 0


def test_cli_hint_text_json_and_grid(tmp_path: Path) -> None:
    done = run_satnono("hint", str(EXAMPLES / "duck.non"), "--steps", "4")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == (
        "1. row 1 (clue 0): cells 1-15 are empty: the clue is 0, so every cell is empty"
    )
    after = "the grid after these steps ('?' = open; give it back with --grid):"
    grid = lines[lines.index(after) + 1 :]
    assert len(grid) == 15
    (tmp_path / "grid.txt").write_text("\n".join(grid) + "\n")
    more = run_satnono(
        "hint", str(EXAMPLES / "duck.non"), "--grid", str(tmp_path / "grid.txt"), "--json"
    )
    assert more.returncode == 0, more.stderr
    data = json.loads(more.stdout)
    (step,) = data["steps"]
    assert step["kind"] == "line" and step["line"] == "row 11" and step["reason"] == "full line"
    assert step["before"] == "..?????????????" and step["after"] == "..#############"
    assert step["cells"][0] == {"cell": [11, 3], "colors": ["#"]}
    grid[0] = "#" + grid[0][1:]
    (tmp_path / "wrong.txt").write_text("\n".join(grid))
    wrong = run_satnono("hint", str(EXAMPLES / "duck.non"), "--grid", str(tmp_path / "wrong.txt"))
    assert wrong.returncode == 1 and "row 1 cannot be completed" in wrong.stdout
    grid[2] = "x" + grid[2][1:]
    (tmp_path / "bad.txt").write_text("\n".join(grid))
    bad = run_satnono("hint", str(EXAMPLES / "duck.non"), "--grid", str(tmp_path / "bad.txt"))
    assert bad.returncode == 2 and f"{tmp_path / 'bad.txt'}:3: column 1: 'x'" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_cli_line_only(tmp_path: Path) -> None:
    done = run_satnono("solve", str(EXAMPLES / "switches-8.non"), "--line-only", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["grade"] == "needs search" and data["status"] == "unknown"
    assert data["cells_fixed_by_lines"] == 68 and sum(row.count("?") for row in data["grid"]) == 32
    text = run_satnono("solve", str(EXAMPLES / "duck.non"), "--line-only")
    assert text.returncode == 0
    assert text.stdout.splitlines()[-1].startswith("line-solvable: unique, line logic alone")
    none = run_satnono("solve", str(EXAMPLES / "unsolvable-1.non"), "--line-only", "-q")
    assert none.returncode == 1 and none.stdout.startswith("no solution")
    refused = run_satnono("solve", str(EXAMPLES / "duck.non"), "--line-only", "--proof", "p")
    assert refused.returncode == 2 and "--proof" in refused.stderr


def test_a_hint_keeps_its_deadline_while_it_solves_the_lines() -> None:
    """The lines are solved in batches with a look at the deadline between them, and each
    line's reason after one (a 1000x1000 grid's hint overran its deadline by a second)."""
    from satnono.runtime.deadline import Deadline, Timeout

    puzzle = read_puzzle(EXAMPLES / "duck.non")
    domains = partial_domains(puzzle, None)
    assert hint(puzzle, domains).kind == "line"
    with pytest.raises(Timeout):
        hint(puzzle, domains, Deadline(0))


def test_an_interrupted_hint_gives_the_steps_it_found(tmp_path: Path) -> None:
    """Ctrl-C during `hint --steps N` printed only 'satnono: interrupted': now the steps found
    so far, the grid after them, and how many there were."""
    import random
    import signal

    from satnono.formats import write_puzzles
    from satnono.formats.generate import puzzle_from_grid, random_grid
    from tests.support import in_terminal

    hard = tmp_path / "hard.non"  # 150 x 150, dense: hundreds of line steps, 15-20 a second
    write_puzzles([puzzle_from_grid(random_grid(150, 150, 2, 0.85, random.Random(3)))], hard)
    code, text = in_terminal(["hint", str(hard), "--steps", "100000"], [(3.0, signal.SIGINT)])
    assert code == 130, text[-300:]
    assert "1. " in text and "the grid after these steps" in text
    assert "satnono: interrupted after " in text and " of 100000 steps" in text
