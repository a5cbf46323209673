"""Independent components of a residual puzzle: solved apart, their solutions multiply.

Lines with undecided cells are the nodes, undecided cells the edges joining their row and column.
Two components share no undecided cell and no line, so any solution of one combines with any
solution of another. A plain union-find does the job: it is the graph search networkx would do,
without networkx's 0.3-0.8 s import on a solve that should take well under a second.
"""

from __future__ import annotations

from collections.abc import Sequence

from satnono.core.geometry import Geometry


def components(
    geometry: Geometry, domains: Sequence[int], lines: Sequence[int] | None = None
) -> list[tuple[int, ...]]:
    """The lines of each component (sorted), largest component first.

    Only lines with an undecided cell appear; `lines` restricts the search to a subset of lines
    that is closed under "crosses an undecided cell of" (a component found earlier).
    """
    puzzle = geometry.puzzle
    width, height = puzzle.width, puzzle.height
    scope = range(puzzle.line_count) if lines is None else lines
    parent = {line: line for line in scope}

    def find(line: int) -> int:
        root = line
        while parent[root] != root:
            root = parent[root]
        while parent[line] != root:
            parent[line], line = root, parent[line]
        return root

    active: set[int] = set()
    for line in scope:
        if line >= height:
            continue  # every undecided cell is seen from its row
        start = line * width
        columns = [
            height + column
            for column, domain in enumerate(domains[start : start + width])
            if domain & (domain - 1)
        ]
        if not columns:
            continue
        # The row's component is hung under its columns' (a row at a time, the common case
        # without a call: a 1000 x 1000 grid's cells one by one took a second). On a large
        # component its root then stays put, and each column points at it.
        active.add(line)
        active.update(columns)
        root = find(line)
        for column in columns:
            other = parent[column]
            if parent[other] != other:
                other = find(column)
            if other != root:
                parent[root] = other
                root = other
    groups: dict[int, list[int]] = {}
    for line in sorted(active):
        groups.setdefault(find(line), []).append(line)
    return sorted((tuple(group) for group in groups.values()), key=lambda g: (-len(g), g))
