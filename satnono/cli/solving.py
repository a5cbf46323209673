"""The commands that search: solve, count, sample, analyze."""

from __future__ import annotations

import functools
import time
from pathlib import Path
from typing import Annotated, Any

import typer

import satnono
from satnono import contract
from satnono.cli import present
from satnono.cli.options import (
    BackendOpt,
    CubesOpt,
    EncodingOpt,
    FormatOpt,
    IndexOpt,
    JsonOpt,
    PuzzleArg,
    SchedulerOpt,
    SeedOpt,
    SolverOpt,
    ThreadsOpt,
    TimeoutOpt,
    WorkersOpt,
    completes,
)
from satnono.cli.shell import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    EXIT_SOLVED,
    app,
    console,
    ctrl_c_cancels,
    deadline,
    exit_code,
    handles_errors,
    load,
    print_json,
    say,
)
from satnono.terminal import SolutionPrinter, printable

_DEFAULT_BACKEND: str = satnono.DEFAULT_BACKEND
_DEFAULT_SEED: int = satnono.DEFAULT_SEED


@app.command()
@handles_errors
def solve(
    puzzles: Annotated[
        list[Path],
        typer.Argument(
            help="Puzzle files (.non, .xml, ...), webpbn:ID, or - for standard input; several "
            "are solved in turn.",
            show_default=False,
            metavar="PUZZLE...",
        ),
    ],
    backend: BackendOpt = _DEFAULT_BACKEND,
    solver: SolverOpt = None,
    encoding: EncodingOpt = None,
    threads: ThreadsOpt = 1,
    seed: SeedOpt = _DEFAULT_SEED,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = "local",
    cubes: CubesOpt = None,
    max_solutions: Annotated[
        int, typer.Option("--max-solutions", min=0, help="Stop after N solutions; 0 finds all.")
    ] = 2,
    timeout: TimeoutOpt = None,
    json_output: JsonOpt = False,
    json_lines: Annotated[
        bool,
        typer.Option(
            "--json-lines",
            help="Stream one JSON object per verified solution as it is found, then a summary.",
        ),
    ] = False,
    svg: Annotated[
        Path | None, typer.Option("--svg", help="Also draw the (first) solution as SVG.")
    ] = None,
    png: Annotated[
        Path | None, typer.Option("--png", help="Also draw the (first) solution as PNG.")
    ] = None,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="Print only the verdict: no grid, no live progress."),
    ] = False,
    fmt: FormatOpt = None,
    index: IndexOpt = 1,
) -> None:
    """Solve puzzles: print their solutions and a verdict (unique, N solutions, no solution).

    PUZZLE may be a file, - (standard input) or webpbn:ID (downloaded once, then cached).
    With several puzzles, --json prints one object per line and the exit code is the
    highest of theirs; a puzzle that cannot be read is reported and the others go on.
    """
    if json_output and json_lines:
        raise satnono.InputError("choose one of --json and --json-lines", "--json-lines")
    if len(puzzles) > 1 and (svg or png):
        raise satnono.InputError(
            "--svg and --png draw one puzzle: name one", "--svg" if svg else "--png"
        )
    # Checked once, before any file is read (the API checks them again, at no cost).
    satnono.check_options(
        backend, solver, threads, seed, encoding, timeout, workers, scheduler, cubes
    )
    options = {
        "solver": solver, "threads": threads, "seed": seed, "encoding": encoding,
        "workers": workers, "scheduler": scheduler, "cubes": cubes,
    }  # fmt: skip
    solve_one = functools.partial(
        _solve_one, backend=backend, options=options, max_solutions=max_solutions,
        json_output=json_output, json_lines=json_lines, quiet=quiet, pictures=(svg, png),
    )  # fmt: skip
    json_for = "solve" if json_output else None
    if len(puzzles) == 1:
        within = deadline(timeout)
        loaded = load(puzzles[0], fmt, index, within, json_for)
        raise typer.Exit(solve_one(loaded, str(puzzles[0]), within=within))
    # Several puzzles: each verdict says which file it is for (as grep names its files), and
    # with JSON a file that cannot be read gets its object too: one per file named.
    worst = EXIT_SOLVED
    for number, path in enumerate(puzzles):
        try:
            within = deadline(timeout, first=number == 0)
            loaded = load(path, fmt, index, within, json_for)
            code = solve_one(loaded, str(path), within=within, label=str(path))
        except satnono.InputError as error:
            say(printable(f"satnono: error: {error}"))
            if json_output or json_lines:
                print_json(contract.error_object(str(path), str(error)))
            code = EXIT_BAD_INPUT
        worst = max(worst, code)
    raise typer.Exit(worst)


