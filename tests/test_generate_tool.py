"""tools/generate.py, the benchmark sets' generator: a fresh set to report on (`--seed`,
`--sides`) is the generator's own puzzles for those seeds, and the defaults stay the sets'."""

from __future__ import annotations

from pathlib import Path

import pytest

from satnono.formats import read_puzzle
from satnono.formats.generate import FRONTIER_DENSITIES, FRONTIER_SEED, random_set
from support import load_tool


def test_a_fresh_seed_and_side_give_the_generators_puzzles(tmp_path: Path) -> None:
    generate = load_tool("generate")
    assert generate.main(["frontier", str(tmp_path), "--count", "2", "--seed", "77",
                          "--sides", "20"]) == 0  # fmt: skip
    wanted = random_set(77, 2, (20,), FRONTIER_DENSITIES)
    for seed, puzzle in zip((77, 78), wanted, strict=True):
        written = read_puzzle(tmp_path / f"frontier-{seed}-20.non")
        assert (written.rows, written.columns) == (puzzle.rows, puzzle.columns)


def test_without_a_seed_a_set_starts_at_its_own(tmp_path: Path) -> None:
    generate = load_tool("generate")
    assert generate.main(["frontier", str(tmp_path), "--count", "1"]) == 0
    (written,) = tmp_path.iterdir()
    assert written.name.startswith(f"frontier-{FRONTIER_SEED}-")


@pytest.mark.parametrize(
    ("kind", "sides", "said"),
    [("thin", "45", "for the square sets"), ("frontier", "4x5", "not a list of sides"),
     ("frontier", "0", "not a list of sides")],
)  # fmt: skip
def test_sides_that_cannot_be_are_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, sides: str, said: str
) -> None:
    with pytest.raises(SystemExit) as stopped:
        load_tool("generate").main([kind, str(tmp_path), "--sides", sides])
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert said in error and "Traceback" not in error
