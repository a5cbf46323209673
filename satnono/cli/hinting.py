"""The hint command: the next deductions a person can make (satnono.hint)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

import satnono
from satnono.cli.each import each_puzzle, several
from satnono.cli.options import FormatOpt, IndexOpt, JsonOpt, PuzzlesArg, TimeoutOpt
from satnono.cli.process import (
    EXIT_INTERRUPTED,
    EXIT_SOLVED,
    EXIT_TIMEOUT,
    EXIT_UNSOLVABLE,
    ctrl_c_once,
    handles_errors,
    print_json,
    say,
)
from satnono.cli.shell import app
from satnono.output import contract
from satnono.output.terminal import printable


@app.command()
@handles_errors
def hint(
    puzzles: PuzzlesArg,
    grid: Annotated[
        Path | None,
        typer.Option(
            "--grid",
            help="A partly filled grid to go on from: a row a line, palette characters and ? "
            "for open cells (as hint prints it). Default: an empty grid.",
        ),
    ] = None,
    steps: Annotated[
        int,
        typer.Option("--steps", "-n", min=1, help="How many steps to give, each after the last."),
    ] = 1,
    timeout: TimeoutOpt = None,
    json_output: JsonOpt = False,
    fmt: FormatOpt = None,
    index: IndexOpt = None,
) -> None:
    """The next step a person can take: the line, the cells it forces and why (an overlap,
    an edge, a full or complete line, every placement agreeing), or a probe's contradiction.

    Says so when the grid given breaks a clue (exit 1), and when only a guess goes on.
    """
    if grid is not None and several(puzzles):
        raise satnono.InputError("a partial grid goes with one puzzle: name one", "--grid")

    def hint_one(
        puzzle: satnono.Puzzle, source: str, within: satnono.Deadline, label: str | None
    ) -> int:
        from satnono.output.terminal import domain_rows

        current: Path | list[str] | None = grid
        given_steps: list[satnono.Hint] = []
        interrupted = False
        # The first Ctrl-C stops the steps; those found are given whatever is pressed after.
        with ctrl_c_once():
            try:
                for _ in range(steps):
                    step = satnono.hint(puzzle, current, within.remaining())
                    given_steps.append(step)
                    if step.kind not in ("line", "probe"):
                        break
                    current = domain_rows(puzzle, step.domains)
            except satnono.Timeout:
                pass
            except KeyboardInterrupt:  # the steps found so far are given, then exit 130
                interrupted = True
            if json_output:
                print_json(contract.hint_object(source, puzzle, given_steps))
            else:
                _print(puzzle, given_steps, label)
            if interrupted:
                say(f"satnono: interrupted after {len(given_steps)} of {steps} steps")
                raise SystemExit(EXIT_INTERRUPTED)
        going_on = not given_steps or given_steps[-1].kind in ("line", "probe")
        if len(given_steps) < steps and going_on:  # the timeout came first
            return EXIT_TIMEOUT
        return EXIT_UNSOLVABLE if given_steps[-1].kind == "mistake" else EXIT_SOLVED

    raise SystemExit(
        each_puzzle(puzzles, fmt, index, timeout, "hint" if json_output else None, hint_one)
    )


def _print(puzzle: satnono.Puzzle, steps: list[satnono.Hint], label: str | None) -> None:
    from satnono.output.terminal import domain_rows

    if label is not None:
        typer.echo(printable(f"{label}:"))
    for number, step in enumerate(steps, start=1):
        typer.echo(printable(f"{number}. {step.text}"))
        if step.before and step.after:
            typer.echo(printable(f"   {step.before}  ->  {step.after}"))
    if not steps:
        typer.echo("no step within the timeout")
        return
    if steps[-1].kind in ("line", "probe"):
        typer.echo("the grid after these steps ('?' = open; give it back with --grid):")
        typer.echo("\n".join(printable(row) for row in domain_rows(puzzle, steps[-1].domains)))
