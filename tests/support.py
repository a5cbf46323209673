"""Shared test helpers: brute-force references and hypothesis strategies."""

from __future__ import annotations

import importlib.util
import itertools
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import strategies as st

from satnono.backends import Residual, SearchOptions, SearchReport, SearchTask, load_backend
from satnono.core.grids import domains_to_grid, initial_domains
from satnono.core.model import (
    BLACK_AND_WHITE,
    BLOTTED,
    Block,
    Color,
    Grid,
    LineContradiction,
    Puzzle,
)
from satnono.core.verify import matches, problems, runs
from satnono.encode.formula import CnfFormula
from satnono.errors import InputError
from satnono.formats.generate import puzzle_from_grid
from satnono.reference.propagate import Propagator
from satnono.runtime.deadline import Deadline

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "puzzles"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
#: The count of thin-20020 (`thin_20020()`, 6 x 137), confirmed by the transfer matrix of
#: tools/transfer_count.py (BENCHMARKS.md, issue 40 round 14).
THIN_20020 = 1_880_913_904_723_420_442_188
#: The CLI in a process of its own (the installed entry point may belong to another checkout).
SATNONO = [sys.executable, "-c", "from satnono.cli import main; main()"]

#: drat-trim (marijnheule/drat-trim, built in a scratch folder): on the PATH or named by
#: $SATNONO_DRAT_TRIM; the cross-checks skip without it.
DRAT_TRIM = Path(os.environ.get("SATNONO_DRAT_TRIM") or shutil.which("drat-trim") or "/absent")

PALETTES = {
    2: BLACK_AND_WHITE,
    3: (BLACK_AND_WHITE[0], Color("red", "r", "#ff0000"), Color("blue", "b", "#0000ff")),
    4: (
        BLACK_AND_WHITE[0],
        Color("red", "r", "#ff0000"),
        Color("blue", "b", "#0000ff"),
        Color("green", "g", "#00ff00"),
    ),
}


#: A line to solve: its clue, its cells' domains, the palette's size (background included).
LineCase = tuple[tuple[Block, ...], tuple[int, ...], int]


@st.composite
def line_cases(draw: st.DrawFn, max_length: int = 9, blotted: bool = True) -> LineCase:
    """A clue read off a random line (some numbers blotted), and random partial domains
    (often inconsistent)."""
    colors = draw(st.integers(2, 4))
    length = draw(st.integers(1, max_length))
    line = draw(st.lists(st.integers(0, colors - 1), min_size=length, max_size=length))
    clue = tuple(
        Block(BLOTTED if blotted and draw(st.integers(0, 3)) == 0 else n, c) for n, c in runs(line)
    )
    full = (1 << colors) - 1
    domains = tuple(draw(st.one_of(st.just(full), st.integers(1, full))) for _ in range(length))
    return clue, domains, colors


def arrangements(clue: tuple[Block, ...], length: int, colors: int) -> list[tuple[int, ...]]:
    """Every coloring of a line that matches the clue, by exhaustive enumeration."""
    want = [(b.length, b.color) for b in clue]
    return [line for line in itertools.product(range(colors), repeat=length) if runs(line) == want]


def brute_force_line(
    clue: tuple[Block, ...], domains: tuple[int, ...], colors: int
) -> tuple[int, ...] | None:
    """Every coloring the domains allow, kept where it matches the clue: the union of the kept
    ones' colors, cell by cell (None: none kept)."""
    want = [(b.length, b.color) for b in clue]
    allowed = [[c for c in range(colors) if domain >> c & 1] for domain in domains]
    narrowed = [0] * len(domains)
    found = False
    for line in itertools.product(*allowed):
        if runs(line) == want:
            found = True
            for i, c in enumerate(line):
                narrowed[i] |= 1 << c
    return tuple(narrowed) if found else None


