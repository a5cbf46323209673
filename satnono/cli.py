"""The `satnono` command line: solve, count, convert and cnf, with stable JSON and exit codes.

Exit codes: 0 at least one solution (or success), 1 proven no solution, 2 bad input or usage,
3 timeout before any solution, 4 internal error, 130 interrupted. Heavy modules (the solver
backends, rich) are imported only by the commands that need them.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from satnono import __version__
from satnono.backends import BACKENDS, DEFAULT_BACKEND, SearchOptions, installed_backends
from satnono.errors import InputError
from satnono.formats import FORMATS, read_puzzle, read_puzzles, write_puzzles
from satnono.model import Puzzle

EXIT_SOLVED, EXIT_UNSOLVABLE, EXIT_BAD_INPUT, EXIT_TIMEOUT, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a command killed by it

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="satnono: nonogram solver. Line propagation first, then SAT on the cells left.",
)

F = TypeVar("F", bound=Callable[..., Any])


def _fail(message: str, code: int) -> typer.Exit:
    typer.echo(f"satnono: {message}", err=True)
    return typer.Exit(code)


def handles_errors(command: F) -> F:
    """Map every failure to one line on stderr and its exit code; never a traceback."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except InputError as error:
            raise _fail(f"error: {error}", EXIT_BAD_INPUT) from None
        except KeyboardInterrupt:
            raise _fail("interrupted", EXIT_INTERRUPTED) from None
        except BrokenPipeError:
            # The reader went away (`satnono solve ... | head`): stop quietly, like other tools.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(EXIT_BROKEN_PIPE) from None
        except typer.Exit:
            raise
        except Exception as error:
            if os.environ.get("SATNONO_DEBUG"):
                raise
            raise _fail(
                f"internal error: {type(error).__name__}: {error} (set SATNONO_DEBUG=1 for a "
                "traceback, and please report it)",
                EXIT_INTERNAL,
            ) from None

    return wrapper  # type: ignore[return-value]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"satnono {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    """satnono: nonogram solver. Line propagation first, then SAT on the cells left."""


