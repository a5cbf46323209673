"""Real puzzles from ../shared: the webpbn survey verdicts and the regression corpus.

Skipped when ../shared is absent. Every solution found is verified by the pipeline itself;
these tests add the expected verdicts, the known solution counts and the authors' goals.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from satnono.core.verify import problems
from satnono.formats import read_puzzles
from satnono.pipeline.solutions import solve
from support import SHARED

SURVEY = SHARED / "webpbn-survey"
CORPUS = SHARED / "corpus"
# From ../shared/puzzles/README.md: all unique except these (at least two solutions).
SURVEY_MULTIPLE = {2556, 2712, 6739, 9892, 10088, 10810, 12548, 18297}
# Known exact counts (the README and the puzzles' own catalogue lines).
CORPUS_COUNTS = {"hakank/nonunique.non": 43, "hakank/t2.non": 2, "hakank/simple2.non": 2}
# Too hard for a test run: frans_faase (95x80, 6176 cells left after propagation) was found
# satisfiable only by a standalone CaDiCaL run of about 12 CPU minutes. Here the pipeline must
# merely stay honest on it: a verified solution or "timeout", never a wrong verdict.
CORPUS_TOO_HARD = {"pynogram/frans_faase.non"}

needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/puzzles is absent")


def _files(folder: Path, pattern: str) -> list[Path]:
    return sorted(folder.glob(pattern)) if folder.is_dir() else []


@needs_shared
@pytest.mark.parametrize("path", _files(SURVEY, "*.non"), ids=lambda p: p.stem)
def test_survey_verdicts(path: Path) -> None:
    (puzzle,) = read_puzzles(path)
    result = solve(puzzle, limit=2, timeout=120)
    webpbn_id = int(path.stem.split("-")[0])
    expected = "multiple" if webpbn_id in SURVEY_MULTIPLE else "unique"
    assert result.status == expected
    if puzzle.goal is not None and expected == "unique":
        assert result.grids == (puzzle.goal,)


@needs_shared
@pytest.mark.parametrize(
    "path", _files(CORPUS, "*/*.non"), ids=lambda p: f"{p.parent.name}/{p.stem}"
)
def test_corpus_solves(path: Path) -> None:
    key = f"{path.parent.name}/{path.name}"
    if key in CORPUS_TOO_HARD:
        (puzzle,) = read_puzzles(path)
        result = solve(puzzle, limit=1, timeout=3)
        # With limit=1 a found grid is "solved" (nothing said about others); the engine now
        # finds Faase's within the 3 s on a quiet machine, and not always on a busy one.
        assert result.status in {"timeout", "solved", "unique", "multiple"}
        assert result.status == "timeout" or result.solutions_found == 1
        return
    for puzzle in read_puzzles(path):
        limit = CORPUS_COUNTS.get(key, 1) + 1
        result = solve(puzzle, limit=limit, timeout=120)
        assert result.solutions_found >= 1, result.verdict
        if key in CORPUS_COUNTS:
            assert result.complete and result.solutions_found == CORPUS_COUNTS[key]
        if puzzle.goal is not None:
            # The author's picture satisfies the clues as we read them...
            assert problems(puzzle, puzzle.goal) == []
            if result.status == "unique":
                # ...and is the one solution.
                assert result.grids == (puzzle.goal,)
