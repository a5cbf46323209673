"""The commands that move puzzles and pictures: convert, cnf, fetch, render, from-image."""

from __future__ import annotations

import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

import satnono
from satnono.cli import present
from satnono.cli.each import OutputFolder, each_puzzle
from satnono.cli.options import (
    BackendOpt,
    EncodingOpt,
    FormatOpt,
    IndexOpt,
    JsonOpt,
    PuzzlesArg,
    Show,
    TimeoutOpt,
    completes,
)
from satnono.cli.process import (
    EXIT_SOLVED,
    EXIT_TIMEOUT,
    EXIT_UNSOLVABLE,
    handles_errors,
    print_json,
    say,
)
from satnono.cli.shell import app
from satnono.output.terminal import labelled, printable


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
    # The library names its `format` parameter; this command has two: --from and --to.
    try:
        puzzles = satnono.read_puzzles(source, from_format)
    except satnono.InputError as error:
        raise _renamed(error, "--from") from None
    try:
        satnono.write_puzzles(puzzles, target, to_format)
    except satnono.InputError as error:
        raise _renamed(error, "--to") from None
    noun = "puzzle" if len(puzzles) == 1 else "puzzles"
    where = "standard output" if str(target) == "-" else target
    say(printable(f"wrote {len(puzzles)} {noun} to {where}"))


def _renamed(error: satnono.InputError, flag: str) -> satnono.InputError:
    """`error` naming `flag` where it names the library's `format` parameter."""
    if error.hint == "format":
        error.hint = flag
    if error.path == "format":
        error.path = flag
    return error


@app.command()
@handles_errors
def cnf(
    puzzles: PuzzlesArg,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="DIMACS file to write (default or -: stdout); for several puzzles, a folder "
            "(one FILE.cnf each).",
        ),
    ] = None,
    encoding: EncodingOpt = None,
    fmt: FormatOpt = None,
    index: IndexOpt = 1,
) -> None:
    """Write the CNF of the residual puzzle (after line propagation) in DIMACS."""
    satnono.check_options(encoding=encoding)
    where = OutputFolder(output, puzzles, "--output")

    def cnf_one(loaded: satnono.Puzzle, source: str, _: satnono.Deadline, label: str | None) -> int:
        text, formula = satnono.residual_cnf(loaded, encoding)
        if formula is None:
            say(printable(labelled(label, f"no solution: {text}; no CNF written")))
            return EXIT_UNSOLVABLE
        target = where.path_for(source, ".cnf")
        if target is None or str(target) == "-":
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            try:
                target.write_text(text, encoding="utf-8")
            except OSError as error:
                raise satnono.InputError(
                    f"cannot write: {error.strerror or error}", target
                ) from None
        left = len(formula.cell_literals)
        solved = " (line logic solves this puzzle)" if not left else ""
        typer.echo(f"{target or 'stdout'}: {formula.variables} variables, "
                   f"{_clauses_written(text)} clauses, {left} residual cells{solved}",
                   err=True)  # fmt: skip
        return EXIT_SOLVED

    raise SystemExit(each_puzzle(puzzles, fmt, index, None, None, cnf_one))


def _clauses_written(dimacs: str) -> int:
    """The clause count of the `p cnf` header (what was written, without a second export)."""
    header = re.search(r"^p cnf \d+ (\d+)$", dimacs, re.MULTILINE)
    return int(header.group(1)) if header else 0


