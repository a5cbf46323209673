"""The count command's work, typer-free so that the typer command (solving.py) and the fast
path (quick.py) run the same code: CountArgs (its options and their defaults) and run()."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Sequence
from pathlib import Path

import satnono
from satnono.cli import present
from satnono.cli.each import SearchArgs, check_search_options, each_puzzle
from satnono.cli.process import EXIT_INTERRUPTED, exit_code, print_json, reporting, say
from satnono.output import contract
from satnono.output.terminal import labelled


@dataclasses.dataclass(frozen=True)
class CountArgs(SearchArgs):
    """`satnono count`'s options, with their defaults (the typer command's defaults are
    these)."""

    limit: int = 0
    approx: bool = False
    epsilon: float | None = None
    delta: float | None = None
    memory: int = 2048
    json_output: bool = False
    fmt: str | None = None
    index: int | None = None


def run(puzzles: Sequence[Path], args: CountArgs) -> int:
    """Count each puzzle named and print it as `args` asks; the exit code (the highest of
    the puzzles')."""
    from satnono.cli.live import watched

    check_search_options(args)

    def count_one(
        loaded: satnono.Puzzle, source: str, within: satnono.Deadline, label: str | None
    ) -> int:
        with watched(within, not args.json_output) as (progress, pressed):
            counted = satnono.count(
                loaded, limit=args.limit, approximate=args.approx, epsilon=args.epsilon,
                delta=args.delta, backend=args.backend, solver=args.solver,
                threads=args.threads, seed=args.seed, encoding=args.encoding,
                workers=args.workers, scheduler=args.scheduler, cubes=args.cubes,
                deadline=within, progress=progress, memory=args.memory,
            )  # fmt: skip
        interrupted = pressed.is_set() and not counted.exact
        with reporting(pressed.is_set()):
            if args.json_output:
                data = contract.count_object(source, counted)
                if interrupted:
                    data["stopped"] = "interrupted"
                print_json(data)
            else:
                text = labelled(label, present.count_text(counted, args.limit, interrupted))
                sys.stdout.write(text + "\n")
                sys.stdout.flush()
            if counted.hint is not None:
                say(f"satnono: hint: {counted.hint}")
        if interrupted:
            raise SystemExit(EXIT_INTERRUPTED)
        return exit_code(counted.result.status, counted.count)

    json_for = "count" if args.json_output else None
    return each_puzzle(puzzles, args.fmt, args.index, args.timeout, json_for, count_one)
