"""How far a long call has got (solve, count, analyze): one mutable record that the work
updates and a live display, the web page's progress events or a Ctrl-C report read."""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass(repr=False)
class Progress:
    """How far a solve has got: updated by the pipeline, read by a live display.

    It is also what an interrupted run still knows: the grid after line logic (`domains`)
    and the count of verified solutions. A count's `solutions` is its lower bound so far
    (phase "counting", component by component); an analysis adds the backbone's progress.
    """

    phase: str = "reading"
    cells: int = 0
    cells_left: int | None = None
    components: int = 0
    component: int = 0
    solutions: int = 0
    domains: tuple[int, ...] | None = None
    started: float = field(default_factory=time.perf_counter)
    #: The backbone of `analyze`: cells settled (the same in every solution, or shown to
    #: differ) out of those to settle, once it runs.
    settled: int | None = None
    to_settle: int | None = None
    #: A count's work in the engine so far: the nodes its counting search has visited, and
    #: while a component is swept, the cells the sweep has passed and the states it holds
    #: (the further of two when it sweeps from both ends at once, on two cores: `both_ways`).
    nodes: int = 0
    swept: int = 0
    states: int = 0
    both_ways: bool = False

    def __repr__(self) -> str:
        """One short line: the grid is summed up, not listed (Sierp's was 5,767 characters)."""
        grid = "None"
        if self.domains is not None:
            open_cells = sum(1 for domain in self.domains if domain & (domain - 1))
            grid = f"<{len(self.domains)} cells, {open_cells} undecided>"
        return (
            f"Progress(phase={self.phase!r}, cells={self.cells}, cells_left={self.cells_left}, "
            f"components={self.components}, component={self.component}, "
            f"solutions={self.solutions}, settled={self.settled}, to_settle={self.to_settle}, "
            f"domains={grid})"
        )
