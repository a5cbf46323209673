"""Live displays on stderr: a solve's phase, cells left, solutions and elapsed time; a count's
or an analysis's elapsed time; the progress bars of batch and compare.

A solve's line is drawn only when stderr is a terminal, so pipes and scripts see exactly the
same bytes with or without it; rich refreshes it from its own thread while the search runs.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from satnono import Progress


def describe(progress: Progress) -> str:
    """One line saying where a solve, a count or an analysis is, e.g. for the live display or
    a Ctrl-C report: "counting, component 2 of 3, ..., at least 4096 solutions so far"."""
    phase = progress.phase
    parts = [phase]
    if phase in ("search", "enumerating", "counting") and progress.components > 1:
        parts[0] = f"{phase}, component {progress.component} of {progress.components}"
    if phase == "backbone" and progress.to_settle is not None:
        parts[0] = f"backbone, {progress.settled or 0} of {progress.to_settle} cells settled"
    if progress.cells_left is not None:
        parts.append(f"{progress.cells_left} of {progress.cells} cells left after line logic")
    if phase == "counting" and progress.swept:
        sweeping = "sweeping both ways" if progress.both_ways else "sweeping"
        parts.append(f"{sweeping}, {progress.swept} cells passed, {progress.states:,} states")
    elif phase == "counting" and progress.nodes:
        parts.append(f"{progress.nodes:,} nodes searched")
    noun = "solution" if progress.solutions == 1 else "solutions"
    if phase in ("enumerating", "counting"):
        parts.append(f"at least {progress.solutions} {noun} so far")
    else:
        parts.append(f"{progress.solutions} {noun}")
    parts.append(f"{time.perf_counter() - progress.started:.1f} s")
    return ", ".join(parts)


class _Line:
    """A renderable re-reading its text at each refresh, behind a spinner."""

    def __init__(self, text: Callable[[], str]) -> None:
        from rich.spinner import Spinner

        self.text = text
        self.spinner = Spinner("dots")

    def __rich__(self) -> Any:
        self.spinner.update(text=self.text())
        return self.spinner


class LiveLine:
    """The live line on stderr, if one is drawn; `paused()` takes it off the terminal while
    something is printed on stdout (a solution would otherwise start on the spinner's line)."""

    def __init__(self, live: Any = None) -> None:
        self._live = live

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        if self._live is None:
            yield
            return
        self._live.stop()
        try:
            yield
        finally:
            self._live.start()


@contextlib.contextmanager
def live_line(text: Callable[[], str], enabled: bool) -> Iterator[LiveLine]:
    """Show `text()` on stderr behind a spinner while the body runs, if enabled and stderr is
    a terminal (pipes and scripts see the same bytes either way)."""
    if not enabled or not sys.stderr.isatty():
        yield LiveLine()
        return
    from rich.console import Console
    from rich.live import Live

    console = Console(stderr=True)
    with Live(_Line(text), console=console, refresh_per_second=8, transient=True) as live:
        yield LiveLine(live)


@contextlib.contextmanager
def watched(within: Any, drawn: bool) -> Iterator[tuple[Progress, Any]]:
    """A count's or an analysis's Progress, drawn live (when `drawn`), while a first Ctrl-C
    cancels `within` (cli.process.ctrl_c_cancels): yields the Progress and the Ctrl-C event."""
    import satnono
    from satnono.cli.process import ctrl_c_cancels

    progress = satnono.Progress()
    with ctrl_c_cancels(within) as pressed, live_line(lambda: describe(progress), drawn):
        yield progress, pressed


@contextlib.contextmanager
def batch_bar(stderr_console: Any) -> Iterator[Callable[[Any, int, int], None]]:
    """A progress bar of verdicts so far, rate and time left; yields the on_row callback.
    Drawn only when stderr is a terminal (elsewhere rich would leave a blank line)."""
    from collections import Counter

    if not stderr_console.is_terminal:
        yield lambda *_: None
        return

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
    with Progress(*columns, console=stderr_console, transient=True) as bar:
        task = bar.add_task("batch", total=None, rate="")
        started = time.perf_counter()

        def on_row(row: Any, done: int, total: int) -> None:
            verdicts[row.status] += 1
            rate = done / max(time.perf_counter() - started, 1e-9)
            described = ", ".join(f"{n} {s}" for s, n in verdicts.most_common(4))
            bar.update(task, completed=done, total=total, description=described,
                       rate=f"{rate:.0f}/s")  # fmt: skip

        yield on_row


@contextlib.contextmanager
def _counting_bar(
    stderr_console: Any, total: int, description: str
) -> Iterator[Callable[[str], None] | None]:
    """A progress bar to `total`, drawn only when stderr is a terminal: yields a callback
    that advances it by one with a new description (None when not drawn)."""
    if not stderr_console.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=stderr_console, transient=True) as bar:
        task = bar.add_task(description, total=total)
        yield lambda described: bar.update(task, advance=1, description=described)


@contextlib.contextmanager
def compare_bar(stderr_console: Any, total: int) -> Iterator[Callable[[Any], None]]:
    """A progress bar over (puzzle, backend) runs; yields the callback for each finished run.
    Drawn only when stderr is a terminal."""
    with _counting_bar(stderr_console, total, "solving") as advance:
        if advance is None:
            yield lambda *_: None
            return
        yield lambda run: advance(f"{run.puzzle} / {run.backend}")


@contextlib.contextmanager
def tournament_bar(stderr_console: Any, total: int) -> Iterator[Callable[[Any], None]]:
    """A progress bar over a tournament's puzzles: answered so far, the last puzzle and its
    time; yields the callback for each finished puzzle. Drawn only when stderr is a terminal."""
    with _counting_bar(stderr_console, total, "tournament") as advance:
        if advance is None:
            yield lambda *_: None
            return
        answered = 0

        def done(entry: Any) -> None:
            nonlocal answered
            answered += entry.answered
            advance(f"{answered} answered; ${entry.number} {entry.seconds:.2f} s")

        yield done
