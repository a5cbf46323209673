"""The options that several commands share, declared once; fixed choices as Enums (the shell
completes them; a typo is a usage error naming the valid values). Backends, samplers and
sites stay strings: the library checks them and names what is installed."""

from __future__ import annotations

import enum
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

import satnono


class Show(enum.StrEnum):
    """What `render --show` draws."""

    solution = "solution"
    logic = "logic"
    goal = "goal"
    blank = "blank"


def completes(parameter: str) -> Callable[[str], list[str]]:
    """Shell completion of a choice the library checks (backend, solver, ...): the names
    installed here that start with what was typed."""

    def complete(incomplete: str) -> list[str]:
        return [name for name in satnono.choices()[parameter] if name.startswith(incomplete)]

    return complete


def completes_list(parameter: str) -> Callable[[str], list[str]]:
    """Shell completion of a comma-separated list of such names (compare's --backends): the
    last name is completed, the ones before it kept."""

    def complete(incomplete: str) -> list[str]:
        before, _, last = incomplete.rpartition(",")
        head = f"{before}," if before else ""
        return [head + name for name in satnono.choices()[parameter] if name.startswith(last)]

    return complete


PuzzlesArg = Annotated[
    list[Path],
    typer.Argument(
        help="Puzzle files (.non, .xml, ...), folders of them, webpbn:ID, nonograms:ID, or - "
        "for standard input; several are handled in turn.",
        show_default=False,
        metavar="PUZZLE...",
    ),
]

PathsArg = Annotated[
    list[Path],
    typer.Argument(help="Puzzle files or folders.", show_default=False, metavar="PATH..."),
]
#: Option panels of `--help`: how the search goes, and the cubes backend's Dask settings (the
#: rest, what to read and what to print, stay in the first panel).
SEARCH_PANEL = "Search"
CUBES_PANEL = "Cubes backend (Dask)"

FormatOpt = Annotated[
    str | None,
    typer.Option(
        "--format",
        help=f"Input format, overriding detection: {', '.join(satnono.format_names())}.",
        autocompletion=completes("format"),
    ),
]
IndexOpt = Annotated[
    int | None,
    typer.Option(
        "--puzzle",
        min=1,
        help="Which puzzle of a multi-puzzle file (solve, count, sample and "
        "analyze: every puzzle when not given).",
    ),
]
BackendOpt = Annotated[
    str,
    typer.Option(
        "--backend",
        rich_help_panel=SEARCH_PANEL,
        help=f"Search backend: {', '.join(satnono.available_backends())}.",
        autocompletion=completes("backend"),
    ),
]
SolverOpt = Annotated[
    str | None,
    typer.Option(
        "--solver",
        rich_help_panel=SEARCH_PANEL,
        help="A PySAT solver alone on line logic's residual (default: the native search, then "
        "CaDiCaL 1.9.5 on what it leaves); portfolio races only it.",
        autocompletion=completes("solver"),
    ),
]
EncodingOpt = Annotated[
    str | None,
    typer.Option(
        "--encoding",
        rich_help_panel=SEARCH_PANEL,
        help="CNF encoding: blocks (default), automaton, automaton-lean; see encodings/.",
        autocompletion=completes("encoding"),
    ),
]
ThreadsOpt = Annotated[
    int,
    typer.Option(
        "--threads", rich_help_panel=SEARCH_PANEL, min=1, help="Worker threads (cpsat backend)."
    ),
]
WorkersOpt = Annotated[
    int | None,
    typer.Option(
        "--workers",
        rich_help_panel=CUBES_PANEL,
        min=1,
        help="Dask workers (batch, cubes backend; default: cores, or --scheduler's threads).",
    ),
]
SchedulerOpt = Annotated[
    str,
    typer.Option(
        "--scheduler",
        rich_help_panel=CUBES_PANEL,
        help="local, or the address of a Dask scheduler.",
    ),
]
CubesOpt = Annotated[
    int | None,
    typer.Option(
        "--cubes",
        rich_help_panel=CUBES_PANEL,
        min=1,
        help="Cubes to split into (cubes backend; default: 32 per worker).",
    ),
]
SeedOpt = Annotated[
    int,
    typer.Option(
        "--seed",
        rich_help_panel=SEARCH_PANEL,
        help="Random seed for the search (sat: random initial phases, -1 all true).",
    ),
]
TimeoutOpt = Annotated[
    float | None, typer.Option("--timeout", min=0, help="Give up after this many seconds.")
]
CluesOpt = Annotated[
    bool | None,
    typer.Option(
        "--clues/--no-clues",
        help="The clues on the margins of the grids printed (default: in a terminal, not in a "
        "pipe or a file).",
        show_default=False,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]
PictureOpt = Annotated[
    Path | None, typer.Option("--picture", "-o", help="Picture to write: .svg or .png.")
]
