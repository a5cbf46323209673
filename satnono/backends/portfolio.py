"""The portfolio backend: diverse SAT configurations race in forked processes, first answer wins.

SAT solving time on hard nonograms is heavy-tailed: the same residual takes 0.2 s or 5 s
depending on the solver, the encoding and the initial phases. Racing a few configurations that
fail on different puzzles turns that tail into the best case (BENCHMARKS.md, portfolio section).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from satnono.backends import OnSolution, Residual, SearchOptions, SearchReport, usable_cores
from satnono.backends.child import ChildFinished, ForkedChild, Send, can_fork, wait_any
from satnono.backends.sat import ALL_TRUE, canonical_solver, enumerate_models
from satnono.backends.sat import BACKEND as SAT_BACKEND
from satnono.cnf import ENCODINGS, CnfFormula, check_encoding, encode_puzzle
from satnono.deadline import Deadline, Timeout


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


#: Raced in this order, the first race_size() of them, chosen by measurement on the webpbn
#: survey set (`python -m satnono.backends.portfolio`, BENCHMARKS.md portfolio section): the
#: pair (and head start) that is best together on two cores, then whatever helps most with
#: each extra core. The first two complement each other: glucose3 finds Thing in 0.35 s where
#: minisat22 takes 0.86 s, minisat22 finds Sierp in 0.17 s where glucose3 takes 1.3 s.
CONFIGS: tuple[Config, ...] = (
    Config("glucose3", "blocks", 2),
    Config("minisat22", "blocks", 2),
    Config("cadical195", "blocks", 0),
    Config("glucose3", "blocks", ALL_TRUE),
    Config("glucose3", "blocks", 0),
    Config("glucose3", "blocks", 3),
)
#: The best single configuration (smallest slowest-plus-mean time on the same measurement):
#: used in-process where a race does not pay.
SINGLE = Config("glucose3", "blocks", 4)
#: Seconds the first configuration runs alone before the others join the race: long enough
#: for most residuals, which it settles alone, short next to the hard ones (chosen with the
#: configurations, see main() below).
STAGGER = 0.2
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


@dataclass
class _Worker:
    config: Config
    child: ForkedChild
    solutions: list[list[int]] = field(default_factory=list)
    done: bool = False
    exhausted: bool = False
    stats: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


class PortfolioBackend:
    name: ClassVar[str] = "portfolio"

    def search(
        self,
        residual: Residual,
        options: SearchOptions,
        deadline: Deadline,
        on_solution: OnSolution,
    ) -> SearchReport:
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
                        residual.propagator, residual.domains, residual.lines, encoding, deadline
                    )
                except Timeout:
                    unfinished = {"solver": "portfolio"}
                    return SearchReport(exhausted=False, timed_out=True, stats=unfinished)
        encode_seconds = time.perf_counter() - started
        workers: list[_Worker] = []
        try:
            # The first configuration alone settles most residuals within STAGGER seconds;
            # only then do the others join, so easy puzzles do not pay for a race.
            for config in configs:
                if workers:
                    remaining = deadline.remaining()
                    head_start = STAGGER if remaining is None else min(STAGGER, remaining)
                    winner = _race(workers, Deadline(head_start)) if len(workers) == 1 else None
                    if winner is not None or deadline.expired():
                        break
                formula = shared.get(config.encoding)
                workers.append(_start(config, residual, cells, limit, formula))
            else:
                winner = _race(workers, deadline)
        finally:
            _stop(workers)
        stats: dict[str, Any] = {
            "portfolio_configs": len(configs),
            "portfolio_started": len(workers),
            "portfolio_seconds": round(time.perf_counter() - started, 4),
        }
        if winner is None:
            failed = [w for w in workers if w.error is not None]
            if len(failed) == len(workers):
                errors = "; ".join(f"{w.config.name}: {w.error}" for w in failed)
                raise RuntimeError(f"every portfolio worker failed: {errors}")
            # Timeout: hand over what the most productive worker found.
            best = max(workers, key=lambda w: len(w.solutions))
            report = SearchReport(exhausted=False, timed_out=True, stats=stats)
            stats["solver"] = "portfolio"
            _replay(best.solutions, cells, residual.domains, on_solution)
            return report
        stats.update(winner.stats)
        if winner.config.encoding in shared:
            stats["encode_seconds"] = round(encode_seconds, 4)
        stats["solver"] = winner.config.name
        stats["portfolio_winner"] = winner.config.name
        finished = _replay(winner.solutions, cells, residual.domains, on_solution)
        return SearchReport(exhausted=winner.exhausted and finished, stats=stats)


def _in_process(
    config: Config,
    residual: Residual,
    options: SearchOptions,
    deadline: Deadline,
    on_solution: OnSolution,
) -> SearchReport:
    single = replace(options, solver=config.solver, encoding=config.encoding, seed=config.seed)
    report = SAT_BACKEND.search(residual, single, deadline, on_solution)
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


def _start(
    config: Config,
    residual: Residual,
    cells: list[int],
    limit: int,
    formula: CnfFormula | None,
) -> _Worker:
    """One configuration in a forked child (satnono.backends.child), streaming its messages."""

    def run(send: Send) -> None:
        for message in _solve(config, residual, cells, limit, formula):
            send(message)

    return _Worker(config, ForkedChild(run, f"portfolio {config.name}"))


def _race(workers: list[_Worker], deadline: Deadline) -> _Worker | None:
    """Collect messages until one worker is done; None on timeout or when all failed."""
    pending = [w for w in workers if w.error is None]
    while pending:
        ready = _wait([w.child for w in pending], deadline.remaining())
        if not ready:
            return None
        for child in ready:
            worker = next(w for w in pending if w.child is child)
            try:
                message = child.receive(0)
            except (RuntimeError, ChildFinished) as error:
                worker.error = str(error) or "ended without an answer"
                pending.remove(worker)
                continue
            except Timeout:  # woken, but the message is not whole yet
                continue
            if message[0] == "solution":
                worker.solutions.append(message[1])
            else:  # ("done", exhausted, stats)
                worker.done, worker.exhausted, worker.stats = True, message[1], message[2]
                return worker
    return None


def _wait(children: list[ForkedChild], timeout: float | None) -> list[ForkedChild]:
    """satnono.backends.child.wait_any, a seam for the interruption tests."""
    return wait_any(children, timeout)


def _stop(workers: list[_Worker]) -> None:
    """Kill every worker still running and reap it: no orphan, no zombie."""
    for worker in workers:
        worker.child.kill()


# --- inside a worker process -------------------------------------------------------------------


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
            residual.propagator, residual.domains, residual.lines, config.encoding
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


# --- choosing the configurations: `python -m satnono.backends.portfolio FOLDER` -----------------

#: Stage 2 of the choice (BENCHMARKS.md, portfolio section): the solvers that stage 1 (every
#: PySAT solver x every encoding, default phases) found fastest, each with several phase seeds.
CANDIDATES: tuple[Config, ...] = tuple(
    Config(solver, "blocks", seed)
    for solver, seeds in (
        ("glucose3", (ALL_TRUE, 0, 2, 3, 4)),
        ("minisat22", (ALL_TRUE, 0, 1, 2)),
        ("glucose42", (ALL_TRUE, 0, 1, 4)),
        ("cadical195", (0, 4)),
        ("cadical153", (ALL_TRUE, 3)),
        ("maplecm", (ALL_TRUE, 3)),
    )
    for seed in seeds
)


#: Stage 1: every encoding with these solvers (PySAT's maintained CDCL solvers), default phases.
WIDE_SOLVERS = (
    "glucose3", "glucose42", "minisat22", "maplecm", "maplechrono", "mergesat3",
    "cadical153", "cadical195", "lingeling", "kissat404",
)  # fmt: skip


def time_config(residual: Residual, config: Config, limit: int, timeout: float) -> float | None:
    """CPU seconds one configuration takes as a lone race worker (encode and solve).

    CPU time, not wall time: the solvers are deterministic, so their CPU time hardly depends
    on what else the (shared) machine runs, while their wall time can double under load.
    """
    workers: list[_Worker] = []
    try:
        workers.append(_start(config, residual, residual.cells(), limit, None))
        winner = _race(workers, Deadline(timeout))
    finally:
        _stop(workers)
    if winner is None and workers[0].error is not None:
        raise RuntimeError(f"{config.name}: {workers[0].error}")
    return None if winner is None else float(winner.stats["worker_cpu_seconds"])


#: Background loads the choice is made for (other busy processes besides the workers): an
#: idle machine, and one shared with another busy process, as this 2-core machine usually is.
LOADS = (0.0, 1.0)
#: Head starts tried for the first configuration.
STAGGERS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3)

Table = dict[str, dict[str, float]]  # puzzle -> config name -> CPU seconds


def estimate(
    times: dict[str, float], chosen: Sequence[Config], cores: int, stagger: float, load: float
) -> float:
    """A race's wall time on one puzzle, modelled: the first worker starts at once, the others
    `stagger` seconds later; n busy processes (workers plus `load`) on `cores` cores each run
    at cores / n of full speed; the race ends with its first finisher."""
    alone = min(1.0, cores / (1 + load))
    together = min(1.0, cores / (len(chosen) + load))
    first = times[chosen[0].name]
    if len(chosen) == 1 or first <= stagger * alone:
        finish = first / alone
    else:
        finish = stagger + (first - stagger * alone) / together
    for config in chosen[1:]:
        finish = min(finish, stagger + times[config.name] / together)
    return finish


def cost(table: Table, chosen: Sequence[Config], cores: int, stagger: float) -> float:
    """What the choice minimizes: the slowest puzzle plus the mean one (the two Done-when
    figures), averaged over LOADS."""
    total = 0.0
    for load in LOADS:
        per = [estimate(times, chosen, cores, stagger, load) for times in table.values()]
        total += max(per) + sum(per) / len(per)
    return total / len(LOADS)


def choose(table: Table, candidates: Sequence[Config]) -> tuple[list[Config], float]:
    """The race order and the head start: the best (first, second, stagger) on two cores, then
    greedily whichever configuration helps most with one more core each time."""
    first, second, stagger = min(
        ((a, b, t) for a in candidates for b in candidates if a != b for t in STAGGERS),
        key=lambda x: cost(table, x[:2], 2, x[2]),
    )
    order = [first, second]
    rest = [c for c in candidates if c not in order]
    while rest:
        best = min(rest, key=lambda c: cost(table, [*order, c], len(order) + 1, stagger))
        order.append(best)
        rest.remove(best)
    return order, stagger


def measure(
    folder: Any, candidates: Sequence[Config], repeat: int, timeout: float, limit: int
) -> Table:
    """CPU seconds of every candidate on every puzzle of `folder` that the portfolio races."""
    from satnono.compare import puzzle_files
    from satnono.formats import read_puzzle
    from satnono.propagate import initial_domains, propagate_root

    table: Table = {}
    for path in puzzle_files([folder]):
        puzzle = read_puzzle(path, None, 1)
        domains = initial_domains(puzzle)
        propagator, reason = propagate_root(puzzle, domains)
        if reason is not None:
            continue
        residual = Residual(puzzle, propagator, tuple(domains))
        if residual.unknown < SMALL_RESIDUAL:
            continue
        times = table[path.stem] = {}
        for config in candidates:
            runs = [time_config(residual, config, limit, timeout) for _ in range(repeat)]
            finished = [t for t in runs if t is not None]
            times[config.name] = min(finished) if finished else timeout
            print(f"{path.stem:20} {config.name:32} {times[config.name]:6.2f}", file=sys.stderr)
    return table


def _row(name: str, values: list[float]) -> str:
    cells = " | ".join(f"{t:.2f}" for t in values)
    return f"| {name} | {cells} | {sum(values):.2f} | {max(values):.2f} |"


def main(argv: list[str] | None = None) -> int:
    """Time every candidate on every puzzle the portfolio would race; print the tables."""
    import argparse
    import datetime
    import json
    from pathlib import Path

    parser = argparse.ArgumentParser(prog="python -m satnono.backends.portfolio")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--repeat", type=int, default=2, help="runs per cell; the minimum counts")
    parser.add_argument("--timeout", type=float, default=4.0, help="seconds per run")
    parser.add_argument("--limit", type=int, default=2, help="solutions to find")
    parser.add_argument(
        "--wide", action="store_true", help="stage 1: every encoding x WIDE_SOLVERS, seed 0"
    )
    parser.add_argument("--save", type=Path, help="also write the measurements (JSON)")
    parser.add_argument("--load", type=Path, help="choose from saved measurements instead")
    args = parser.parse_args(argv)
    candidates = CANDIDATES
    if args.wide:
        candidates = tuple(Config(s, e, 0) for s in WIDE_SOLVERS for e in ENCODINGS)
    if args.load:
        table: Table = json.loads(args.load.read_text(encoding="utf-8"))
    else:
        table = measure(args.folder, candidates, args.repeat, args.timeout, args.limit)
    if args.save:
        args.save.write_text(json.dumps(table, indent=1), encoding="utf-8")
    order, stagger = choose(table, candidates)
    single = min(candidates, key=lambda c: cost(table, [c], 1, 0.0))
    names = list(table)
    head = "| {} | " + " | ".join(n.split("-", 1)[-1] for n in names) + " | total | max |"
    rule = "|---" * (len(names) + 3) + "|"
    command = " ".join(argv if argv is not None else sys.argv[1:])
    print(
        f"Measured {datetime.date.today()} with `python -m satnono.backends.portfolio {command}`: "
        f"CPU seconds of one worker (encoding and solving) to {args.limit} solutions or the "
        f"proof, minimum of {args.repeat} runs; {args.timeout:g} = no answer within "
        f"{args.timeout:g} s wall.\n"
    )
    print(head.format("config"))
    print(rule)
    for config in sorted(candidates, key=lambda c: cost(table, [c], 1, 0.0)):
        print(_row(config.name, [table[n][config.name] for n in names]))
    raced = ", ".join(c.name for c in order[:6])
    print(
        f"\nBest single configuration: {single.name}. Race order: {raced}; the first runs "
        f"{stagger:g} s alone. Modelled race wall seconds (see `estimate`):\n"
    )
    print(head.format("race"))
    print(rule)
    for k in range(1, 5):
        for cores in sorted({2, k}):
            for load in LOADS:
                per = [estimate(table[n], order[:k], cores, stagger, load) for n in names]
                print(_row(f"first {k}, {cores} cores, load {load:g}", per))
    return 0


if __name__ == "__main__":
    sys.exit(main())
