"""The solve command's work, typer-free so that the typer command (solving.py) and the fast
path (quick.py) run the same code: SolveArgs (its options and their defaults) and run()."""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import satnono
from satnono.cli import present
from satnono.cli.each import SearchArgs, check_search_options, each_puzzle, several
from satnono.cli.process import (
    EXIT_INTERRUPTED,
    EXIT_TIMEOUT,
    ctrl_c_once,
    exit_code,
    print_json,
    say,
    stream_line,
)
from satnono.output import contract
from satnono.output.terminal import SolutionPrinter, printable


@dataclasses.dataclass(frozen=True)
class SolveArgs(SearchArgs):
    """`satnono solve`'s options, with their defaults (the typer command's defaults are
    these)."""

    max_solutions: int = 2
    json_output: bool = False
    json_lines: bool = False
    svg: Path | None = None
    png: Path | None = None
    quiet: bool = False
    clues: bool | None = None
    proof: Path | None = None
    fmt: str | None = None
    index: int | None = None
    line_only: bool = False


def run(puzzles: Sequence[Path], args: SolveArgs) -> int:
    """Solve each puzzle named and print it as `args` asks; the exit code (the highest of
    the puzzles')."""
    if args.json_output and args.json_lines:
        raise satnono.InputError("choose one of --json and --json-lines", "--json-lines")
    if several(puzzles) and args.proof:
        raise satnono.InputError("certifies one puzzle: name one", "--proof")
    if several(puzzles) and (args.svg or args.png):
        raise satnono.InputError(
            "--svg and --png draw one puzzle: name one", "--svg" if args.svg else "--png"
        )
    check_search_options(args)
    json_for = "solve" if args.json_output or args.json_lines else None
    if args.line_only:
        _check_line_only(args)

    def solve_one(
        puzzle: satnono.Puzzle, source: str, within: satnono.Deadline, label: str | None
    ) -> int:
        if args.line_only:
            return _line_only(puzzle, source, args, within.remaining(), label)
        return _solve_one(puzzle, source, args=args, within=within, label=label)

    return each_puzzle(puzzles, args.fmt, args.index, args.timeout, json_for, solve_one)


def _solve_one(
    puzzle: satnono.Puzzle,
    source: str,
    *,
    args: SolveArgs,
    within: satnono.Deadline,
    label: str | None = None,
) -> int:
    """Solve one puzzle and print it the way the options ask; the exit code. `label` (the
    file, when several are solved) starts its verdict line."""
    json_output, json_lines, quiet = args.json_output, args.json_lines, args.quiet
    progress = satnono.Progress()
    # --json keeps every solution for its one object, written as JSON while the search goes
    # on (made after it, the rows of 235,693 30x30 solutions took 12 s past --timeout and their
    # JSON 3.8 s more); text and --json-lines print each one as it is found. The first grid is
    # kept for --svg/--png, however many there are.
    found: list[satnono.Grid] = []
    listed: list[str] = []
    texts = contract.row_texts()  # each row's string made so far
    text = SolutionPrinter(puzzle, quiet, args.clues)

    def on_solution(grid: satnono.Grid) -> None:
        if json_lines:
            stream_line(contract.solution_line(puzzle, grid, texts))
        elif json_output:
            listed.append(contract.solution_json(puzzle, grid, texts))
        elif line is None:
            text.add(grid)
        else:
            with line.paused():
                text.add(grid)
        if not found and (json_lines or json_output):
            found.append(grid)

    live = not (quiet or json_output or json_lines)
    line: Any = None
    # The first Ctrl-C stops the search; the grid so far and the status line are printed
    # whatever is pressed after it (cli.process.ctrl_c_once).
    with ctrl_c_once():
        try:
            with contextlib.ExitStack() as stack:
                if live:  # the live module only for a live display (start-up counts)
                    from satnono.cli.live import describe, live_line

                    line = stack.enter_context(live_line(lambda: describe(progress), True))
                result = satnono.solve(
                    puzzle, args.backend, args.max_solutions, within.remaining(),
                    on_solution=on_solution, progress=progress, keep=0, solver=args.solver,
                    threads=args.threads, seed=args.seed, encoding=args.encoding,
                    workers=args.workers, scheduler=args.scheduler, cubes=args.cubes,
                    proof=args.proof,
                )  # fmt: skip
        except KeyboardInterrupt:
            if json_output or json_lines:
                seconds = time.perf_counter() - progress.started
                so_far = None if json_lines else contract.Listed(tuple(listed))
                print_json(
                    contract.interrupted_object(source, puzzle, None, progress, seconds, so_far)
                )
            else:
                from satnono.cli.live import describe

                text.interrupted(progress.domains, describe(progress), label)
            raise SystemExit(EXIT_INTERRUPTED) from None
    first = text.first if text.first is not None else (found[0] if found else None)
    undrawn = [
        picture
        for picture in (args.svg, args.png)
        if picture is not None and not _drawn(puzzle, result, first, progress, picture, within)
    ]
    if json_output or json_lines:
        every = None if json_lines else contract.Listed(tuple(listed))
        print_json(contract.solve_object(source, result, None, every))
    else:
        text.finish(present.verdict_line(result, quiet), label)
    if args.proof is not None:
        say(printable(present.certificate_line(result)))
    if puzzle.goal is not None and not quiet:  # as pbnsolve -c: the file's own answer checked
        wrong = (result.status == "unique" and first is not None and first != puzzle.goal) or (
            result.status == "unsolvable"
        )
        if wrong:
            say(printable(f"satnono: note: {label + ': ' if label else ''}the goal stored in "
                          "the file is not a solution of its clues"))  # fmt: skip
    return EXIT_TIMEOUT if undrawn else exit_code(result.status, result.solutions_found)


