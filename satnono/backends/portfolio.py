"""The portfolio backend: diverse SAT configurations race in forked processes, first answer wins.

SAT solving time on hard nonograms is heavy-tailed: the same residual takes 0.2 s or 5 s
depending on the solver, the encoding and the initial phases. Racing a few configurations that
fail on different puzzles turns that tail into the best case (BENCHMARKS.md, portfolio section).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from satnono.backends import (
    OnSolution,
    Residual,
    SearchOptions,
    SearchReport,
    SearchTask,
    usable_cores,
)
from satnono.backends.models import ALL_TRUE, enumerate_models
from satnono.backends.sat import BACKEND as SAT_BACKEND
from satnono.encode.cnf import check_encoding, encode_puzzle
from satnono.encode.formula import CnfFormula
from satnono.runtime.child import Send, can_fork
from satnono.runtime.deadline import Deadline, Timeout
from satnono.runtime.race import Entrant, Race
from satnono.runtime.solver_kinds import canonical_solver


@dataclass(frozen=True)
class Config:
    """One way to solve the residual: a PySAT solver, a CNF encoding, a phase seed."""

    solver: str
    encoding: str
    seed: int = 0

    @property
    def name(self) -> str:
        phases = "true" if self.seed == ALL_TRUE else f"seed{self.seed}"
        return f"{self.solver}/{self.encoding}/{phases}"


#: Raced in this order, the first race_size() of them, chosen by measurement on the tuning set
#: (the 40 generated tuning puzzles and the shared corpus; never on the sets `make bench`
#: reports): `python tools/tune_portfolio.py /tmp/tuning ../shared/puzzles/corpus`, BENCHMARKS.md
#: "Tuning and reporting apart". The pair (and head start) best together on two cores, then
#: whatever helps most with each extra core.
CONFIGS: tuple[Config, ...] = (
    Config("glucose3", "blocks", 2),
    Config("glucose3", "blocks", ALL_TRUE),
    Config("glucose3", "blocks", 0),
    Config("glucose3", "blocks", 3),
    Config("glucose3", "blocks", 4),
    Config("minisat22", "blocks", ALL_TRUE),
)
#: The best single configuration on the same measurement (smallest slowest-plus-mean time):
#: used in-process where a race does not pay.
SINGLE = Config("glucose3", "blocks", 2)
#: Seconds the first configuration runs alone before the others join the race (chosen with
#: the configurations, see tools/tune_portfolio.py).
STAGGER = 0.3
#: Residuals with fewer undecided cells are solved in-process: every measured one takes less
#: time than starting the race would.
SMALL_RESIDUAL = 600
#: Larger limits (and 0, all solutions) are enumerations: solved in-process, streaming, since a
#: worker can only hand its solutions over once it has them all.
MAX_RACED_LIMIT = 64


def race_size() -> int:
    """How many configurations race: one per usable core, and at least two."""
    return max(2, usable_cores())


def race_configs(options: SearchOptions, count: int | None = None) -> list[Config]:
    """The first `count` configurations of CONFIGS that use the solver and encoding asked for.

    When nothing in CONFIGS matches, the requested solver and encoding race over phase seeds.
    """
    count = race_size() if count is None else count
    solver = canonical_solver(options.solver) if options.solver else None
    encoding = check_encoding(options.encoding) if options.encoding else None
    chosen = [
        c
        for c in CONFIGS
        if (solver is None or c.solver == solver) and (encoding is None or c.encoding == encoding)
    ]
    if chosen:
        return chosen[:count]
    return [
        Config(solver or SINGLE.solver, encoding or SINGLE.encoding, seed) for seed in range(count)
    ]


class PortfolioBackend:
    name: ClassVar[str] = "portfolio"

    def search(self, task: SearchTask) -> SearchReport:
        residual, options, deadline, on_solution = task.parts()
        configs = race_configs(options)
        cells = residual.cells()
        limit = options.limit
        if (
            len(configs) < 2
            or len(cells) < SMALL_RESIDUAL
            or limit == 0
            or limit > MAX_RACED_LIMIT
            or not can_fork()
        ):
            single = configs[0] if options.solver or options.encoding else SINGLE
            return _in_process(single, residual, options, deadline, on_solution)
        if deadline.expired():
            return SearchReport(exhausted=False, timed_out=True, stats={"solver": "portfolio"})
        started = time.perf_counter()
        import pysat.solvers  # noqa: F401 - imported once here rather than in every worker

        # An encoding shared by several workers is built once here and inherited by fork.
        shared: dict[str, CnfFormula] = {}
        for encoding in {c.encoding for c in configs}:
            if sum(c.encoding == encoding for c in configs) > 1:
                try:
                    shared[encoding] = encode_puzzle(
                        residual.geometry, residual.domains, residual.lines, encoding, deadline
                    )
                except Timeout:
                    unfinished = {"solver": "portfolio"}
                    return SearchReport(exhausted=False, timed_out=True, stats=unfinished)
        encode_seconds = time.perf_counter() - started
        with Race(decides_race) as race:
            winner = None
            for config in configs:
                if race.entrants:
                    remaining = deadline.remaining()
                    head_start = STAGGER if remaining is None else min(STAGGER, remaining)
                    winner = race.collect(Deadline(head_start)) if len(race.entrants) == 1 else None
                    if winner is not None or deadline.expired():
                        break
                formula = shared.get(config.encoding)
                race.enter(config, config_worker(config, residual, cells, limit, formula),
                           f"portfolio {config.name}")  # fmt: skip
            else:
                winner = race.collect(deadline)
        stats: dict[str, Any] = {
            "portfolio_configs": len(configs),
            "portfolio_started": len(race.entrants),
            "portfolio_seconds": round(time.perf_counter() - started, 4),
        }
        if winner is None:
            if not race.running():
                errors = "; ".join(f"{e.tag.name}: {e.error}" for e in race.entrants)
                raise RuntimeError(f"every portfolio worker failed: {errors}")
            best = max(race.entrants, key=lambda e: len(_solutions(e)))
            report = SearchReport(exhausted=False, timed_out=True, stats=stats)
            stats["solver"] = "portfolio"
            _replay(_solutions(best), cells, residual.domains, on_solution)
            return report
        _, exhausted, winner_stats = winner.messages[-1]
        stats.update(winner_stats)
        if winner.tag.encoding in shared:
            stats["encode_seconds"] = round(encode_seconds, 4)
        stats["solver"] = winner.tag.name
        stats["portfolio_winner"] = winner.tag.name
        finished = _replay(_solutions(winner), cells, residual.domains, on_solution)
        return SearchReport(exhausted=exhausted and finished, stats=stats)


def decides_race(_: Entrant[Config], message: tuple[Any, ...]) -> bool:
    """A worker's ("done", exhausted, stats) decides the race; ("solution", values) do not."""
    return bool(message[0] == "done")


