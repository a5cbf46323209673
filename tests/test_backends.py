"""Every installed backend against brute force and against the others.

Backends are interchangeable only if they agree: same verdicts, same solution sets, on random
puzzles (black-and-white and color), on the bundled examples and on part of the corpus.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings

from satnono.backends import installed_backends
from satnono.core.model import Puzzle
from satnono.formats import read_puzzles
from satnono.pipeline.solutions import solve
from support import EXAMPLES, SHARED, brute_force_solutions, puzzles

OTHERS = [name for name in installed_backends() if name != "sat"]
# Corpus puzzles a backend is known not to finish within the agreement test's 60 s
# (measured: backtrack times out on LalaFrogKK, a 2-solution puzzle with deep search).
TOO_SLOW = {("backtrack", "LalaFrogKK")}


@pytest.mark.parametrize("backend", OTHERS)
@settings(max_examples=40, deadline=None)
@given(puzzle=puzzles(max_width=5, max_height=5, max_colors=3))
def test_counts_match_brute_force(backend: str, puzzle: Puzzle) -> None:
    expected = brute_force_solutions(puzzle)
    result = solve(puzzle, backend=backend, limit=0)
    assert result.complete
    assert set(result.grids) == expected
    assert result.solutions_found == len(expected)


def _agree(puzzle: Puzzle, backend: str, limit: int) -> None:
    reference = solve(puzzle, backend="sat", limit=limit)
    other = solve(puzzle, backend=backend, limit=limit, timeout=60)
    assert other.status == reference.status
    assert other.solutions_found == reference.solutions_found
    if reference.complete:
        assert set(other.grids) == set(reference.grids)


@pytest.mark.parametrize("backend", OTHERS)
@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.non")), ids=lambda p: p.stem)
def test_examples_agree_with_sat(backend: str, path: Path) -> None:
    for puzzle in read_puzzles(path):
        _agree(puzzle, backend, limit=300)


def _corpus_sample() -> list[Path]:
    files = sorted((SHARED / "corpus").glob("*/*.non")) if SHARED.is_dir() else []
    # Every 12th file keeps this quick; the full corpus runs through the sat backend.
    return [p for p in files[::12] if p.stem != "frans_faase"]


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/puzzles is absent")
@pytest.mark.parametrize("backend", OTHERS)
@pytest.mark.parametrize("path", _corpus_sample(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_corpus_sample_agrees_with_sat(backend: str, path: Path) -> None:
    if (backend, path.stem) in TOO_SLOW:
        pytest.skip(f"{backend} is known to need more than 60 s on {path.stem}")
    for puzzle in read_puzzles(path):
        _agree(puzzle, backend, limit=3)


def test_a_deadline_passed_before_the_search_starts_no_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A deadline that passes in line logic or while a wide grid's components are found (a
    third of a second on a 1000x1000) ends the solve as a timeout before any backend is loaded
    and given the residual (which took 0.6 s more there)."""
    import time

    import satnono.pipeline.prepare
    import satnono.pipeline.solutions
    from satnono.formats import read_puzzle
    from satnono.logic import components as found_by

    def slow(*args: object, **kwargs: object) -> list[tuple[int, ...]]:
        time.sleep(0.3)
        return found_by.components(*args, **kwargs)  # type: ignore[arg-type]

    def no_backend(name: str) -> None:
        raise AssertionError(f"backend {name} loaded after the deadline")

    monkeypatch.setattr(satnono.pipeline.prepare, "components", slow)
    monkeypatch.setattr(satnono.pipeline.solutions, "load_backend", no_backend)
    puzzle = read_puzzle(EXAMPLES / "needs-search-25.non")
    result = solve(puzzle, backend="sat", timeout=0.2)
    assert result.status == "timeout" and not result.complete
