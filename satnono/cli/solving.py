"""The commands that search: solve, count, sample, analyze."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

import satnono
from satnono.cli import present
from satnono.cli.count import CountArgs
from satnono.cli.count import run as run_count
from satnono.cli.each import each_puzzle, several
from satnono.cli.options import (
    BackendOpt,
    CluesOpt,
    CubesOpt,
    EncodingOpt,
    FormatOpt,
    IndexOpt,
    JsonOpt,
    PuzzlesArg,
    SchedulerOpt,
    SeedOpt,
    SolverOpt,
    ThreadsOpt,
    TimeoutOpt,
    WorkersOpt,
    completes,
)
from satnono.cli.process import (
    EXIT_INTERRUPTED,
    EXIT_TIMEOUT,
    console,
    exit_code,
    handles_errors,
    print_json,
    reporting,
    say,
)
from satnono.cli.shell import app
from satnono.cli.solve import SolveArgs, run
from satnono.output import contract
from satnono.output.terminal import SolutionPrinter, printable

#: `satnono solve`'s and `satnono count`'s defaults, declared once (in SolveArgs, CountArgs).
_SOLVE = SolveArgs()
_COUNT = CountArgs()


@app.command()
@handles_errors
def solve(
    puzzles: PuzzlesArg,
    backend: BackendOpt = _SOLVE.backend,
    solver: SolverOpt = _SOLVE.solver,
    encoding: EncodingOpt = _SOLVE.encoding,
    threads: ThreadsOpt = _SOLVE.threads,
    seed: SeedOpt = _SOLVE.seed,
    workers: WorkersOpt = _SOLVE.workers,
    scheduler: SchedulerOpt = _SOLVE.scheduler,
    cubes: CubesOpt = _SOLVE.cubes,
    max_solutions: Annotated[
        int, typer.Option("--max-solutions", min=0, help="Stop after N solutions; 0 finds all.")
    ] = _SOLVE.max_solutions,
    timeout: TimeoutOpt = _SOLVE.timeout,
    json_output: JsonOpt = _SOLVE.json_output,
    json_lines: Annotated[
        bool,
        typer.Option(
            "--json-lines",
            help="Stream one JSON object per verified solution as it is found, then a summary.",
        ),
    ] = _SOLVE.json_lines,
    svg: Annotated[
        Path | None, typer.Option("--svg", help="Also draw the (first) solution as SVG.")
    ] = _SOLVE.svg,
    png: Annotated[
        Path | None, typer.Option("--png", help="Also draw the (first) solution as PNG.")
    ] = _SOLVE.png,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="Print only the verdict: no grid, no live progress."),
    ] = _SOLVE.quiet,
    clues: CluesOpt = _SOLVE.clues,
    proof: Annotated[
        Path | None,
        typer.Option(
            "--proof",
            help="Write a certificate of the verdict into this folder: a proof anyone can "
            "check (satnono check-proof, drat-trim) that the solution is unique, or that "
            "there is none.",
        ),
    ] = _SOLVE.proof,
    fmt: FormatOpt = _SOLVE.fmt,
    index: IndexOpt = _SOLVE.index,
    line_only: Annotated[
        bool,
        typer.Option(
            "--line-only",
            help="No guessing: line logic, then probing; print how far they get and the "
            "grade (line-solvable, needs probing, needs search).",
        ),
    ] = _SOLVE.line_only,
) -> None:
    """Solve puzzles: print their solutions and a verdict (unique, N solutions, no solution).

    PUZZLE may be a file, a folder (its puzzle files), - (standard input) or webpbn:ID
    (downloaded once, then cached). With several puzzles, --json prints one object per line
    and the exit code is the highest of theirs; a puzzle that cannot be read is reported (with
    --json, as an error object) and the others go on.
    """
    args = SolveArgs(
        backend=backend, solver=solver, encoding=encoding, threads=threads, seed=seed,
        workers=workers, scheduler=scheduler, cubes=cubes, max_solutions=max_solutions,
        timeout=timeout, json_output=json_output, json_lines=json_lines, svg=svg, png=png,
        quiet=quiet, clues=clues, proof=proof, fmt=fmt, index=index, line_only=line_only,
    )  # fmt: skip
    raise SystemExit(run(puzzles, args))


@app.command()
@handles_errors
def count(
    puzzles: PuzzlesArg,
    limit: Annotated[
        int,
        typer.Option(
            "--limit",
            min=0,
            help="Stop once the count reaches N, reported as 'at least N'; 0 = no limit.",
        ),
    ] = _COUNT.limit,
    timeout: TimeoutOpt = None,
    approx: Annotated[
        bool,
        typer.Option(
            "--approx",
            help="Also race ApproxMC's (epsilon, delta)-guaranteed estimate: the first answer "
            "wins, so an estimate may be given where an exact count would have come later.",
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
    memory: Annotated[
        int,
        typer.Option(
            "--memory",
            min=16,
            max=2**20,
            help="Megabytes the count may keep (its store of sub-counts and line analyses, a "
            "sweep's states); each counter beside it (Ganak, ApproxMC) as many again, at "
            "least 64.",
        ),
    ] = _COUNT.memory,
    backend: BackendOpt = _COUNT.backend,
    solver: SolverOpt = None,
    encoding: EncodingOpt = None,
    threads: ThreadsOpt = 1,
    seed: SeedOpt = _COUNT.seed,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = "local",
    cubes: CubesOpt = None,
    json_output: Annotated[
        bool,
        typer.Option(
            "--json", "--json-lines", help="One JSON object per puzzle, each on one line."
        ),
    ] = False,
    fmt: FormatOpt = None,
    index: IndexOpt = None,
) -> None:
    """Count the solutions exactly, however many; --limit or --timeout make it a lower bound.

    The native engine counts each independent component (a sweep along a narrow one, its
    counting search otherwise) while the backend lists the first solutions, and the Ganak
    model counter joins after a second, once no sweep is running (a sweep counts what it
    takes on): the first exact answer wins. --approx also races an
    ApproxMC estimate with its guarantee (the first answer wins: an estimate may come
    before an exact count).
    """
    args = CountArgs(
        limit=limit, timeout=timeout, approx=approx, epsilon=epsilon, delta=delta,
        memory=memory, backend=backend, solver=solver, encoding=encoding, threads=threads,
        seed=seed, workers=workers, scheduler=scheduler, cubes=cubes, json_output=json_output,
        fmt=fmt, index=index,
    )  # fmt: skip
    raise SystemExit(run_count(puzzles, args))


@app.command()
@handles_errors
def sample(
    puzzles: PuzzlesArg,
    n: Annotated[int, typer.Option("-n", "--samples", min=1, help="How many solutions.")] = 1,
    seed: Annotated[int, typer.Option("--seed", help="Random seed (same seed, same samples).")] = 0,
    sampler: Annotated[
        str,
        typer.Option(
            "--sampler",
            help="Where no exact count finishes, for components with over 1000 solutions: "
            "cmsgen (fast, no formal guarantee) or unigen (almost-uniform with a proof, slow).",
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
    json_output: Annotated[
        bool,
        typer.Option("--json", help="One JSON object: the summary, with every sample drawn."),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the summary.")] = False,
    clues: CluesOpt = None,
    fmt: FormatOpt = None,
    index: IndexOpt = None,
) -> None:
    """Draw random solutions, each verified: exactly uniformly wherever the engine counts the
    puzzle exactly; else components with up to 1000 solutions exactly, larger ones with the
    chosen sampler (its guarantee is in the summary)."""
    satnono.check_options(seed=seed, timeout=timeout)

    def sample_one(
        loaded: satnono.Puzzle, source: str, within: satnono.Deadline, label: str | None
    ) -> int:
        from satnono.cli.live import live_line

        text = None if json_lines or json_output else SolutionPrinter(loaded, quiet, clues)
        kept: list[list[str]] = []
        started = time.perf_counter()
        with satnono.iter_samples(loaded, n, seed, sampler, within.remaining()) as drawing:

            def said() -> str:  # the live line: UniGen's first minute is hashing, not a hang
                line = f"{drawing.drawn} of {n} samples drawn"
                if sampler == "unigen" and not drawing.drawn:
                    line += " (UniGen first counts the solutions by hashing: about a minute)"
                return f"{line}, {time.perf_counter() - started:.1f} s"

            try:
                with live_line(said, text is not None) as line:
                    for grid in drawing:
                        if json_output:
                            kept.append(loaded.grid_rows(grid))
                        elif text is None:
                            print_json(contract.solution_object(loaded, grid))
                        else:
                            with line.paused():
                                text.add(grid)
            except KeyboardInterrupt:  # what was drawn is printed: say how much
                say(f"satnono: interrupted: {drawing.drawn} of {n} samples drawn, each verified")
                raise SystemExit(EXIT_INTERRUPTED) from None
        if text is None:
            summary = contract.sample_summary(
                source, drawing.status, drawing.drawn, seed, sampler, drawing.methods,
                drawing.guarantee, drawing.seconds, drawing.reason,
            )  # fmt: skip
            if json_output:
                summary["solutions"] = kept
            print_json(summary)
        else:
            text.finish(present.sample_verdict(drawing), label)
        return exit_code(drawing.status, drawing.drawn)

    if json_lines and json_output:
        raise satnono.InputError("choose --json or --json-lines", "--json")
    json_for = "sample" if json_lines or json_output else None
    raise SystemExit(each_puzzle(puzzles, fmt, index, timeout, json_for, sample_one))


@app.command()
@handles_errors
def analyze(
    puzzles: PuzzlesArg,
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
    clues: CluesOpt = None,
    fmt: FormatOpt = None,
    index: IndexOpt = None,
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
    if picture is not None and several(puzzles):
        raise satnono.InputError("draws one puzzle: name one", "--picture")
    satnono.check_options(timeout=timeout)
    from satnono.cli.live import watched

    def analyze_one(
        loaded: satnono.Puzzle, source: str, within: satnono.Deadline, label: str | None
    ) -> int:
        with watched(within, not json_output) as (progress, pressed):
            analysis = satnono.analyze(
                loaded,
                max_solutions=max_solutions,
                exact_count=exact_count,
                deadline=within,
                progress=progress,
            )
        drawn = picture is None
        with reporting(pressed.is_set()):
            if picture is not None:
                try:
                    satnono.render(
                        loaded, None, picture, analysis=analysis, timeout=within.remaining()
                    )
                    drawn = True
                except satnono.Timeout:
                    say(printable(present.not_drawn_line(str(picture), label)))
            if json_output:
                where = None if picture is None or not drawn else str(picture)
                print_json(contract.analysis_object(source, analysis, where))
            else:
                if label is not None:
                    typer.echo(printable(f"{label}:"))
                shown = console()
                framed = shown.is_terminal if clues is None else clues
                interrupted = pressed.is_set() and analysis.timed_out
                present.print_analysis(shown, analysis, max_solutions, framed, interrupted)
        if pressed.is_set() and analysis.timed_out:
            say("satnono: interrupted: the analysis above is what was found so far")
            raise SystemExit(EXIT_INTERRUPTED)
        if not drawn:  # the picture asked for is missing: the timeout's code
            return EXIT_TIMEOUT
        unknown = analysis.difficulty == "unknown"
        return exit_code("timeout" if unknown else "", analysis.solutions)

    json_for = "analyze" if json_output else None
    raise SystemExit(each_puzzle(puzzles, fmt, index, timeout, json_for, analyze_one))