PuzzleArg = Annotated[
    Path, typer.Argument(help="Puzzle file (.non, .xml, ...).", show_default=False)
]
FormatOpt = Annotated[
    str | None,
    typer.Option("--format", help=f"Input format, overriding detection: {', '.join(FORMATS)}."),
]
IndexOpt = Annotated[
    int, typer.Option("--puzzle", min=1, help="Which puzzle of a multi-puzzle file.")
]
BackendOpt = Annotated[
    str,
    typer.Option("--backend", help=f"Search backend: {', '.join(installed_backends())}."),
]
SolverOpt = Annotated[
    str | None,
    typer.Option("--solver", help="PySAT solver for the sat backend (default: glucose42)."),
]
ThreadsOpt = Annotated[
    int, typer.Option("--threads", min=1, help="Worker threads (cpsat backend).")
]
SeedOpt = Annotated[int, typer.Option("--seed", help="Random seed for the search.")]
TimeoutOpt = Annotated[
    float | None, typer.Option("--timeout", min=0, help="Give up after this many seconds.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]


def _check_backend(name: str) -> str:
    if name not in BACKENDS:
        raise InputError(
            f"unknown backend {name!r}; installed: {', '.join(installed_backends())}", "--backend"
        )
    if name not in installed_backends():
        raise InputError(
            f"backend {name!r} needs {BACKENDS[name].requires}, which is not installed", "--backend"
        )
    return name


def _options(backend: str, solver: str | None, threads: int = 1, seed: int = 0) -> SearchOptions:
    """Check the search options before any work, so a typo fails even on easy puzzles."""
    _check_backend(backend)
    if solver is not None:
        from satnono.backends.sat import canonical_solver

        solver = canonical_solver(solver)
    return SearchOptions(solver=solver, threads=threads, seed=seed)


def _load(path: Path, fmt: str | None, index: int) -> Puzzle:
    return read_puzzle(path, fmt, index)


def _console(stderr: bool = False) -> Any:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


@app.command()
@handles_errors
def solve(
    puzzle: PuzzleArg,
    backend: BackendOpt = DEFAULT_BACKEND,
    solver: SolverOpt = None,
    threads: ThreadsOpt = 1,
    seed: SeedOpt = 0,
    max_solutions: Annotated[
        int, typer.Option("--max-solutions", min=0, help="Stop after N solutions; 0 finds all.")
    ] = 2,
    timeout: TimeoutOpt = None,
    json_output: JsonOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the verdict.")] = False,
    fmt: FormatOpt = None,
    index: IndexOpt = 1,
) -> None:
    """Solve a puzzle: print its solutions and a verdict (unique, N solutions, no solution)."""
    from satnono.solutions import solve as run_solve

    options = _options(backend, solver, threads, seed)
    loaded = _load(puzzle, fmt, index)
    result = run_solve(
        loaded, backend=backend, limit=max_solutions, timeout=timeout, options=options
    )
    if json_output:
        print(json.dumps(_solve_json(puzzle, result)))
    else:
        _print_result(result, quiet)
    raise typer.Exit(_exit_code(result.status, result.solutions_found))


def _exit_code(status: str, found: int) -> int:
    if found:
        return EXIT_SOLVED
    return EXIT_TIMEOUT if status == "timeout" else EXIT_UNSOLVABLE


def _solve_json(path: Path, result: Any) -> dict[str, Any]:
    puzzle = result.puzzle
    data = {
        "file": str(path),
        "title": puzzle.title,
        "width": puzzle.width,
        "height": puzzle.height,
        "colors": len(puzzle.palette),
        "palette": [{"name": c.name, "char": c.char, "rgb": c.rgb} for c in puzzle.palette],
        "backend": result.backend,
        "solver": result.solver,
        "status": result.status,
        "complete": result.complete,
        "solutions_found": result.solutions_found,
        "solutions": [puzzle.grid_rows(grid) for grid in result.solutions],
        "seconds": result.seconds,
        "stats": result.stats,
    }
    if result.reason:
        data["reason"] = result.reason
    return data


def _print_result(result: Any, quiet: bool) -> None:
    from satnono.propagate import grid_to_domains
    from satnono.render import print_domains

    console = _console()
    if not quiet:
        many = len(result.solutions) > 1
        for number, grid in enumerate(result.solutions, start=1):
            if many:
                console.out(f"solution {number}:")
            print_domains(console, result.puzzle, grid_to_domains(grid))
            console.out("")
    details = [f"{result.seconds:.2f} s"]
    if not quiet and "cells_left" in result.stats:
        details.append(
            f"{result.stats['cells_left']} of {result.stats['cells']} cells left after line logic"
        )
    if not quiet and result.solver:
        same = result.solver == result.backend
        details.append(result.backend if same else f"{result.backend}/{result.solver}")
    console.out(f"{result.verdict} ({', '.join(details)})")


@app.command()
@handles_errors
def count(
    puzzle: PuzzleArg,
    limit: Annotated[
        int, typer.Option("--limit", min=0, help="Stop counting at N; 0 = no limit.")
    ] = 0,
    timeout: TimeoutOpt = None,
    backend: BackendOpt = DEFAULT_BACKEND,
    solver: SolverOpt = None,
    threads: ThreadsOpt = 1,
    seed: SeedOpt = 0,
    json_output: JsonOpt = False,
    fmt: FormatOpt = None,
    index: IndexOpt = 1,
) -> None:
    """Count the solutions: exact when the search finishes, otherwise a lower bound."""
    from satnono.solutions import count as run_count

    options = _options(backend, solver, threads, seed)
    loaded = _load(puzzle, fmt, index)
    counted = run_count(loaded, backend=backend, limit=limit, timeout=timeout, options=options)
    if json_output:
        print(json.dumps({"file": str(puzzle), "count": counted.count, "exact": counted.exact,
                          "seconds": counted.seconds}))  # fmt: skip
    else:
        n = counted.count
        noun = "solution" if n == 1 else "solutions"
        if counted.exact:
            text = f"{n} {noun} (exact)"
        elif counted.result.status == "timeout" or (limit == 0 or n < limit):
            text = f"at least {n} {noun} (timeout)"
        else:
            text = f"at least {n} {noun} (stopped at --limit {limit})"
        if counted.result.reason:
            text += f": {counted.result.reason}"
        typer.echo(f"{text} ({counted.seconds:.2f} s)")
    raise typer.Exit(_exit_code(counted.result.status, counted.count))


@app.command()
@handles_errors
def convert(
    source: Annotated[Path, typer.Argument(help="Puzzle file to read.", show_default=False)],
    target: Annotated[
        Path, typer.Argument(help="File to write; its suffix picks the format.", show_default=False)
    ],
    from_format: Annotated[str | None, typer.Option("--from", help="Input format.")] = None,
    to_format: Annotated[str | None, typer.Option("--to", help="Output format.")] = None,
) -> None:
    """Convert puzzles between formats (every puzzle in the file)."""
    puzzles = read_puzzles(source, from_format)
    write_puzzles(puzzles, target, to_format)
    noun = "puzzle" if len(puzzles) == 1 else "puzzles"
    typer.echo(f"wrote {len(puzzles)} {noun} to {target}", err=True)


@app.command()
@handles_errors
def cnf(
    puzzle: PuzzleArg,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="DIMACS file to write (default: stdout).")
    ] = None,
    fmt: FormatOpt = None,
    index: IndexOpt = 1,
) -> None:
    """Write the CNF of the residual puzzle (after line propagation) in DIMACS."""
    from satnono.cnf import encode_puzzle, variable_comments
    from satnono.errors import Contradiction
    from satnono.model import find_contradiction
    from satnono.propagate import Propagator, initial_domains

    loaded = _load(puzzle, fmt, index)
    reason = find_contradiction(loaded)
    propagator = Propagator(loaded)
    domains = initial_domains(loaded)
    if reason is None:
        try:
            propagator.propagate(domains)
        except Contradiction as error:
            reason = str(error)
    if reason is not None:
        raise _fail(f"no solution: {reason}; no CNF written", EXIT_UNSOLVABLE)
    formula = encode_puzzle(propagator, domains)
    text = formula.dimacs(variable_comments(loaded, formula))
    if output is None:
        sys.stdout.write(text)
    else:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as error:
            raise InputError(f"cannot write: {error.strerror or error}", output) from None
    left = len(formula.cell_literals)
    typer.echo(
        f"{output or 'stdout'}: {formula.variables} variables, {len(formula.clauses)} clauses, "
        f"{left} residual cells" + (" (line logic solves this puzzle)" if not left else ""),
        err=True,
    )