@app.command()
@handles_errors
def fetch(
    site: Annotated[
        str,
        typer.Argument(
            help="Where from: webpbn or nonograms.",
            show_default=False,
            metavar="SITE",
            autocompletion=completes("site"),
        ),
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
    typer.echo(str(satnono.fetch(site, puzzle_id, output, url=url, refresh=refresh)))


@app.command()
@handles_errors
def render(
    sources: Annotated[
        list[Path],
        typer.Argument(
            help="Puzzle files or folders (or webpbn:ID, or -), or the JSON that `satnono "
            "solve --json` printed.",
            show_default=False,
            metavar="SOURCE...",
        ),
    ],
    output: Annotated[
        Path,
        typer.Option(
            "--output",
            "-o",
            help="Picture to write: .svg or .png (- for standard output, with --to); for "
            "several puzzles, a folder (one FILE.svg each, or --to png).",
        ),
    ],
    what: Annotated[
        Show,
        typer.Option(
            "--show",
            help="solution (solve it first), logic (what line logic decides, the rest "
            "hatched), goal (the picture stored in the file) or blank (clues only).",
        ),
    ] = Show.solution,
    to: Annotated[
        str | None,
        typer.Option(
            "--to",
            help="Picture format, svg or png: for standard output or a folder "
            "(else the suffix of --output says it).",
        ),
    ] = None,
    backend: BackendOpt = satnono.DEFAULT_BACKEND,
    timeout: Annotated[
        float,
        typer.Option("--timeout", min=0, help="Time allowed for solving and drawing each puzzle."),
    ] = 60.0,
    fmt: FormatOpt = None,
    index: IndexOpt = 1,
) -> None:
    """Draw puzzles with their clues on the margins and their cells in their real colors."""
    if to is not None and to not in ("svg", "png"):
        raise satnono.InputError(f"{to!r} is not a picture format: svg or png", "--to")
    recorded = len(sources) == 1 and (
        sources[0].suffix.lower() == ".json" or (str(sources[0]) == "-" and _json_on_stdin())
    )
    if recorded:
        puzzle, grid, caption = satnono.read_recorded_solution(sources[0])
        try:
            _draw(output, to, lambda p: satnono.render(puzzle, grid, p, caption, timeout=timeout))
        except satnono.Timeout:
            say(printable(present.not_drawn_line(str(output))))
            raise SystemExit(EXIT_TIMEOUT) from None
        return
    where = OutputFolder(output, sources, "--output")

    def render_one(
        puzzle: satnono.Puzzle, source: str, within: satnono.Deadline, label: str | None
    ) -> int:
        target = where.path_for(source, f".{to or 'svg'}") or output
        name = puzzle.title or "puzzle"
        try:
            _draw(target, to, lambda path: satnono.render(
                puzzle, None, path, name if what is Show.blank else None, show=what.value,
                backend=backend, timeout=within.remaining(),
            ))  # fmt: skip
        except satnono.Timeout:  # solving and drawing keep --timeout
            say(printable(present.not_drawn_line(str(target), label)))
            return EXIT_TIMEOUT
        return EXIT_SOLVED

    raise SystemExit(each_puzzle(sources, fmt, index, timeout, None, render_one))


def _draw(target: Path, to: str | None, draw: Callable[[Path], str]) -> None:
    """`draw(path)` (which returns the caption) into `target`, or onto standard output for
    '-' (through a file of the `to` format, which standard output has no suffix to say)."""
    if str(target) != "-":
        if to is not None and target.suffix.lower() != f".{to}":
            raise satnono.InputError(f"--to {to}, but the picture's name ends "
                                     f"{target.suffix or 'without a suffix'}", target)  # fmt: skip
        say(printable(f"wrote {target} ({draw(target)})"))
        return
    if to is None:
        raise satnono.InputError("a picture on standard output needs --to svg or --to png", "-")
    with tempfile.TemporaryDirectory() as folder:
        drawn = Path(folder) / f"picture.{to}"
        caption = draw(drawn)
        sys.stdout.buffer.write(drawn.read_bytes())
        sys.stdout.flush()
    say(printable(f"wrote standard output ({caption})"))


def _json_on_stdin() -> bool:
    """Whether standard input holds JSON (`satnono solve --json | satnono render - ...`)
    rather than puzzle text: no puzzle format starts with '{'. Peeks, reads nothing."""
    try:
        start: bytes = getattr(sys.stdin.buffer, "peek")(64)  # noqa: B009 - not on BinaryIO
        return start.lstrip()[:1] == b"{"
    except (AttributeError, OSError, ValueError):
        return False


@app.command("from-image")
@handles_errors
def from_image(
    image: Annotated[
        Path,
        typer.Argument(
            help="A picture (PNG, JPEG, GIF, ...).", show_default=False, metavar="IMAGE"
        ),
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
    satnono.check_options(timeout=timeout)
    puzzle = satnono.puzzle_from_image(image, width, height, colors, threshold)
    satnono.write_puzzles([puzzle], output, to_format)
    analysis = satnono.analyze(puzzle, timeout)
    for line in present.from_image_lines(puzzle, output, analysis):
        typer.echo(printable(line))
    if make_unique and analysis.difficulty == "ambiguous" and puzzle.goal is not None:
        typer.echo(present.givens_line(puzzle, satnono.givens_for_uniqueness(puzzle)))


@app.command("check-proof")
@handles_errors
def check_proof(
    folders: Annotated[
        list[Path],
        typer.Argument(
            help="Certificate folders (solve --proof), or the folder of batch run --proof (its "
            "certificates.csv lists them).",
            show_default=False,
            metavar="FOLDER...",
        ),
    ],
    timeout: TimeoutOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Check certificates: the CNF against the clues, the solutions against the clues, and
    the proof step by step (reverse unit propagation); VERIFIED, or the first failing step
    (exit 1), or TIMEOUT (exit 3); with several, each on a line and the highest exit code."""
    named = [folder for given in folders for folder in _certificate_folders(given)]
    worst = EXIT_SOLVED
    for folder in named:
        checked = satnono.check_proof(folder, timeout)
        if json_output:
            print_json({
                "folder": str(folder), "verified": checked.verified, "verdict": checked.verdict,
                "reason": checked.reason, "steps": checked.steps, "seconds": checked.seconds,
                "timeout": checked.timed_out,
            })  # fmt: skip
        else:
            prefix = f"{folder}: " if len(named) > 1 else ""
            typer.echo(printable(prefix + checked.line))
        code = EXIT_SOLVED if checked.verified else EXIT_UNSOLVABLE
        worst = max(worst, EXIT_TIMEOUT if checked.timed_out else code)
    raise SystemExit(worst)


def _certificate_folders(given: Path) -> list[Path]:
    """A certificate folder as it is, or the certificate folders a `batch run --proof` folder
    lists in its certificates.csv (those made)."""
    import csv

    listing = given / "certificates.csv"
    if (given / "puzzle.non").exists() or not listing.is_file():
        return [given]
    with listing.open(encoding="utf-8", newline="") as file:
        made = [row["folder"] for row in csv.DictReader(file) if row.get("folder")]
    if not made:
        raise satnono.InputError("its certificates.csv lists no certificate", given)
    return [Path(folder) for folder in dict.fromkeys(made)]
