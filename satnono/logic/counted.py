"""What the engine's counts are told and what they give back, as values: the knobs of a count
and its answer, whole and per component. Apart from satnono.logic.native so that the
pipeline's signatures name them without the engine's whole face."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CountKnobs:
    """What a count may spend and how it goes about it (engine/src/count/mod.rs, Options).
    The values are chosen on the tuning sets (BENCHMARKS.md, counting section)."""

    #: Bytes the count may keep: its store of sub-counts and its lines' analyses (an eighth,
    #: at most 256 MB; each emptied when full, never passed) and a sweep's states (a sweep
    #: that would pass it gives way to the search).
    memory: int = 2 << 30
    #: The search probes components of at least this many cells before it branches.
    probe_from: int = 2**62
    #: Components whose sweep crosses at most this many lines are swept within the whole
    #: memory; wider ones within `sweep_trial` bytes, then searched.
    sweep_width: int = 12
    sweep_trial: int = 16 << 20
    #: A narrow component's sweep still running after 10 ms races from the other end on a
    #: second thread (engine/src/count/race.rs); off where the count may use one core only.
    race: bool = True

    @property
    def wire(self) -> tuple[int, int, int, int, bool]:
        return (self.memory, self.probe_from, self.sweep_width, self.sweep_trial, self.race)


@dataclass(frozen=True)
class CountedPart:
    """One independent component's count: its lines, its undecided cells, the count (exact
    or a lower bound), how it was counted ("search" or "sweep") and in how long."""

    lines: tuple[int, ...]
    cells: int
    count: int
    exact: bool
    method: str
    seconds: float


@dataclass(frozen=True)
class NativeCount:
    """A native count: exact, or a lower bound (the branches counted to the end)."""

    count: int
    exact: bool
    cells_left: int
    parts: tuple[CountedPart, ...]
    stats: dict[str, int]
    #: One solution (domains, decided) when the count is exact and not zero: drawn from the
    #: counts, or found, by the engine (the caller verifies it).
    witness: list[int] | None = None
