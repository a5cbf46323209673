"""Choose the portfolio's configurations (CONFIGS, STAGGER, SINGLE) by measurement: a dev tool.

`python tools/tune_portfolio.py FOLDER... [--save table.json]` times every candidate
configuration on every puzzle of the folders that the portfolio would race, then prints the
race order, the head start and the best single configuration. Run it on the tuning set (the
generated tuning puzzles and the shared corpus), never on the sets `make bench` reports.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from satnono.backends import Residual
from satnono.backends.models import ALL_TRUE
from satnono.backends.portfolio import SMALL_RESIDUAL, Config, config_worker, decides_race
from satnono.encode.cnf import ENCODINGS
from satnono.runtime.deadline import Deadline
from satnono.runtime.race import Race


def time_config(residual: Residual, config: Config, limit: int, timeout: float) -> float | None:
    """CPU seconds one configuration takes as a lone race worker (encode and solve).

    CPU time, not wall time: the solvers are deterministic, so their CPU time hardly depends
    on what else the (shared) machine runs, while their wall time can double under load.
    """
    with Race(decides_race) as race:
        work = config_worker(config, residual, residual.cells(), limit, None)
        entrant = race.enter(config, work, f"portfolio {config.name}")
        winner = race.collect(Deadline(timeout))
    if winner is None and entrant.error is not None:
        raise RuntimeError(f"{config.name}: {entrant.error}")
    return None if winner is None else float(winner.messages[-1][2]["worker_cpu_seconds"])


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
    folders: Sequence[Any], candidates: Sequence[Config], repeat: int, timeout: float, limit: int
) -> Table:
    """CPU seconds of every candidate on every puzzle of `folders` that the portfolio races."""
    from satnono.archive.files import puzzle_files
    from satnono.core.grids import initial_domains
    from satnono.formats import read_puzzle
    from satnono.reference.propagate import propagate_root

    table: Table = {}
    for path in puzzle_files(list(folders)):
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

    parser = argparse.ArgumentParser(prog="python tools/tune_portfolio.py")
    parser.add_argument("folders", type=Path, nargs="+")
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
        table = measure(args.folders, candidates, args.repeat, args.timeout, args.limit)
    if args.save:
        args.save.write_text(json.dumps(table, indent=1), encoding="utf-8")
    order, stagger = choose(table, candidates)
    single = min(candidates, key=lambda c: cost(table, [c], 1, 0.0))
    names = list(table)
    head = "| {} | " + " | ".join(n.split("-", 1)[-1] for n in names) + " | total | max |"
    rule = "|---" * (len(names) + 3) + "|"
    command = " ".join(argv if argv is not None else sys.argv[1:])
    print(
        f"Measured {datetime.date.today()} with `python tools/tune_portfolio.py {command}`: "
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
