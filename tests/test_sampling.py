"""`satnono sample`: every sample is a verified solution, the seed repeats them, the exact
path is uniform, and the samplers from the field are used where enumeration cannot go."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from typer.testing import CliRunner

import satnono.pipeline.sampling
from satnono.cli import app
from satnono.core.model import Puzzle
from satnono.core.verify import problems
from satnono.errors import Contradiction
from satnono.formats import read_puzzle
from satnono.formats.generate import puzzle_from_grid, switch_board
from satnono.pipeline.sampling import Sampling
from satnono.runtime.deadline import Deadline, Timeout
from support import (
    EXAMPLES,
    SHARED,
    THIN_20020,
    brute_force_solutions,
    children,
    puzzles,
    thin_20020,
)


@settings(max_examples=40, deadline=None)
@given(puzzles(max_width=4, max_height=4, max_colors=3))
def test_samples_are_solutions(puzzle: Puzzle) -> None:
    solutions = brute_force_solutions(puzzle)
    if not solutions:
        with pytest.raises(Contradiction):
            list(Sampling(puzzle, 3))
        return
    drawn = list(Sampling(puzzle, 5, seed=1))
    assert len(drawn) == 5 and set(drawn) <= solutions


@pytest.mark.parametrize("sampler", ["cmsgen", "unigen"])
def test_the_samplers_give_verified_solutions(
    sampler: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No exact count: the samplers get the board.
    monkeypatch.setattr(satnono.pipeline.sampling, "EXACT_BUDGET", 0)
    monkeypatch.setattr(satnono.pipeline.sampling, "EXACT_LIMIT", 4)
    board = puzzle_from_grid(switch_board(2, 3))  # 64 solutions
    sampling = Sampling(board, 20, seed=3, sampler=sampler)
    drawn = list(sampling)
    assert len(drawn) == 20
    assert all(not problems(board, grid) for grid in drawn)  # the independent checker
    assert [m.method for m in sampling.methods] == [sampler]
    assert len(set(drawn)) > 5  # random, not one solution repeated
    assert children() == []


def test_a_component_the_sampler_gives_nothing_is_sampled_from_random_phases(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """CMSGen found no solution of webpbn's Sierp in 60 s, and `sample` gave none at all,
    though `solve` takes a second. A component the sampler gives nothing within
    SAMPLER_FIRST is sampled from random phases, and the guarantee says what that promises."""
    import time

    sampling_module = satnono.pipeline.sampling
    original = sampling_module.sample_cells

    def stuck_cmsgen(formula: object, sampler: str, *rest: Any) -> object:
        if sampler == "cmsgen":
            time.sleep(60)  # as CMSGen on Sierp
        return original(formula, sampler, *rest)  # type: ignore[arg-type]

    def stuck_unigen(formula: object, sampler: str, *rest: Any) -> object:
        time.sleep(60)  # hashing
        return original(formula, sampler, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(sampling_module, "sample_cells", stuck_cmsgen)
    monkeypatch.setattr(sampling_module, "EXACT_BUDGET", 0)
    monkeypatch.setattr(sampling_module, "EXACT_LIMIT", 4)
    monkeypatch.setattr(sampling_module, "SAMPLER_FIRST", 0.5)
    board = puzzle_from_grid(switch_board(2, 3))  # 64 solutions
    with satnono.pipeline.sampling.SampleRun(board, 20, 3, "cmsgen", Deadline(30)) as run:
        drawn = list(run)
    assert len(drawn) == 20 and run.status == "sampled"
    assert all(not problems(board, grid) for grid in drawn)  # the independent checker
    assert [m.method for m in run.methods] == ["phases"]
    assert len(set(drawn)) > 5  # random cells flipped each time, not one solution repeated
    assert "CaDiCaL from belief propagation" in run.guarantee
    assert "no uniformity" in run.guarantee
    assert children() == []
    # UniGen3, chosen for its proof, hashes for a minute before its first sample: it waits.
    monkeypatch.setattr(sampling_module, "sample_cells", stuck_unigen)
    with satnono.pipeline.sampling.SampleRun(board, 20, 3, "unigen", Deadline(1.5)) as run:
        drawn = list(run)
    assert drawn == [] and run.status == "timeout"
    assert [m.method for m in run.methods] == ["unigen"]
    assert children() == []


@pytest.mark.parametrize("cores", [1, 2])
def test_the_phases_sampler_starts_beside_cmsgen_on_a_second_core(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, cores: int
) -> None:
    """Where CMSGen gives nothing (Nature, Sierp, Faase), its SAMPLER_FIRST seconds were
    waited for before the phases sampler started. With a second core the phases sampler
    starts beside CMSGen and its samples are taken once CMSGen's time is up; on one core it
    starts then."""
    import time

    sampling_module = satnono.pipeline.sampling
    original = sampling_module.sample_cells
    started = tmp_path / "phases-started"

    def stuck_cmsgen(formula: object, sampler: str, *rest: Any) -> object:
        if sampler == "cmsgen":
            time.sleep(60)  # as CMSGen on Sierp
        started.write_text(str(time.time()))  # in the phases sampler's child
        return original(formula, sampler, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(sampling_module, "sample_cells", stuck_cmsgen)
    monkeypatch.setattr(sampling_module, "usable_cores", lambda: cores)
    monkeypatch.setattr(sampling_module, "EXACT_BUDGET", 0)
    monkeypatch.setattr(sampling_module, "EXACT_LIMIT", 4)
    monkeypatch.setattr(sampling_module, "SAMPLER_FIRST", 2.0)
    board = puzzle_from_grid(switch_board(2, 3))  # 64 solutions
    began = time.time()
    with satnono.pipeline.sampling.SampleRun(board, 5, 3, "cmsgen", Deadline(30)) as run:
        drawn = list(run)
    assert len(drawn) == 5 and run.status == "sampled"
    assert all(not problems(board, grid) for grid in drawn)
    assert [m.method for m in run.methods] == ["phases"]
    waited = float(started.read_text()) - began
    assert (waited < 2.0) if cores == 2 else (waited >= 2.0)
    assert children() == []


def test_a_phases_sampler_that_cannot_start_beside_cmsgen_starts_after_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fork refused while CMSGen runs (no memory, no process left) costs the phases sampler
    its head start, not the samples: it is started again once CMSGen's time is up."""
    import time

    sampling_module = satnono.pipeline.sampling
    original_samples, original_child = sampling_module.sample_cells, sampling_module.ForkedChild
    refused: list[str] = []

    def stuck_cmsgen(formula: object, sampler: str, *rest: Any) -> object:
        if sampler == "cmsgen":
            time.sleep(60)
        return original_samples(formula, sampler, *rest)  # type: ignore[arg-type]

    def refused_once(run: Any, what: str, *rest: Any, **options: Any) -> Any:
        if what == "phases sampler" and not refused:
            refused.append(what)
            raise BlockingIOError(11, "Resource temporarily unavailable")
        return original_child(run, what, *rest, **options)

    monkeypatch.setattr(sampling_module, "sample_cells", stuck_cmsgen)
    monkeypatch.setattr(sampling_module, "ForkedChild", refused_once)
    monkeypatch.setattr(sampling_module, "usable_cores", lambda: 2)
    monkeypatch.setattr(sampling_module, "EXACT_BUDGET", 0)
    monkeypatch.setattr(sampling_module, "EXACT_LIMIT", 4)
    monkeypatch.setattr(sampling_module, "SAMPLER_FIRST", 0.5)
    board = puzzle_from_grid(switch_board(2, 3))
    with satnono.pipeline.sampling.SampleRun(board, 5, 3, "cmsgen", Deadline(30)) as run:
        drawn = list(run)
    assert refused and len(drawn) == 5 and [m.method for m in run.methods] == ["phases"]
    assert children() == []