def _solve_one(
    puzzle: satnono.Puzzle,
    source: str,
    *,
    backend: str,
    options: dict[str, Any],
    max_solutions: int,
    json_output: bool,
    json_lines: bool,
    quiet: bool,
    pictures: tuple[Path | None, Path | None],
    within: satnono.Deadline,
    label: str | None = None,
) -> int:
    """Solve one puzzle and print it the way the options ask; the exit code. `label` (the
    file, when several are solved) starts its verdict line."""
    import contextlib

    progress = satnono.Progress()
    # --json keeps every solution for its one object; text and --json-lines print each one as
    # it is found and keep only the first (for --svg/--png), however many there are.
    found: list[satnono.Grid] = []
    text = SolutionPrinter(puzzle, quiet)

    def on_solution(grid: satnono.Grid) -> None:
        if json_lines:
            print_json(contract.solution_object(puzzle, grid))
            if not found:
                found.append(grid)
        elif json_output:
            found.append(grid)
        elif line is None:
            text.add(grid)
        else:
            with line.paused():
                text.add(grid)

    live = not (quiet or json_output or json_lines)
    line: Any = None
    try:
        with contextlib.ExitStack() as stack:
            if live:  # the live module only for a live display (start-up counts)
                from satnono.cli.live import describe, live_line

                line = stack.enter_context(live_line(lambda: describe(progress), True))
            result = satnono.solve(
                puzzle, backend, max_solutions, within.remaining(), on_solution=on_solution,
                progress=progress, keep=0, **options,
            )  # fmt: skip
    except KeyboardInterrupt:
        if json_output or json_lines:
            seconds = time.perf_counter() - progress.started
            grids = None if json_lines else found
            print_json(contract.interrupted_object(source, puzzle, grids, progress, seconds))
        else:
            from satnono.cli.live import describe

            text.interrupted(progress.domains, describe(progress), label)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    first = text.first if text.first is not None else (found[0] if found else None)
    for picture in pictures:
        if picture is not None:
            caption = f"{puzzle.title}: {result.verdict}" if puzzle.title else result.verdict
            partial = None if first is not None else progress.domains
            satnono.render(puzzle, first, picture, caption, partial=partial)
    if json_output or json_lines:
        print_json(contract.solve_object(source, result, None if json_lines else found))
    else:
        text.finish(present.verdict_line(result, quiet), label)
    return exit_code(result.status, result.solutions_found)


@app.command()
@handles_errors
def count(
    puzzle: PuzzleArg,
    limit: Annotated[
        int,
        typer.Option(
            "--limit",
            min=0,
            help="Stop once the count reaches N, reported as 'at least N'; 0 = no limit.",
        ),
    ] = 0,
    timeout: TimeoutOpt = None,
    approx: Annotated[
        bool,
        typer.Option(
            "--approx",
            help="Also race ApproxMC: an (epsilon, delta)-guaranteed estimate where no exact "
            "count finishes.",
        ),
    ] = False,
    epsilon: Annotated[
        float | None,
        typer.Option("--epsilon", help="With --approx: tolerance, within a factor 1+E (0.8)."),
    ] = None,
    delta: Annotated[
        float | None,
        typer.Option("--delta", help="With --approx: allowed failure probability D (0.2)."),
    ] = None,
    backend: BackendOpt = _DEFAULT_BACKEND,
    solver: SolverOpt = None,
    encoding: EncodingOpt = None,
    threads: ThreadsOpt = 1,
    seed: SeedOpt = _DEFAULT_SEED,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = "local",
    cubes: CubesOpt = None,
    json_output: JsonOpt = False,
    fmt: FormatOpt = None,
    index: IndexOpt = 1,
) -> None:
    """Count the solutions exactly, however many; --limit or --timeout make it a lower bound.

    Small independent regions are enumerated by the backend; the others go to satnono's
    cached counting search racing the Ganak model counter, so counts far beyond what could be
    listed come out exact. --approx adds an ApproxMC estimate with its guarantee.
    """
    from satnono.cli.live import elapsed, live_line

    within = deadline(timeout)
    loaded = load(puzzle, fmt, index, within, "count" if json_output else None)
    with ctrl_c_cancels(within) as pressed, live_line(elapsed("counting"), not json_output):
        counted = satnono.count(
            loaded, limit=limit, approximate=approx, epsilon=epsilon, delta=delta,
            backend=backend, solver=solver, threads=threads, seed=seed, encoding=encoding,
            workers=workers, scheduler=scheduler, cubes=cubes, deadline=within,
        )  # fmt: skip
    interrupted = pressed.is_set() and not counted.exact
    if json_output:
        data = contract.count_object(str(puzzle), counted)
        if interrupted:
            data["stopped"] = "interrupted"
        print_json(data)
    else:
        typer.echo(present.count_text(counted, limit, interrupted))
    if interrupted:
        raise typer.Exit(EXIT_INTERRUPTED)
    raise typer.Exit(exit_code(counted.result.status, counted.count))


