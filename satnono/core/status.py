"""The verdict of a search, one enum for the whole package (solve, count, batch, compare).

String-valued, so a status compares equal to its name, prints as it, and goes into JSON and
SQLite as the same text as before ("unique", ...).
"""

from __future__ import annotations

import enum


class Status(enum.StrEnum):
    #: Exactly one solution, and the search proved there is no other.
    UNIQUE = "unique"
    #: At least two solutions (all of them when the result says it is complete).
    MULTIPLE = "multiple"
    #: One solution found; the search stopped before telling whether there is another.
    SOLVED = "solved"
    #: Proof that no grid fits the clues.
    UNSOLVABLE = "unsolvable"
    #: The deadline passed before the search could say more.
    TIMEOUT = "timeout"
    #: The caller stopped the search (a handle's cancel(), Ctrl-C) before it could say more.
    INTERRUPTED = "interrupted"

    def __repr__(self) -> str:
        return repr(self.value)

    @property
    def finished(self) -> bool:
        """A verdict the search reached, rather than one the deadline cut short."""
        return self not in (Status.TIMEOUT, Status.INTERRUPTED)


#: The statuses of a finished search, as stored text (compare's runs may also be "killed" or
#: "error", which no search returns).
FINISHED = frozenset(status.value for status in Status if status.finished)
