"""The command line through typer's CliRunner: output, JSON fields and exit codes.

These are the interfaces scripts depend on, so the tests pin field names and codes exactly.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from satnono.backends import DEFAULT_BACKEND
from satnono.cli import app
from satnono.formats import read_puzzle
from support import EXAMPLES

runner = CliRunner()

SOLVE_FIELDS = {
    "file", "width", "height", "colors", "backend", "solver", "status", "complete",
    "solutions_found", "solutions", "seconds", "stats",
}  # fmt: skip


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_help_lists_commands_and_installed_backends() -> None:
    code, out, _ = run("--help")
    assert code == 0
    for command in ("solve", "count", "convert", "cnf"):
        assert command in out
    code, out, _ = run("solve", "--help")
    assert code == 0 and "--backend" in out and "sat" in out


def test_solve_renders_the_solution_and_verdict() -> None:
    code, out, _ = run("solve", str(EXAMPLES / "duck.non"))
    assert code == 0
    puzzle = read_puzzle(EXAMPLES / "duck.non")
    assert puzzle.goal is not None
    lines = out.splitlines()
    # Not a terminal: plain rows, '.' background and '#' black, then the verdict.
    assert lines[: puzzle.height] == puzzle.grid_rows(puzzle.goal)
    assert lines[-1].startswith("unique solution (")


def test_solve_json_black_and_white() -> None:
    code, out, _ = run("solve", str(EXAMPLES / "needs-search-25.non"), "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) >= SOLVE_FIELDS
    assert data["status"] == "unique" and data["complete"] is True
    assert data["solutions_found"] == 1 and data["backend"] == DEFAULT_BACKEND
    assert data["width"] == data["height"] == 25 and data["colors"] == 2
    (rows,) = data["solutions"]
    assert len(rows) == 25 and set("".join(rows)) <= {".", "#"}
    # Line logic leaves cells; the native search decides them (no CNF is made).
    assert data["stats"]["cells_left"] > 0 and data["solver"] == "native"
    assert data["stats"]["native_probes"] > 0 and "cnf_clauses" not in data["stats"]


def test_solve_json_color_uses_the_files_characters() -> None:
    code, out, _ = run("solve", str(EXAMPLES / "heart-color.xml"), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["colors"] == 3
    assert set("".join(data["solutions"][0])) == {".", "r", "p"}


def test_json_rows_are_made_as_the_search_finds_the_solutions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`solve --max-solutions 0 --json --timeout 30` on a random 30x30 whose listing does not
    end took 45.5 s: every solution (235,693) was turned into row strings after the search,
    then the rows into JSON (3.8 s at 223,000). Both are made as the search finds the
    solutions, so the search's deadline covers that work: the object written at the end holds
    the solutions' JSON as text, not rows for json.dumps to encode."""
    import json as json_module

    import satnono
    from satnono.core.model import Puzzle
    from satnono.core.rows import RowCache

    made: list[int] = []
    by_the_end: list[int] = []
    encoded_rows: list[int] = []
    grid_rows, solve, json_dumps = Puzzle.grid_rows, satnono.solve, json_module.dumps

    def dumps(data: object, **options: object) -> str:
        if isinstance(data, dict) and isinstance(data.get("solutions"), list):
            encoded_rows.append(len(data["solutions"]))
        return json_dumps(data, **options)  # type: ignore[arg-type]

    def counted(
        self: Puzzle, grid: satnono.Grid, texts: RowCache[tuple[int, ...], str] | None = None
    ) -> list[str]:
        if texts is not None:  # one a solution (grid_rows calls itself without, for new rows)
            made.append(1)
        return grid_rows(self, grid, texts)

    def solved(*args: object, **options: object) -> satnono.SolveResult:
        result = solve(*args, **options)  # type: ignore[arg-type]
        by_the_end.append(len(made))
        return result

    monkeypatch.setattr(Puzzle, "grid_rows", counted)
    monkeypatch.setattr(satnono, "solve", solved)
    monkeypatch.setattr(json_module, "dumps", dumps)
    code, out, _ = run("solve", str(EXAMPLES / "switches-8.non"), "--max-solutions", "0", "--json")
    data = json.loads(out)
    assert code == 0 and len(data["solutions"]) == 256 and data["solutions_found"] == 256
    assert by_the_end == [256]
    assert encoded_rows == []
    assert all(len(rows) == 4 and set("".join(rows)) <= {".", "#"} for rows in data["solutions"])


