"""Every command that takes puzzles takes several, and folders (issue 33): each result names
its file, an unreadable one is reported (with --json, as an error object, also when it is the
only one) and the others go on; the exit code is the highest."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from support import EXAMPLES, run_satnono

DUCK = str(EXAMPLES / "duck.non")
SWITCHES = str(EXAMPLES / "switches-8.non")
MISSING = "/no/such/puzzle.non"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (["count"], ["1 solution (exact)", "256 solutions (exact)"]),
        (["sample", "-n", "2", "-q"], ["2 random solutions", "2 random solutions"]),
        (["solve", "-q"], ["unique solution", "at least 2 solutions"]),
    ],
)
def test_each_result_names_its_file(command: list[str], expected: list[str]) -> None:
    done = run_satnono(*command, DUCK, SWITCHES)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for path, verdict in zip((DUCK, SWITCHES), expected, strict=True):
        assert any(line.startswith(f"{path}: {verdict}") for line in lines), done.stdout


def test_analyze_heads_each_analysis_with_its_file() -> None:
    done = run_satnono("analyze", DUCK, SWITCHES)
    assert done.returncode == 0, done.stderr
    assert done.stdout.index(f"{DUCK}:") < done.stdout.index("line-solvable")
    assert done.stdout.index(f"{SWITCHES}:") < done.stdout.index("ambiguous")
    refused = run_satnono("analyze", DUCK, SWITCHES, "--picture", "a.svg")
    assert refused.returncode == 2 and "--picture" in refused.stderr


@pytest.mark.parametrize("command", [["solve"], ["count"], ["analyze"], ["sample", "--json-lines"]])
def test_an_unreadable_puzzle_is_an_error_object_even_alone(command: list[str]) -> None:
    """A single unreadable file with --json printed nothing on stdout (several printed an
    error object for it)."""
    json_flag = [] if "--json-lines" in command else ["--json"]
    alone = run_satnono(*command, MISSING, *json_flag)
    assert alone.returncode == 2
    assert [json.loads(line) for line in alone.stdout.splitlines()] == [
        {"file": MISSING, "status": "error", "error": f"{MISSING}: no such file"}
    ]
    assert alone.stderr == f"satnono: error: {MISSING}: no such file\n"
    mixed = run_satnono(*command, DUCK, MISSING, *json_flag)
    assert mixed.returncode == 2
    files = [json.loads(line).get("file") for line in mixed.stdout.splitlines()]
    assert files[-1] == MISSING and DUCK in files


def test_a_folder_gives_its_puzzle_files(tmp_path: Path) -> None:
    shutil.copy(DUCK, tmp_path / "b.non")
    shutil.copy(EXAMPLES / "switches-8.xml", tmp_path / "a.xml")
    (tmp_path / "notes.txt").write_text("not a puzzle")
    done = run_satnono("count", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert [line.split(":")[0] for line in done.stdout.splitlines()] == [
        str(tmp_path / "a.xml"),
        str(tmp_path / "b.non"),
    ]
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = run_satnono("solve", str(empty))
    assert nothing.returncode == 2 and "a folder without puzzle files" in nothing.stderr


def test_files_written_per_puzzle_go_to_a_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = run_satnono("cnf", DUCK, SWITCHES, "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["duck.non.cnf", "switches-8.non.cnf"]
    assert (out / "switches-8.non.cnf").read_text().startswith("c ")
    drawn = run_satnono("render", DUCK, SWITCHES, "-o", str(out), "--to", "png")
    assert drawn.returncode == 0, drawn.stderr
    assert (out / "duck.non.png").read_bytes().startswith(b"\x89PNG")
    to_stdout = run_satnono("cnf", DUCK, SWITCHES)
    assert to_stdout.returncode == 2 and "name a folder" in to_stdout.stderr


def test_a_picture_on_standard_output_says_its_format() -> None:
    """`render duck.non -o -` said "cannot tell the picture format from 'no suffix'"."""
    svg = run_satnono("render", DUCK, "-o", "-", "--to", "svg")
    assert svg.returncode == 0 and svg.stdout.startswith("<?xml")
    bare = run_satnono("render", DUCK, "-o", "-")
    assert bare.returncode == 2 and "needs --to svg or --to png" in bare.stderr
