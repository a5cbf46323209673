"""The next step a person can take, and a solve by line logic alone with its grade.

A hint is one deduction a person can check with pencil and paper: a line whose clue, with the
cells already known, forces some cells, named with the reason a solver would give (an empty or
full line, the overlap of the blocks' extreme places, an edge, a line whose blocks are all
there, or "every placement agrees"); or, when no line forces anything, a probe: a cell whose
color would lead line logic to a contradiction, so it has another. Among the lines that force
something, the simplest reason wins, then the most cells: that is the step a person sees first.

Every deduction comes from the engine's exact line solver (satnono.logic.native), which the
reference line solver (satnono.reference.linesolver) holds to in the property tests; the hint
tests check each step against the reference again.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from satnono.core.grids import domains_text, full_domain, palette_domains
from satnono.core.model import Clue, Grid, Puzzle, min_clue_length
from satnono.logic.native import Engine, solve_lines
from satnono.runtime.deadline import Deadline, Timeout

Kind = Literal["line", "probe", "stuck", "solved", "mistake"]
Grade = Literal["line-solvable", "needs probing", "needs search", "no solution", "unknown"]

#: A probe of every color of a cell (Hint.probe), as an "either way" step has.
EVERY_COLOR = -1
#: Cells of the lines solved in one call of the engine's line solver, between two looks at
#: the deadline.
SOLVED_AT_ONCE = 50_000
#: The reasons a line forces cells, simplest first (the order a person meets them).
LINE_REASONS = ("empty line", "full line", "overlap", "complete", "edge", "placements")


@dataclass(frozen=True)
class Hint:
    """One step from a partial grid. `cells` are the cells it narrows, each (flat index,
    colors left as a bitmask); `domains` every cell's colors after the step."""

    kind: Kind
    reason: str
    text: str
    domains: tuple[int, ...]
    line: int | None = None
    clue: str | None = None
    cells: tuple[tuple[int, int], ...] = ()
    #: A probe's assumption (flat cell, color; EVERY_COLOR when each of its colors was tried
    #: and line logic agreed on `cells` every time) and the line that then contradicted.
    probe: tuple[int, int] | None = None
    conflict_line: int | None = None
    #: The line as it was and as it is after the step (palette characters, '?').
    before: str = ""
    after: str = ""


@dataclass(frozen=True)
class LineOnly:
    """A solve without guessing: how far line logic and then probing get, and the grade."""

    grade: Grade
    domains: tuple[int, ...]
    by_lines: int
    by_probing: int
    seconds: float
    reason: str | None = None
    #: The solution when line logic and probing decide every cell (verified).
    solution: Grid | None = None


def partial_domains(puzzle: Puzzle, rows: Sequence[str] | None, where: str = "grid") -> list[int]:
    """Domains from a partial grid's rows (Puzzle.domains_from_rows); every color everywhere
    for none."""
    if rows is None:
        return palette_domains(puzzle)
    return puzzle.domains_from_rows(rows, where)


def read_partial(path: str) -> list[str]:
    """A partial grid's rows from a file (`-`: standard input): a row a line, trailing spaces
    and blank lines at the end ignored."""
    from satnono.formats import read_text

    rows = [line.rstrip() for line in read_text(path).splitlines()]
    while rows and not rows[-1]:
        rows.pop()
    return rows


def _pairs(clue: Clue) -> list[tuple[int, int]]:
    return [(block.length, block.color) for block in clue]


def _decided(domain: int) -> bool:
    return domain != 0 and not domain & (domain - 1)


def _cells_said(puzzle: Puzzle, positions: Sequence[tuple[int, int]]) -> str:
    """'cells 3-5 are black, cell 9 is empty': positions (1-based along the line, domain)."""
    said: list[str] = []
    for domain in dict.fromkeys(d for _, d in positions):
        where = [p for p, d in positions if d == domain]
        runs: list[str] = []
        start = previous = where[0]
        for p in [*where[1:], None]:
            if p is not None and p == previous + 1:
                previous = p
                continue
            runs.append(str(start) if start == previous else f"{start}-{previous}")
            if p is not None:
                start = previous = p
        noun = "cell" if len(where) == 1 else "cells"
        if _decided(domain):
            name = puzzle.palette[domain.bit_length() - 1].name
            color = "empty" if domain == 1 else name
            said.append(f"{noun} {', '.join(runs)} {'is' if len(where) == 1 else 'are'} {color}")
        else:
            left = [c.name for n, c in enumerate(puzzle.palette) if domain >> n & 1]
            said.append(f"{noun} {', '.join(runs)} can only be {' or '.join(left)}")
    return "; ".join(said)