def brute_force_solutions(puzzle: Puzzle) -> set[Grid]:
    """All solutions: the rows' arrangements taken row by row, a partial grid dropped once a
    column's runs so far cannot begin its clue, every whole grid filtered by the column
    clues. (The plain product of the rows' arrangements took seconds on loose 6x6 clues.)"""
    colors = len(puzzle.palette)
    row_options = [arrangements(clue, puzzle.width, colors) for clue in puzzle.rows]
    wanted = [[(b.length, b.color) for b in clue] for clue in puzzle.columns]
    found: set[Grid] = set()

    def begins(cells: list[int], clue: list[tuple[int, int]]) -> bool:
        got = runs(cells)
        if not got:
            return True
        if len(got) > len(clue) or got[:-1] != clue[: len(got) - 1]:
            return False
        (length, color), (most, wanted_color) = got[-1], clue[len(got) - 1]
        closed = cells[-1] == 0  # the last run has ended: it must be whole
        return color == wanted_color and (length == most if closed else length <= most)

    def extend(rows: list[tuple[int, ...]]) -> None:
        if len(rows) == puzzle.height:
            if all(runs([row[c] for row in rows]) == wanted[c] for c in range(puzzle.width)):
                found.add(tuple(rows))
            return
        for option in row_options[len(rows)]:
            grown = [*rows, option]
            if all(begins([row[c] for row in grown], wanted[c]) for c in range(puzzle.width)):
                extend(grown)

    extend([])
    return found


def brute_force_colors(puzzle: Puzzle) -> list[int] | None:
    """Every color each cell takes over all solutions (brute force), as a bitmask per cell in
    row-major order; None without any solution."""
    solutions = brute_force_solutions(puzzle)
    if not solutions:
        return None
    union = [0] * (puzzle.width * puzzle.height)
    for grid in solutions:
        for cell, color in enumerate(color for row in grid for color in row):
            union[cell] |= 1 << color
    return union


@st.composite
def grids(
    draw: st.DrawFn, max_width: int = 5, max_height: int = 5, max_colors: int = 3
) -> tuple[Grid, int]:
    colors = draw(st.integers(2, max_colors))
    width = draw(st.integers(1, max_width))
    height = draw(st.integers(1, max_height))
    cells = draw(
        st.lists(
            st.lists(st.integers(0, colors - 1), min_size=width, max_size=width),
            min_size=height,
            max_size=height,
        )
    )
    return tuple(tuple(row) for row in cells), colors


@st.composite
def puzzles(
    draw: st.DrawFn, max_width: int = 5, max_height: int = 5, max_colors: int = 3
) -> Puzzle:
    """A puzzle made from a random grid; sometimes one clue is altered so it may be unsolvable."""
    grid, colors = draw(grids(max_width, max_height, max_colors))
    puzzle = puzzle_from_grid(grid, PALETTES[colors], keep_goal=False)
    if draw(st.booleans()) and draw(st.integers(0, 3)) == 0:
        row = draw(st.integers(0, puzzle.height - 1))
        clue = list(puzzle.rows[row])
        if clue:
            i = draw(st.integers(0, len(clue) - 1))
            clue[i] = Block(max(1, clue[i].length + draw(st.sampled_from([-1, 1]))), clue[i].color)
            rows = list(puzzle.rows)
            rows[row] = tuple(clue)
            puzzle = Puzzle(
                puzzle.width, puzzle.height, tuple(rows), puzzle.columns, puzzle.palette
            )
    return puzzle


def _is_resource_tracker(pid: str) -> bool:
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"multiprocessing.resource_tracker" in command


def children(pid: int | None = None) -> list[int]:
    """Processes whose parent is `pid` (default: this one), zombies included; but not
    multiprocessing's resource tracker, which Python starts once per process (a Dask
    LocalCluster spawns its workers) and which ends with it: it is not a leaked solver."""
    pid = os.getpid() if pid is None else pid
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # Fields after the command name (which may hold spaces and parentheses).
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and not _is_resource_tracker(entry):
            found.append(int(entry))
    return found


