"""satnono: a nonogram solver built on exact line propagation, SAT and constraint programming.

The public API (docs/api.md): read a puzzle, solve, stream, count, analyze, sample, render.

    >>> import satnono
    >>> puzzle = satnono.Puzzle.from_clues(rows=[[1], [1, 1], [1]], columns=[[1], [1, 1], [1]])
    >>> result = satnono.solve(puzzle)
    >>> result.status, result.solutions
    ('unique', [['.#.', '#.#', '.#.']])

Every function checks its arguments before any work and raises `InputError` (a ValueError)
with the one-line message the CLI prints; every solution it returns has been verified against
the clues; no thread or process it starts outlives the call. Heavy modules (the backends,
OR-tools, the model counters) are imported by the calls that need them, so `import satnono`
costs no more than the CLI's start-up.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from satnono.errors import Contradiction, InputError
from satnono.model import Block, Color, Grid, Puzzle
from satnono.runtime.deadline import Deadline

if TYPE_CHECKING:
    from satnono.analysis import Analysis
    from satnono.sampling import SampleRun
    from satnono.solutions import CountResult, Progress, SolveResult
    from satnono.streaming import SolveHandle

from satnono.version import __version__ as __version__

__all__ = [
    "Analysis",
    "Block",
    "Color",
    "Contradiction",
    "CountResult",
    "InputError",
    "Progress",
    "Puzzle",
    "SampleRun",
    "SolveHandle",
    "SolveResult",
    "analyze",
    "available_backends",
    "count",
    "iter_samples",
    "iter_solutions",
    "read_puzzle",
    "read_puzzles",
    "render",
    "sample",
    "solve",
    "start_solve",
    "write_puzzles",
]

T = TypeVar("T")

#: Search options a backend may honour, passed to solve() and friends as keywords.
_OPTIONS = ("solver", "threads", "seed", "encoding")


def read_puzzles(source: str | os.PathLike[str], format: str | None = None) -> list[Puzzle]:
    """Every puzzle of a file, of `webpbn:ID` (fetched once, then cached), or of the puzzle
    text itself (a string with a line break); `format` overrides detection by suffix and content.
    """
    from satnono.formats import parse_text
    from satnono.formats import read_puzzles as read_file

    if isinstance(source, str) and "\n" in source:
        return parse_text(source, "<text>", format)
    return read_file(_fetched(source), format)


def read_puzzle(
    source: str | os.PathLike[str],
    format: str | None = None,
    index: int = 1,
) -> Puzzle:
    """Puzzle number `index` (from 1) of `source`, as in `read_puzzles`."""
    puzzles = read_puzzles(source, format)
    if not 1 <= index <= len(puzzles):
        where = "<text>" if isinstance(source, str) and "\n" in source else str(source)
        raise InputError(f"puzzle {index} asked for, the file holds {len(puzzles)}", where)
    return puzzles[index - 1]


def write_puzzles(
    puzzles: Sequence[Puzzle],
    path: str | os.PathLike[str],
    format: str | None = None,
) -> None:
    """Write puzzles to a file; the suffix (or `format`) picks the format."""
    from satnono.formats import write_puzzles as write_file

    write_file(puzzles, Path(path), format)


def available_backends() -> list[str]:
    """The backends installed here (their dependencies importable), for `backend=`."""
    from satnono.backends import installed_backends

    return installed_backends()


def solve(
    puzzle: Puzzle,
    backend: str | None = None,
    max_solutions: int = 2,
    timeout: float | None = None,
    *,
    on_solution: Callable[[Grid], bool | None] | None = None,
    progress: Progress | None = None,
    keep: int | None = None,
    **options: Any,
) -> SolveResult:
    """Solve: up to `max_solutions` verified solutions (0 = all; 2 tells unique from not).

    `backend` is one of `available_backends()` (default: the portfolio on two or more
    cores, else sat); `options` are the search knobs solver, threads, seed and encoding (as
    the CLI's flags). `.status` is unique, multiple, solved, unsolvable or timeout;
    `.solutions` are row strings. `on_solution(grid)` sees each verified solution as it is
    found (return False to stop); `progress` (a satnono.solutions.Progress) is kept current
    for a live display; `keep` caps the solutions kept in the result (None = all found).
    """
    from satnono.solutions import solve as run

    chosen, checked = _checked(puzzle, backend, max_solutions, timeout, options)
    deadline = Deadline(timeout)
    return _off_main_thread(
        lambda: run(
            puzzle, backend=chosen, limit=max_solutions, options=checked, keep=keep,
            on_solution=on_solution, progress=progress, deadline=deadline,
        ),
        deadline,
    )  # fmt: skip


def iter_solutions(
    puzzle: Puzzle,
    backend: str | None = None,
    max_solutions: int = 0,
    timeout: float | None = None,
    **options: Any,
) -> Iterator[list[str]]:
    """Each verified solution (row strings) as soon as it is found; 0 = all of them.

    The search runs in a thread of this call; closing the iterator early (`break`) cancels
    it and waits for it, so nothing is left running.
    """
    with start_solve(puzzle, backend, max_solutions, timeout, keep=0, **options) as handle:
        for grid in handle.solutions():
            yield puzzle.grid_rows(grid)
        handle.result()  # raises what the solve raised


def start_solve(
    puzzle: Puzzle,
    backend: str | None = None,
    max_solutions: int = 2,
    timeout: float | None = None,
    *,
    stream: bool = True,
    on_solution: Callable[[Grid], bool | None] | None = None,
    keep: int | None = None,
    **options: Any,
) -> SolveHandle:
    """Start a solve in the background and return its handle (satnono.streaming.SolveHandle):
    `.progress` kept current, `.solutions()` as they are found, `.cancel()`, `.result()`.

    Arguments as for `solve`, checked before the solve starts. With `stream` False no
    solution is queued for `.solutions()` (use `on_solution`, called in the solve's thread);
    `keep` caps the solutions kept in the result.
    """
    import functools

    from satnono.solutions import solve as run
    from satnono.streaming import SolveHandle

    chosen, checked = _checked(puzzle, backend, max_solutions, timeout, options)
    work = functools.partial(
        run, puzzle, backend=chosen, limit=max_solutions, options=checked, keep=keep
    )
    return SolveHandle(work, puzzle, Deadline(timeout), stream, on_solution)


def count(
    puzzle: Puzzle,
    timeout: float | None = None,
    *,
    limit: int = 0,
    approximate: bool = False,
    epsilon: float | None = None,
    delta: float | None = None,
    backend: str | None = None,
    **options: Any,
) -> CountResult:
    """The number of solutions, exact unless `.exact` is False (then a lower bound).

    `approximate` races ApproxMC too: where no exact count finishes, `.estimate` holds an
    estimate within a factor 1+epsilon of the truth with probability at least 1-delta.
    """
    from satnono.solutions import count as run

    approximation = _approximation(approximate, epsilon, delta)
    if limit < 0:
        raise InputError(f"the limit must be 0 (none) or more, not {limit}", "--limit")
    chosen, checked = _checked(puzzle, backend, 0, timeout, options)
    deadline = Deadline(timeout)
    return _off_main_thread(
        lambda: run(
            puzzle, backend=chosen, limit=limit, options=checked, approximation=approximation,
            deadline=deadline,
        ),
        deadline,
    )  # fmt: skip


def analyze(
    puzzle: Puzzle,
    timeout: float | None = None,
    *,
    max_solutions: int = 2,
    exact_count: bool = False,
    backend: str | None = None,
) -> Analysis:
    """How hard the puzzle is for a person, whether it is unique, and every ambiguous cell."""
    from satnono.analysis import analyze as run

    if max_solutions == 1:
        raise InputError("1 cannot tell unique from ambiguous: use 2 or more", "--max-solutions")
    chosen, _ = _checked(puzzle, backend, max_solutions, timeout, {})
    deadline = Deadline(timeout)
    return _off_main_thread(
        lambda: run(
            puzzle, max_solutions=max_solutions, exact_count=exact_count, backend=chosen,
            deadline=deadline,
        ),
        deadline,
    )  # fmt: skip


def sample(
    puzzle: Puzzle,
    n: int,
    seed: int = 0,
    sampler: str = "cmsgen",
    timeout: float | None = None,
) -> list[list[str]]:
    """`n` random verified solutions (row strings): exactly uniform over components with up
    to 1000 solutions, by `sampler` (cmsgen or unigen, see the README) beyond."""
    from satnono.runtime.deadline import Timeout

    with iter_samples(puzzle, n, seed, sampler, timeout) as drawing:
        drawn = [puzzle.grid_rows(grid) for grid in drawing]
    if drawing.status == "unsolvable":
        raise Contradiction(drawing.reason or "no grid fits the clues")
    if drawing.status == "timeout":
        raise Timeout
    return drawn


def iter_samples(
    puzzle: Puzzle,
    n: int,
    seed: int = 0,
    sampler: str = "cmsgen",
    timeout: float | None = None,
) -> SampleRun:
    """Draw `n` random verified solutions in the background, as `sample` does; iterate the
    returned satnono.sampling.SampleRun for the grids as they are drawn, then read its
    `status` (sampled, unsolvable, timeout), `reason`, `methods` and `guarantee`. Use it in a
    `with` block: leaving it stops the drawing."""
    from satnono.runtime.deadline import check_timeout
    from satnono.sampling import SAMPLERS, SampleRun

    if not isinstance(puzzle, Puzzle):
        raise InputError(f"expected a Puzzle, got {type(puzzle).__name__}", "puzzle")
    if sampler not in SAMPLERS:
        raise InputError(f"unknown sampler {sampler!r}; choose one of: {', '.join(SAMPLERS)}",
                         "--sampler")  # fmt: skip
    if n < 1:
        raise InputError(f"ask for at least one sample, not {n}", "-n")
    check_timeout(timeout)
    return SampleRun(puzzle, n, seed, sampler, Deadline(timeout))


def render(
    puzzle: Puzzle,
    solution: Sequence[str] | Grid | None,
    path: str | os.PathLike[str],
    caption: str | None = None,
) -> None:
    """Draw the puzzle with its clues, and the solution (row strings or a grid) if given,
    as SVG or PNG by the suffix of `path`. The solution is checked against the clues first."""
    from satnono.picture import write_picture
    from satnono.propagate import grid_to_domains
    from satnono.verify import problems

    domains = None
    if solution is not None:
        rows = list(solution)
        if rows and isinstance(rows[0], str):
            from satnono.contract import grid_of_rows

            grid: Grid = grid_of_rows(puzzle, [str(row) for row in rows], "solution")
        else:
            grid = tuple(tuple(row) for row in solution)  # type: ignore[arg-type]
        wrong = problems(puzzle, grid)
        if wrong:
            raise InputError(f"the solution does not fit the clues: {wrong[0]}", "solution")
        domains = grid_to_domains(grid)
    write_picture(puzzle, domains, Path(path), caption=caption or puzzle.title or None)


def _off_main_thread(work: Callable[[], T], deadline: Deadline) -> T:
    """Run a call's work off the main thread (a Ctrl-C there cancels `deadline`, see
    satnono.runtime.background); the watcher thread that stops solvers ends with the call."""
    from satnono.runtime.background import run_off_main_thread
    from satnono.runtime.stoppable import stop_watcher

    try:
        return run_off_main_thread(work, deadline.cancel, "satnono call")
    finally:
        stop_watcher()


def _fetched(source: str | os.PathLike[str]) -> Path:
    """`webpbn:ID` becomes the cached download; a path stays itself."""
    from satnono.fetch import resolve_puzzle_source

    return resolve_puzzle_source(os.fspath(source))


def _checked(
    puzzle: Puzzle,
    backend: str | None,
    max_solutions: int,
    timeout: float | None,
    options: dict[str, Any],
) -> tuple[str, Any]:
    """The backend and search options, checked before any work (even on an easy puzzle)."""
    from satnono.backends import DEFAULT_BACKEND, search_options
    from satnono.runtime.deadline import check_timeout

    if not isinstance(puzzle, Puzzle):
        raise InputError(f"expected a Puzzle, got {type(puzzle).__name__}", "puzzle")
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise InputError(f"unknown option {unknown[0]!r}; choose from {', '.join(_OPTIONS)}",
                         "options")  # fmt: skip
    if max_solutions < 0:
        raise InputError(f"max_solutions must be 0 (all) or more, not {max_solutions}",
                         "--max-solutions")  # fmt: skip
    check_timeout(timeout)
    chosen = backend or DEFAULT_BACKEND
    return chosen, search_options(chosen, **options)


def _approximation(approximate: bool, epsilon: float | None, delta: float | None) -> Any:
    """The (epsilon, delta) guarantee asked for, checked; None without `approximate`."""
    from satnono.counting import Approximation

    if not approximate:
        for name, value in (("--epsilon", epsilon), ("--delta", delta)):
            if value is not None:
                raise InputError("only an estimate has a tolerance: add --approx", name)
        return None
    default = Approximation()
    epsilon = default.epsilon if epsilon is None else epsilon
    delta = default.delta if delta is None else delta
    # Written as "not (a < x < b)" so that NaN is refused too.
    if not 0 < epsilon < float("inf"):
        raise InputError(f"the tolerance must be a positive number, not {epsilon}", "--epsilon")
    if not 0 < delta < 1:
        raise InputError(f"the failure probability must be in (0, 1), not {delta}", "--delta")
    return Approximation(epsilon, delta)


#: Result types, importable from here at run time but loaded only on first use: their modules
#: pull in the pipeline, which `import satnono` alone should not pay for.
_LAZY_NAMES = {
    "Analysis": "satnono.analysis",
    "CountResult": "satnono.solutions",
    "Progress": "satnono.solutions",
    "SolveResult": "satnono.solutions",
    "SolveHandle": "satnono.streaming",
    "SampleRun": "satnono.sampling",
}


def __getattr__(name: str) -> Any:
    module = _LAZY_NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'satnono' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY_NAMES})