def _explain(reason: str, clue: str, length: int) -> str:
    return {
        "empty line": "the clue is 0, so every cell is empty",
        "full line": f"the clue {clue} fills all {length} open cells",
        "overlap": f"wherever the blocks of {clue} go in the {length} open cells, they cover these",
        "complete": f"every block of {clue} is already there, so the rest is empty",
        "edge": f"a filled cell near the line's end pins the end block of {clue} against it",
        "placements": f"every way to place {clue} among the cells known agrees on these",
    }[reason]


class _Lines:
    """Every line's cells and clue, solved in batches by the engine's line solver."""

    def __init__(self, puzzle: Puzzle) -> None:
        self.puzzle = puzzle
        self.cells = [tuple(puzzle.line_cells(line)) for line in range(puzzle.line_count)]
        self.clues = [_pairs(puzzle.line_clue(line)) for line in range(puzzle.line_count)]
        self.colors = len(puzzle.palette)

    def lines(self) -> range:
        return range(self.puzzle.line_count)

    def solve(
        self, asked: Sequence[tuple[int, list[int]]], deadline: Deadline | None = None
    ) -> list[list[int] | None]:
        """Each line asked solved on its cells' domains; Timeout when `deadline` passes
        first, looked at between batches of SOLVED_AT_ONCE cells (a 1000 x 1000 grid's
        lines take a second in all)."""
        solved: list[list[int] | None] = []
        batch: list[tuple[Sequence[tuple[int, int]], list[int]]] = []
        cells = 0
        for number, (line, doms) in enumerate(asked):
            batch.append((self.clues[line], doms))
            cells += len(doms)
            if cells >= SOLVED_AT_ONCE or number == len(asked) - 1:
                if deadline is not None and deadline.expired():
                    raise Timeout
                solved += solve_lines(self.colors, batch)
                batch, cells = [], 0
        return solved

    def reason(self, line: int, before: list[int], after: list[int]) -> str:
        """Why the line forces what it does (LINE_REASONS), by re-solving with less known."""
        clue = self.puzzle.line_clue(line)
        changed = [p for p, (b, a) in enumerate(zip(before, after, strict=True)) if b != a]
        if not clue:
            return "empty line"
        alone = self._alone(line, before)
        if alone is not None and all(alone[p] == after[p] for p in changed):
            fills = min_clue_length(clue) == self.open(before) and not any(
                block.blotted for block in clue
            )
            return "full line" if fills else "overlap"
        if self.puzzle.is_black_and_white:
            filled = sum(1 for d in before if d == 2)
            placed = filled == sum(block.length for block in clue)
            if placed and all(after[p] == 1 for p in changed):
                return "complete"
        if not any(block.blotted for block in clue) and self._from_an_edge(line, before, after):
            return "edge"
        return "placements"

    @staticmethod
    def open(before: Sequence[int]) -> int:
        """The cells between the known empty cells at both ends."""
        lead = next((p for p, d in enumerate(before) if d != 1), len(before))
        trail = next((p for p, d in enumerate(reversed(before)) if d != 1), len(before))
        return max(0, len(before) - lead - trail)

    def _alone(self, line: int, before: list[int]) -> list[int] | None:
        """What the clue alone forces in the cells between the known empty ends."""
        lead = next((p for p, d in enumerate(before) if d != 1), len(before))
        open_cells = self.open(before)
        trimmed = self.solve([(line, [full_domain(self.puzzle)] * open_cells)])[0]
        if trimmed is None:
            return None
        return [*before[:lead], *trimmed, *before[lead + open_cells :]]

    def _from_an_edge(self, line: int, before: list[int], after: list[int]) -> bool:
        """Whether what the line forces follows from the cells known at one end alone: up to
        its first filled cell and a block's length past it (the first or last block)."""
        clue = self.puzzle.line_clue(line)
        every = full_domain(self.puzzle)
        asked = []
        for cells, length in ((before, clue[0].length), (before[::-1], clue[-1].length)):
            filled = next((p for p, d in enumerate(cells) if not d & 1), None)
            lead = next((p for p, d in enumerate(cells) if d != 1), len(cells))
            if filled is None or filled - lead >= length:
                continue  # no filled cell within a block's length of the edge
            reach = filled + length
            kept = [d if p <= reach else every for p, d in enumerate(cells)]
            asked.append(kept if cells is before else kept[::-1])
        for solved in self.solve([(line, kept) for kept in asked]):
            if solved is not None and all(
                solved[p] == after[p] for p in range(len(after)) if before[p] != after[p]
            ):
                return True
        return False