def group_cpu(group: int) -> float:
    """CPU seconds the live processes of process group `group` have used (Linux's /proc)."""
    ticks = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def _writes_to_a_full_pipe(pid: int) -> bool:
    """Whether a thread of process `pid` waits to write to a full pipe."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for thread in threads:
        try:
            if Path(f"/proc/{pid}/task/{thread}/wchan").read_text().endswith("pipe_write"):
                return True
        except OSError:
            continue
    return False


def wait_busy(group: int, cpu: float, most: float = 10.0) -> None:
    """Wait until process group `group` has used `cpu` more CPU seconds (past its start-up,
    into its work), or a thread of its leader waits to write to a full pipe (its output
    unread: well into its work), or `most` seconds have passed. A fixed sleep waited seconds
    longer on a quiet machine and could come too soon on a loaded one."""
    start, ends = group_cpu(group), time.monotonic() + most
    while group_cpu(group) - start < cpu and time.monotonic() < ends:
        if _writes_to_a_full_pipe(group):
            return
        time.sleep(0.05)


def default_ctrl_c() -> None:
    """For `preexec_fn`: SIGINT as a terminal leaves it (a test run in the background inherits
    it ignored), so that a Ctrl-C sent to the child's group reaches it."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_satnono(
    *args: str, timeout: float = 120, **kwargs: object
) -> subprocess.CompletedProcess[str]:
    """Run the CLI in a process of its own, capturing text output; never raises on exit codes."""
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        [*SATNONO, *args], capture_output=True, text=True, timeout=timeout, check=False, **kwargs
    )


def in_terminal(
    argv: list[str], steps: list[tuple[float, int | None]], columns: int = 250
) -> tuple[int, str]:
    """The CLI in a pseudo-terminal `columns` wide: for each step, read its output for the
    seconds given, then send the signal given (None: none); then read until it ends (at
    most 10 s more). Its exit code and everything it wrote (stdout and stderr together)."""
    import fcntl
    import pty
    import select
    import signal
    import struct
    import termios

    pid, fd = pty.fork()
    if pid == 0:  # the child: satnono in the terminal
        os.environ.update(COLUMNS=str(columns), LINES="80")
        default_ctrl_c()  # else a test run in the background sends its Ctrl-C to no one
        os.execv(SATNONO[0], [*SATNONO, *argv])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 80, columns, 0, 0))
    out = bytearray()

    def read(seconds: float) -> bool:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if select.select([fd], [], [], 0.02)[0]:
                try:
                    out.extend(os.read(fd, 65536))
                except OSError:  # the child has gone
                    return False
        return True

    for seconds, sent in [*steps, (10.0, None)]:
        if not read(seconds):
            break
        if sent is not None:
            os.kill(pid, sent)
    else:  # still running 10 s after the last step: killed, so the test fails, never hangs
        os.kill(pid, signal.SIGKILL)  # (waiting instead would wait on a full terminal)
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode(errors="replace")


TOOLS = Path(__file__).resolve().parent.parent / "tools"


def load_tool(name: str) -> ModuleType:
    """A dev tool of tools/ (not part of the package) imported as a module, for its tests."""
    if name in sys.modules:
        return sys.modules[name]
    if str(TOOLS) not in sys.path:  # the tools import each other, as when run as scripts
        sys.path.insert(0, str(TOOLS))
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def backend_solutions(
    backend: str, puzzle: Puzzle, options: SearchOptions | None = None
) -> tuple[list[Grid], SearchReport]:
    """Every solution a backend reports when it gets the whole grid as one search, with its
    report. (The pipeline splits independent regions apart and sends small residuals to the
    classic search; this reaches the backend itself, whatever the puzzle.)"""
    found: list[Grid] = []

    def keep(decided: list[int]) -> bool:
        found.append(domains_to_grid(puzzle, decided))
        return True

    residual = Residual(puzzle, Propagator(puzzle), tuple(initial_domains(puzzle)))
    report = load_backend(backend).search(
        SearchTask(residual, options or SearchOptions(), Deadline(None), keep)
    )
    return found, report


