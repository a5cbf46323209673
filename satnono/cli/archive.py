"""The archive commands: `batch` (run, report) and `compare` on Dask, and `tournament`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

import satnono
from satnono import archive
from satnono.cli import present
from satnono.cli.live import batch_bar, compare_bar, tournament_bar
from satnono.cli.options import (
    PathsArg,
    SchedulerOpt,
    WorkersOpt,
    completes,
    completes_list,
)
from satnono.cli.process import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    console,
    ctrl_c_once,
    deadline,
    handles_errors,
    print_json,
    say,
)
from satnono.cli.shell import DefaultCommandGroup, app
from satnono.output.terminal import printable

batch = typer.Typer(
    cls=DefaultCommandGroup,
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    help="Solve whole archives on Dask, results in SQLite: resumable, one row per puzzle.\n\n"
    "`satnono batch PATH...` runs (the run command); `satnono batch report DB` summarizes.",
)
app.add_typer(batch, name="batch")

#: --backend where the default is satnono's own (None), for every puzzle of an archive.
ArchiveBackendOpt = Annotated[
    str | None,
    typer.Option(
        "--backend",
        help="Search backend (default: satnono's).",
        autocompletion=completes("backend"),
    ),
]


def _check_plot(plot_file: Path | None) -> None:
    if plot_file is not None and plot_file.suffix.lower() not in (".png", ".svg"):
        raise satnono.InputError("the plot must be a .png or .svg file", plot_file)


@batch.command("run")
@handles_errors
def batch_run(
    paths: PathsArg,
    db: Annotated[
        Path | None, typer.Option("--db", help="SQLite results database (created if missing).")
    ] = None,
    backend: ArchiveBackendOpt = None,
    timeout: Annotated[
        float, typer.Option("--timeout", min=0, help="Seconds per puzzle (a hard deadline).")
    ] = 60.0,
    max_solutions: Annotated[
        int, typer.Option("--max-solutions", min=1, help="Solutions to look for per puzzle.")
    ] = 2,
    exact_count: Annotated[bool, typer.Option("--count", help="Also count exactly.")] = False,
    analyze_too: Annotated[
        bool, typer.Option("--analyze", help="Also analyze (difficulty class).")
    ] = False,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = "local",
    proof: Annotated[
        Path | None,
        typer.Option(
            "--proof",
            help="Write each verdict's certificate (as solve --proof does) into this "
            "folder, one folder per puzzle, listed in its certificates.csv.",
        ),
    ] = None,
) -> None:
    """Solve every puzzle under the paths not yet in the database: resumable, one row per
    puzzle, each stored as it finishes."""
    if db is None:
        raise satnono.InputError("name the results database: --db results.sqlite", "--db")
    deadline(timeout)  # checked before any work
    settings = archive.BatchSettings(
        backend, timeout, max_solutions, exact_count, analyze_too,
        proof=None if proof is None else str(proof.resolve()),
    )  # fmt: skip
    stored = 0
    with batch_bar(console(stderr=True)) as on_row:

        def counted(row: Any, done: int, total: int) -> None:
            nonlocal stored
            stored += 1
            on_row(row, done, total)

        try:
            run = archive.run_batch(paths, db, settings, workers, scheduler, counted)
        except KeyboardInterrupt:  # each row is stored as it finishes: say so, and how to go on
            say(printable(f"satnono: interrupted: {stored} rows stored in {db} by this run; "
                          "the same command resumes where it stopped"))  # fmt: skip
            raise SystemExit(EXIT_INTERRUPTED) from None
    for line in present.batch_run_lines(run, db, proof):
        typer.echo(printable(line))
    if run.every_row:  # the whole set's, earlier runs' rows too (a resumed run's summary)
        for line in archive.summary_lines(run.every_row):
            typer.echo(printable(line))
    if any(row.status == "error" for row in run.every_row):
        raise SystemExit(EXIT_BAD_INPUT)  # stored as rows; the exit code says so too


@batch.command("report")
@handles_errors
def batch_report(
    db: Annotated[Path, typer.Argument(help="The results database.", metavar="DB")],
    csv_file: Annotated[Path | None, typer.Option("--csv", help="Write every row as CSV.")] = None,
    plot_file: Annotated[
        Path | None, typer.Option("--plot", help="Write a plot (.png or .svg).")
    ] = None,
    json_output: Annotated[
        bool,
        typer.Option("--json", help="Print the summary as one JSON object, per configuration."),
    ] = False,
) -> None:
    """Summarize a results database: verdicts, the slowest puzzles, timeouts and errors."""
    _check_plot(plot_file)
    rows = archive.stored_rows(db)
    to_stdout = csv_file is not None and str(csv_file) == "-"
    if json_output and to_stdout:
        raise satnono.InputError("--json and --csv - both write to stdout: choose one", "--json")
    # One summary per configuration (a run with another --timeout is another one), so that
    # each one's numbers add up to its puzzles.
    by_configuration: dict[str, list[archive.ResultRow]] = {}
    for row in rows:
        by_configuration.setdefault(row.configuration, []).append(row)
    if json_output:
        print_json({"db": str(db), "puzzles": len(rows), "configurations": [
            {"configuration": configuration, **archive.summary_object(group)}
            for configuration, group in by_configuration.items()
        ]})  # fmt: skip
    elif not rows:
        typer.echo(f"0 puzzles: {printable(str(db))} holds no results yet", err=to_stdout)
    for configuration, group in by_configuration.items() if not json_output else ():
        if len(by_configuration) > 1:
            typer.echo(printable(f"configuration {configuration}:"), err=to_stdout)
        for line in archive.summary_lines(group):
            typer.echo(printable(line), err=to_stdout)  # `--csv -` keeps stdout for the CSV
    if csv_file is not None:
        archive.write_csv(rows, csv_file)
    if plot_file is not None:
        archive.plot(rows, plot_file)


@app.command()
@handles_errors
def compare(
    paths: PathsArg,
    backends: Annotated[
        str,
        typer.Option(
            "--backends",
            help="Comma-separated backends to compare.",
            autocompletion=completes_list("backend"),
        ),
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
    """Run several backends on the same puzzles as batch tasks (Dask), each killed at its
    hard deadline; flag every disagreement."""
    chosen = [name.strip() for name in backends.split(",") if name.strip()]
    for name in chosen:
        satnono.check_options(name)
    if not chosen:
        raise satnono.InputError("no backend named", "--backends")
    _check_plot(plot_file)
    entries = archive.find_entries(paths)
    files = entries.files
    if not files:
        raise satnono.InputError("no puzzle files found", ", ".join(map(str, paths)))
    for path, reason in entries.unreadable + entries.skipped:  # never opened: said, not hidden
        say(printable(f"satnono: skipped {path}: {reason}"))
    # The first Ctrl-C closes the Dask cluster (its workers and their solver processes end
    # with it); the runs that finished are shown (and written), not lost, whatever is pressed
    # after it (cli.process.ctrl_c_once).
    finished: list[Any] = []
    with ctrl_c_once():
        with compare_bar(console(stderr=True), len(files) * len(chosen)) as done:

            def kept(run: Any) -> None:
                finished.append(run)
                done(run)

            try:
                runs = archive.run_all(files, chosen, max_solutions, timeout, jobs, kept)
            except KeyboardInterrupt:
                runs = []
        if not runs:
            if finished:
                console().print(present.comparison_table(finished, chosen))
                if csv_file is not None:
                    archive.write_compare_csv(finished, csv_file)
            shown = " (the table above)" if finished else ""
            shown += f", written to {csv_file}" if finished and csv_file is not None else ""
            total = len(files) * len(chosen)
            say(printable(f"satnono: interrupted: {len(finished)} of {total} runs finished{shown}"))
            raise SystemExit(EXIT_INTERRUPTED)
    console().print(present.comparison_table(runs, chosen))
    problems = archive.disagreements(runs)
    errors = console(stderr=True)
    for problem in problems:
        errors.print(f"[bold red]DISAGREEMENT[/] {problem}")
    if csv_file is not None:
        archive.write_compare_csv(runs, csv_file)
    if plot_file is not None:
        archive.plot_compare(runs, chosen, timeout, plot_file)
    raise SystemExit(1 if problems else 0)


@app.command()
@handles_errors
def tournament(
    questions: Annotated[
        Path,
        typer.Argument(help="A tournament question file ($k, columns, rows).", metavar="QUESTIONS"),
    ],
    answers: Annotated[
        Path | None, typer.Option("-o", "--answers", help="Write the answer file here.")
    ] = None,
    log: Annotated[
        Path | None, typer.Option("--log", help="Write each puzzle's times here (TSV).")
    ] = None,
    timeout: Annotated[
        float | None, typer.Option("--timeout", min=0, help="Seconds per puzzle.")
    ] = None,
    backend: ArchiveBackendOpt = None,
) -> None:
    """Run a question file as the computer-olympiad tournaments do: its puzzles in order, one
    at a time on one core, one solution each; write the answer file and a time log as it
    goes. Exit 0 when every puzzle has an answer, 3 when some ran out of time, 1 when some
    have none."""
    deadline(timeout)  # checked before any work
    if backend is not None:
        satnono.check_options(backend)
    puzzles = satnono.read_puzzles(questions, format="tournament")
    with tournament_bar(console(stderr=True), len(puzzles)) as done:
        run = archive.run_tournament(puzzles, answers, log, timeout, backend, done)
    typer.echo(printable(run.summary()))
    if run.interrupted:
        kept = [f"{name} {path}" for name, path in (("answers in", answers), ("times in", log))
                if path is not None]  # fmt: skip
        say(printable(f"satnono: interrupted; {run.answered} answers"
                      + (f" ({', '.join(kept)})" if kept else "")))  # fmt: skip
        raise SystemExit(EXIT_INTERRUPTED)
    statuses = {entry.status for entry in run.entries if not entry.answered}
    raise SystemExit(0 if not statuses else 3 if "timeout" in statuses else 1)