@app.command()
@handles_errors
def sample(
    puzzle: PuzzleArg,
    n: Annotated[int, typer.Option("-n", "--samples", min=1, help="How many solutions.")] = 1,
    seed: Annotated[int, typer.Option("--seed", help="Random seed (same seed, same samples).")] = 0,
    sampler: Annotated[
        str,
        typer.Option(
            "--sampler",
            help="For components with over 1000 solutions: cmsgen (fast, no formal guarantee) "
            "or unigen (almost-uniform with a proof, slow).",
            autocompletion=completes("sampler"),
        ),
    ] = "cmsgen",
    timeout: TimeoutOpt = None,
    json_lines: Annotated[
        bool,
        typer.Option(
            "--json-lines", help="One JSON object per solution as it is drawn, then a summary."
        ),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the summary.")] = False,
    fmt: FormatOpt = None,
    index: IndexOpt = 1,
) -> None:
    """Draw random solutions, each verified; components with up to 1000 solutions exactly
    uniformly, larger ones with the chosen sampler (its guarantee is in the summary)."""
    within = deadline(timeout)
    loaded = load(puzzle, fmt, index, within)
    text = None if json_lines else SolutionPrinter(loaded, quiet)
    with satnono.iter_samples(loaded, n, seed, sampler, within.remaining()) as drawing:
        for grid in drawing:
            if text is None:
                print_json(contract.solution_object(loaded, grid))
            else:
                text.add(grid)
    if text is None:
        print_json(
            contract.sample_summary(
                str(puzzle),
                drawing.status,
                drawing.drawn,
                seed,
                sampler,
                drawing.methods,
                drawing.guarantee,
                drawing.seconds,
                drawing.reason,
            )
        )
    else:
        text.finish(present.sample_verdict(drawing))
    raise typer.Exit(exit_code(drawing.status, drawing.drawn))


@app.command()
@handles_errors
def analyze(
    puzzle: PuzzleArg,
    exact_count: Annotated[
        bool, typer.Option("--count", help="Count the solutions exactly instead of stopping.")
    ] = False,
    max_solutions: Annotated[
        int,
        typer.Option("--max-solutions", min=0, help="Solutions to look for (at least 2; 0 = all)."),
    ] = 2,
    timeout: TimeoutOpt = None,
    json_output: JsonOpt = False,
    picture: Annotated[
        Path | None,
        typer.Option(
            "--picture", "-o", help="Draw the solution, ambiguous cells outlined (.svg or .png)."
        ),
    ] = None,
    fmt: FormatOpt = None,
    index: IndexOpt = 1,
) -> None:
    """Tell a puzzle author how hard a puzzle is, whether it is unique, and where it is not.

    Difficulty: line-solvable, needs probing, needs search (depth d), ambiguous, no solution.
    Every ambiguous cell (one that differs between some two solutions) is listed.
    """
    if max_solutions == 1:
        raise satnono.InputError(
            "1 cannot tell unique from ambiguous: use 2 or more", "--max-solutions"
        )
    if picture is not None and picture.suffix.lower() not in (".svg", ".png"):
        raise satnono.InputError("the picture must be a .svg or .png file", picture)
    from satnono.cli.live import elapsed, live_line

    within = deadline(timeout)
    loaded = load(puzzle, fmt, index, within, "analyze" if json_output else None)
    with ctrl_c_cancels(within) as pressed, live_line(elapsed("analyzing"), not json_output):
        analysis = satnono.analyze(
            loaded, max_solutions=max_solutions, exact_count=exact_count, deadline=within
        )
    if picture is not None:
        satnono.render(loaded, None, picture, analysis=analysis)
    if json_output:
        where = None if picture is None else str(picture)
        print_json(contract.analysis_object(str(puzzle), analysis, where))
    else:
        present.print_analysis(console(), analysis, max_solutions)
    if pressed.is_set() and analysis.timed_out:
        say("satnono: interrupted: the analysis above is what was found so far")
        raise typer.Exit(EXIT_INTERRUPTED)
    unknown = analysis.difficulty == "unknown"
    raise typer.Exit(exit_code("timeout" if unknown else "", analysis.solutions))
