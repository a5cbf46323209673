"""Wall-clock deadlines shared by propagation, every backend and the CLI.

One monotonic deadline object is passed down instead of a number of seconds, so that time
spent in earlier phases (parsing, propagation, encoding) counts against the user's --timeout.
"""

from __future__ import annotations

import time


class Deadline:
    __slots__ = ("at",)

    def __init__(self, seconds: float | None, start: float | None = None) -> None:
        """`seconds` from now, or from `start` (a time.monotonic() value) when given."""
        origin = time.monotonic() if start is None else start
        self.at = None if seconds is None else origin + max(0.0, seconds)

    @property
    def bounded(self) -> bool:
        return self.at is not None

    def remaining(self) -> float | None:
        """Seconds left (never negative), or None without a deadline."""
        return None if self.at is None else max(0.0, self.at - time.monotonic())

    def expired(self) -> bool:
        return self.at is not None and time.monotonic() >= self.at

    def cancel(self) -> None:
        """Expire now (thread-safe: one assignment): every phase watching it stops."""
        self.at = time.monotonic()

    def sooner(self, seconds: float | None) -> Deadline:
        """A deadline `seconds` from now for one phase, which also passes when this one passes
        or is cancelled (a Ctrl-C still stops the phase); None: this one's own, which the
        phase's `cancel()` ends alone (a helper stopped once what it helps has ended)."""
        return _Sooner(self, seconds)


class _Sooner(Deadline):
    __slots__ = ("outer",)

    def __init__(self, outer: Deadline, seconds: float | None) -> None:
        super().__init__(seconds)
        self.outer = outer

    @property
    def bounded(self) -> bool:
        return self.at is not None or self.outer.bounded

    def remaining(self) -> float | None:
        own, outer = super().remaining(), self.outer.remaining()
        return own if outer is None else outer if own is None else min(own, outer)

    def expired(self) -> bool:
        return super().expired() or self.outer.expired()


class Timeout(Exception):  # noqa: N818 - raised to unwind a phase when the deadline passes
    """The deadline passed before the phase finished."""
