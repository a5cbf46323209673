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
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from satnono.errors import Contradiction, InputError
from satnono.model import Block, Color, Grid, Puzzle

if TYPE_CHECKING:
    from satnono.analysis import Analysis
    from satnono.solutions import CountResult, Progress, SolveResult

__version__ = "0.1.0"

__all__ = [
    "Analysis",
    "Block",
    "Color",
    "Contradiction",
    "CountResult",
    "InputError",
    "Puzzle",
    "SolveResult",
    "analyze",
    "available_backends",
    "count",
    "iter_solutions",
    "read_puzzle",
    "read_puzzles",
    "render",
    "sample",
    "solve",
    "write_puzzles",
]

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
    with _Call():
        return run(
            puzzle, backend=chosen, limit=max_solutions, timeout=timeout, options=checked,
            keep=keep, on_solution=on_solution, progress=progress,
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
    import queue

    from satnono.deadline import Deadline
    from satnono.solutions import solve as run

    chosen, checked = _checked(puzzle, backend, max_solutions, timeout, options)
    deadline = Deadline(timeout)
    handed: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=1)
    closed = threading.Event()

    def hand(item: tuple[str, Any]) -> bool:
        while not closed.is_set():
            try:
                handed.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            run(
                puzzle, backend=chosen, limit=max_solutions, options=checked, keep=0,
                deadline=deadline, on_solution=lambda grid: hand(("grid", grid)),
            )  # fmt: skip
        except BaseException as error:  # handed to the consumer, raised there
            hand(("error", error))
        else:
            hand(("done", None))

    with _Call():
        worker = threading.Thread(target=produce, name="satnono solve", daemon=True)
        worker.start()
        try:
            while True:
                kind, value = handed.get()
                if kind == "grid":
                    yield puzzle.grid_rows(value)
                elif kind == "error":
                    raise value
                else:
                    return
        finally:
            closed.set()
            deadline.cancel()
            worker.join()


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
    with _Call():
        return run(
            puzzle, backend=chosen, limit=limit, timeout=timeout, options=checked,
            approximation=approximation,
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
    with _Call():
        return run(
            puzzle, max_solutions=max_solutions, exact_count=exact_count, timeout=timeout,
            backend=chosen,
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
    from satnono.deadline import Deadline, check_timeout
    from satnono.sampling import SAMPLERS, Sampling

    if sampler not in SAMPLERS:
        raise InputError(f"unknown sampler {sampler!r}; choose one of: {', '.join(SAMPLERS)}",
                         "--sampler")  # fmt: skip
    if n < 1:
        raise InputError(f"ask for at least one sample, not {n}", "-n")
    check_timeout(timeout)
    with _Call():
        drawn = Sampling(puzzle, n, seed=seed, sampler=sampler, deadline=Deadline(timeout))
        return [puzzle.grid_rows(grid) for grid in drawn]


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


class _Call:
    """Around each API call: the watcher thread that stops solvers ends with the call."""

    def __enter__(self) -> None:
        pass

    def __exit__(self, *_: object) -> None:
        from satnono.backends.stoppable import stop_watcher

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
    from satnono.deadline import check_timeout

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
