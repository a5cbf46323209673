"""The library's searching calls: arguments checked once, before any work; the work run off
the caller's main thread (so a Ctrl-C there cancels it cleanly, see satnono.runtime.background).

solve, start_solve and iter_solutions (solutions as found), count, analyze, sample and
iter_samples, and the residual CNF; re-exported by satnono/__init__.py.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from satnono.core import arguments
from satnono.core.extras import require
from satnono.core.model import Grid, Puzzle
from satnono.errors import InputError
from satnono.runtime.deadline import Deadline

if TYPE_CHECKING:
    from satnono.backends import SearchOptions
    from satnono.core.progress import Progress
    from satnono.encode.formula import CnfFormula
    from satnono.pipeline.analysis import Analysis
    from satnono.pipeline.hints import Hint, LineOnly
    from satnono.pipeline.sampling import SampleRun, Samples
    from satnono.pipeline.solutions import CountResult, SolveResult
    from satnono.pipeline.streaming import SolveHandle
    from satnono.proof.check import Checked

T = TypeVar("T")

#: Search options a backend may honour, passed to solve() and friends as keywords.
OPTIONS = ("solver", "threads", "seed", "encoding", "workers", "scheduler", "cubes")


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
    deadline: Deadline | None = None,
    proof: str | os.PathLike[str] | None = None,
    **options: Any,
) -> SolveResult:
    """Solve: up to `max_solutions` verified solutions (0 = all; 2 tells unique from not).

    `backend` is one of `available_backends()` (default: sat, the fastest single
    configuration; see BENCHMARKS.md); `options` are the search knobs solver, threads, seed,
    encoding, and workers, scheduler and cubes for the cubes backend (as the CLI's flags).
    `.status` is unique, multiple, solved, unsolvable or timeout; `.solutions` are row strings.
    `on_solution(grid)` sees each verified solution as it is found (return False to stop);
    `progress` (a satnono.Progress) is kept current for a live display; `keep` caps the
    solutions kept in the result (None = all found).
    `deadline` (a satnono.Deadline), when given, replaces `timeout`: a caller can cancel()
    it from another thread to stop the call within a fraction of a second (count and
    analyze take one too).
    `proof`, a folder: a unique, unsolvable or multiple verdict gets a certificate there
    (satnono.proof.certify; `.certificate` says what was written, `check_proof` checks it), made
    within the same deadline; a verdict that claims nothing checkable (solved, timeout) gets
    none, nor does one whose proof the deadline cut short (`.stats["certificate"]` says why).
    """
    from satnono.pipeline.solutions import solve as run

    chosen, checked = checked_arguments(puzzle, backend, max_solutions, options)
    keep, deadline = checked_hooks(on_solution, progress, keep, deadline, timeout)
    folder = None if proof is None else arguments.path(proof, "proof")
    if folder is not None:
        from satnono.proof.certify import check_folder

        check_folder(folder)
    first: list[Grid] = []  # a certificate of several solutions shows two of them

    def seen(grid: Grid) -> bool | None:
        if len(first) < 2:
            first.append(grid)
        return None if on_solution is None else on_solution(grid)

    # Line logic runs here; only a search goes off the main thread (a thread costs about a
    # tenth of a line-solvable puzzle's whole solve).
    result = run(
        puzzle, backend=chosen, limit=max_solutions, options=checked, keep=keep,
        on_solution=seen if folder is not None else on_solution, progress=progress,
        deadline=deadline, search_with=lambda phase: off_main_thread(phase, deadline),
    )  # fmt: skip
    return result if folder is None else _certified(result, tuple(first), folder, deadline)


def _certified(
    result: SolveResult, grids: tuple[Grid, ...], folder: str, deadline: Deadline
) -> SolveResult:
    """`result` with the certificate of its verdict written into `folder` (or why not)."""
    from dataclasses import replace

    from satnono.proof.certify import certify
    from satnono.proof.check import check_certificate
    from satnono.runtime.deadline import Timeout

    if result.status not in ("unique", "unsolvable", "multiple"):
        why = f"a {result.status} verdict claims nothing to certify"
        return replace(result, stats={**result.stats, "certificate": why})
    try:
        made = certify(result.puzzle, result.status, grids, folder, deadline)
    except Timeout:
        why = "the deadline passed before the proof was made"
        return replace(result, stats={**result.stats, "certificate": why})
    except InputError as error:  # too large, a full disk: the verdict stands without one
        return replace(result, stats={**result.stats, "certificate": str(error)})
    # Checked as anyone would check it, from the files: a certificate is handed out with
    # the checker's verdict, never on the maker's word.
    checked = check_certificate(folder, deadline.remaining())
    if checked.timed_out:
        made = replace(made, check_reason="not checked: the deadline passed first")
    else:
        made = replace(made, verified=checked.verified, check_reason=checked.reason,
                       check_seconds=checked.seconds)  # fmt: skip
    return replace(result, certificate=made)


def check_proof(folder: str | os.PathLike[str], timeout: float | None = None) -> Checked:
    """Check the certificate in `folder` (written by `solve(..., proof=folder)`), by
    satnono's independent checker: `.verified`, else `.reason` names the first failing step."""
    from satnono.proof.check import check_certificate

    return check_certificate(arguments.path(folder, "folder"), arguments.seconds(timeout))


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
    deadline: Deadline | None = None,
    **options: Any,
) -> SolveHandle:
    """Start a solve in the background and return its handle
    (satnono.pipeline.streaming.SolveHandle): `.progress` kept current, `.solutions()` as
    they are found, `.cancel()`, `.result()`.

    Arguments as for `solve`, checked before the solve starts. With `stream` False no
    solution is queued for `.solutions()` (use `on_solution`, called in the solve's thread);
    `keep` caps the solutions kept in the result.
    """
    import functools

    from satnono.pipeline.solutions import solve as run
    from satnono.pipeline.streaming import SolveHandle

    chosen, checked = checked_arguments(puzzle, backend, max_solutions, options)
    keep, deadline = checked_hooks(on_solution, None, keep, deadline, timeout)
    work = functools.partial(
        run, puzzle, backend=chosen, limit=max_solutions, options=checked, keep=keep
    )
    return SolveHandle(work, puzzle, deadline, arguments.flag(stream, "stream"), on_solution)


