"""The exact line solver: which colors each cell of one line can still take, given its clue.

A cell's domain is a bitmask of palette colors (bit 0 is the background). The solver runs the
clue's automaton forwards and backwards over the line with every set of states held in one
Python integer (bit-parallel), so a line costs O(length) big-integer operations whatever the
number of blocks. A color survives in a cell iff some accepted line uses it there, which makes
the solver complete (it finds every deduction a single line allows), not a heuristic.
"""

from __future__ import annotations

from collections.abc import Sequence

from satnono.automaton import LineAutomaton, line_automaton
from satnono.model import BACKGROUND, Clue

Domains = tuple[int, ...]

_CACHE_LIMIT = 50_000
_NO_SOLUTION: Domains = ()

_colors_of_cache: dict[int, tuple[int, ...]] = {}


def colors_of(domain: int) -> tuple[int, ...]:
    """The palette indices in a domain bitmask, in increasing order."""
    found = _colors_of_cache.get(domain)
    if found is None:
        found = tuple(c for c in range(domain.bit_length()) if domain >> c & 1)
        _colors_of_cache[domain] = found
    return found


class LineSolver:
    """Solves every line that has one particular clue and length; results are cached.

    Probing and search revisit the same partial lines very often, so a bounded cache keyed by
    the domains tuple pays for itself many times over.
    """

    __slots__ = ("_cache", "_steps", "automaton", "clue", "length")

    def __init__(self, clue: Clue, length: int, colors: int) -> None:
        self.clue = clue
        self.length = length
        self.automaton: LineAutomaton = line_automaton(clue, colors)
        # _steps[domain] = (advance mask, loop mask) of the union of the domain's colors.
        self._steps: dict[int, tuple[int, int]] = {}
        self._cache: dict[Domains, Domains] = {}

    def _step(self, domain: int) -> tuple[int, int]:
        step = self._steps.get(domain)
        if step is None:
            masks = self.automaton.entry_masks
            advance = 0
            for color in colors_of(domain):
                advance |= masks[color]
            loop = self.automaton.loops if domain & 1 else 0
            step = (advance, loop)
            self._steps[domain] = step
        return step

    def forward(self, domains: Sequence[int]) -> list[int]:
        """States reachable from the start before each cell: len(domains) + 1 bitsets."""
        reached = [1]
        states = 1
        step = self._steps
        for domain in domains:
            advance, loop = step.get(domain) or self._step(domain)
            states = ((states << 1) & advance) | (states & loop)
            reached.append(states)
        return reached

    def live_states(self, domains: Sequence[int]) -> list[int] | None:
        """States on some accepted path at each boundary (forward AND backward), or None.

        The encoders build variables only for these states.
        """
        reached = self.forward(domains)
        accept = 1 << self.automaton.accept
        if not reached[-1] & accept:
            return None
        live = [0] * len(reached)
        states = accept
        live[-1] = accept
        step = self._steps
        for j in range(len(domains) - 1, -1, -1):
            advance, loop = step.get(domains[j]) or self._step(domains[j])
            states = ((states & advance) >> 1) | (states & loop)
            live[j] = states & reached[j]
        return live

    def solve(self, domains: Domains) -> Domains | None:
        """The narrowed domains, or None when no arrangement of the clue fits."""
        cache = self._cache
        result = cache.get(domains)
        if result is not None:
            return result or None
        result = self._solve(domains)
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        cache[domains] = result
        return result or None

    def _solve(self, domains: Domains) -> Domains:
        step = self._steps
        reached = [1]
        states = 1
        for domain in domains:
            advance, loop = step.get(domain) or self._step(domain)
            states = ((states << 1) & advance) | (states & loop)
            if not states:
                return _NO_SOLUTION
            reached.append(states)
        accept = 1 << self.automaton.accept
        if not states & accept:
            return _NO_SOLUTION
        masks = self.automaton.entry_masks
        loops = self.automaton.loops
        narrowed = list(domains)
        after = accept  # states co-reachable after cell j
        for j in range(len(domains) - 1, -1, -1):
            domain = domains[j]
            before = reached[j]
            if domain & (domain - 1):  # several colors left: keep the supported ones
                shifted = (before << 1) & after
                kept = 0
                for color in colors_of(domain):
                    if shifted & masks[color] or (color == BACKGROUND and before & loops & after):
                        kept |= 1 << color
                narrowed[j] = kept
            advance, loop = step[domain]
            after = ((after & advance) >> 1) | (after & loop)
        return tuple(narrowed)
