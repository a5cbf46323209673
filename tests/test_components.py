"""Independent components of the residual: the union-find agrees with networkx.

satnono splits the residual with its own union-find (networkx costs 0.3-0.8 s to import, too
much for a solve that takes a fraction of a second); networkx, the reference implementation of
connected components, checks it here on random partly decided grids.
"""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from satnono.backends import Residual
from satnono.core.geometry import Geometry
from satnono.core.grids import full_domain
from satnono.core.model import Puzzle
from satnono.logic.components import components
from satnono.reference.propagate import Propagator
from support import puzzles


@settings(max_examples=200, deadline=None)
@given(puzzle=puzzles(max_width=8, max_height=8, max_colors=2), data=st.data())
def test_components_are_the_connected_components(puzzle: Puzzle, data: st.DataObject) -> None:
    cells = puzzle.width * puzzle.height
    undecided = data.draw(st.lists(st.booleans(), min_size=cells, max_size=cells))
    domains = [full_domain(puzzle) if u else 1 for u in undecided]
    propagator = Propagator(puzzle)
    found = components(propagator, domains)

    graph = nx.Graph()
    for cell in range(cells):
        if undecided[cell]:
            row, column = propagator.lines_of(cell)
            graph.add_edge(row, column)
    expected = {tuple(sorted(part)) for part in nx.connected_components(graph)}
    assert set(found) == expected and len(found) == len(expected)
    assert [len(part) for part in found] == sorted((len(p) for p in expected), reverse=True)
    # A component found earlier is closed: searching inside it finds it whole again.
    for part in found:
        assert components(propagator, domains, part) == [part]
    # Its cells, as a backend's residual reads them (a row's pass, not the lines' cells).
    geometry = Geometry(puzzle)
    for part in found:
        on_its_lines = {cell for line in part for cell in geometry.cells[line] if undecided[cell]}
        residual = Residual(puzzle, geometry, tuple(domains), part)
        assert residual.cells() == sorted(on_its_lines)