def test_the_phases_sampler_beside_cmsgen_is_stopped_by_cmsgen_s_first_sample(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """CMSGen's samples are taken wherever it gives one in time; the phases sampler started
    beside it is stopped then, and no sample comes from it."""
    sampling_module = satnono.pipeline.sampling
    monkeypatch.setattr(sampling_module, "usable_cores", lambda: 2)
    monkeypatch.setattr(sampling_module, "EXACT_BUDGET", 0)
    monkeypatch.setattr(sampling_module, "EXACT_LIMIT", 4)
    board = puzzle_from_grid(switch_board(2, 3))
    with satnono.pipeline.sampling.SampleRun(board, 20, 3, "cmsgen", Deadline(30)) as run:
        samples = iter(run)
        drawn = [next(samples)]
        assert len(children()) <= 1  # CMSGen's child at most: the phases sampler is gone
        drawn += samples
    assert len(drawn) == 20 and [m.method for m in run.methods] == ["cmsgen"]
    assert children() == []


def test_a_lone_component_the_count_s_listing_found_many_of_is_not_enumerated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before a component went to the sampler, SAT enumerated up to 1001 of its solutions to
    see whether it had few: 7.6 s of Sierp's, though the count's listing had listed thousands
    of the puzzle's, and a lone component's solutions are the puzzle's."""
    from satnono.pipeline.prepare import prepare

    def enumerated(*_: object) -> None:
        raise AssertionError("enumerated")

    monkeypatch.setattr(satnono.pipeline.sampling, "enumerate_part", enumerated)
    puzzle = read_puzzle(EXAMPLES / "permutation-9.non")  # one component, 9! solutions
    sampling = Sampling(puzzle, 5, seed=1)
    sampling.listed_many = True  # as `_exactly` leaves it when its listing passed EXACT_LIMIT
    drawn = list(sampling._by_components(prepare(puzzle)))
    assert len(drawn) == 5 and all(not problems(puzzle, grid) for grid in drawn)
    assert [m.method for m in sampling.methods] == ["cmsgen"]
    assert children() == []


def test_small_components_are_drawn_exactly_uniformly() -> None:
    # switches-8: 256 solutions, enumerated; 25,600 draws, about 100 of each.
    puzzle = read_puzzle(EXAMPLES / "switches-8.non")
    sampling = Sampling(puzzle, 25_600, seed=7)
    tally = Counter(sampling)
    assert [m.method for m in sampling.methods] == ["exact"]
    assert len(tally) == 256
    # Chi-square with 255 degrees of freedom: 330 is about the 0.999 quantile.
    chi2 = sum((n - 100) ** 2 / 100 for n in tally.values())
    assert chi2 < 330


def test_the_engines_listing_gives_exact_draws_where_the_count_is_slow(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A random 25x25 with 121 solutions, which the engine's count does not finish in 15 s:
    its listing, beside the count, ends first and the draws come from it, every solution
    with probability 1/121 (12,100 draws, a chi-square test). Components of more than 50
    solutions would otherwise go to CMSGen here."""
    import random

    from satnono.formats.generate import random_grid
    from satnono.pipeline.counting import count_solutions

    monkeypatch.setattr(satnono.pipeline.sampling, "EXACT_LIMIT", 50)
    puzzle = puzzle_from_grid(random_grid(25, 25, 2, 0.45, random.Random(5)))
    sampling = Sampling(puzzle, 12_100, seed=4, deadline=Deadline(60))
    tally = Counter(sampling)
    assert [(m.method, m.solutions) for m in sampling.methods] == [("exact", 121)]
    assert len(tally) == 121 == count_solutions(puzzle, methods=("enumerate",)).count
    # Chi-square with 120 degrees of freedom: 174 is about the 0.999 quantile.
    assert sum((n - 100) ** 2 / 100 for n in tally.values()) < 174


def test_a_sweep_past_the_exact_budget_still_draws_exactly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """thin-20020 (6 x 137, 1.9 x 10^21 solutions): its sweep keeps its layers to draw from
    for about half a second. With the exact budget a fifth of that, the sweep goes on past it
    (a sweep counts what it takes on within its memory) and every draw is exactly uniform,
    where the sampler stopped it and CMSGen drew instead (thin-20049's sweep took 9.6 s of
    the 10 s budget)."""
    import time

    from satnono.logic.native import Engine

    started_sampler = Engine.sampler

    def sweeping_first(*args: object, **kwargs: object) -> object:
        # The budget runs from when the sampler is made: it starts once the sweep has (on a
        # loaded machine, probing alone outlasted 0.1 s now and then, and CMSGen drew).
        sampler = started_sampler(*args, **kwargs)  # type: ignore[arg-type]
        waited = time.perf_counter() + 10
        while not sampler.sweeping() and time.perf_counter() < waited:
            time.sleep(0.001)
        return sampler

    monkeypatch.setattr(Engine, "sampler", sweeping_first)
    monkeypatch.setattr(satnono.pipeline.sampling, "EXACT_BUDGET", 0.1)
    board = thin_20020()
    sampling = Sampling(board, 5, seed=2, deadline=Deadline(60))
    drawn = list(sampling)
    assert [(m.method, m.solutions) for m in sampling.methods] == [("exact", THIN_20020)]
    assert len(drawn) == 5 and all(not problems(board, grid) for grid in drawn)
    assert children() == []


def test_a_sweep_past_the_budget_leaves_the_samplers_their_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A sweep that outlasts the exact budget goes on only while the deadline leaves the
    samplers as long again: one that never ends (a stand-in for the engine's) must not take
    the whole deadline, or the caller gets no sample at all."""
    import time

    from satnono.logic.native import Engine

    class EndlessSweep:
        ended = None

        def nodes(self) -> int:
            return 0

        def sweeping(self) -> bool:
            return True

        def total(self, deadline: Deadline, cancel: bool = True) -> None:
            time.sleep(min(0.01, max(0.0, deadline.remaining() or 0.01)))

        def cancel(self) -> None:
            pass

    monkeypatch.setattr(Engine, "sampler", lambda *args, **kwargs: EndlessSweep())
    monkeypatch.setattr(satnono.pipeline.sampling, "EXACT_BUDGET", 0.5)
    puzzle = read_puzzle(EXAMPLES / "switches-8.non")  # 256 solutions, enumerated then
    started = time.perf_counter()
    # The sweep goes on past 0.5 s and gives way at 1.5 s: the last 0.5 s are the samplers'.
    drawn = list(Sampling(puzzle, 3, seed=1, deadline=Deadline(2.0)))
    assert len(drawn) == 3 and all(not problems(puzzle, grid) for grid in drawn)
    assert 1.2 < time.perf_counter() - started < 2.0


def test_the_seed_repeats_the_samples() -> None:
    puzzle = read_puzzle(EXAMPLES / "permutations-11x6-color.non")
    assert list(Sampling(puzzle, 4, seed=5)) == list(Sampling(puzzle, 4, seed=5))
    assert list(Sampling(puzzle, 4, seed=5)) != list(Sampling(puzzle, 4, seed=6))


def test_a_deadline_stops_sampling() -> None:
    with pytest.raises(Timeout):
        list(Sampling(read_puzzle(EXAMPLES / "switchboard-10.non"), 5, deadline=Deadline(0)))
    assert children() == []


runner = CliRunner()


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/puzzles is absent")
def test_cli_json_lines_on_flag() -> None:
    path = SHARED / "webpbn-survey" / "2556-flag.non"
    result = runner.invoke(app, ["sample", str(path), "-n", "20", "--json-lines", "--seed", "2"])
    assert result.exit_code == 0
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    *samples, summary = lines
    assert len(samples) == 20 and summary["samples"] == 20 and summary["status"] == "sampled"
    puzzle = read_puzzle(path)
    from satnono.core.verify import problems

    for sample in samples:
        assert problems(puzzle, puzzle.grid_from_rows(sample["solution"])) == []
    assert summary["components"] == [{"cells": 221, "solutions": 1263904, "method": "exact"}]
    assert summary["guarantee"].startswith("exactly uniform: each of the 1263904 solutions")


def test_cli_text_and_errors(tmp_path: object) -> None:
    result = runner.invoke(app, ["sample", str(EXAMPLES / "switches-8.non"), "-n", "2"])
    assert result.exit_code == 0 and "solution 2:" in result.stdout
    assert "2 random solutions, each verified (exactly uniform: each of the 256" in result.stdout
    result = runner.invoke(app, ["sample", str(EXAMPLES / "duck.non"), "--sampler", "magic"])
    assert result.exit_code == 2 and "unknown sampler 'magic'" in result.stderr


def test_the_phases_sampler_starts_from_the_phases_given_and_never_repeats_a_sample() -> None:
    """Faase's residual: CaDiCaL found no solution in 200 s from random phases, one in 10 s
    from belief propagation's, and `sample` gave none. The sampler now starts from the phases
    given, and each next sample colors one of FLIP_GROUP random cells otherwise than the one
    before; past the one solution of a unique puzzle it stops (fewer than asked)."""
    from pysat.solvers import Solver

    from satnono.core.grids import domains_to_grid
    from satnono.encode.cnf import encode_puzzle
    from satnono.pipeline.prepare import prepare
    from satnono.pipeline.samplers import PHASES, sample_cells

    board = puzzle_from_grid(switch_board(2, 3))  # 64 solutions
    prepared = prepare(board)
    formula = encode_puzzle(prepared.geometry, prepared.domains, None)
    cells = formula.cell_variables()
    for seed in range(3):
        with Solver(name="cadical195", bootstrap_with=formula.clauses) as solver:
            phases = [v if random.Random(seed).random() < 0.5 else -v for v in cells]
            solver.set_phases(phases)
            assert solver.solve()
            model = solver.get_model() or []
        drawn = list(sample_cells(formula, PHASES, 12, seed, model))
        assert len(drawn) == 12
        assert set(drawn[0]) == {literal for literal in model if abs(literal) in set(cells)}
        for before, after in itertools.pairwise(drawn):
            assert set(before) != set(after)
        for true in drawn:
            grid = domains_to_grid(board, formula.decode(true, prepared.domains))
            assert not problems(board, grid)  # the independent checker
    unique = prepare(read_puzzle(EXAMPLES / "needs-search-25.non"))
    assert unique.cells_left
    single = encode_puzzle(unique.geometry, unique.domains, None)
    assert len(list(sample_cells(single, PHASES, 5, 0))) == 1


def test_a_component_slow_to_list_goes_to_the_sampler(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before a component went to the sampler, SAT listed up to 1001 of its solutions to see
    whether it had few, to the deadline: the corpus's Faase was still being listed 20 s in,
    and `sample` gave nothing in 60 s. Now its listing stops ENUMERATION_FIRST past its
    first solution (here at once) and the component goes to the sampler."""
    sampling_module = satnono.pipeline.sampling
    monkeypatch.setattr(sampling_module, "EXACT_BUDGET", 0)
    board = puzzle_from_grid(switch_board(2, 3))  # 64 solutions: listed, as a rule
    with sampling_module.SampleRun(board, 10, 3, "cmsgen", Deadline(30)) as run:
        listed = list(run)
    assert [m.method for m in run.methods] == ["exact"] and len(listed) == 10
    monkeypatch.setattr(sampling_module, "ENUMERATION_FIRST", 0)
    with sampling_module.SampleRun(board, 10, 3, "cmsgen", Deadline(30)) as run:
        sampled = list(run)
    assert run.status == "sampled" and len(sampled) == 10
    assert [m.method for m in run.methods] == ["cmsgen"]
    assert all(not problems(board, grid) for grid in sampled)  # the independent checker
    assert children() == []
