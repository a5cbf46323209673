"""`satnono analyze` through typer's CliRunner: difficulty, counts, ambiguous cells, pictures.

Authors act on these answers (which cells to fix, whether a puzzle needs guessing), so the
tests pin the verdicts and the exact cells, on puzzles small enough to stay fast.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from satnono.cli import app
from satnono.formats import read_puzzle
from satnono.pipeline.analysis import analyze
from support import EXAMPLES, SHARED

runner = CliRunner()

FIELDS = {
    "file", "title", "width", "height", "colors", "cells", "line_solvable",
    "cells_fixed_by_lines", "probing_solves", "cells_fixed_by_probing", "search_backend",
    "search_max_depth", "search_nodes", "solutions", "solutions_exact", "difficulty", "label",
    "differing_cells", "solutions_compared", "reason", "timed_out", "picture", "seconds",
    "ambiguous_cells", "backbone_cells", "backbone_exact", "backend", "decided",
}  # fmt: skip

# Two solutions (a diagonal either way): every cell differs.
TWO_DIAGONALS = "width 2\nheight 2\nrows\n1\n1\ncolumns\n1\n1\n"
# Totals agree, yet line logic finds that column 3 cannot be completed.
LINE_CONTRADICTION = "width 4\nheight 4\nrows\n3\n1\n2\n3\ncolumns\n3\n2,1\n1\n1,1\n"
# Every line fits and line logic stalls, but no grid fits: the search proves it.
SEARCH_CONTRADICTION = "width 4\nheight 4\nrows\n1\n1,1\n1,1\n2\ncolumns\n1,1\n1\n1,1\n2\n"


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["analyze", *args])
    return result.exit_code, result.stdout, result.stderr


def run_json(*args: str) -> tuple[int, dict[str, Any]]:
    code, out, _ = run(*args, "--json")
    data: dict[str, Any] = json.loads(out)
    return code, data


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_line_solvable() -> None:
    code, out, _ = run(str(EXAMPLES / "duck.non"))
    assert code == 0
    assert "line logic    fixes 225 of 225 cells\n" in out
    assert "solutions     1 (exact)" in out
    assert "difficulty    line-solvable" in out
    code, data = run_json(str(EXAMPLES / "duck.non"))
    assert data["line_solvable"] is True and data["probing_solves"] is True
    assert data["cells_fixed_by_lines"] == data["cells"] == 225
    assert data["search_nodes"] == 0 and data["differing_cells"] == []
    assert data["ambiguous_cells"] == [] and data["backbone_cells"] == 225


def test_json_shape_for_a_puzzle_beyond_line_logic() -> None:
    code, data = run_json(str(EXAMPLES / "needs-search-25.non"))
    assert code == 0 and set(data) == FIELDS
    assert data["file"].endswith("needs-search-25.non")
    assert (data["width"], data["height"], data["cells"]) == (25, 25, 625)
    assert data["line_solvable"] is False
    assert 0 < data["cells_fixed_by_lines"] < 625
    # Line logic stalls, but probing (and so the search's root node) finishes it.
    assert data["probing_solves"] is True and data["cells_fixed_by_probing"] == 625
    assert data["search_max_depth"] == 0 and data["search_nodes"] == 1
    assert data["solutions"] == 1 and data["solutions_exact"] is True
    assert data["difficulty"] == data["label"] == "needs probing"
    assert data["reason"] is None and data["timed_out"] is False and data["picture"] is None


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/puzzles is absent")
def test_needs_search_reports_the_depth() -> None:
    path = SHARED / "corpus" / "gecode" / "difficult.non"
    result = analyze(read_puzzle(path))
    assert result.difficulty == "needs search" and result.search_max_depth >= 1
    assert result.probing_solves is False
    assert result.cells_fixed_by_probing is not None and result.cells_fixed_by_lines is not None
    assert result.cells_fixed_by_lines <= result.cells_fixed_by_probing < result.cells
    assert result.label == f"needs search (depth {result.search_max_depth})"
    code, out, _ = run(str(path))
    assert code == 0 and f"difficulty    {result.label}" in out


def test_ambiguous_lists_the_ambiguous_cells(tmp_path: Path) -> None:
    path = write(tmp_path, "two.non", TWO_DIAGONALS)
    code, out, _ = run(path)
    assert code == 0
    assert "difficulty    ambiguous" in out
    cells = "(row, column): (1, 1), (1, 2), (2, 1), (2, 2)"
    assert f"ambiguous     4 cells are not the same in every solution {cells}" in out
    assert "backbone      0 of 4 cells are the same in every solution" in out
    lines = out.splitlines()
    grid = lines.index("every solution agrees except on '?':")
    assert lines[grid + 1 : grid + 3] == ["??", "??"]
    code, data = run_json(path)
    assert data["difficulty"] == "ambiguous" and data["solutions"] == 2
    assert data["ambiguous_cells"] == [[1, 1], [1, 2], [2, 1], [2, 2]]
    assert data["backbone_cells"] == 0 and data["backbone_exact"] is True


def test_switches_are_ambiguous_in_all_their_cells_from_two_solutions() -> None:
    path = str(EXAMPLES / "switches-8.non")
    # Each of the 8 switches is a 2x2 square that can flip: 32 ambiguous cells, whichever
    # two solutions the search found first (they differ in one switch only).
    switches = [[r, c] for r in (2, 3) for c in range(2, 25) if c % 3 != 1]
    code, data = run_json(path)
    assert code == 0 and len(switches) == 32
    assert data["ambiguous_cells"] == switches and data["backbone_cells"] == 100 - 32
    assert data["solutions"] == 2 and data["solutions_exact"] is False
    assert data["solutions_compared"] == 2 and len(data["differing_cells"]) == 4
    code, data = run_json(path, "--max-solutions", "0")
    assert data["differing_cells"] == data["ambiguous_cells"] == switches
    assert data["solutions"] == data["solutions_compared"] == 256
    assert data["solutions_exact"] is True
    # --count makes the number exact without enumerating.
    code, data = run_json(path, "--count")
    assert data["solutions"] == 256 and data["solutions_exact"] is True
    assert data["solutions_compared"] == 2
    _, out, _ = run(path)
    assert "at least 2 (stopped at --max-solutions 2; --count counts)" in out


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/puzzles is absent")
def test_nonunique_has_58_ambiguous_cells() -> None:
    # 43 solutions: the two the search finds first differ in 4 cells, but 58 are ambiguous.
    result = analyze(read_puzzle(SHARED / "corpus" / "hakank" / "nonunique.non"))
    assert len(result.ambiguous_cells) == 58 and result.backbone_cells == 165 - 58
    assert result.backbone_exact and len(result.differing_cells) < 58


def test_no_solution_says_why(tmp_path: Path) -> None:
    code, out, _ = run(write(tmp_path, "lines.non", LINE_CONTRADICTION))
    assert code == 1
    assert "reason        line logic: column 3 (clue 1) cannot be completed" in out
    assert "difficulty    no solution" in out
    code, data = run_json(write(tmp_path, "sums.non", "width 2\nheight 2\nrows\n2\n1\n"
                                "columns\n2\n2\n"))  # fmt: skip
    assert code == 1 and data["difficulty"] == "no solution" and data["solutions"] == 0
    assert "column clues" in data["reason"] and data["cells_fixed_by_lines"] is None
    code, data = run_json(write(tmp_path, "search.non", SEARCH_CONTRADICTION))
    assert code == 1 and data["difficulty"] == "no solution"
    assert data["reason"] == "search proved that no grid fits the clues"
    assert data["cells_fixed_by_lines"] == 0 and data["solutions_exact"] is True


def test_picture_svg_outlines_the_ambiguous_cells(tmp_path: Path) -> None:
    picture = tmp_path / "two.svg"
    code, data = run_json(write(tmp_path, "two.non", TWO_DIAGONALS), "-o", str(picture))
    assert code == 0 and data["picture"] == str(picture)
    root = ET.parse(picture).getroot()
    outlined = [e for e in root.iter() if e.get("class") == "highlight"]
    assert len(outlined) == 4
    captions = [e.text for e in root.iter() if e.get("class") == "caption"]
    assert captions == ["ambiguous: the 4 outlined cells differ between solutions"]


def test_picture_png_and_unsolvable_picture(tmp_path: Path) -> None:
    picture = tmp_path / "switches.png"
    code, _, _ = run(str(EXAMPLES / "switches-8.non"), "--picture", str(picture))
    assert code == 0 and picture.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    picture = tmp_path / "none.svg"
    code, _, _ = run(write(tmp_path, "lines.non", LINE_CONTRADICTION), "-o", str(picture))
    assert code == 1
    root = ET.parse(picture).getroot()
    (caption,) = (e.text for e in root.iter() if e.get("class") == "caption")
    assert caption is not None and caption.startswith("no solution: line logic: column 3")


def test_bad_usage_is_exit_2(tmp_path: Path) -> None:
    duck = str(EXAMPLES / "duck.non")
    code, _, err = run(duck, "--max-solutions", "1")
    assert code == 2 and "--max-solutions" in err
    code, _, err = run(duck, "-o", str(tmp_path / "picture.gif"))
    assert code == 2 and ".svg or .png" in err and not (tmp_path / "picture.gif").exists()
    code, _, err = run(str(tmp_path / "missing.non"))
    assert code == 2 and "no such file" in err


def test_timeout_before_any_solution_is_exit_3() -> None:
    code, data = run_json(str(EXAMPLES / "needs-search-25.non"), "--timeout", "0")
    assert code == 3
    assert data["difficulty"] == "unknown" and data["timed_out"] is True
    assert data["solutions"] == 0 and data["solutions_exact"] is False
    assert data["probing_solves"] is None and data["cells_fixed_by_probing"] is None