def test_several_solutions_and_limits() -> None:
    path = str(EXAMPLES / "switches-8.non")
    data = json.loads(run("solve", path, "--json")[1])
    assert data["status"] == "multiple" and data["solutions_found"] == 2
    assert data["complete"] is False
    data = json.loads(run("solve", path, "--json", "--max-solutions", "0")[1])
    assert data["solutions_found"] == 256 and data["complete"] is True
    code, out, _ = run("solve", path, "--max-solutions", "0", "--quiet")
    assert code == 0 and out.strip().startswith("256 solutions (complete)")


def test_count_json() -> None:
    code, out, _ = run("count", str(EXAMPLES / "switches-8.non"), "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"file", "count", "exact", "seconds", "method", "factors"}
    assert data["count"] == 256 and data["exact"] is True
    assert data["method"] == [factor["method"] for factor in data["factors"]]
    assert math.prod(factor["count"] for factor in data["factors"]) == 256
    data = json.loads(run("count", str(EXAMPLES / "switches-8.non"), "--json", "--limit", "5")[1])
    assert data["count"] == 5 and data["exact"] is False


def test_contradictory_clues_are_no_solution_with_a_reason(tmp_path: Path) -> None:
    path = write(tmp_path, "long.non", "width 2\nheight 2\nrows\n3\n1\ncolumns\n1\n1\n")
    code, out, _ = run("solve", path)
    assert code == 1
    assert "no solution: row 1: clue 3 needs 3 cells, width is 2" in out
    path = write(tmp_path, "sums.non", "width 2\nheight 2\nrows\n2\n1\ncolumns\n2\n2\n")
    code, out, _ = run("solve", path, "--json")
    data = json.loads(out)
    assert code == 1 and data["status"] == "unsolvable" and "column clues" in data["reason"]


def test_search_proves_no_solution(tmp_path: Path) -> None:
    # Totals agree and every line fits, but no grid exists: a 2x2 checkerboard clue set
    # is satisfiable, so use one where line logic itself contradicts.
    path = write(tmp_path, "x.non", "width 3\nheight 3\nrows\n1,1\n0\n1,1\ncolumns\n2\n0\n2\n")
    code, out, _ = run("solve", path)
    assert code == 1 and out.startswith("no solution")


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    path = write(tmp_path, "broken.non", "width 2\nheight x\nrows\n1\n1\ncolumns\n1\n1\n")
    code, out, err = run("solve", path)
    assert code == 2 and out == ""
    (line,) = err.strip().splitlines()
    assert line.startswith(f"satnono: error: {path}:2:")
    code, _, err = run("solve", str(tmp_path / "missing.non"))
    assert code == 2 and "no such file" in err
    code, _, err = run("solve", str(EXAMPLES / "duck.non"), "--solver", "nosuch")
    assert code == 2 and "nosuch" in err
    code, _, err = run("solve", str(EXAMPLES / "duck.non"), "--backend", "nosuch")
    assert code == 2 and "unknown backend" in err
    code, _, _ = run("solve", str(EXAMPLES / "duck.non"), "--max-solutions", "-1")
    assert code == 2


def test_timeout_before_any_solution_is_exit_3() -> None:
    code, out, _ = run("solve", str(EXAMPLES / "needs-search-25.non"), "--timeout", "0", "--json")
    assert code == 3
    data = json.loads(out)
    assert data["status"] == "timeout" and data["solutions_found"] == 0


def test_convert_round_trip(tmp_path: Path) -> None:
    target = tmp_path / "heart.xml"
    code, _, err = run("convert", str(EXAMPLES / "heart-color.non"), str(target))
    assert code == 0 and "wrote 1 puzzle" in err
    assert read_puzzle(target).rows == read_puzzle(EXAMPLES / "heart-color.non").rows
    code, _, err = run("convert", str(target), str(tmp_path / "out.unknown"))
    assert code == 2 and "out.unknown" in err


@pytest.mark.parametrize("name", ["needs-search-25.non", "mushroom-color.xml"])
def test_cnf_writes_dimacs_with_a_variable_map(tmp_path: Path, name: str) -> None:
    target = tmp_path / "out.cnf"
    code, _, err = run("cnf", str(EXAMPLES / name), "-o", str(target))
    assert code == 0 and "clauses" in err
    text = target.read_text()
    header = next(line for line in text.splitlines() if line.startswith("p cnf"))
    _, _, variables, clauses = header.split()
    body = [line for line in text.splitlines() if line and line[0] not in "cp"]
    assert len(body) == int(clauses)
    assert all(line.endswith(" 0") for line in body)
    assert max(abs(int(x)) for line in body for x in line.split()) <= int(variables)
    assert any(line.startswith("c cell") or "row" in line for line in text.splitlines()[:50])


def test_version() -> None:
    code, out, _ = run("--version")
    assert code == 0 and out.startswith("satnono ")


def test_json_lines_streams_every_solution_then_a_summary() -> None:
    code, out, _ = run("solve", str(EXAMPLES / "switches-8.non"), "--max-solutions", "0",
                       "--json-lines")  # fmt: skip
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    solutions = {tuple(line["solution"]) for line in lines[:-1]}
    assert len(solutions) == len(lines) - 1 == 256
    summary = lines[-1]
    assert "solution" not in summary and "solutions" not in summary
    assert summary["status"] == "multiple" and summary["solutions_found"] == 256
    assert summary["complete"] is True
    code, _, err = run("solve", str(EXAMPLES / "duck.non"), "--json", "--json-lines")
    assert code == 2 and "--json-lines" in err


def test_several_files_each_verdict_names_its_file(tmp_path: Path) -> None:
    # `solve A B C --quiet` printed bare verdicts, and --json gave an unreadable file no
    # object (issue 23).
    duck, switches = str(EXAMPLES / "duck.non"), str(EXAMPLES / "switches-8.non")
    broken = write(tmp_path, "broken.non", "garbage\n")
    code, out, err = run("solve", duck, switches, broken, "--quiet")
    assert code == 2
    assert out.splitlines()[0].startswith(f"{duck}: unique solution")
    assert out.splitlines()[1].startswith(f"{switches}: at least 2 solutions")
    assert err.splitlines() == [f"satnono: error: {broken}:1: missing 'width'"]
    for flag in ("--json", "--json-lines"):
        code, out, _ = run("solve", duck, broken, flag)
        objects = [json.loads(line) for line in out.splitlines()]
        summaries = [data for data in objects if "file" in data]
        assert [data["file"] for data in summaries] == [duck, broken]
        assert summaries[1] == {
            "file": broken, "status": "error", "error": f"{broken}:1: missing 'width'"
        }  # fmt: skip
    code, out, _ = run("solve", duck, "--quiet")  # one file: the verdict alone, as before
    assert out.startswith("unique solution")


def test_choices_complete_in_the_shell() -> None:
    # --backend and the other checked choices did not complete (issue 23).
    import os
    import subprocess
    import sys

    def complete(*words: str) -> list[str]:
        env = dict(os.environ, COMP_WORDS=" ".join(["satnono", *words]),
                   COMP_CWORD=str(len(words)), _SATNONO_COMPLETE="complete_bash")  # fmt: skip
        done = subprocess.run(
            [sys.executable, "-m", "satnono"], env=env, capture_output=True, text=True, timeout=60
        )
        return done.stdout.split()

    assert complete("solve", "x", "--backend", "p") == ["portfolio"]
    assert "glucose3" in complete("count", "x", "--solver", "gl")
    assert complete("sample", "x", "--sampler", "") == ["cmsgen", "unigen"]
    assert complete("batch", "run", "x", "--backend", "cp") == ["cpsat"]
    # fetch's SITE and compare's list of backends completed nothing (issue 33).
    assert complete("fetch", "") == ["webpbn", "nonograms"]
    assert complete("compare", "x", "--backends", "sat,cp") == ["sat,cpsat"]


@pytest.mark.parametrize("command", ["", "solve", "count", "sample", "analyze", "compare"])
def test_help_paragraphs_are_not_broken_mid_sentence(command: str) -> None:
    # At 80 columns the docstrings' own line breaks were kept: "...the exit code is the" then
    # "highest of theirs" on a line of its own (issue 23).
    import os
    import subprocess
    import sys

    env = dict(os.environ, COLUMNS="80", TERM="dumb")
    done = subprocess.run(
        [sys.executable, "-m", "satnono", *command.split(), "--help"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    description = done.stdout.split("╭")[0].splitlines()
    for line, following in itertools.pairwise(description):
        if line.strip() and following.strip()[:1].islower():
            assert len(line.rstrip()) > 60, f"{line!r} then {following!r}"


def test_every_argument_is_named_in_capitals() -> None:
    """Usage lines read `{PUZZLE...}`, `{QUESTIONS}`, `{IMAGE}`: tournament, from-image and
    check-proof showed `{questions}`, `{image}`, `{folders}` beside them (issue 42)."""
    from typer.testing import CliRunner

    from satnono.cli import COMMANDS, app

    named = [name for name in COMMANDS if name != "batch"] + ["batch run", "batch report"]
    for command in named:
        done = CliRunner().invoke(app, [*command.split(), "--help"], env={"COLUMNS": "120"})
        usage = next(line for line in done.output.splitlines() if "Usage:" in line)
        arguments = re.findall(r"\{([^}]*)\}", usage)
        assert all(name == name.upper() for name in arguments), (command, usage)
