"""`make bench`: configurations parse as documented, and a run writes its marked section."""

from __future__ import annotations

import shutil
from pathlib import Path

from support import EXAMPLES, load_tool

bench = load_tool("bench")
Configuration, main = bench.Configuration, bench.main

ROOT = Path(__file__).resolve().parent.parent


def test_configurations_parse() -> None:
    assert Configuration.parse("portfolio") == Configuration("portfolio", "portfolio", (), None)
    assert Configuration.parse("sat/automaton/glucose42") == Configuration(
        "sat/automaton/glucose42", "sat", ("--encoding", "automaton", "--solver", "glucose42"), None
    )
    assert Configuration.parse("@/tmp/prev") == Configuration(
        "@/tmp/prev", None, (), Path("/tmp/prev")
    )
    assert Configuration.parse("cpsat@old").checkout == Path("old")


def test_a_run_fills_its_section_and_leaves_the_rest(tmp_path: Path) -> None:
    folder = tmp_path / "puzzles"
    folder.mkdir()
    for name in ("duck.non", "switches-8.non"):
        shutil.copy(EXAMPLES / name, folder / name)
    output = tmp_path / "BENCH.md"
    output.write_text("# Bench\n\nkept\n", encoding="utf-8")
    # This checkout named as "another" one: the column runs the default backend from ROOT.
    code = main([str(folder), "--backends", f"sat,@{ROOT}", "--output", str(output)])
    assert code == 0
    text = output.read_text(encoding="utf-8")
    assert text.startswith("# Bench\n\nkept\n") and "<!-- bench:survey -->" in text
    rows = {line.split(" | ")[0]: line for line in text.splitlines() if line.startswith("| ")}
    assert f"@{ROOT} s" in rows["| puzzle"]
    assert "unique" in rows["| duck"] and "multiple" in rows["| switches-8"]
    assert rows["| **total**"].count("**") == 6