def hint(puzzle: Puzzle, domains: Sequence[int], deadline: Deadline | None = None) -> Hint:
    """The next step from `domains` (every cell's colors still possible)."""
    deadline = deadline or Deadline(None)
    lines = _Lines(puzzle)
    state = list(domains)
    asked = [(line, [state[c] for c in lines.cells[line]]) for line in lines.lines()]
    solved = lines.solve(asked, deadline)
    best: tuple[tuple[int, int, int], Hint] | None = None
    for (line, before), after in zip(asked, solved, strict=True):
        clue = puzzle.clue_text(puzzle.line_clue(line))
        if after is None:
            text = (
                f"{puzzle.line_name(line)} cannot be completed: its clue {clue} does not fit "
                f"the cells given ({domains_text(puzzle, before)}); some cell here or in a "
                "crossing line is wrong"
            )
            return Hint(
                "mistake",
                "contradiction",
                text,
                tuple(state),
                line,
                clue,
                before=domains_text(puzzle, before),
            )
        changed = [(p, d) for p, (b, d) in enumerate(zip(before, after, strict=True)) if b != d]
        if not changed:
            continue
        if deadline.expired():  # each line's reason solves it again: a wide grid's take long
            raise Timeout
        reason = lines.reason(line, before, after)
        rank = (LINE_REASONS.index(reason), -len(changed), line)
        if best is not None and rank >= best[0]:
            continue
        cells = tuple((lines.cells[line][p], d) for p, d in changed)
        stepped = list(state)
        for cell, d in cells:
            stepped[cell] = d
        said = _cells_said(puzzle, [(p + 1, d) for p, d in changed])
        text = f"{puzzle.line_name(line)} (clue {clue}): {said}: " + _explain(
            reason, clue, lines.open(before)
        )
        best = (
            rank,
            Hint(
                "line",
                reason,
                text,
                tuple(stepped),
                line,
                clue,
                cells,
                before=domains_text(puzzle, before),
                after=domains_text(puzzle, after),
            ),
        )
    if best is not None:
        return best[1]
    if all(_decided(d) for d in state):
        text = "the grid is complete: every row and column fits its clue"
        return Hint("solved", "complete", text, tuple(state))
    return _probe(puzzle, state, deadline)


def _probe(puzzle: Puzzle, state: list[int], deadline: Deadline) -> Hint:
    """A probe whose color leads line logic to a contradiction (the first found among the
    cells probing narrowed, in cell order); else a cell whose every color leads line logic to
    agree on another cell ("either way")."""
    engine = Engine(puzzle)
    best: tuple[int, int, int, int | None] | None = None  # (work, cell, color, line)
    agreed: tuple[int, int, int] | None = None  # (cell probed, cell decided, its domain)
    probed = engine.probe(state, None, deadline)  # one call: does any probe decide anything?
    if probed.status == "timeout":
        raise Timeout
    undecided = [cell for cell, domain in enumerate(state) if not _decided(domain)]
    # The cells probing narrowed come first: the first thing probing found from here is a
    # contradiction among them, or an agreement on one of them; the others are tried only
    # when none of those is a contradiction (a probe elsewhere may still agree on one).
    changed = [] if probed.domains is None else [
        cell for cell in undecided if probed.domains[cell] != state[cell]
    ]  # fmt: skip
    if probed.domains is not None and not changed:
        undecided = []  # probing decides nothing: stuck, without probing cell by cell
    first = set(changed)
    order = changed + [cell for cell in undecided if cell not in first]
    for cell in order:
        # The first contradiction among the cells probing narrowed will do: a large grid has
        # thousands of them, each a propagation of the whole grid.
        if best is not None and changed:
            break
        domain = state[cell]
        union = [0] * len(state)
        for color in range(len(puzzle.palette)):
            if not domain >> color & 1:
                continue
            if deadline.expired():
                raise Timeout
            assumed = list(state)
            assumed[cell] = 1 << color
            reached = engine.propagate(assumed, None, deadline)
            if reached.status == "timeout":
                raise Timeout
            if reached.domains is None:
                if best is None or reached.work < best[0]:
                    best = (reached.work, cell, color, reached.line)
                continue
            union = [a | b for a, b in zip(union, reached.domains, strict=True)]
        if best is None and agreed is None:
            narrowed = [
                other
                for other, (u, d) in enumerate(zip(union, state, strict=True))
                if u and u != d and other != cell
            ]
            if narrowed:
                agreed = (cell, narrowed[0], union[narrowed[0]])
    if best is not None:
        return _contradiction(puzzle, state, *best)
    if agreed is not None:
        return _either_way(puzzle, state, *agreed)
    text = (
        "no line and no single assumption decides a cell from here: the puzzle needs a "
        "guess (search), or it has several solutions (satnono analyze shows where)"
    )
    return Hint("stuck", "search", text, tuple(state))


