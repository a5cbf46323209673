"""A tournament run: a question file's puzzles solved in order, one at a time, as the
computer-olympiad tournaments run programs (one core, any one solution counts); the answer file
and a per-puzzle time log are written as the run goes, so a run stopped part-way keeps them.

Every answer is a solution verified against the clues (satnono.solve verifies each one); a
puzzle without one (timeout, or proven unsolvable) gets no answer and says why in the log.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from satnono.calls import solve
from satnono.core.model import Puzzle
from satnono.errors import InputError
from satnono.formats.tournament import puzzle_number, write_answers

#: The log's columns (tab-separated, one line per puzzle, then a summary line).
LOG_HEADER = "puzzle\tseconds\tcpu_seconds\tstatus\tsolver"


@dataclass(frozen=True)
class Entry:
    """One puzzle of the run: its number, wall and CPU seconds (this process and the solver
    processes it waited for), the verdict and who found the answer (None: no answer)."""

    number: str
    seconds: float
    cpu_seconds: float
    status: str
    solver: str | None
    answered: bool


@dataclass(frozen=True)
class Tournament:
    entries: tuple[Entry, ...]
    seconds: float
    cpu_seconds: float
    #: The run's puzzles (more than `entries` when it was interrupted part-way).
    puzzles: int = 0
    interrupted: bool = False

    @property
    def answered(self) -> int:
        return sum(entry.answered for entry in self.entries)

    def summary(self) -> str:
        slowest = max(self.entries, key=lambda entry: entry.seconds, default=None)
        text = (
            f"solved {self.answered}/{len(self.entries)} in {self.seconds:.1f} s "
            f"(CPU {self.cpu_seconds:.1f} s)"
        )
        if slowest is not None:
            text += f"; slowest ${slowest.number}, {slowest.seconds:.2f} s"
        if self.interrupted:
            text = f"interrupted after {len(self.entries)} of {self.puzzles} puzzles: {text}"
        return text


def _cpu() -> float:
    """CPU seconds of this process and of the children it has waited for."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _opened(path: Path | None, stack: ExitStack) -> IO[str] | None:
    if path is None:
        return None
    try:
        return stack.enter_context(path.open("w", encoding="utf-8"))
    except OSError as error:
        raise InputError(f"cannot write: {error.strerror or error}", path) from None


def run_tournament(
    puzzles: Sequence[Puzzle],
    answers: Path | None = None,
    log: Path | None = None,
    timeout: float | None = None,
    backend: str | None = None,
    on_entry: Callable[[Entry], None] | None = None,
) -> Tournament:
    """Solve `puzzles` in order, each within `timeout` seconds, for one solution; write each
    answer to `answers` (the tournament answer format) and each puzzle's times to `log` as
    soon as it is done. `on_entry` sees every entry (for a progress display). A Ctrl-C ends
    the run with the puzzles done so far (`interrupted`), the log closed by its summary."""
    entries: list[Entry] = []
    started, cpu_started = time.perf_counter(), _cpu()
    with ExitStack() as stack:
        answer_file = _opened(answers, stack)
        log_file = _opened(log, stack)
        if log_file is not None:
            log_file.write(LOG_HEADER + "\n")
        interrupted = False
        try:
            for entry, grid in _solved(puzzles, timeout, backend):
                entries.append(entry)
                if answer_file is not None and grid is not None:
                    answer_file.write(write_answers([(entry.number, grid)]))
                    answer_file.flush()
                if log_file is not None:
                    log_file.write(
                        f"{entry.number}\t{entry.seconds:.4f}\t{entry.cpu_seconds:.4f}\t"
                        f"{entry.status}\t{entry.solver or ''}\n"
                    )
                    log_file.flush()
                if on_entry is not None:
                    on_entry(entry)
        except KeyboardInterrupt:  # a Ctrl-C: the run so far is the answer, said as such
            interrupted = True
        run = Tournament(
            tuple(entries), time.perf_counter() - started, _cpu() - cpu_started,
            len(puzzles), interrupted,
        )  # fmt: skip
        if log_file is not None:
            log_file.write(f"# {run.summary()}\n")
    return run


def _solved(
    puzzles: Sequence[Puzzle], timeout: float | None, backend: str | None
) -> Iterator[tuple[Entry, tuple[tuple[int, ...], ...] | None]]:
    for position, puzzle in enumerate(puzzles, start=1):
        wall, cpu = time.perf_counter(), _cpu()
        result = solve(puzzle, backend, max_solutions=1, timeout=timeout)
        grid = result.grids[0] if result.grids else None
        entry = Entry(
            puzzle_number(puzzle, position), time.perf_counter() - wall, _cpu() - cpu,
            str(result.status), result.solver, grid is not None,
        )  # fmt: skip
        yield entry, grid
