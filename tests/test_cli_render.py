"""Pictures from the command line: `satnono render` and `solve --svg/--png`.

The drawing itself is tested in test_picture.py; here, that each source (puzzle, solve JSON,
goal, line logic, blank) reaches the file, and that bad sources are exit 2 with one line.
"""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest
from pytest import MonkeyPatch
from typer.testing import CliRunner

from satnono.cli import app
from support import EXAMPLES, run_satnono

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def svg_text(path: Path) -> str:
    root = ElementTree.parse(path).getroot()
    return " ".join(node.text or "" for node in root.iter() if node.tag.endswith("text"))


def test_solve_draws_svg_and_png(tmp_path: Path) -> None:
    svg, png = tmp_path / "m.svg", tmp_path / "m.png"
    code, _, _ = run(
        "solve", str(EXAMPLES / "mushroom-color.non"), "--svg", str(svg), "--png", str(png), "-q"
    )
    assert code == 0
    assert "unique solution" in svg_text(svg)
    assert png.read_bytes().startswith(PNG_SIGNATURE)


def test_render_each_source(tmp_path: Path) -> None:
    puzzle = str(EXAMPLES / "needs-search-25.non")
    for show, expected in [
        ("solution", "unique solution"),
        ("logic", "line logic leaves 578 of 625 cells"),
        ("goal", "the goal stored in the file"),
        ("blank", "Random 25x25"),
    ]:
        out = tmp_path / f"{show}.svg"
        code, _, err = run("render", puzzle, "--show", show, "-o", str(out))
        assert code == 0, err
        assert expected in svg_text(out)


def test_render_the_json_of_solve(tmp_path: Path) -> None:
    code, out, _ = run("solve", str(EXAMPLES / "duck.non"), "--json")
    recorded = tmp_path / "duck.json"
    recorded.write_text(out, encoding="utf-8")
    code, _, err = run("render", str(recorded), "-o", str(tmp_path / "duck.png"))
    assert code == 0, err
    assert (tmp_path / "duck.png").read_bytes().startswith(PNG_SIGNATURE)
    # A tampered solution is refused: it no longer fits the clues.
    data = json.loads(out)
    data["solutions"][0][1] = "#" * len(data["solutions"][0][1])
    recorded.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = run("render", str(recorded), "-o", str(tmp_path / "bad.png"))
    assert code == 2 and "does not fit the clues" in err


def test_render_errors_are_one_line(tmp_path: Path) -> None:
    duck = str(EXAMPLES / "duck.non")
    for args, message in [
        (["render", duck, "-o", str(tmp_path / "x.gif")], ".gif"),
        (["render", duck, "--show", "nothing", "-o", str(tmp_path / "x.svg")], "--show"),
        (["render", str(tmp_path / "missing.json"), "-o", str(tmp_path / "x.svg")], "missing"),
    ]:
        code, _, err = run(*args)
        assert code == 2, args
        assert message in err and "Traceback" not in err


def test_render_the_json_of_solve_from_a_pipe(tmp_path: Path) -> None:
    # `satnono solve FILE --json | satnono render - -o x.png` said "cannot tell the puzzle
    # format" (issue 23).
    solved = run_satnono("solve", str(EXAMPLES / "duck.non"), "--json")
    done = run_satnono("render", "-", "-o", str(tmp_path / "x.svg"), input=solved.stdout)
    assert done.returncode == 0, done.stderr
    assert "Duck: the recorded solution" in done.stderr + done.stdout
    text = (EXAMPLES / "duck.non").read_text(encoding="utf-8")
    done = run_satnono("render", "-", "-o", str(tmp_path / "y.svg"), input=text)
    assert done.returncode == 0 and "unique solution" in done.stderr + done.stdout


def test_a_picture_is_drawn_within_the_timeout(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    """Drawing keeps the deadline too, with PICTURE_GRACE past what solving left (a 1000x1000's
    PNG took 71 s past `solve --png --timeout 3`): Timeout from `render`, no file; on the
    command line exit 3 and one line on stderr. Here the grace is taken away, so even the duck
    is late."""
    import satnono
    import satnono.puzzles

    duck = satnono.read_puzzle(EXAMPLES / "duck.non")
    svg = tmp_path / "duck.svg"
    monkeypatch.setattr(satnono.puzzles, "PICTURE_GRACE", 0.0)
    with pytest.raises(satnono.Timeout):
        satnono.render(duck, None, svg, show="blank", timeout=0)
    assert not svg.exists()
    monkeypatch.undo()
    satnono.render(duck, None, svg, show="blank", timeout=0)  # within the grace
    assert svg.exists()
    svg.unlink()

    def late(*_: object, **__: object) -> str:
        raise satnono.Timeout

    monkeypatch.setattr(satnono, "render", late)
    for command in (["render", str(EXAMPLES / "duck.non"), "-o", str(svg)],
                    ["solve", str(EXAMPLES / "duck.non"), "--svg", str(svg), "-q"],
                    ["analyze", str(EXAMPLES / "duck.non"), "--picture", str(svg)]):  # fmt: skip
        code, _, err = run(*command)
        assert code == 3 and "not drawn" in err and not svg.exists(), command
