"""Live progress of a long solve on stderr: phase, cells left, solutions found, elapsed time.

It is drawn only when stderr is a terminal, so pipes and scripts see exactly the same bytes
with or without it; rich refreshes it from its own thread while the search runs.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from satnono.solutions import Progress


def describe(progress: Progress) -> str:
    """One line saying where the solve is, e.g. for the live display or a Ctrl-C report."""
    parts = [progress.phase]
    if progress.phase == "search" and progress.components > 1:
        parts[0] = f"search, component {progress.component} of {progress.components}"
    if progress.cells_left is not None:
        parts.append(f"{progress.cells_left} of {progress.cells} cells left after line logic")
    noun = "solution" if progress.solutions == 1 else "solutions"
    parts.append(f"{progress.solutions} {noun}")
    parts.append(f"{time.perf_counter() - progress.started:.1f} s")
    return ", ".join(parts)


class _Line:
    """A renderable re-reading the progress at each refresh, behind a spinner."""

    def __init__(self, progress: Progress) -> None:
        from rich.spinner import Spinner

        self.progress = progress
        self.spinner = Spinner("dots")

    def __rich__(self) -> Any:
        self.spinner.update(text=describe(self.progress))
        return self.spinner


@contextlib.contextmanager
def live_progress(progress: Progress, enabled: bool) -> Iterator[None]:
    """Show `progress` on stderr while the body runs, if enabled and stderr is a terminal."""
    if not enabled or not sys.stderr.isatty():
        yield
        return
    from rich.console import Console
    from rich.live import Live

    console = Console(stderr=True)
    with Live(_Line(progress), console=console, refresh_per_second=8, transient=True):
        yield