@app.command()
@handles_errors
def compare(
    paths: Annotated[
        list[Path], typer.Argument(help="Puzzle files or folders.", show_default=False)
    ],
    backends: Annotated[
        str, typer.Option("--backends", help="Comma-separated backends to compare.")
    ] = "sat,cpsat,backtrack",
    timeout: Annotated[
        float, typer.Option("--timeout", min=0, help="Seconds per puzzle and backend.")
    ] = 60.0,
    max_solutions: Annotated[
        int, typer.Option("--max-solutions", min=0, help="Stop after N solutions; 0 = all.")
    ] = 2,
    jobs: Annotated[int, typer.Option("--jobs", min=1, help="Processes at a time.")] = 1,
    csv_file: Annotated[Path | None, typer.Option("--csv", help="Write the runs as CSV.")] = None,
    plot_file: Annotated[
        Path | None, typer.Option("--plot", help="Write a bar chart (.png or .svg).")
    ] = None,
) -> None:
    """Run several backends on the same puzzles, each in its own killable process."""
    from satnono import compare as comparing

    chosen = [_check_backend(name.strip()) for name in backends.split(",") if name.strip()]
    if not chosen:
        raise InputError("no backend named", "--backends")
    if plot_file is not None and plot_file.suffix.lower() not in (".png", ".svg"):
        raise InputError("the plot must be a .png or .svg file", plot_file)
    files = comparing.puzzle_files(paths)
    runs = _run_with_progress(comparing, files, chosen, max_solutions, timeout, jobs)
    _print_comparison(runs, chosen)
    problems = comparing.disagreements(runs)
    console = _console(stderr=True)
    for problem in problems:
        console.print(f"[bold red]DISAGREEMENT[/] {problem}")
    if csv_file is not None:
        comparing.write_csv(runs, csv_file)
    if plot_file is not None:
        comparing.plot(runs, chosen, timeout, plot_file)
    raise typer.Exit(1 if problems else 0)


def _run_with_progress(
    comparing: Any, files: list[Path], backends: list[str], limit: int, timeout: float, jobs: int
) -> list[Any]:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    console = _console(stderr=True)
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("solving", total=len(files) * len(backends))

        def done(run: Any) -> None:
            progress.update(task, advance=1, description=f"{run.puzzle} / {run.backend}")

        try:
            runs: list[Any] = comparing.run_all(files, backends, limit, timeout, jobs, done)
        except KeyboardInterrupt:
            comparing.kill_all()
            raise
    return runs


def _print_comparison(runs: list[Any], backends: list[str]) -> None:
    from rich.table import Table

    table = Table(title="seconds per puzzle and backend (fastest in bold green)")
    table.add_column("puzzle")
    for backend in backends:
        table.add_column(backend, justify="right")
    table.add_column("verdict")
    by_key = {(run.puzzle, run.backend): run for run in runs}
    for puzzle in dict.fromkeys(run.puzzle for run in runs):
        group = [by_key[(puzzle, backend)] for backend in backends]
        finished = [run for run in group if run.finished]
        fastest = min((run.seconds for run in finished), default=None)
        cells = []
        for run in group:
            text = f"{run.seconds:.2f}" if run.finished else run.status
            if run.finished and run.seconds == fastest:
                text = f"[bold green]{text}[/]"
            elif not run.finished:
                text = f"[red]{text}[/]"
            cells.append(text)
        verdicts = sorted({_short_verdict(run) for run in finished})
        table.add_row(puzzle, *cells, " / ".join(verdicts) if verdicts else "-")
    totals = []
    for backend in backends:
        group = [run for run in runs if run.backend == backend]
        solved = sum(1 for run in group if run.finished)
        totals.append(f"{sum(run.seconds for run in group):.2f} ({solved}/{len(group)})")
    table.add_row("[bold]total (solved)[/]", *totals, "")
    _console().print(table)


def _short_verdict(run: Any) -> str:
    if run.status == "multiple":
        return f"{run.solutions_found}{'' if run.complete else '+'} solutions"
    return str(run.status)


def main() -> None:
    app()
