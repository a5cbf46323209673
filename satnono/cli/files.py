"""The commands that move puzzles and pictures: convert, cnf, fetch, render, from-image."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Annotated

import typer

import satnono
from satnono.cli import present
from satnono.cli.options import (
    BackendOpt,
    EncodingOpt,
    FormatOpt,
    IndexOpt,
    PuzzleArg,
    Show,
    TimeoutOpt,
)
from satnono.cli.process import EXIT_UNSOLVABLE, deadline, fail, handles_errors, load, say
from satnono.cli.shell import app
from satnono.terminal import printable


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
    satnono.check_options(encoding=encoding)
    loaded = load(puzzle, fmt, index)
    text, formula = satnono.residual_cnf(loaded, encoding)
    if formula is None:
        raise fail(f"no solution: {text}; no CNF written", EXIT_UNSOLVABLE)
    if output is None or str(output) == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as error:
            raise satnono.InputError(f"cannot write: {error.strerror or error}", output) from None
    left = len(formula.cell_literals)
    typer.echo(
        f"{output or 'stdout'}: {formula.variables} variables, {_clauses_written(text)} clauses, "
        f"{left} residual cells" + (" (line logic solves this puzzle)" if not left else ""),
        err=True,
    )


def _clauses_written(dimacs: str) -> int:
    """The clause count of the `p cnf` header (what was written, without a second export)."""
    header = re.search(r"^p cnf \d+ (\d+)$", dimacs, re.MULTILINE)
    return int(header.group(1)) if header else 0


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
    typer.echo(str(satnono.fetch(site, puzzle_id, output, url=url, refresh=refresh)))


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
        Show,
        typer.Option(
            "--show",
            help="solution (solve it first), logic (what line logic decides, the rest "
            "hatched), goal (the picture stored in the file) or blank (clues only).",
        ),
    ] = Show.solution,
    backend: BackendOpt = satnono.DEFAULT_BACKEND,
    timeout: Annotated[
        float, typer.Option("--timeout", min=0, help="Time allowed for solving.")
    ] = 60.0,
    fmt: FormatOpt = None,
    index: IndexOpt = 1,
) -> None:
    """Draw a puzzle with its clues on the margins and its cells in their real colors."""
    if source.suffix.lower() == ".json" or (str(source) == "-" and _json_on_stdin()):
        puzzle, grid, caption = satnono.read_recorded_solution(source)
        satnono.render(puzzle, grid, output, caption)
    else:
        within = deadline(timeout)
        puzzle = load(source, fmt, index, within)
        name = puzzle.title or "puzzle"
        caption = satnono.render(
            puzzle, None, output, name if what is Show.blank else None, show=what.value,
            backend=backend, timeout=within.remaining(),
        )  # fmt: skip
    say(printable(f"wrote {output} ({caption})"))


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
    satnono.check_options(timeout=timeout)
    puzzle = satnono.puzzle_from_image(image, width, height, colors, threshold)
    satnono.write_puzzles([puzzle], output, to_format)
    analysis = satnono.analyze(puzzle, timeout)
    for line in present.from_image_lines(puzzle, output, analysis):
        typer.echo(printable(line))
    if make_unique and analysis.difficulty == "ambiguous" and puzzle.goal is not None:
        typer.echo(present.givens_line(puzzle, satnono.givens_for_uniqueness(puzzle)))
