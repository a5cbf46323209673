"""Several forked children racing on one question: messages read as they come, the first
child whose message decides the question wins, and every child is killed at the end.

The one race behind the portfolio backend (solver configurations) and counting (Ganak and
ApproxMC against the counting search): `with Race(decides) as race:`, `race.enter(...)` for
each child, then `race.collect(deadline)` or `race.poll()` for the winner.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from satnono.runtime.child import ChildFinished, ForkedChild, Send, wait_any
from satnono.runtime.deadline import Deadline, Timeout

#: Longest wait for a child's message between two looks at the deadline (seconds).
LOOK = 0.1

Tag = TypeVar("Tag")


@dataclass(eq=False)
class Entrant(Generic[Tag]):
    """One child in the race: `tag` says what it runs (for the caller), `messages` what it
    sent so far, `error` why it dropped out (failed, died, or ended without deciding)."""

    tag: Tag
    child: ForkedChild
    messages: list[Any] = field(default_factory=list)
    error: str | None = None


class Race(Generic[Tag]):
    """`decides(entrant, message)` is called for every message in arrival order; the first
    True makes that entrant the winner. Leaving the `with` block kills every child."""

    def __init__(self, decides: Callable[[Entrant[Tag], Any], bool]) -> None:
        self.decides = decides
        self.entrants: list[Entrant[Tag]] = []
        self.winner: Entrant[Tag] | None = None

    def enter(
        self,
        tag: Tag,
        run: Callable[[Send], None],
        what: str,
        quiet: bool = False,
        memory: int | None = None,
    ) -> Entrant[Tag]:
        """Start `run(send)` in a forked child (satnono.runtime.child.ForkedChild), within
        `memory` bytes beyond what it was forked with when given."""
        entrant = Entrant(tag, ForkedChild(run, what, quiet, memory=memory))
        self.entrants.append(entrant)
        return entrant

    def running(self) -> list[Entrant[Tag]]:
        return [entrant for entrant in self.entrants if entrant.error is None]

    @property
    def errors(self) -> list[str]:
        return [entrant.error for entrant in self.entrants if entrant.error is not None]

    def poll(self) -> Entrant[Tag] | None:
        """Read whatever has arrived, without waiting; the winner once there is one."""
        if self.winner is None:
            for entrant in self.running():
                if entrant.child.ready():
                    self._receive(entrant)
                    if self.winner is not None:
                        break
        return self.winner

    def collect(self, deadline: Deadline) -> Entrant[Tag] | None:
        """Read messages until a winner (returned), the deadline, or every child has dropped
        out (None for both)."""
        while self.winner is None:
            running = self.running()
            if not running or deadline.expired():
                break
            # At most a moment between looks: a cancelled deadline (Ctrl-C, a dropped request,
            # a shutdown) wakes no one, and without a timeout this waited for ever.
            remaining = deadline.remaining()
            look = LOOK if remaining is None else min(remaining, LOOK)
            ready = wait_any([entrant.child for entrant in running], look)
            for entrant in running:
                if entrant.child in ready:
                    self._receive(entrant)
                    if self.winner is not None:
                        break
        return self.winner

    def _receive(self, entrant: Entrant[Tag]) -> None:
        try:
            message = entrant.child.receive(0)
        except Timeout:  # woken, but the message is not whole yet
            return
        except ChildFinished:
            entrant.error = f"the {entrant.child.what} process ended without an answer"
        except RuntimeError as error:
            entrant.error = str(error) or f"the {entrant.child.what} process ended"
        else:
            entrant.messages.append(message)
            if self.decides(entrant, message):
                self.winner = entrant
            return
        entrant.child.kill()

    def close(self) -> None:
        """Kill every child still running and reap it: no orphan, no zombie."""
        for entrant in self.entrants:
            entrant.child.kill()

    def __enter__(self) -> Race[Tag]:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