def _where(puzzle: Puzzle, cell: int) -> str:
    row, column = divmod(cell, puzzle.width)
    return f"row {row + 1}, column {column + 1}"


def _contradiction(
    puzzle: Puzzle, state: list[int], work: int, cell: int, color: int, line: int | None
) -> Hint:
    stepped = list(state)
    stepped[cell] &= ~(1 << color)
    assumed_name = "empty" if color == 0 else puzzle.palette[color].name
    where = "" if line is None else f" in {puzzle.line_name(line)}"
    said = _cells_said(puzzle, [(1, stepped[cell])]).replace("cell 1 ", "so it ")
    text = (
        f"{_where(puzzle, cell)}: if it were {assumed_name}, line logic would reach a "
        f"contradiction{where}; {said}"
    )
    cells = ((cell, stepped[cell]),)
    return Hint("probe", "probe", text, tuple(stepped), line, None, cells, (cell, color), line)


def _either_way(puzzle: Puzzle, state: list[int], probed: int, cell: int, domain: int) -> Hint:
    stepped = list(state)
    stepped[cell] = domain
    said = _cells_said(puzzle, [(1, domain)]).replace("cell 1 ", "")
    text = (
        f"{_where(puzzle, cell)}: whatever color {_where(puzzle, probed)} takes, line logic "
        f"agrees on it: it {said}"
    )
    return Hint("probe", "either way", text, tuple(stepped), cells=((cell, domain),),
                probe=(probed, EVERY_COLOR))  # fmt: skip


def line_only(puzzle: Puzzle, deadline: Deadline | None = None) -> LineOnly:
    """Line logic, then probing, and no guess: how far they get and the grade."""
    from satnono.core.verify import problems

    deadline = deadline or Deadline(None)
    started = time.perf_counter()
    engine = Engine(puzzle)
    start = palette_domains(puzzle)
    undecided = len(start)

    def seconds() -> float:
        return time.perf_counter() - started

    lined = engine.propagate(start, None, deadline)
    if lined.status == "timeout":
        return LineOnly("unknown", tuple(start), 0, 0, seconds())
    if lined.domains is None:
        from satnono.pipeline.prepare import line_logic

        reason, _ = line_logic(puzzle, list(start), deadline)
        return LineOnly("no solution", tuple(start), 0, 0, seconds(), reason)
    by_lines = sum(1 for d in lined.domains if _decided(d))
    probed = engine.probe(lined.domains, None, deadline)
    if probed.domains is None:
        where = "" if probed.line is None else f" (it shows in {puzzle.line_name(probed.line)})"
        reason = f"line logic and probing: every color of some cell leads to a contradiction{where}"
        return LineOnly("no solution", tuple(lined.domains), by_lines, 0, seconds(), reason)
    by_probing = sum(1 for d in probed.domains if _decided(d)) - by_lines
    if probed.status == "timeout":
        return LineOnly("unknown", tuple(probed.domains), by_lines, by_probing, seconds())
    if sum(1 for d in probed.domains if _decided(d)) < undecided:
        return LineOnly("needs search", tuple(probed.domains), by_lines, by_probing, seconds())
    grid = tuple(
        tuple(probed.domains[r * puzzle.width + c].bit_length() - 1 for c in range(puzzle.width))
        for r in range(puzzle.height)
    )
    wrong = problems(puzzle, grid)
    if wrong:  # the engine's bug, never a user's: say so rather than hand it out
        raise RuntimeError(f"line logic decided a grid that does not fit: {wrong[0]}")
    grade: Grade = "line-solvable" if by_probing == 0 else "needs probing"
    return LineOnly(grade, tuple(probed.domains), by_lines, by_probing, seconds(), None, grid)
