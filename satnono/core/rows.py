"""The rows a stream of one puzzle's solutions made so far, kept to be taken again.

Successive solutions of a listing repeat most of their rows, and making a row (a tuple of the
engine's bytes for a grid, a row's string for its JSON) costs about 0.8 us: a 30x30 listing
builds its grids and rows 2.5x faster taking them from here (BENCHMARKS.md, "The rows a stream
made, kept").
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Generic, TypeVar

#: Rows a stream's caches of rows keep (`colors_to_grid`'s grids' rows, `Puzzle.grid_rows`'
#: strings) before they start again: a bound on their memory (about 20 MB for 30-wide rows).
ROWS_KEPT = 1 << 16
#: Rows a cache is asked for before it judges itself, and the share of them it may miss: a
#: stream whose rows hardly repeat (a board of switches each row crosses) stops caching.
ROWS_JUDGED, ROWS_MISSED = 1024, 0.25


Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")


class RowCache(Generic[Key, Value]):
    """What a stream of one puzzle's solutions made of each row so far (a grid's row of
    cells, a row's string), to be taken again: successive solutions repeat most of their rows
    (a 30x30 listing 2.5x faster to build grids and rows), bounded by ROWS_KEPT, and off for
    good once more than ROWS_MISSED of the first ROWS_JUDGED rows asked for were new (where
    rows hardly repeat, asking only costs)."""

    __slots__ = ("asked", "kept", "missed", "on")

    def __init__(self) -> None:
        self.kept: dict[Key, Value] = {}
        self.asked = self.missed = 0
        self.on = True

    def rows(
        self, keys: Sequence[Key], make: Callable[[Sequence[Key]], Sequence[Value]]
    ) -> list[Value]:
        """Each key's value, kept, or made and kept: `make` makes the values of the keys not
        kept, all in one call (a row's string needs the palette's table, made once a call)."""
        found = list(map(self.kept.get, keys))
        if self.asked < ROWS_JUDGED:
            self.asked += len(keys)
            self.missed += found.count(None)
            if self.asked >= ROWS_JUDGED and self.missed > ROWS_MISSED * self.asked:
                self.on, self.kept = False, {}
        missing = [at for at, value in enumerate(found) if value is None]
        if missing:
            if len(self.kept) > ROWS_KEPT:
                self.kept.clear()
            made = make([keys[at] for at in missing])
            for at, value in zip(missing, made, strict=True):
                found[at] = value
                if self.on:
                    self.kept[keys[at]] = value
        return found  # type: ignore[return-value]  # (no None left in it)
