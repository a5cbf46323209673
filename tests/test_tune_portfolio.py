"""tools/tune_portfolio.py, the dev tool that chooses the portfolio's configurations, on a toy
table whose best choice can be worked out by hand."""

from __future__ import annotations

from types import ModuleType

from satnono.backends.portfolio import Config
from support import TOOLS, load_tool

TOOL = TOOLS / "tune_portfolio.py"


def _tool() -> ModuleType:
    return load_tool("tune_portfolio")


A, B, C = Config("glucose3", "blocks", 0), Config("minisat22", "blocks", 0), Config("x", "y", 1)
# A is fast except on p2, B fast only on p2, C mediocre everywhere: A and B complement
# each other, and C is the best single configuration (smallest slowest-plus-mean).
TABLE = {
    "p1": {A.name: 0.1, B.name: 3.0, C.name: 0.8},
    "p2": {A.name: 4.0, B.name: 0.1, C.name: 0.8},
    "p3": {A.name: 0.1, B.name: 3.0, C.name: 0.8},
}


def test_the_pair_that_complements_wins_and_the_best_single_is_chosen() -> None:
    tool = _tool()
    order, stagger = tool.choose(TABLE, [A, B, C])
    assert set(order[:2]) == {A, B} and order[2] == C
    assert stagger in tool.STAGGERS
    single = min([A, B, C], key=lambda c: tool.cost(TABLE, [c], 1, 0.0))
    assert single == C


def test_the_race_model_ends_with_the_first_finisher() -> None:
    tool = _tool()
    times = TABLE["p2"]
    # Two cores, no other load: B starts after the head start and finishes 0.1 s later.
    assert tool.estimate(times, [A, B], 2, 0.2, 0.0) == 0.2 + 0.1
    # Alone, A takes its own time.
    assert tool.estimate(times, [A], 1, 0.0, 0.0) == 4.0
    # One more busy process on two cores: two workers and the load share them.
    assert tool.estimate(times, [A, B], 2, 0.0, 1.0) == 0.1 / (2 / 3)


def test_the_installed_backend_does_not_import_the_tuner_or_upward() -> None:
    source = (TOOL.parent.parent / "satnono" / "backends" / "portfolio.py").read_text()
    for upward in ("satnono.archive", "satnono.formats", "argparse"):
        assert upward not in source