def count(
    puzzle: Puzzle,
    timeout: float | None = None,
    *,
    limit: int = 0,
    approximate: bool = False,
    epsilon: float | None = None,
    delta: float | None = None,
    backend: str | None = None,
    deadline: Deadline | None = None,
    progress: Progress | None = None,
    memory: int | None = None,
    **options: Any,
) -> CountResult:
    """The number of solutions, exact unless `.exact` is False (then a lower bound).

    `approximate` races ApproxMC too: where no exact count finishes, `.estimate` holds an
    estimate within a factor 1+epsilon of the truth with probability at least 1-delta.
    `progress` (a satnono.Progress) is kept current: the phase, the component counted, and
    the count so far (`solutions`, a lower bound). `memory` (megabytes, default 2048) bounds
    what the engine's count keeps: its store of sub-counts and its lines' analyses (an
    eighth, at most 256 MB) are emptied when full (the count goes on, slower), and a sweep
    that would pass it gives way to the search; each counter beside it (Ganak, ApproxMC) in
    its child as much again, at least 64 MB (past it the counter drops out).
    """
    from satnono.pipeline.solutions import count as run

    approximation = approximation_of(approximate, epsilon, delta)
    limit = arguments.whole_number(limit, "limit")
    megabytes = None if memory is None else arguments.whole_number(memory, "memory", 16, 2**20)
    chosen, checked = checked_arguments(puzzle, backend, 0, options)
    _, deadline = checked_hooks(None, progress, None, deadline, timeout)
    return off_main_thread(
        lambda: run(
            puzzle, backend=chosen, limit=limit, options=checked, approximation=approximation,
            deadline=deadline, progress=progress,
            memory=None if megabytes is None else megabytes << 20,
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
    deadline: Deadline | None = None,
    progress: Progress | None = None,
) -> Analysis:
    """How hard the puzzle is for a person, whether it is unique, and every ambiguous cell.
    `progress` (a satnono.Progress) follows it: the phase, the solutions found, the backbone's
    cells settled."""
    from satnono.pipeline.analysis import analyze as run

    chosen, _ = checked_arguments(puzzle, backend, max_solutions, {})
    if max_solutions == 1:
        raise InputError("1 cannot tell unique from ambiguous: use 2 or more", "max_solutions")
    exact_count = arguments.flag(exact_count, "exact_count")
    _, deadline = checked_hooks(None, progress, None, deadline, timeout)
    return off_main_thread(
        lambda: run(
            puzzle, max_solutions=max_solutions, exact_count=exact_count, backend=chosen,
            deadline=deadline, progress=progress,
        ),
        deadline,
    )  # fmt: skip


def sample(
    puzzle: Puzzle,
    n: int,
    seed: int = 0,
    sampler: str = "cmsgen",
    timeout: float | None = None,
) -> Samples:
    """`n` random verified solutions (row strings): exactly uniform wherever the engine counts
    the puzzle exactly (or lists every solution); else exactly uniform over components with up
    to 1000 solutions, by `sampler` (cmsgen or unigen, see docs/cli.md) beyond.

    A list of the samples drawn, which also says how the drawing ended, as solve does:
    `.status` is "sampled", "unsolvable" (no sample; `.reason` says why) or "timeout" (the
    samples drawn before it); `.guarantee` is what the samples promise, in words.
    """
    from satnono.pipeline.sampling import Samples

    with iter_samples(puzzle, n, seed, sampler, timeout) as drawing:
        drawn = [puzzle.grid_rows(grid) for grid in drawing]
    return Samples(drawn, drawing.status, drawing.reason, drawing.guarantee)


def iter_samples(
    puzzle: Puzzle,
    n: int,
    seed: int = 0,
    sampler: str = "cmsgen",
    timeout: float | None = None,
) -> SampleRun:
    """Draw `n` random verified solutions in the background, as `sample` does; iterate the
    returned satnono.pipeline.sampling.SampleRun for the grids as they are drawn, then read its
    `status` (sampled, unsolvable, timeout), `reason`, `methods` and `guarantee`. Use it in a
    `with` block: leaving it stops the drawing."""
    from satnono.pipeline.samplers import SAMPLERS
    from satnono.pipeline.sampling import SampleRun

    arguments.puzzle(puzzle)
    n = arguments.whole_number(n, "n", minimum=1)
    seed = arguments.whole_number(seed, "seed", -arguments.MAX_SEED - 1, arguments.MAX_SEED)
    if arguments.text(sampler, "sampler") not in SAMPLERS:
        raise InputError(f"unknown sampler {sampler!r}; choose one of: {', '.join(SAMPLERS)}",
                         "sampler")  # fmt: skip
    require(f"py{sampler}", "sampler")  # pycmsgen, pyunigen
    return SampleRun(puzzle, n, seed, sampler, Deadline(arguments.seconds(timeout)))


def residual_cnf(puzzle: Puzzle, encoding: str | None = None) -> tuple[str, CnfFormula | None]:
    """The DIMACS text of the puzzle's residual (what line logic leaves) in `encoding`
    (blocks by default; see encodings/), and its formula; (the reason, None) when line
    logic proves that no grid fits the clues."""
    from satnono.core.geometry import Geometry
    from satnono.core.grids import palette_domains
    from satnono.encode.cnf import check_encoding, encode_puzzle, variable_comments
    from satnono.pipeline.prepare import line_logic

    puzzle, encoding = arguments.puzzle(puzzle), check_encoding(encoding)
    domains = palette_domains(puzzle)
    reason, _ = line_logic(puzzle, domains)
    if reason is not None:
        return reason, None
    formula = encode_puzzle(Geometry(puzzle), domains, encoding=encoding)
    comments = variable_comments(puzzle, formula.encoding, formula.cell_literals)
    return formula.dimacs(comments), formula


def hint(
    puzzle: Puzzle,
    grid: Sequence[str] | str | os.PathLike[str] | None = None,
    timeout: float | None = None,
) -> Hint:
    """The next deduction a person can make from `grid` (row strings of palette characters,
    '?' for an open cell, or the file holding them a row a line; default: nothing filled in):
    the line, the cells it forces and why (satnono.pipeline.hints), or a probe's contradiction; kind
    "mistake" when the grid given breaks a line's clue, "stuck" when only a guess goes on,
    "solved" when the grid is complete."""
    from satnono.pipeline.hints import hint as next_step
    from satnono.pipeline.hints import partial_domains, read_partial

    puzzle = arguments.puzzle(puzzle)
    where = "grid"
    if isinstance(grid, (str, os.PathLike)):
        where = arguments.path(grid, "grid")
        grid = read_partial(where)
    elif grid is not None and not all(isinstance(row, str) for row in grid):
        raise InputError("expected row strings or a file", "grid")
    domains = partial_domains(puzzle, grid, where)
    deadline = Deadline(arguments.seconds(timeout))
    return off_main_thread(lambda: next_step(puzzle, domains, deadline), deadline)


def line_only(puzzle: Puzzle, timeout: float | None = None) -> LineOnly:
    """Solve without guessing: line logic, then probing; the grade ("line-solvable", "needs
    probing", "needs search", "no solution", or "unknown" when the timeout came first), what
    each decided, and the verified solution when they decide every cell."""
    from satnono.pipeline.hints import line_only as run

    puzzle = arguments.puzzle(puzzle)
    deadline = Deadline(arguments.seconds(timeout))
    return off_main_thread(lambda: run(puzzle, deadline), deadline)


def check_options(
    backend: str | None = None,
    solver: str | None = None,
    threads: int = 1,
    seed: int | None = None,
    encoding: str | None = None,
    timeout: float | None = None,
    workers: int | None = None,
    scheduler: str = "local",
    cubes: int | None = None,
) -> SearchOptions:
    """The search options (and timeout), checked: a typo fails before any file is read or
    any work is done."""
    from satnono.backends import DEFAULT_BACKEND, DEFAULT_SEED, search_options

    arguments.seconds(timeout)
    seed = DEFAULT_SEED if seed is None else seed
    return search_options(
        backend or DEFAULT_BACKEND, solver, threads, seed, encoding, workers, scheduler, cubes
    )


def choices() -> dict[str, list[str]]:
    """The names each choice parameter takes here: backend, solver, encoding, sampler,
    format and site (for shell completion and menus; the calls check against the same
    lists)."""
    from satnono.encode.cnf import ENCODINGS
    from satnono.formats import FORMATS
    from satnono.formats.sites import SITES
    from satnono.pipeline.samplers import SAMPLERS
    from satnono.runtime.solver_kinds import available_solvers

    return {
        "backend": available_backends(),
        "solver": available_solvers(),
        "encoding": list(ENCODINGS),
        "sampler": list(SAMPLERS),
        "format": list(FORMATS),
        "site": list(SITES),
    }


def backend_summaries() -> dict[str, str]:
    """Every backend satnono has (installed or not), with one line on what it does."""
    from satnono.backends import BACKENDS

    return {name: info.summary for name, info in BACKENDS.items()}


def off_main_thread(work: Callable[[], T], deadline: Deadline) -> T:
    """Run a call's work off the main thread (a Ctrl-C there cancels `deadline`, see
    satnono.runtime.background); the watcher thread that stops solvers ends with the call."""
    from satnono.runtime.background import run_off_main_thread
    from satnono.runtime.stoppable import stop_watcher

    try:
        return run_off_main_thread(work, deadline.cancel, "satnono call")
    finally:
        stop_watcher()


def checked_arguments(
    puzzle: Puzzle,
    backend: str | None,
    max_solutions: int,
    options: dict[str, Any],
) -> tuple[str, Any]:
    """The backend and search options, checked before any work (even on an easy puzzle); the
    timeout is checked with the hooks (checked_hooks), which make its deadline."""
    from satnono.backends import DEFAULT_BACKEND, search_options

    arguments.puzzle(puzzle)
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise InputError(f"unknown option {unknown[0]!r}; choose from {', '.join(OPTIONS)}",
                         "options")  # fmt: skip
    arguments.whole_number(max_solutions, "max_solutions")
    chosen = backend or DEFAULT_BACKEND
    return chosen, search_options(chosen, **options)


def checked_hooks(
    on_solution: object,
    progress: object,
    keep: object,
    deadline: object,
    timeout: float | None,
) -> tuple[int | None, Deadline]:
    """The optional hooks of a search call, checked; `keep` and the deadline to use."""
    from satnono.core.progress import Progress

    arguments.optional_callable(on_solution, "on_solution")
    arguments.instance_or_none(progress, Progress, "progress")
    arguments.instance_or_none(deadline, Deadline, "deadline")
    kept = None if keep is None else arguments.whole_number(keep, "keep")
    return kept, deadline if isinstance(deadline, Deadline) else Deadline(
        arguments.seconds(timeout)
    )


def approximation_of(approximate: bool, epsilon: float | None, delta: float | None) -> Any:
    """The (epsilon, delta) guarantee asked for, checked; None without `approximate`."""
    from satnono.pipeline.counting import Approximation

    if not arguments.flag(approximate, "approximate"):
        for name, value in (("epsilon", epsilon), ("delta", delta)):
            if value is not None:
                raise InputError("only an estimate (approximate) has a tolerance", name)
        return None
    require("pyapproxmc", "approximate")
    default = Approximation()
    epsilon = default.epsilon if epsilon is None else epsilon
    delta = default.delta if delta is None else delta
    return Approximation(
        arguments.probability(epsilon, "epsilon", below_one=False),
        arguments.probability(delta, "delta", below_one=True),
    )
