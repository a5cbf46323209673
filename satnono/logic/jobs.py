"""The engine's work in threads of its own, as Python waits on it (wrapping what
satnono.logic.native starts; nothing here calls the extension itself): a count or an ambiguity
map (`Job`), exactly uniform draws (`Sampler`), every solution in batches (`Solutions`). Each
wait lasts SLICE seconds at most, so that a cancelled deadline or a Ctrl-C in the main thread
is seen between two slices.
"""

from __future__ import annotations

from typing import Any

from satnono.logic.counted import CountedPart, NativeCount
from satnono.runtime.deadline import Deadline

#: Seconds a search runs in the engine before it looks at the deadline again (a Ctrl-C in
#: the main thread is seen between two slices).
SLICE = 0.1


def domains_list(domains: bytes | list[int] | None) -> list[int] | None:
    """Domains as the engine gives them (bytes or a list), as a list."""
    return None if domains is None else list(domains)


class Job:
    """A count, a draw or an ambiguity map running in the engine's own thread: `wait` for it
    in slices (a Ctrl-C in between cancels it and is raised again), read its `progress`,
    `cancel` it (it ends soon with what it has); then read its answer."""

    __slots__ = ("_job",)

    def __init__(self, job: Any) -> None:
        self._job = job

    def wait(self, seconds: float) -> bool:
        """Wait at most `seconds`: whether the job has ended."""
        try:
            ended: bool = self._job.wait(max(0.0, seconds))
        except KeyboardInterrupt:
            self._job.cancel()
            raise
        return ended

    def finish(self, deadline: Deadline) -> None:
        """Wait for the end; at the deadline, cancel and wait for what the job has."""
        while not self.wait(SLICE):
            if deadline.expired():
                self._job.cancel()
                while not self.wait(SLICE):
                    pass
                return

    def cancel(self) -> None:
        self._job.cancel()

    def ended(self) -> bool:
        """Whether the job has ended (from any thread, without waiting)."""
        ended: bool = self._job.ended()
        return ended

    def progress(self) -> dict[str, int]:
        found: dict[str, int] = self._job.progress()
        return found

    def racing(self) -> bool:
        """Whether a count is sweeping a narrow component both ways at once, on two cores
        (engine/src/count/race.rs)."""
        return bool(self._job.progress().get("racing"))

    def counted(self) -> NativeCount:
        """The count (once ended)."""
        count, exact, cells_left, parts, stats, witness = self._job.counted()
        listed = tuple(
            CountedPart(tuple(lines), cells, part_count, part_exact, method, round(seconds, 4))
            for lines, cells, part_count, part_exact, method, seconds in parts
        )
        return NativeCount(
            int(count), bool(exact), cells_left, listed, dict(stats), domains_list(witness)
        )

    def ambiguity(self) -> tuple[bool, list[int], list[int]]:
        """(whether there is a solution, every cell's colors in the solutions, the cells not
        settled when stopped) (once ended)."""
        solvable, colors, unsettled = self._job.ambiguity()
        return bool(solvable), list(colors), list(unsettled)


class Sampler:
    """Exactly uniform draws from the engine, in its own thread: `total` waits for the count
    (the number of solutions drawn from), `draw` for a batch of draws; `cancel` (or dropping
    it) ends the thread."""

    __slots__ = ("_sampler", "ended", "total_count")

    def __init__(self, sampler: Any) -> None:
        self._sampler = sampler
        #: How it ended, once it has: "done", "zero" (no solution) or "stopped".
        self.ended: str | None = None
        self.total_count: int | None = None

    def _receive(self, deadline: Deadline) -> tuple[str, Any]:
        while True:
            remaining = deadline.remaining()
            seconds = SLICE if remaining is None else min(SLICE, remaining)
            try:
                kind, told = self._sampler.receive(seconds)
            except KeyboardInterrupt:
                self._sampler.cancel()
                raise
            if kind == "ended":
                self.ended = told
            if kind != "nothing" or deadline.expired():
                return kind, told

    def total(self, deadline: Deadline, cancel: bool = True) -> int | None:
        """The number of solutions, once counted exactly; None when the count ends otherwise
        (`ended` says how) or the deadline passes first (then it is cancelled if `cancel`)."""
        if self.total_count is None and self.ended is None:
            kind, told = self._receive(deadline)
            if kind == "total":
                self.total_count = int(told)
            elif kind == "nothing" and cancel:
                self.cancel()
        return self.total_count

    def nodes(self) -> int:
        """Nodes of the counting search so far: 0 while the count sweeps."""
        return int(self._sampler.nodes())

    def sweeping(self) -> bool:
        """Whether the count is sweeping a component now."""
        return bool(self._sampler.swept())

    def draw(self, n: int, deadline: Deadline) -> list[bytes] | list[list[int]]:
        """`n` more draws (domains, decided); fewer (none) when the deadline passes first."""
        if self.ended is not None:
            return []
        self._sampler.request(n)
        kind, told = self._receive(deadline)
        if kind != "samples":
            self.cancel()
            return []
        samples: list[bytes] | list[list[int]] = told
        return samples

    def cancel(self) -> None:
        self._sampler.cancel()


class Solutions:
    """Every solution of a puzzle in turn, from the engine in batches."""

    __slots__ = ("_solutions", "done")

    def __init__(self, solutions: Any) -> None:
        self._solutions = solutions
        self.done = False

    def batch(self, most: int, deadline: Deadline) -> list[bytes] | list[list[int]]:
        """Up to `most` more solutions (domains, decided), found within SLICE seconds or the
        deadline; `done` once there are no more."""
        remaining = deadline.remaining()
        seconds = SLICE if remaining is None else min(SLICE, remaining)
        if self._solutions is None:
            return []
        found, self.done = self._solutions.next_batch(most, seconds)
        return found  # type: ignore[no-any-return]

    def close(self) -> None:
        """Stop the listing now: its threads end (they would go on searching beside whatever
        runs next, while no one asks them for anything); `batch` gives nothing more."""
        self._solutions = None
