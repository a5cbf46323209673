"""Puzzles in and out: read (files, text, webpbn:ID, within a time limit), write, fetch from
the puzzle sites, make from a picture, and draw with their clues.

The public calls of these jobs (re-exported by satnono/__init__.py); each checks its arguments
and raises InputError with the one line the CLI prints.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from satnono.core import arguments
from satnono.core.model import Color, Grid, Puzzle
from satnono.errors import InputError
from satnono.formats.sites import SITES
from satnono.runtime.deadline import Deadline, Timeout

if TYPE_CHECKING:
    from satnono.pipeline.analysis import Analysis
    from satnono.pipeline.from_image import Givens

#: What `render(show=...)` draws when no solution is given.
SHOW_CHOICES = ("solution", "logic", "goal", "blank")
#: Seconds `render` gives the drawing at least, past a deadline that solving used up: enough
#: for any real puzzle's picture (webpbn's largest, 99 x 99, draws in well under a second).
PICTURE_GRACE = 1.0
#: How a puzzle source names a site `fetch` downloads from (`webpbn:1234`).
SITE_PREFIXES = tuple(f"{site}:" for site in SITES)


def _read_all(source: str | os.PathLike[str], format: str | None = None) -> list[Puzzle]:
    """`read_puzzles` without its timeout."""
    from satnono.formats import parse_text
    from satnono.formats import read_puzzles as read_file

    if format is not None:
        arguments.text(format, "format")
    if isinstance(source, str) and "\n" in source:
        return parse_text(source, "<text>", format)
    path = arguments.path(source, "source")
    if path.startswith(SITE_PREFIXES):  # the sites module only when a site is named
        from satnono.formats.sites import resolve_puzzle_source

        return read_file(resolve_puzzle_source(path), format)
    return read_file(path, format)


def read_puzzle(
    source: str | os.PathLike[str],
    format: str | None = None,
    index: int = 1,
    timeout: float | None = None,
) -> Puzzle:
    """Puzzle number `index` (from 1) of `source`, as in `read_puzzles`.

    `timeout` bounds the reading (a huge file, a stalled server, a FIFO with no writer):
    Timeout is raised when it passes. It is enforced by an alarm signal, so only in the main
    thread; elsewhere the read is not bounded.
    """
    index = arguments.whole_number(index, "index", minimum=1)
    return _nth(read_puzzles(source, format, timeout), index, source)


def read_puzzles(
    source: str | os.PathLike[str], format: str | None = None, timeout: float | None = None
) -> list[Puzzle]:
    """Every puzzle of a file, of `webpbn:ID` or `nonograms:ID` (fetched once, then cached),
    or of the puzzle text itself (a string with a line break); `format` overrides detection
    by suffix and content; `timeout` bounds the reading as in `read_puzzle`."""
    timeout = arguments.seconds(timeout)
    if timeout is None or threading.current_thread() is not threading.main_thread():
        return _read_all(source, format)
    if timeout <= 0:
        raise Timeout

    def alarm(*_: object) -> None:
        raise Timeout

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        return _read_all(source, format)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _nth(puzzles: list[Puzzle], index: int, source: str | os.PathLike[str]) -> Puzzle:
    if not 1 <= index <= len(puzzles):
        where = "<text>" if isinstance(source, str) and "\n" in source else str(source)
        raise InputError(f"puzzle {index} asked for, the file holds {len(puzzles)}", where)
    return puzzles[index - 1]


def write_puzzles(
    puzzles: Sequence[Puzzle],
    path: str | os.PathLike[str],
    format: str | None = None,
) -> None:
    """Write puzzles to a file (`-` for standard output); the suffix (or `format`) picks the
    format."""
    from satnono.formats import write_puzzles as write_file

    if isinstance(puzzles, Puzzle):
        puzzles = [puzzles]
    if isinstance(puzzles, str | bytes) or not isinstance(puzzles, Sequence):
        raise InputError(f"expected a list of puzzles, got {type(puzzles).__name__}", "puzzles")
    if not puzzles:
        raise InputError("no puzzle to write", "puzzles")
    for puzzle in puzzles:
        arguments.puzzle(puzzle, "puzzles")
    if format is not None:
        arguments.text(format, "format")
    write_file(puzzles, Path(arguments.path(path)), format)


def format_names() -> list[str]:
    """The puzzle formats satnono reads and writes, for `format=`."""
    from satnono.formats import FORMATS

    return list(FORMATS)


def fetch(
    site: str,
    puzzle_id: int,
    output: str | os.PathLike[str] | None = None,
    *,
    url: str | None = None,
    refresh: bool = False,
) -> Path:
    """Download puzzle `puzzle_id` from `site` (webpbn: its XML export; nonograms: a
    nonograms.org page) into the cache, unless it is there already (or `refresh`); also
    write it to `output` in the format its suffix names. Returns where it now is."""
    from satnono.formats.sites import fetch_nonograms, fetch_webpbn

    puzzle_id = arguments.whole_number(puzzle_id, "puzzle_id", minimum=1)
    arguments.flag(refresh, "refresh")
    if url is not None:
        arguments.text(url, "url")
    if output is not None:
        output = arguments.path(output, "output")
    if not isinstance(site, str) or site not in SITES:
        raise InputError(f"unknown site {site!r}; satnono can fetch from: {', '.join(SITES)}",
                         "site")  # fmt: skip
    fetching = fetch_webpbn if site == "webpbn" else fetch_nonograms
    cached = fetching(puzzle_id, url, refresh=refresh)
    if output is None:
        return cached
    target = Path(output)
    if site == "webpbn" and target.suffix.lower() == ".xml":
        try:
            target.write_bytes(cached.read_bytes())
        except OSError as error:
            raise InputError(f"cannot write: {error.strerror or error}", target) from None
    else:
        write_puzzles(read_puzzles(cached, "non" if site == "nonograms" else "xml"), target)
    return target


def puzzle_from_image(
    image: str | os.PathLike[str],
    width: int | None = None,
    height: int | None = None,
    colors: int = 2,
    threshold: int = 128,
) -> Puzzle:
    """A puzzle whose goal picture is `image` scaled to `width` x `height` cells (one given,
    the other kept in proportion) with `colors` colors counting the background; with 2
    colors, pixels darker than `threshold` (0-255) are black. Its clues come from the goal."""
    from satnono.formats.generate import puzzle_from_grid
    from satnono.pipeline.from_image import picture_from_image

    picture = picture_from_image(Path(arguments.path(image, "image")), width, height, colors,
                                 threshold)  # fmt: skip
    return puzzle_from_grid(picture.grid, picture.palette, Path(image).stem)


def puzzle_from_grid(grid: Grid, palette: Sequence[Color] | None = None, title: str = "") -> Puzzle:
    """The puzzle whose goal picture is `grid` (palette indices, 0 the background): its clues
    are read off the grid. `palette` defaults to black and white."""
    from satnono.formats.generate import puzzle_from_grid as from_grid

    grid = _checked_grid(grid, palette)
    arguments.text(title, "title")
    return from_grid(grid, palette, title) if palette is not None else from_grid(grid, title=title)


def givens_for_uniqueness(puzzle: Puzzle) -> Givens:
    """Cells of the puzzle's goal picture to give away so that its clues have one solution
    (`.cells` as (cell, color), `.unique` once that is reached)."""
    from satnono.pipeline.from_image import givens_for_uniqueness as givens

    goal = arguments.puzzle(puzzle).goal
    if goal is None:
        raise InputError("the puzzle holds no goal picture to give cells from", "puzzle")
    return givens(puzzle, goal)


def render(
    puzzle: Puzzle,
    solution: Sequence[str] | Grid | None,
    path: str | os.PathLike[str],
    caption: str | None = None,
    *,
    show: str | None = None,
    partial: Sequence[int] | None = None,
    analysis: Analysis | None = None,
    backend: str | None = None,
    timeout: float | None = 60.0,
) -> str:
    """Draw the puzzle with its clues as SVG or PNG (by the suffix of `path`); the caption.

    What is drawn: `solution` (row strings or a grid, checked against the clues first); else
    `analysis`'s first solution with its ambiguous cells outlined; else `partial` (cell
    domains, as line logic left them: undecided cells hatched); else by `show`: "solution"
    (solved here, with `backend` within `timeout`), "logic" (what line logic decides),
    "goal" (the picture stored in the file) or "blank" (clues only, the default).

    The whole call keeps `timeout` (None: no limit): the drawing gets what solving left, and
    at least PICTURE_GRACE seconds (a small grid's picture takes milliseconds; a 1000 x 1000's
    PNG took 71 s). Timeout when it is not drawn in time; nothing is written then.
    """
    from satnono.output.picture import write_picture

    name = arguments.puzzle(puzzle).title or "puzzle"
    target = Path(arguments.path(path))
    if caption is not None:
        arguments.text(caption, "caption")
    deadline = Deadline(arguments.seconds(timeout))
    domains: Sequence[int] | None = None
    highlight: tuple[int, ...] = ()
    if show is not None and show not in SHOW_CHOICES:
        raise InputError(f"show takes {', '.join(SHOW_CHOICES)}, not {show!r}", "show")
    if solution is not None:
        domains = _checked_solution(puzzle, solution)
    elif analysis is not None:
        from satnono.pipeline.analysis import Analysis, picture_of

        arguments.instance_or_none(analysis, Analysis, "analysis")

        domains, highlight, drawn = picture_of(analysis)
        caption = caption or drawn
    elif partial is not None:
        domains = _checked_partial(puzzle, partial)
    elif show == "solution":
        from satnono.calls import solve

        result = solve(puzzle, backend, 2, deadline.remaining(), keep=1)
        caption = caption or f"{name}: {result.verdict}"
        if result.grids:
            domains = _checked_solution(puzzle, result.grids[0])
    elif show == "goal":
        if puzzle.goal is None:
            raise InputError("the file holds no goal picture; try show solution", "show")
        domains = _checked_solution(puzzle, puzzle.goal, "goal")
        caption = caption or f"{name}: the goal stored in the file"
    elif show == "logic":
        from satnono.output.picture import line_logic_picture

        logic, drawn = line_logic_picture(puzzle)
        domains, caption = logic, caption or drawn
    caption = caption or puzzle.title or ""
    left = deadline.remaining()
    drawing = Deadline(None if left is None else max(left, PICTURE_GRACE))
    write_picture(puzzle, domains, target, highlight, caption or None, drawing)
    return caption or name


def _checked_solution(
    puzzle: Puzzle, solution: Sequence[str] | Grid, what: str = "solution"
) -> tuple[int, ...]:
    """The solution's cell domains, once it is checked against the clues (`what` it is, as
    the error names it: "solution", or the file's "goal")."""
    from satnono.core.grids import grid_to_domains
    from satnono.core.verify import problems

    if isinstance(solution, str | bytes) or not isinstance(solution, Sequence):
        raise InputError(f"expected row strings or a grid, got {type(solution).__name__}",
                         "solution")  # fmt: skip
    rows = list(solution)
    if rows and all(isinstance(row, str) for row in rows):
        from satnono.output.contract import grid_of_rows

        grid: Grid = grid_of_rows(puzzle, [str(row) for row in rows], "solution")
    else:
        grid = _checked_grid(rows, puzzle.palette, "solution")
        if len(grid) != puzzle.height or len(grid[0]) != puzzle.width:
            raise InputError(f"a {len(grid[0])}x{len(grid)} grid for a "
                             f"{puzzle.width}x{puzzle.height} puzzle", "solution")  # fmt: skip
    wrong = problems(puzzle, grid)
    if wrong:
        told = "the goal stored in the file" if what == "goal" else "the solution"
        raise InputError(f"{told} does not fit the clues: {wrong[0]}", what)
    return tuple(grid_to_domains(grid))


