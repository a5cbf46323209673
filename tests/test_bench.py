"""`make bench`: configurations parse as documented, and a run writes its marked section;
the line-solver and throughput benchmarks report every measure."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from satnono.core.model import Block
from support import EXAMPLES, brute_force_line, load_tool

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


def test_the_line_benchmark_reports_every_length_and_block_count(
    capsys: pytest.CaptureFixture[str],
) -> None:
    tool = load_tool("bench_lines")
    assert tool.main(["--lines", "3", "--repeat", "1"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line[2:3].isdigit()]
    kinds = {(row.split("|")[1].strip(), row.split("|")[2].strip()) for row in rows}
    assert ("10", "1") in kinds and ("25", "3") in kinds and ("100", "12") in kinds
    # native, native one call a batch, Python, cell-parallel: all positive rates; the ratio.
    for column in (4, 5, 6, 7):
        assert all(float(row.split("|")[column].replace(",", "")) > 0 for row in rows)
    assert all(row.split("|")[8].strip().endswith("x") for row in rows)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 10).flatmap(lambda n: st.tuples(
    st.lists(st.integers(1, 4), max_size=4), st.lists(st.sampled_from([1, 2, 3, 3]),
                                                      min_size=n, max_size=n),
)))  # fmt: skip
def test_the_cell_parallel_design_measured_is_exact(case: tuple[list[int], list[int]]) -> None:
    """The benchmark compares two exact solvers: the cell-parallel one against brute force."""
    lengths, domains = case
    clue = tuple(Block(length) for length in lengths)
    expected = brute_force_line(clue, tuple(domains), 2)
    assert load_tool("line_cells").solve(tuple(lengths), tuple(domains)) == (expected or ())


def test_the_throughput_benchmark_times_every_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tool = load_tool("bench_throughput")
    for name in ("duck", "switches-8", "permutation-9"):
        shutil.copy(EXAMPLES / f"{name}.non", tmp_path)
    assert tool.main([str(tmp_path), "--repeat", "1", "--per-file", "2"]) == 0
    table = capsys.readouterr().out
    for way in ("batch, 1 worker", "batch, 2 workers", "solve, one process", "library (CPU)"):
        row = next(line for line in table.splitlines() if line.startswith(f"| {way} |"))
        assert float(row.split("|")[2]) > 0


def test_the_tournament_benchmark_checks_and_tables_every_answer(tmp_path: Path) -> None:
    output = tmp_path / "BENCH.md"
    output.write_text("# Bench\n\nkept\n", encoding="utf-8")
    tool = load_tool("bench_tournament")
    assert tool.main([str(EXAMPLES / "tournament-4.txt"), "--output", str(output)]) == 0
    text = output.read_text(encoding="utf-8")
    assert text.startswith("# Bench\n\nkept\n") and "<!-- bench:tournament -->" in text
    (row,) = [line for line in text.splitlines() if line.startswith("| tournament-4 |")]
    assert row.startswith("| tournament-4 | 4/4, ")


def test_the_peers_benchmark_reads_each_peers_verdict_and_marks_disagreement(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "puzzles"
    folder.mkdir()
    for name in ("duck.non", "switches-8.non"):
        shutil.copy(EXAMPLES / name, folder / name)
    # Stand-ins printing the peers' verdict lines: one says unique to all, one multiple.
    nonosolve, pbnsolve = tmp_path / "nonosolve", tmp_path / "pbnsolve"
    nonosolve.write_text('#!/bin/sh\necho "x 1x1 UNIQUE time=0.0 nodes=0"\n')
    pbnsolve.write_text('#!/bin/sh\necho "FOUND MULTIPLE SOLUTIONS:"\n')
    for program in (nonosolve, pbnsolve):
        program.chmod(0o755)
    tool = load_tool("bench_peers")
    arguments = [str(folder), "--nonosolve", str(nonosolve), "--pbnsolve", str(pbnsolve)]
    assert tool.main([*arguments, "--timeout", "20"]) == 0
    rows = {line.split(" | ")[0]: line for line in capsys.readouterr().out.splitlines()}
    assert rows["| duck"].endswith("unique | 0.00, unique | 0.00, multiple ✗ |")
    assert rows["| switches-8"].endswith("multiple | 0.00, unique ✗ | 0.00, multiple |")
    assert ", 2/2** | **" in rows["| **total, decided**"]