def _solutions(entrant: Entrant[Config]) -> list[list[int]]:
    return [message[1] for message in entrant.messages if message[0] == "solution"]


def _in_process(
    config: Config,
    residual: Residual,
    options: SearchOptions,
    deadline: Deadline,
    on_solution: OnSolution,
) -> SearchReport:
    single = replace(options, solver=config.solver, encoding=config.encoding, seed=config.seed)
    report = SAT_BACKEND.search(SearchTask(residual, single, deadline, on_solution))
    report.stats["solver"] = config.name
    report.stats["portfolio_configs"] = 1
    return report


def _replay(
    solutions: list[list[int]], cells: list[int], domains: Sequence[int], on_solution: OnSolution
) -> bool:
    """Report the winner's solutions; False when the consumer stopped early."""
    for values in solutions:
        decided = list(domains)
        for cell, value in zip(cells, values, strict=True):
            decided[cell] = value
        if not on_solution(decided):
            return False
    return True


def config_worker(
    config: Config,
    residual: Residual,
    cells: list[int],
    limit: int,
    formula: CnfFormula | None,
) -> Callable[[Send], None]:
    """One configuration's work for its forked child: stream its messages."""

    def run(send: Send) -> None:
        for message in _solve(config, residual, cells, limit, formula):
            send(message)

    return run


def _solve(
    config: Config,
    residual: Residual,
    cells: list[int],
    limit: int,
    formula: CnfFormula | None,
) -> Iterator[tuple[Any, ...]]:
    started = time.perf_counter()
    cpu_started = time.process_time()
    if formula is None:
        formula = encode_puzzle(
            residual.geometry, residual.domains, residual.lines, config.encoding
        )
    stats: dict[str, Any] = {
        "encoding": formula.encoding,
        "cnf_variables": formula.variables,
        "cnf_clauses": len(formula.clauses),
        "encode_seconds": round(time.perf_counter() - started, 4),
    }
    solve_started = time.perf_counter()
    models = enumerate_models(formula, config.solver, Deadline(None), config.seed)
    for found, item in enumerate(models, start=1):
        if isinstance(item, str):  # "exhausted" (no deadline here, so never "interrupted")
            stats["solve_seconds"] = round(time.perf_counter() - solve_started, 4)
            stats["worker_cpu_seconds"] = round(time.process_time() - cpu_started, 4)
            yield ("done", item == "exhausted", stats)
            return
        decided = formula.decode(item, residual.domains)
        yield ("solution", [decided[cell] for cell in cells])
        if found == limit:
            stats["solve_seconds"] = round(time.perf_counter() - solve_started, 4)
            stats["worker_cpu_seconds"] = round(time.process_time() - cpu_started, 4)
            yield ("done", False, stats)
            return


BACKEND = PortfolioBackend()
