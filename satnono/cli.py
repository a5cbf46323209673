"""The `satnono` command line: options -> a call of the library API (satnono/__init__.py) -> output.

Exit codes: 0 at least one solution (or success), 1 proven no solution, 2 bad input or usage,
3 timeout before any solution, 4 internal error (a bug: please report it), 130 interrupted,
141 the reader of stdout went away. The JSON objects are satnono.contract's. Heavy modules
(the solver backends, rich) are imported only by the commands that need them.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar

import typer

import satnono
from satnono import __version__, contract
from satnono.backends import BACKENDS, DEFAULT_BACKEND, DEFAULT_SEED, installed_backends
from satnono.errors import InputError
from satnono.formats import FORMATS
from satnono.model import Grid, Puzzle
from satnono.runtime.deadline import Deadline, Timeout, check_timeout
from satnono.terminal import printable

EXIT_SOLVED, EXIT_UNSOLVABLE, EXIT_BAD_INPUT, EXIT_TIMEOUT, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a command killed by it
#: Longest usage error message printed (a 5000-digit argument is not worth repeating).
MAX_MESSAGE = 300

_BACKENDS_HELP = "; ".join(f"{name}: {info.summary}" for name, info in BACKENDS.items())

app = typer.Typer(
    add_completion=True,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    help="satnono: nonogram solver. Line propagation first, then SAT on the cells left.\n\n"
    f"Backends (--backend): {_BACKENDS_HELP}. Default: {DEFAULT_BACKEND}.",
)

F = TypeVar("F", bound=Callable[..., Any])


def _fail(message: str, code: int) -> typer.Exit:
    _say(f"satnono: {printable(message)}")
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
        except OSError as error:
            if error.errno not in _OUTPUT_ERRNOS:
                raise _internal(error) from None
            raise _fail(_output_error(error), EXIT_BAD_INPUT) from None
        except Exception as error:
            raise _internal(error) from None

    return wrapper  # type: ignore[return-value]


#: Errors of a stream that cannot take the output (a full disk, a closed or broken device):
#: the environment's fault, not satnono's, so exit 2 with one line rather than "internal error".
_OUTPUT_ERRNOS = {errno.ENOSPC, errno.EIO, errno.EBADF, errno.EDQUOT, errno.EFBIG}


def _output_error(error: OSError) -> str:
    return f"error: cannot write the output: {error.strerror or error}"


def _internal(error: Exception) -> typer.Exit:
    if os.environ.get("SATNONO_DEBUG"):
        raise error
    return _fail(
        f"internal error: {type(error).__name__}: {error} (set SATNONO_DEBUG=1 for a "
        "traceback, and please report it)",
        EXIT_INTERNAL,
    )


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
    Path,
    typer.Argument(
        help="Puzzle file (.non, .xml, ...), webpbn:ID, nonograms:ID, or - for standard input.",
        show_default=False,
        metavar="PUZZLE",
    ),
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
    typer.Option(
        "--solver",
        help="PySAT solver for the sat backend (default: glucose3); portfolio races only it.",
    ),
]
EncodingOpt = Annotated[
    str | None,
    typer.Option(
        "--encoding",
        help="CNF encoding: blocks (default), automaton, automaton-lean; see encodings/.",
    ),
]
ThreadsOpt = Annotated[
    int, typer.Option("--threads", min=1, help="Worker threads (cpsat backend).")
]
SeedOpt = Annotated[
    int,
    typer.Option(
        "--seed", help="Random seed for the search (sat: random initial phases, -1 all true)."
    ),
]
TimeoutOpt = Annotated[
    float | None, typer.Option("--timeout", min=0, help="Give up after this many seconds.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]


#: When the console script started (main()), from which --timeout is counted; Python's and
#: typer's start-up before it take about 0.1 s. None when the commands run in-process
#: (typer's test runner): each then counts from its own start.
_STARTED: float | None = None


def _deadline(timeout: float | None, first: bool = True) -> Deadline:
    """--timeout as a deadline counted from the start of the process (`first`) or from now,
    so that reading, downloading and analysis are all inside it."""
    check_timeout(timeout)
    return Deadline(timeout, _STARTED if first else None)


def _load(
    path: Path,
    fmt: str | None,
    index: int,
    deadline: Deadline | None = None,
    json_for: str | None = None,
) -> Puzzle:
    """The puzzle, read (or downloaded) within the deadline: a huge file, a stalled server or
    a FIFO with no writer are stopped by an alarm signal when it passes (exit 3; with --json,
    `json_for` names the command whose object says so)."""
    if deadline is None or not deadline.bounded:
        return satnono.read_puzzle(path, fmt, index)
    remaining = deadline.remaining() or 0.0
    if remaining <= 0:
        raise _unread(path, json_for)

    def alarm(*_: object) -> None:
        raise Timeout

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, remaining)
    try:
        return satnono.read_puzzle(path, fmt, index)
    except Timeout:
        raise _unread(path, json_for) from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _unread(path: Path, json_for: str | None) -> typer.Exit:
    if json_for is not None:
        seconds = time.monotonic() - (_STARTED or time.monotonic())
        _print_json(contract.unread_object(json_for, str(path), seconds))
        return typer.Exit(EXIT_TIMEOUT)
    return _fail(f"timeout: --timeout passed before {path} was read", EXIT_TIMEOUT)


def _console(stderr: bool = False) -> Any:
    from rich.console import Console

    console = Console(stderr=stderr, highlight=False)
    # rich exits 1 on a closed pipe; let handles_errors give the usual 141 instead.
    console.on_broken_pipe = _raise_broken_pipe  # type: ignore[method-assign]
    return console


def _print_json(data: Any) -> None:
    """One JSON object on one line of stdout, flushed (streams are read line by line)."""
    print(contract.dumps(data), flush=True)


def _raise_broken_pipe() -> None:
    raise BrokenPipeError


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
    backend: BackendOpt = DEFAULT_BACKEND,
    solver: SolverOpt = None,
    encoding: EncodingOpt = None,
    threads: ThreadsOpt = 1,
    seed: SeedOpt = DEFAULT_SEED,
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
        raise InputError("choose one of --json and --json-lines", "--json-lines")
    if len(puzzles) > 1 and (svg or png):
        raise InputError("--svg and --png draw one puzzle: name one", "--svg" if svg else "--png")
    from satnono.backends import search_options

    # Checked once, before any file is read (the API checks them again, at no cost).
    search_options(backend, solver, threads, seed, encoding)
    options = {"solver": solver, "threads": threads, "seed": seed, "encoding": encoding}
    solve_one = functools.partial(
        _solve_one, backend=backend, options=options, max_solutions=max_solutions,
        timeout=timeout, json_output=json_output, json_lines=json_lines, quiet=quiet,
        pictures=(svg, png),
    )  # fmt: skip
    check_timeout(timeout)
    if len(puzzles) == 1:
        deadline = _deadline(timeout)
        loaded = _load(puzzles[0], fmt, index, deadline, "solve" if json_output else None)
        raise typer.Exit(solve_one(loaded, str(puzzles[0]), deadline=deadline))
    worst = EXIT_SOLVED
    for number, path in enumerate(puzzles):
        try:
            deadline = _deadline(timeout, first=number == 0)
            loaded = _load(path, fmt, index, deadline, "solve" if json_output else None)
            code = solve_one(loaded, str(path), deadline=deadline)
        except InputError as error:
            _say(printable(f"satnono: error: {error}"))
            code = EXIT_BAD_INPUT
        worst = max(worst, code)
    raise typer.Exit(worst)


def _solve_one(
    puzzle: Puzzle,
    source: str,
    *,
    backend: str,
    options: dict[str, Any],
    max_solutions: int,
    timeout: float | None,
    json_output: bool,
    json_lines: bool,
    quiet: bool,
    pictures: tuple[Path | None, Path | None],
    deadline: Deadline,
) -> int:
    """Solve one puzzle and print it the way the options ask; the exit code."""
    from satnono.progress import live_progress
    from satnono.solutions import Progress
    from satnono.terminal import SolutionPrinter

    progress = Progress()
    # --json keeps every solution for its one object; text and --json-lines print each one as
    # it is found and keep only the first (for --svg/--png), however many there are.
    found: list[Grid] = []
    text = SolutionPrinter(puzzle, quiet)

    def on_solution(grid: Grid) -> None:
        if json_lines:
            _print_json(contract.solution_object(puzzle, grid))
            if not found:
                found.append(grid)
        elif json_output:
            found.append(grid)
        else:
            text.add(grid)

    live = not (quiet or json_output or json_lines)
    try:
        with live_progress(progress, live):
            result = satnono.solve(
                puzzle, backend, max_solutions, deadline.remaining(), on_solution=on_solution,
                progress=progress, keep=0, **options,
            )  # fmt: skip
    except KeyboardInterrupt:
        from satnono.progress import describe

        if json_output or json_lines:
            seconds = time.perf_counter() - progress.started
            grids = None if json_lines else found
            _print_json(contract.interrupted_object(source, puzzle, grids, progress, seconds))
        else:
            text.interrupted(progress.domains, describe(progress))
        raise typer.Exit(EXIT_INTERRUPTED) from None
    first = text.first if text.first is not None else (found[0] if found else None)
    for picture in pictures:
        if picture is not None:
            _draw_result(puzzle, result, first, progress, picture)
    if json_output or json_lines:
        _print_json(contract.solve_object(source, result, None if json_lines else found))
    else:
        text.finish(_verdict_line(result, quiet))
    return _exit_code(result.status, result.solutions_found)


def _verdict_line(result: Any, quiet: bool) -> str:
    details = [f"{result.seconds:.2f} s"]
    if not quiet and "cells_left" in result.stats:
        details.append(
            f"{result.stats['cells_left']} of {result.stats['cells']} cells left after line logic"
        )
    if not quiet and result.solver:
        same = result.solver == result.backend
        details.append(result.backend if same else f"{result.backend}/{result.solver}")
    return f"{result.verdict} ({', '.join(details)})"


def _draw_result(
    puzzle: Puzzle, result: Any, first: Grid | None, progress: Any, path: Path
) -> None:
    """The first solution; else the grid as line logic left it (undecided cells hatched)."""
    from satnono.picture import write_picture
    from satnono.propagate import grid_to_domains

    domains = grid_to_domains(first) if first is not None else progress.domains
    caption = f"{puzzle.title}: {result.verdict}" if puzzle.title else result.verdict
    write_picture(puzzle, domains, path, caption=caption)


def _exit_code(status: str, found: int) -> int:
    if found:
        return EXIT_SOLVED
    return EXIT_TIMEOUT if status == "timeout" else EXIT_UNSOLVABLE


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
    backend: BackendOpt = DEFAULT_BACKEND,
    solver: SolverOpt = None,
    encoding: EncodingOpt = None,
    threads: ThreadsOpt = 1,
    seed: SeedOpt = DEFAULT_SEED,
    json_output: JsonOpt = False,
    fmt: FormatOpt = None,
    index: IndexOpt = 1,
) -> None:
    """Count the solutions exactly, however many; --limit or --timeout make it a lower bound.

    Small independent regions are enumerated by the backend; the others go to satnono's
    cached counting search racing the Ganak model counter, so counts far beyond what could be
    listed come out exact. --approx adds an ApproxMC estimate with its guarantee.
    """
    deadline = _deadline(timeout)
    loaded = _load(puzzle, fmt, index, deadline, "count" if json_output else None)
    counted = satnono.count(
        loaded, deadline.remaining(), limit=limit, approximate=approx, epsilon=epsilon, delta=delta,
        backend=backend, solver=solver, threads=threads, seed=seed, encoding=encoding,
    )  # fmt: skip
    if json_output:
        _print_json(contract.count_object(str(puzzle), counted))
    else:
        typer.echo(_count_text(counted, limit))
    raise typer.Exit(_exit_code(counted.result.status, counted.count))


def _count_text(counted: Any, limit: int) -> str:
    """One line: the count, whether it is exact, a bound or an estimate, and how it was made."""
    n = counted.count
    noun = "solution" if n == 1 else "solutions"
    size = f", about {n:.2e}" if n >= 10**15 else ""
    if counted.exact:
        text = f"{n} {noun} (exact{size})"
    elif counted.estimate is not None:
        guarantee = counted.approximation
        low = counted.estimate / (1 + guarantee.epsilon)
        high = counted.estimate * (1 + guarantee.epsilon)
        text = (
            f"about {_approximately(counted.estimate)} solutions (ApproxMC estimate: with "
            f"probability at least {1 - guarantee.delta:.0%} the true count lies within a "
            f"factor {1 + guarantee.epsilon:g} of it, between {_approximately(low)} and "
            f"{_approximately(high)}; at least {n} counted exactly)"
        )
    elif counted.stopped == "limit":
        text = f"at least {n} {noun} (stopped at --limit {limit})"
    elif n:
        text = f"at least {n} {noun} (timeout: a lower bound{size})"
    else:
        text = "timeout before any solution was counted"
    if counted.result.reason:
        text += f": {counted.result.reason}"
    methods = _methods_text(counted.factors)
    return f"{text} ({counted.seconds:.2f} s{'; ' + methods if methods else ''})"


def _approximately(value: float) -> str:
    return f"{value:.3g}" if value >= 10**6 else f"{round(value)}"


def _methods_text(factors: Any) -> str:
    """How the factors were counted, e.g. 'ganak' or 'search x11, enumerate'."""
    tally: dict[str, int] = {}
    for factor in factors:
        tally[factor.method] = tally.get(factor.method, 0) + 1
    return ", ".join(name if n == 1 else f"{name} x{n}" for name, n in tally.items())


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
    from satnono.terminal import SolutionPrinter

    deadline = _deadline(timeout)
    loaded = _load(puzzle, fmt, index, deadline)
    text = None if json_lines else SolutionPrinter(loaded, quiet)
    with satnono.iter_samples(loaded, n, seed, sampler, deadline.remaining()) as drawing:
        for grid in drawing:
            if text is None:
                _print_json(contract.solution_object(loaded, grid))
            else:
                text.add(grid)
    status, drawn, seconds = drawing.status, drawing.drawn, drawing.seconds
    if text is None:
        _print_json(
            contract.sample_summary(
                str(puzzle),
                status,
                drawn,
                seed,
                sampler,
                drawing.methods,
                drawing.guarantee,
                seconds,
                drawing.reason,
            )
        )
    else:
        if status == "unsolvable":
            verdict = f"no solution: {drawing.reason}"
        elif status == "timeout":
            verdict = f"timeout after {drawn} of {n} samples"
        else:
            verdict = (
                f"{drawn} random solution{'s' * (drawn != 1)}, each verified ({drawing.guarantee})"
            )
        text.finish(f"{verdict} ({seconds:.2f} s)")
    raise typer.Exit(_exit_code("timeout" if status == "timeout" else status, drawn))


@app.command()
@handles_errors
def convert(
    source: Annotated[
        Path,
        typer.Argument(
            help="Puzzle file to read (- for standard input).", show_default=False, metavar="IN"
        ),
    ],
    target: Annotated[
        Path,
        typer.Argument(
            help="File to write; its suffix picks the format (- for standard output, with --to).",
            show_default=False,
            metavar="OUT",
        ),
    ],
    from_format: Annotated[str | None, typer.Option("--from", help="Input format.")] = None,
    to_format: Annotated[str | None, typer.Option("--to", help="Output format.")] = None,
) -> None:
    """Convert puzzles between formats (every puzzle in the file)."""
    from satnono.fetch import resolve_puzzle_source
    from satnono.formats import read_puzzles, write_puzzles

    puzzles = read_puzzles(resolve_puzzle_source(source), from_format, "--from")
    write_puzzles(puzzles, target, to_format, "--to")
    noun = "puzzle" if len(puzzles) == 1 else "puzzles"
    where = "standard output" if str(target) == "-" else target
    _say(printable(f"wrote {len(puzzles)} {noun} to {where}"))


@app.command()
@handles_errors
def cnf(
    puzzle: PuzzleArg,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="DIMACS file to write (default or -: stdout)."),
    ] = None,
    encoding: EncodingOpt = None,
    fmt: FormatOpt = None,
    index: IndexOpt = 1,
) -> None:
    """Write the CNF of the residual puzzle (after line propagation) in DIMACS."""
    from satnono.cnf import check_encoding, residual_dimacs

    encoding = check_encoding(encoding)
    loaded = _load(puzzle, fmt, index)
    text, formula = residual_dimacs(loaded, encoding)
    if formula is None:
        raise _fail(f"no solution: {text}; no CNF written", EXIT_UNSOLVABLE)
    if output is None or str(output) == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
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
    from satnono import analysis as analyzing
    from satnono.picture import PICTURE_SUFFIXES, write_picture

    if max_solutions == 1:
        raise InputError("1 cannot tell unique from ambiguous: use 2 or more", "--max-solutions")
    if picture is not None and picture.suffix.lower() not in PICTURE_SUFFIXES:
        raise InputError("the picture must be a .svg or .png file", picture)
    deadline = _deadline(timeout)
    loaded = _load(puzzle, fmt, index, deadline, "analyze" if json_output else None)
    analysis = satnono.analyze(
        loaded, deadline.remaining(), max_solutions=max_solutions, exact_count=exact_count
    )
    if picture is not None:
        domains, highlight, caption = analyzing.picture_of(analysis)
        write_picture(loaded, domains, picture, highlight, caption)
    if json_output:
        where = None if picture is None else str(picture)
        _print_json(contract.analysis_object(str(puzzle), analysis, where))
    else:
        analyzing.print_report(_console(), analysis, max_solutions)
    unknown = analysis.difficulty == "unknown"
    raise typer.Exit(_exit_code("timeout" if unknown else "", analysis.solutions))


@app.command()
@handles_errors
def fetch(
    site: Annotated[
        str,
        typer.Argument(help="Where from: webpbn or nonograms.", show_default=False, metavar="SITE"),
    ],
    puzzle_id: Annotated[
        int, typer.Argument(help="The puzzle's id on the site.", min=1, metavar="ID")
    ],
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Also save it here; the suffix picks the format."),
    ] = None,
    url: Annotated[
        str | None,
        typer.Option(
            "--url",
            help="webpbn's export endpoint ($SATNONO_WEBPBN_URL) or nonograms.org's address "
            "($SATNONO_NONOGRAMS_URL); default: the site's own.",
        ),
    ] = None,
    refresh: Annotated[
        bool, typer.Option("--refresh", help="Download again even if cached.")
    ] = False,
) -> None:
    """Download a puzzle (webpbn's XML export, or a nonograms.org page) into the cache and
    print where it is."""
    from satnono.fetch import fetch_nonograms, fetch_webpbn

    if site not in ("webpbn", "nonograms"):
        raise InputError(f"unknown site {site!r}; satnono can fetch from: webpbn, nonograms",
                         "fetch")  # fmt: skip
    fetching = fetch_webpbn if site == "webpbn" else fetch_nonograms
    cached = fetching(puzzle_id, url, refresh=refresh)
    if output is None:
        typer.echo(str(cached))
        return
    if site == "nonograms":
        satnono.write_puzzles(satnono.read_puzzles(cached, "non"), output)
    elif output.suffix.lower() == ".xml":
        try:
            output.write_bytes(cached.read_bytes())
        except OSError as error:
            raise InputError(f"cannot write: {error.strerror or error}", output) from None
    else:
        satnono.write_puzzles(satnono.read_puzzles(cached, "xml"), output)
    typer.echo(str(output))


@app.command()
@handles_errors
def render(
    source: Annotated[
        Path,
        typer.Argument(
            help="A puzzle file (or webpbn:ID, or -), or the JSON that `satnono solve --json` "
            "printed.",
            show_default=False,
            metavar="SOURCE",
        ),
    ],
    output: Annotated[Path, typer.Option("--output", "-o", help="Picture to write: .svg or .png.")],
    what: Annotated[
        str,
        typer.Option(
            "--show",
            help="solution (solve it first), logic (what line logic decides, the rest "
            "hatched), goal (the picture stored in the file) or blank (clues only).",
        ),
    ] = "solution",
    backend: BackendOpt = DEFAULT_BACKEND,
    timeout: Annotated[
        float, typer.Option("--timeout", min=0, help="Time allowed for solving.")
    ] = 60.0,
    fmt: FormatOpt = None,
    index: IndexOpt = 1,
) -> None:
    """Draw a puzzle with its clues on the margins and its cells in their real colors."""
    from satnono.picture import line_logic_picture, write_picture

    if what not in ("solution", "logic", "goal", "blank"):
        raise InputError(f"--show takes solution, logic, goal or blank, not {what!r}", "--show")
    if source.suffix.lower() == ".json":
        puzzle, grid, caption = _solved_json(source)
        satnono.render(puzzle, grid, output, caption)
        _say(printable(f"wrote {output} ({caption})"))
        return
    deadline = _deadline(timeout)
    puzzle = _load(source, fmt, index, deadline)
    name = puzzle.title or "puzzle"
    if what == "solution":
        result = satnono.solve(puzzle, backend, 2, deadline.remaining(), keep=1)
        caption = f"{name}: {result.verdict}"
        satnono.render(puzzle, result.grids[0] if result.grids else None, output, caption)
    elif what == "goal":
        if puzzle.goal is None:
            raise InputError("the file holds no goal picture; try --show solution", "--show")
        caption = f"{name}: the goal stored in the file"
        satnono.render(puzzle, puzzle.goal, output, caption)
    else:
        domains, caption = line_logic_picture(puzzle) if what == "logic" else (None, name)
        write_picture(puzzle, domains, output, caption=caption)
    _say(printable(f"wrote {output} ({caption})"))


def _solved_json(path: Path) -> tuple[Puzzle, Grid, str]:
    """The puzzle and first solution recorded by `satnono solve --json`, checked; a caption."""
    from satnono.formats import read_text
    from satnono.verify import problems

    data = contract.read_solve_object(read_text(path), path)
    puzzle_file = Path(data["file"])
    puzzle = _load(puzzle_file, None, 1)
    grid = contract.grid_of_rows(puzzle, data["solutions"][0], path)
    wrong = problems(puzzle, grid)
    if wrong:
        raise InputError(f"the recorded solution does not fit the clues: {wrong[0]}", path)
    return puzzle, grid, f"{puzzle.title or puzzle_file.name}: the recorded solution"


@app.command()
@handles_errors
def compare(
    paths: Annotated[
        list[Path],
        typer.Argument(help="Puzzle files or folders.", show_default=False, metavar="PATH..."),
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
    """Run several backends on the same puzzles as batch tasks (Dask), each killed at its
    hard deadline; flag every disagreement."""
    from satnono.archive import compare as comparing
    from satnono.backends import check_backend
    from satnono.formats import puzzle_files

    chosen = [check_backend(name.strip()) for name in backends.split(",") if name.strip()]
    if not chosen:
        raise InputError("no backend named", "--backends")
    if plot_file is not None and plot_file.suffix.lower() not in (".png", ".svg"):
        raise InputError("the plot must be a .png or .svg file", plot_file)
    files = puzzle_files(paths)
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


@app.command()
@handles_errors
def batch(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Puzzle files or folders; or `report DB` to summarize a results database.",
            show_default=False,
            metavar="PATH...",
        ),
    ],
    db: Annotated[
        Path | None, typer.Option("--db", help="SQLite results database (created if missing).")
    ] = None,
    backend: Annotated[
        str | None, typer.Option("--backend", help="Search backend (default: satnono's).")
    ] = None,
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
    workers: Annotated[
        int | None, typer.Option("--workers", min=1, help="Worker processes (default: cores).")
    ] = None,
    scheduler: Annotated[
        str, typer.Option("--scheduler", help="local, or the address of a Dask scheduler.")
    ] = "local",
    csv_file: Annotated[
        Path | None, typer.Option("--csv", help="With report: write every row as CSV.")
    ] = None,
    plot_file: Annotated[
        Path | None, typer.Option("--plot", help="With report: write a plot (.png or .svg).")
    ] = None,
) -> None:
    """Solve whole archives on Dask, results in SQLite: resumable, one row per puzzle.

    `satnono batch report DB [--csv FILE] [--plot FILE.png]` summarizes a database.
    """
    from satnono.archive import batch as batching
    from satnono.archive import report
    from satnono.archive.engine import BatchSettings
    from satnono.archive.store import ResultStore, write_csv

    if paths and str(paths[0]) == "report":
        if len(paths) != 2:
            raise InputError("usage: satnono batch report DB [--csv FILE] [--plot FILE]", "report")
        if plot_file is not None and plot_file.suffix.lower() not in (".png", ".svg"):
            raise InputError("the plot must be a .png or .svg file", plot_file)
        with ResultStore(paths[1], create=False) as store:
            rows = list(store.rows())
        for line in report.summary_lines(rows):
            typer.echo(printable(line))
        if csv_file is not None:
            write_csv(rows, csv_file)
        if plot_file is not None:
            report.plot(rows, plot_file)
        return
    if db is None:
        raise InputError("name the results database: --db results.sqlite", "--db")
    check_timeout(timeout)
    settings = BatchSettings(backend, timeout, max_solutions, exact_count, analyze_too)
    run = _batch_with_progress(batching, paths, db, settings, workers, scheduler)
    typer.echo(
        f"{run.total} puzzles: {len(run.rows)} run now, {run.skipped} already in {db} "
        f"({run.seconds:.1f} s)"
    )
    if run.rows:
        for line in report.summary_lines(run.rows):
            typer.echo(printable(line))


def _batch_with_progress(
    batching: Any, paths: list[Path], db: Path, settings: Any, workers: int | None, scheduler: str
) -> Any:
    from collections import Counter

    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskProgressColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )  # fmt: skip

    verdicts: Counter[str] = Counter()
    columns = (
        "{task.description}", BarColumn(), MofNCompleteColumn(), TaskProgressColumn(),
        "{task.fields[rate]}", TimeElapsedColumn(), TimeRemainingColumn(),
    )  # fmt: skip
    with Progress(*columns, console=_console(stderr=True), transient=True) as progress:
        task = progress.add_task("batch", total=None, rate="")
        started = time.perf_counter()

        def on_row(row: Any, done: int, total: int) -> None:
            verdicts[row.status] += 1
            rate = done / max(time.perf_counter() - started, 1e-9)
            described = ", ".join(f"{n} {s}" for s, n in verdicts.most_common(4))
            progress.update(task, completed=done, total=total, description=described,
                            rate=f"{rate:.0f}/s")  # fmt: skip

        return batching.run_batch(paths, db, settings, workers, scheduler, on_row)


@app.command()
@handles_errors
def serve(
    host: Annotated[str, typer.Option("--host", help="Address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port.")] = 8000,
    open_browser: Annotated[
        bool, typer.Option("--open", help="Open the page in the default browser.")
    ] = False,
) -> None:
    """Start the web page: open, solve, watch and author puzzles in a browser."""
    from satnono.serve import serve as run_server

    _say(f"satnono: serving on http://{host}:{port}/ (Ctrl-C stops)")
    run_server(host, port, open_browser)


@app.command("from-image")
@handles_errors
def from_image(
    image: Annotated[
        Path, typer.Argument(help="A picture (PNG, JPEG, GIF, ...).", show_default=False)
    ],
    output: Annotated[
        Path,
        typer.Option("--output", "-o", help="Puzzle file to write; the suffix picks the format."),
    ],
    width: Annotated[
        int | None, typer.Option("--width", help="Columns (default: keep the proportions).")
    ] = None,
    height: Annotated[
        int | None, typer.Option("--height", help="Rows (default: keep the proportions).")
    ] = None,
    colors: Annotated[
        int, typer.Option("--colors", help="Colors with the background; 2 = black and white.")
    ] = 2,
    threshold: Annotated[
        int, typer.Option("--threshold", help="With 2 colors: darker than this (0-255) is black.")
    ] = 128,
    to_format: Annotated[str | None, typer.Option("--to", help="Output format.")] = None,
    make_unique: Annotated[
        bool,
        typer.Option(
            "--make-unique", help="If the clues have several solutions, list cells to give away."
        ),
    ] = False,
    timeout: TimeoutOpt = 60.0,
) -> None:
    """Make a puzzle from a picture, then say whether it is unique and line-solvable."""
    from satnono.formats import write_puzzles
    from satnono.from_image import givens_for_uniqueness, picture_from_image
    from satnono.generate import puzzle_from_grid

    check_timeout(timeout)
    picture = picture_from_image(image, width, height, colors, threshold)
    puzzle = puzzle_from_grid(picture.grid, picture.palette, image.stem)
    write_puzzles([puzzle], output, to_format, "--to")
    analysis = satnono.analyze(puzzle, timeout)
    typer.echo(printable(f"wrote {output}: {puzzle.width}x{puzzle.height}, "
                         f"{len(puzzle.palette) - 1} color(s)"))  # fmt: skip
    if analysis.difficulty == "ambiguous":
        typer.echo(f"not unique: {len(analysis.ambiguous_cells)} ambiguous cells")
    else:
        typer.echo(f"{'unique' if analysis.solutions == 1 else analysis.difficulty}: "
                   f"{analysis.label}")  # fmt: skip
    if make_unique and analysis.difficulty == "ambiguous" and puzzle.goal is not None:
        givens = givens_for_uniqueness(puzzle, puzzle.goal)
        cells = ", ".join(
            f"({cell // puzzle.width + 1}, {cell % puzzle.width + 1}) {puzzle.palette[color].name}"
            for cell, color in givens.cells
        )
        done = "unique" if givens.unique else "still not unique (gave up)"
        noun = "cell" if len(givens.cells) == 1 else "cells"
        typer.echo(f"give {len(givens.cells)} {noun} (row, column) to make it {done}: {cells}")


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

        # Ctrl-C closes the Dask cluster: its workers and their solver processes end with it.
        runs: list[Any] = comparing.run_all(files, backends, limit, timeout, jobs, done)
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
    """The console script: typer builds only the command asked for; usage errors are one line.

    Building every command's click object costs 15-20 ms of each run, a tenth of a
    line-solvable puzzle's whole process; `satnono --help` (no command named) builds them all.
    """
    global _STARTED
    _STARTED = time.monotonic()
    from typer.main import get_command_name

    _check_streams()
    named = sys.argv[1] if len(sys.argv) > 1 else None
    chosen = [
        info
        for info in app.registered_commands
        if info.callback is not None
        and (info.name or get_command_name(info.callback.__name__)) == named
    ]
    if chosen:
        app.registered_commands = chosen
    try:
        code = app(standalone_mode=False)
    except typer.TyperException as error:  # click's usage errors: one line, exit 2
        message = " ".join(error.format_message().split())
        if len(message) > MAX_MESSAGE:
            message = message[: MAX_MESSAGE - 3] + "..."
        command = f"satnono {named} --help" if chosen else "satnono --help"
        _say(printable(f"satnono: error: {message} (see '{command}')"))
        _exit_now(getattr(error, "exit_code", EXIT_BAD_INPUT))
    except typer.Abort:
        typer.echo("satnono: interrupted", err=True)
        _exit_now(EXIT_INTERRUPTED)
    except SystemExit as done:
        _exit_now(done.code)
    except BrokenPipeError:
        _exit_now(EXIT_BROKEN_PIPE)
    except OSError as error:  # --version or --help into a full or broken stream
        _say(f"satnono: {_output_error(error)}")
        _exit_now(EXIT_BAD_INPUT)
    _exit_now(code if isinstance(code, int) else 0)


def _check_streams() -> None:
    """A closed stderr is replaced by /dev/null (nothing can be said there, the work goes
    on); a closed stdout ends the run at once with exit 2: the result would go nowhere."""
    if not _open(2):
        _reopen_devnull(2)
        sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115 - the process's stderr
    if not _open(1):
        # fd 1 must not be left free for the next file opened, which would then take it.
        _reopen_devnull(1)
        _say("satnono: error: standard output is closed: nowhere to write the result")
        os._exit(EXIT_BAD_INPUT)


def _open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _reopen_devnull(fd: int) -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    if devnull != fd:
        os.dup2(devnull, fd)
        os.close(devnull)


def _say(line: str) -> None:
    """One line on stderr, whatever state stderr is in."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


def _exit_now(code: object) -> NoReturn:
    """Exit without Python's shutdown, once exit handlers ran and output is flushed.

    The shutdown frees every object and module one by one: 30 to 50 ms of each run, a fifth
    of a line-solvable puzzle's whole process, with nothing left to do that the operating
    system does not do at exit. Only the console script does this, never the library.
    """
    import atexit

    if isinstance(code, str):  # sys.exit("message"): Python prints it and exits 1
        sys.stderr.write(code + "\n")
        code = 1
    status = code if isinstance(code, int) else 0 if code is None else 1
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away: nothing more can be said there
        status = status or EXIT_BROKEN_PIPE
    except (OSError, ValueError) as error:  # a full disk, a device that refuses the output
        _say(f"satnono: {_output_error(error) if isinstance(error, OSError) else error}")
        status = status or EXIT_BAD_INPUT
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(status)
