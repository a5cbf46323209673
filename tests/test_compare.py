"""`satnono compare` end to end on a tiny folder, and its disagreement check."""

from __future__ import annotations

import csv
import os
import shutil
import time
from pathlib import Path

from typer.testing import CliRunner

from satnono.archive.compare import SolveRun, disagreements
from satnono.cli import app
from support import EXAMPLES, load_tool, run_satnono

run_killable = load_tool("bench").run_killable

runner = CliRunner()


def test_compare_writes_table_csv_and_plots(tmp_path: Path) -> None:
    folder = tmp_path / "puzzles"
    folder.mkdir()
    for name in ("duck.non", "switches-8.non", "heart-color.xml"):
        shutil.copy(EXAMPLES / name, folder / name)
    (folder / "notes.txt").write_text("not a puzzle")
    os.mkfifo(folder / "fifo.non")  # never opened (it would block): said to be skipped
    table, plot = tmp_path / "runs.csv", tmp_path / "runs.svg"
    # A process of its own: compare starts a Dask cluster, whose helper processes (the
    # multiprocessing resource tracker) live as long as the process that started them.
    result = run_satnono(
        "compare", str(folder), "--backends", "sat,cpsat", "--timeout", "30", "--jobs", "2",
        "--csv", str(table), "--plot", str(plot),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "duck.non" in result.stdout and "switches-8.non" in result.stdout
    assert f"satnono: skipped {folder / 'notes.txt'}: not a puzzle file suffix" in result.stderr
    assert f"satnono: skipped {folder / 'fifo.non'}: not a regular file (a FIFO)" in result.stderr
    with table.open() as handle:
        rows = list(csv.DictReader(handle))
    # The puzzle as found (it was the base name), and the model's size (always empty: issue 23).
    names = ("duck.non", "switches-8.non", "heart-color.xml")
    assert {(r["puzzle"], r["backend"]) for r in rows} == {
        (str(folder / p), b) for p in names for b in ("sat", "cpsat")
    }
    switches = [r for r in rows if r["puzzle"] == str(folder / "switches-8.non")]
    assert {r["status"] for r in switches} == {"multiple"}
    # The CNF's size where one was made (the native search decides switches-8 without one).
    assert all(r["variables"] == "" or int(r["variables"]) > 0 for r in rows)
    assert all(float(r["seconds"]) >= 0 for r in rows)
    svg = plot.read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    png = tmp_path / "runs.png"
    result = run_satnono(
        "compare", str(folder / "duck.non"), "--backends", "sat", "--plot", str(png)
    )
    assert result.returncode == 0
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_compare_bad_arguments() -> None:
    result = runner.invoke(app, ["compare", str(EXAMPLES / "duck.non"), "--backends", "nosuch"])
    assert result.exit_code == 2 and "unknown backend" in result.stderr
    result = runner.invoke(app, ["compare", "/nonexistent/folder", "--backends", "sat"])
    assert result.exit_code == 2 and "no such file" in result.stderr


def test_a_stuck_process_and_its_children_are_killed(tmp_path: Path) -> None:
    marker = tmp_path / "child.pid"
    # The command starts a grandchild that would outlive a plain kill, then hangs.
    script = f"sleep 60 & echo $! > {marker}; sleep 60"
    started = time.perf_counter()
    assert run_killable(["sh", "-c", script], 0.5) is None
    assert time.perf_counter() - started < 5
    grandchild = int(marker.read_text())
    time.sleep(0.1)
    assert not _alive(grandchild)


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for its reaper counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(")")[-1].split()[0] == "Z")


def test_a_process_that_finishes_is_not_killed() -> None:
    assert run_killable(["sh", "-c", "echo out; echo err >&2; exit 3"], 10) == (3, "out\n", "err\n")


def _run(backend: str, status: str, found: int, complete: bool, *solutions: str) -> SolveRun:
    return SolveRun(
        "p.non", backend, status, 1.0, 1.0, found, complete,
        solutions=tuple((s,) for s in solutions),
    )  # fmt: skip


def test_disagreements_are_found() -> None:
    assert (
        disagreements([_run("a", "unique", 1, True, "#"), _run("b", "unique", 1, True, "#")]) == []
    )
    assert disagreements([_run("a", "unique", 1, True, "#"), _run("b", "timeout", 0, False)]) == []
    assert disagreements([_run("a", "unique", 1, True, "#"), _run("b", "unique", 1, True, ".")])
    assert disagreements([_run("a", "unique", 1, True, "#"), _run("b", "unsolvable", 0, True)])
    assert disagreements(
        [_run("a", "unique", 1, True, "#"), _run("b", "multiple", 2, False, "#", ".")]
    )