def thin_20020() -> Puzzle:
    """The fresh thin set's board of seed 20020 (tools/generate.py, blotted 0.2), 6 x 137, with
    THIN_20020 solutions: a sweep of 0.2-1.3 s, whichever way it goes."""
    board: Puzzle = load_tool("generate").thin_board(20020, 0.2)
    return board


def long_listing() -> Puzzle:
    """A random 30x30 of density 0.45 (seed 6100008) with more solutions than the engine lists
    in 20 s on both cores of an idle machine (122,737 by then): a listing that is still running
    when a test stops it. (Seed 6000010's 4,704 solutions, listed in 16 s on one core when it
    was chosen, took 5.5 s on eight thread workers on 2026-11-30, and a 4 s timeout only just
    stopped them first: once it did not.)"""
    import random

    from satnono.formats.generate import random_grid

    return puzzle_from_grid(random_grid(30, 30, 2, 0.45, random.Random(6100008)))


def every_grid(puzzle: Puzzle) -> set[Grid]:
    """Every grid of the puzzle's size that the independent checker accepts (blotted numbers
    included: the oracle of last resort). Each row is drawn from the fillings of its length
    whose runs match its clue (the checker's own test), and each grid so made is checked whole:
    a 4x4 board tries a few dozen grids rather than 65,536, and no grid is left out, since a
    grid the checker accepts has every row matching."""
    colors = range(len(puzzle.palette))
    fillings = list(itertools.product(colors, repeat=puzzle.width))
    choices = [[f for f in fillings if matches(runs(f), clue)] for clue in puzzle.rows]
    return {grid for grid in itertools.product(*choices) if not problems(puzzle, grid)}


@st.composite
def blotted_puzzles(draw: st.DrawFn) -> Puzzle:
    """A small puzzle made from a random grid, some of its numbers blotted."""
    colors = draw(st.sampled_from([2, 3]))
    side = 4 if colors == 2 else 3
    width, height = draw(st.integers(1, side)), draw(st.integers(1, side))
    cells = draw(st.lists(st.integers(0, colors - 1), min_size=width * height,
                          max_size=width * height))  # fmt: skip
    grid = tuple(tuple(cells[r * width : (r + 1) * width]) for r in range(height))
    palette = PALETTES[colors]
    puzzle = puzzle_from_grid(grid, palette, keep_goal=False)
    hide = draw(st.lists(st.booleans(), min_size=64, max_size=64))
    flags = iter(hide)

    def blot(clue: tuple[Block, ...]) -> tuple[Block, ...]:
        return tuple(Block(BLOTTED, b.color) if next(flags) else b for b in clue)

    return Puzzle(width, height, tuple(map(blot, puzzle.rows)),
                  tuple(map(blot, puzzle.columns)), palette)  # fmt: skip


def assume_a_few_cells(
    data: st.DataObject, formula: CnfFormula, propagator: Propagator, domains: list[int]
) -> tuple[list[int], list[int] | None]:
    """Up to three residual cells of `formula` assumed to take a color (drawn, not necessarily
    a solution's): the assumptions as literals, and what Python line logic makes of them (the
    domains it reaches, None on a contradiction), for comparing propagation on the CNF."""
    cells = sorted(formula.cell_literals)
    chosen = data.draw(st.lists(st.sampled_from(cells), max_size=3, unique=True))
    assumptions = []
    assumed = list(domains)
    for cell in chosen:
        color, literal = data.draw(st.sampled_from(formula.cell_literals[cell]))
        assumptions.append(literal)
        assumed[cell] = 1 << color
    try:
        propagator.propagate(assumed)
    except LineContradiction:
        return assumptions, None
    return assumptions, assumed


def refusal(parse: Callable[[str], object], text: str) -> InputError:
    """The InputError `parse` raises on `text` (the test fails when it raises none)."""
    with pytest.raises(InputError) as caught:
        parse(text)
    return caught.value
