"""What a puzzle author needs to know: how far line logic and probing get, how deep a search
goes, how many solutions there are and, when there are several, every ambiguous cell.

Difficulty labels (the `difficulty` field; the terminal adds the depth to "needs search"):

- "line-solvable": line logic alone (each row and column on its own, repeated) fixes every cell.
- "needs probing": line logic stalls, but probing finishes it: assume a color in a cell,
  propagate, and rule the color out on a contradiction (or keep what every color agrees on).
- "needs search": unique, but only a backtracking search with guesses nested
  `search_max_depth` deep settles it.
- "ambiguous": at least two solutions; `ambiguous_cells` lists every cell that is not the same
  in all of them (the exact backbone, satnono.pipeline.backbone).
- "no solution": the clues contradict each other; `reason` says where.
- "unknown": the timeout passed before the search could tell.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from satnono.backends import DEFAULT_BACKEND, installed_backends
from satnono.core.model import Grid, Puzzle
from satnono.core.progress import Progress
from satnono.logic import native
from satnono.pipeline.backbone import ambiguity
from satnono.pipeline.prepare import prepare
from satnono.pipeline.solutions import count, solve
from satnono.runtime.deadline import Deadline, Timeout

Difficulty = Literal[
    "line-solvable", "needs probing", "needs search", "ambiguous", "no solution", "unknown"
]

#: The search whose depth is reported: the backtrack backend is the one that has a depth.
SEARCH_BACKEND = "backtrack"
#: Seconds the backtrack search may take to measure the depth of a unique puzzle. It is pure
#: Python and needs minutes on some survey puzzles that SAT settles in a second; past this the
#: depth is reported as not measured rather than holding up the rest of the report.
DEPTH_BUDGET = 5.0
#: Ambiguous cells listed in the terminal; the JSON and the picture have all of them.
SHOWN_CELLS = 24


@dataclass(frozen=True)
class Analysis:
    """Everything `satnono analyze` reports; cells are flat indices (row * width + column).

    Counts that were not measured (the clues contradict, or the timeout passed first) are None.
    """

    puzzle: Puzzle
    line_solvable: bool
    cells_fixed_by_lines: int | None
    #: True when probing fixes every cell; None when it did not run to the end.
    probing_solves: bool | None
    cells_fixed_by_probing: int | None
    #: Depth and nodes of the backtracking search; None when it did not finish in time.
    search_max_depth: int | None
    search_nodes: int | None
    #: Solutions found, or the exact number with `solutions_exact`; a lower bound otherwise.
    solutions: int
    solutions_exact: bool
    #: True when the count is a lower bound because the search stopped at max_solutions.
    stopped_at_limit: bool
    difficulty: Difficulty
    #: Every cell proven to take more than one color across the solutions.
    ambiguous_cells: tuple[int, ...]
    #: Cells proven to be the same in every solution (line logic's included); None unmeasured.
    backbone_cells: int | None
    #: True when every cell is settled (ambiguous or backbone); False after a timeout.
    backbone_exact: bool
    #: Cells whose color is not the same in all the `compared` solutions the search found.
    differing_cells: tuple[int, ...]
    compared: int
    #: The first solution found, if any.
    solution: Grid | None
    #: Every color each cell takes in some solution (exact once the backbone is computed;
    #: before that, a cell not settled has every color line logic left it); without a
    #: solution, the state line logic and probing reached.
    domains: tuple[int, ...] | None
    reason: str | None
    timed_out: bool
    seconds: float
    #: The backend that found the solutions.
    backend: str = DEFAULT_BACKEND

    def __repr__(self) -> str:
        # Short: the cell tuples of a large puzzle run to thousands of items.
        return (
            f"Analysis(solutions={self.solutions}, exact={self.solutions_exact}, "
            f"difficulty={self.difficulty!r}, ambiguous_cells={len(self.ambiguous_cells)}, "
            f"seconds={self.seconds}, puzzle={self.puzzle!r})"
        )

    @property
    def cells(self) -> int:
        return self.puzzle.width * self.puzzle.height

    @property
    def label(self) -> str:
        """The difficulty as people read it: a search says how deep it had to guess."""
        if self.difficulty == "needs search":
            if self.search_max_depth is None:
                return "needs search (depth not measured)"
            return f"needs search (depth {self.search_max_depth})"
        if self.difficulty == "unknown":
            return "unknown (timeout)"
        return self.difficulty

    def report_lines(self, max_solutions: int = 2) -> list[str]:
        """The plain-text report, one finding per line (`satnono analyze`)."""
        return summary_lines(self, max_solutions)


def analyze(
    puzzle: Puzzle,
    *,
    max_solutions: int = 2,
    exact_count: bool = False,
    timeout: float | None = None,
    backend: str | None = None,
    deadline: Deadline | None = None,
    progress: Progress | None = None,
) -> Analysis:
    """Analyze a puzzle within one shared deadline (`deadline`, when given, replaces
    `timeout`: a caller that may cancel the analysis from another thread passes its own).
    `progress`, when given, follows it: line logic, the search for solutions, the backbone's
    cells settled, probing.

    The solutions come first, from the (fast) SAT backend, since the verdict and the exit code
    depend on them; then the backbone of an ambiguous puzzle; then probing and the depth of a
    backtracking search, which only describe how a person would solve it.
    """
    if max_solutions == 1:
        raise ValueError("telling unique from ambiguous needs at least two solutions")
    if backend is None:
        backend = DEFAULT_BACKEND if DEFAULT_BACKEND in installed_backends() else SEARCH_BACKEND
    started = time.perf_counter()
    deadline = deadline or Deadline(timeout)
    progress = progress or Progress()
    progress.cells, progress.phase = puzzle.width * puzzle.height, "line logic"

    def elapsed() -> float:
        return round(time.perf_counter() - started, 4)

    try:
        prepared = prepare(puzzle, deadline)
    except Timeout:
        return Analysis(
            puzzle, False, None, None, None, None, None, 0, False, False, "unknown", (), None,
            False, (), 0, None, None, None, True, elapsed(), backend,
        )  # fmt: skip
    if prepared.reason is not None:
        return Analysis(
            puzzle, False, None, None, None, 0, 0, 0, True, False, "no solution", (), 0, True,
            (), 0, None, None, prepared.reason, False, elapsed(), backend,
        )  # fmt: skip
    domains = prepared.domains
    by_lines = _decided(domains)
    line_solvable = by_lines == len(domains)

    union = [0] * len(domains)

    def merge(grid: Grid) -> None:
        for cell, color in enumerate(color for row in grid for color in row):
            union[cell] |= 1 << color

    result = solve(
        puzzle, backend=backend, limit=max_solutions, deadline=deadline, keep=2,
        on_solution=merge, progress=progress,
    )  # fmt: skip
    found, exact = result.solutions_found, result.complete
    timed_out = result.status == "timeout"
    stopped = not exact and not timed_out
    differing = tuple(cell for cell, d in enumerate(union) if d & (d - 1))
    colors: tuple[int, ...] | None = tuple(union) if found else None

    backbone_cells: int | None = None
    backbone_exact = False
    ambiguous: tuple[int, ...] = ()
    # Cells no proof has settled: every cell until the backbone says otherwise.
    unsettled: Collection[int] = range(len(domains))
    if found == 1 and exact:
        backbone_cells, backbone_exact = len(domains), True
    elif found >= 2:
        ambiguous = differing
        if not timed_out:
            settled = ambiguity(prepared, deadline, known=result.grids, progress=progress)
            if settled is not None:
                for cell, seen in enumerate(settled.colors):
                    union[cell] |= seen if cell not in settled.unsettled else 0
                colors = tuple(union)
                ambiguous = tuple(cell for cell, d in enumerate(union) if d & (d - 1))
                backbone_cells = settled.backbone
                backbone_exact = settled.exact
                unsettled = frozenset(settled.unsettled)
                timed_out = timed_out or not settled.exact
    if colors is not None and not backbone_exact:
        # A cell nothing settled may take any color line logic left it: shown as such, not
        # as the color the solutions found so far happen to agree on.
        colors = tuple(
            seen | domains[cell] if cell in unsettled else seen for cell, seen in enumerate(colors)
        )

    # Probing starts where line logic stopped; it is not measured after a timeout.
    probed: tuple[int, ...] | None = tuple(domains)
    probing_solves: bool | None = True if line_solvable else None
    by_probing: int | None = by_lines if probing_solves else None
    if not probing_solves and not timed_out:
        progress.phase = "probing"
        reached = native.Engine(puzzle).probe(domains, None, deadline)
        if reached.status == "timeout":
            probing_solves = by_probing = None
            timed_out = True
        else:
            probed = None if reached.domains is None else tuple(reached.domains)
            by_probing = None if probed is None else _decided(probed)
            probing_solves = by_probing == len(domains)

    # The depth a backtracking search needs: measured for unique puzzles only (an ambiguous
    # one is ambiguous, however deep), within its own budget.
    depth: int | None = 0
    nodes: int | None = 0
    if found == 1 and exact and not line_solvable and not timed_out:
        # Its own budget, and the analysis's deadline too: a cancel stops it.
        searched = solve(
            puzzle, backend=SEARCH_BACKEND, limit=2, deadline=deadline.sooner(DEPTH_BUDGET), keep=0
        )
        if searched.complete:
            depth = int(searched.stats.get("max_depth", 0))
            nodes = int(searched.stats.get("nodes", 0))
        else:
            depth = nodes = None
    elif found != 1:
        depth = nodes = None if found else 0

    if exact_count and not exact and not timed_out:
        counted = count(puzzle, backend=backend, deadline=deadline)
        found, exact, stopped = max(found, counted.count), counted.exact, False
        timed_out = timed_out or not exact

    difficulty: Difficulty
    if found >= 2:
        difficulty = "ambiguous"
    elif found == 0:
        difficulty = "unknown" if result.status == "timeout" else "no solution"
    elif not result.complete:
        difficulty = "unknown"
    elif line_solvable:
        difficulty = "line-solvable"
    elif probing_solves or (probing_solves is None and depth == 0):
        difficulty = "needs probing"
    else:
        difficulty = "needs search"
    solution = result.grids[0] if result.grids else None
    return Analysis(
        puzzle, line_solvable, by_lines, probing_solves, by_probing, depth, nodes, found, exact,
        stopped, difficulty, ambiguous, backbone_cells, backbone_exact, differing,
        result.solutions_found, solution, colors if solution is not None else probed,
        result.reason, timed_out, elapsed(), backend,
    )  # fmt: skip


def _decided(domains: Sequence[int]) -> int:
    """Cells with a single color left."""
    return sum(1 for d in domains if not d & (d - 1))


def row_column(puzzle: Puzzle, cell: int) -> tuple[int, int]:
    """A cell as people count it: (row, column), both from 1."""
    row, column = divmod(cell, puzzle.width)
    return row + 1, column + 1


def _cells_text(puzzle: Puzzle, cells: Sequence[int]) -> str:
    shown = ", ".join(
        f"({r}, {c})" for r, c in (row_column(puzzle, x) for x in cells[:SHOWN_CELLS])
    )
    more = len(cells) - SHOWN_CELLS
    return shown + (f" and {more} more (--json lists all)" if more > 0 else "")


def _fixed(count: int | None, total: int, finishes: bool | None) -> str:
    if count is None:
        return "not measured (timeout)" if finishes is None else "proves there is no solution"
    return f"fixes {count} of {total} cells" + ("" if finishes else ", then stalls")


def summary_lines(analysis: Analysis, max_solutions: int) -> list[str]:
    """The plain-text report, one finding per line."""
    puzzle, cells = analysis.puzzle, analysis.cells
    colors = len(puzzle.palette) - 1
    palette = "black and white" if colors == 1 else f"{colors} colors"
    lines = [f"size          {puzzle.width}x{puzzle.height}, {cells} cells, {palette}"]
    if analysis.cells_fixed_by_lines is not None:
        by_lines = _fixed(analysis.cells_fixed_by_lines, cells, analysis.line_solvable)
        by_probing = _fixed(analysis.cells_fixed_by_probing, cells, analysis.probing_solves)
        lines += [f"line logic    {by_lines}", f"probing       {by_probing}"]
    nodes = analysis.search_nodes
    if nodes:
        lines.append(
            f"search        depth {analysis.search_max_depth}, {nodes} node{'s' * (nodes > 1)}"
            f" ({SEARCH_BACKEND})"
        )
    elif analysis.difficulty == "needs search":
        lines.append(f"search        not measured ({SEARCH_BACKEND} took over {DEPTH_BUDGET:g} s)")
    n = analysis.solutions
    if analysis.solutions_exact:
        counted = f"{n} (exact)"
    elif analysis.stopped_at_limit:
        counted = f"at least {n} (stopped at --max-solutions {max_solutions}; --count counts)"
    elif n:
        counted = f"at least {n} (timeout)"
    else:
        counted = "none found yet (timeout)"
    lines.append(f"solutions     {counted}")
    if analysis.difficulty == "no solution":
        lines.append(f"reason        {analysis.reason}")
    lines.append(f"difficulty    {analysis.label}")
    ambiguous = analysis.ambiguous_cells
    if ambiguous:
        proven = "" if analysis.backbone_exact else "at least "
        lines.append(
            f"ambiguous     {proven}{len(ambiguous)} cells are not the same in every solution "
            f"(row, column): {_cells_text(puzzle, ambiguous)}"
        )
    if analysis.backbone_cells is not None and analysis.difficulty == "ambiguous":
        more = "" if analysis.backbone_exact else " (timeout: the others are not settled)"
        lines.append(
            f"backbone      {analysis.backbone_cells} of {cells} cells are the same in every "
            f"solution{more}"
        )
    return lines


def picture_of(analysis: Analysis) -> tuple[tuple[int, ...] | None, tuple[int, ...], str]:
    """What -o draws: domains, highlighted cells and caption.

    The first solution with the ambiguous cells outlined, so an author sees where a clue must
    change; without a solution, whatever logic had fixed (nothing when the clues contradict).
    """
    caption = analysis.label
    if analysis.solution is not None:
        domains = tuple(1 << color for row in analysis.solution for color in row)
        ambiguous = analysis.ambiguous_cells
        if ambiguous:
            caption = f"ambiguous: the {len(ambiguous)} outlined cells differ between solutions"
        return domains, ambiguous, caption
    if analysis.difficulty == "no solution":
        caption = f"no solution: {analysis.reason}"
    return analysis.domains, (), caption