def read_recorded_solution(path: str | os.PathLike[str]) -> tuple[Puzzle, Grid, str]:
    """The puzzle and first solution that `satnono solve --json` recorded in `path` (`-`:
    standard input), checked against the clues; and a caption naming them."""
    from satnono.core.verify import problems
    from satnono.formats import read_text
    from satnono.output.contract import grid_of_rows, read_solve_object

    path = arguments.path(path)
    where = "<stdin>" if path == "-" else path
    data = read_solve_object(read_text(path), where)
    puzzle_file = Path(data["file"])
    puzzle = read_puzzle(puzzle_file)
    grid = grid_of_rows(puzzle, data["solutions"][0], where)
    wrong = problems(puzzle, grid)
    if wrong:
        raise InputError(f"the recorded solution does not fit the clues: {wrong[0]}", where)
    return puzzle, grid, f"{puzzle.title or puzzle_file.name}: the recorded solution"


def _checked_grid(grid: object, palette: Sequence[Color] | None, name: str = "grid") -> Grid:
    """`grid` as a tuple of equally long rows of palette indices (0 the background)."""
    colors = 2 if palette is None else len(palette)
    if palette is not None and (
        isinstance(palette, str) or not all(isinstance(color, Color) for color in palette)
    ):
        raise InputError("expected a sequence of satnono.Color", "palette")
    if isinstance(grid, str | bytes) or not isinstance(grid, Sequence) or not grid:
        raise InputError("expected a non-empty list of rows of palette indices", name)
    rows: list[tuple[int, ...]] = []
    for number, row in enumerate(grid, start=1):
        if isinstance(row, str | bytes) or not isinstance(row, Sequence):
            raise InputError(f"row {number}: expected palette indices, got {row!r}", name)
        for value in row:
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < colors:
                raise InputError(f"row {number}: {value!r} is not a palette index 0..{colors - 1}",
                                 name)  # fmt: skip
        rows.append(tuple(row))
    if len({len(row) for row in rows}) != 1 or not rows[0]:
        raise InputError("rows of different lengths (or empty): not a rectangular grid", name)
    return tuple(rows)


def _checked_partial(puzzle: Puzzle, partial: object) -> tuple[int, ...]:
    """Cell domains (one bit mask of palette colors per cell, row by row), checked."""
    cells = puzzle.width * puzzle.height
    full = (1 << len(puzzle.palette)) - 1
    if (
        isinstance(partial, str | bytes)
        or not isinstance(partial, Sequence)
        or len(partial) != cells
    ):
        raise InputError(f"expected {cells} cell domains (bit masks of colors)", "partial")
    for value in partial:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= full:
            raise InputError(f"{value!r} is not a cell domain 1..{full}", "partial")
    return tuple(partial)
