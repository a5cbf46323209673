"""A solve running in the background: its live progress, its solutions as found, cancel().

The one way a caller watches a solve as it happens: `satnono.iter_solutions`, the web page's
live stream and any program that wants a progress display all start a `SolveHandle`. The
solve runs in a thread of its own; the handle's methods may be called from any thread.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

from satnono.core.model import Grid, Puzzle
from satnono.core.progress import Progress
from satnono.core.status import Status
from satnono.pipeline.solutions import SolveResult
from satnono.runtime.background import Background, HandOver
from satnono.runtime.deadline import Deadline
from satnono.runtime.stoppable import stop_watcher


class SolveHandle:
    """A solve in progress. `progress` is kept current (phase, cells left, the grid after line
    logic, solutions found); `solutions()` yields each verified solution as it is found;
    `cancel()` stops the search within a fraction of a second; `result()` waits for the
    SolveResult (after a cancel: not complete, with the solutions found until then).

    Solutions are handed over one at a time: the search waits for the consumer of
    `solutions()` rather than piling them up; `result()` stops the handing over (the search
    goes on to its end); with `stream` False none are handed over. Leaving a `with` block
    cancels the solve and waits for it.
    """

    def __init__(
        self,
        run: Callable[..., SolveResult],
        puzzle: Puzzle,
        deadline: Deadline,
        stream: bool = True,
        on_solution: Callable[[Grid], bool | None] | None = None,
    ) -> None:
        self.puzzle = puzzle
        self.progress = Progress()
        self.deadline = deadline
        self._handed: HandOver[Grid] | None = HandOver() if stream else None
        self._on_solution = on_solution
        self._cancelled = False

        def work() -> SolveResult:
            try:
                return run(progress=self.progress, deadline=deadline, on_solution=self._found)
            finally:
                stop_watcher()  # unless another solve still uses it
                if self._handed is not None:
                    self._handed.finish()

        self._background = Background(work, self.cancel, "satnono solve")

    def _found(self, grid: Grid) -> bool:
        wanted = self._on_solution is None or self._on_solution(grid) is not False
        return wanted and (self._handed is None or self._handed.put(grid))

    def solutions(self) -> Iterator[Grid]:
        """Each verified solution as it is found, until the solve ends (then see result())."""
        return iter(self._handed or ())

    def next_solution(self, timeout: float) -> tuple[bool, Grid | None]:
        """(ended, grid): the next solution if one comes within `timeout` seconds; `ended`
        once the solve is over and every solution has been taken."""
        if self._handed is None:
            return self.wait(timeout), None
        return self._handed.get(timeout)

    def done(self) -> bool:
        return self._background.done()

    def cancel(self) -> None:
        """Stop the search now (thread-safe); the solutions found so far stay in result(),
        whose status says "interrupted" if the search had not ended by itself."""
        if not self._background.done():
            self._cancelled = True
        if self._handed is not None:
            self._handed.close()
        self.deadline.cancel()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the end (at most `timeout` s); True once ended. Ctrl-C cancels it."""
        return self._background.wait(timeout)

    def result(self) -> SolveResult:
        """The SolveResult, once the solve has ended (waits; raises what the solve raised).
        Solutions not taken from `solutions()` by then are no longer handed over: the solve
        goes on to its end (they are in the result, as `keep` allows) rather than wait."""
        if self._handed is not None:
            self._handed.release()
        result = self._background.result()
        if self._cancelled and result.status == Status.TIMEOUT:
            return dataclasses.replace(result, status=Status.INTERRUPTED)
        return result

    def __enter__(self) -> SolveHandle:
        return self

    def __exit__(self, *_: Any) -> None:
        self.cancel()
        self._background.wait()