def _drawn(
    puzzle: satnono.Puzzle,
    result: satnono.SolveResult,
    first: satnono.Grid | None,
    progress: satnono.Progress,
    picture: Path,
    within: satnono.Deadline,
) -> bool:
    """--svg or --png: the first solution (else what the search decided) drawn into `picture`
    within the puzzle's deadline (and `render`'s grace past it); False, said on stderr, when
    it could not be drawn in time (a 1000 x 1000's PNG took 71 s past --timeout 3)."""
    caption = f"{puzzle.title}: {result.verdict}" if puzzle.title else result.verdict
    partial = None if first is not None else progress.domains
    try:
        satnono.render(puzzle, first, picture, caption, partial=partial, timeout=within.remaining())
    except satnono.Timeout:
        say(printable(present.not_drawn_line(str(picture))))
        return False
    return True


def _check_line_only(args: SolveArgs) -> None:
    """--line-only takes the options that say what to read and print, not how to search."""
    searching = {
        "--json-lines": args.json_lines, "--proof": args.proof is not None,
        "--svg": args.svg is not None, "--png": args.png is not None,
        "--max-solutions": args.max_solutions != SolveArgs.max_solutions,
        "--backend": args.backend != SolveArgs.backend, "--solver": args.solver is not None,
        "--cubes": args.cubes is not None, "--workers": args.workers is not None,
    }  # fmt: skip
    for flag, given in searching.items():
        if given:
            raise satnono.InputError("line logic and probing alone do not search: drop it", flag)


def _line_only(
    puzzle: satnono.Puzzle, source: str, args: SolveArgs, seconds: float | None, label: str | None
) -> int:
    """Solve one puzzle without guessing, within `seconds`, and grade it; the exit code: 0
    with a grade, 1 when there is no solution, 3 when the timeout came first."""
    from satnono.cli.process import EXIT_SOLVED, EXIT_TIMEOUT, EXIT_UNSOLVABLE

    result = satnono.line_only(puzzle, seconds)
    if args.json_output:
        print_json(contract.line_only_object(source, puzzle, result))
    else:
        from satnono.output.terminal import grid_console, labelled, print_domains

        console = grid_console()
        if not args.quiet and result.grade != "no solution":
            print_domains(console, puzzle, result.domains, bool(args.clues))
            console.out("")
        console.out(labelled(label, present.grade_line(puzzle, result)))
    if result.grade == "no solution":
        return EXIT_UNSOLVABLE
    return EXIT_TIMEOUT if result.grade == "unknown" else EXIT_SOLVED
