"""The exact line solver: which colors each cell of one line can still take, given its clue.

A cell's domain is a bitmask of palette colors (bit 0 is the background). The solver runs the
clue's automaton forwards and backwards over the line with every set of states held in one
Python integer (bit-parallel), so a line costs O(length) big-integer operations whatever the
number of blocks. A color survives in a cell iff some accepted line uses it there, which makes
the solver complete (it finds every deduction a single line allows), not a heuristic.
"""

from __future__ import annotations

from satnono.core.grids import colors_of
from satnono.core.model import Clue
from satnono.encode.automaton import LineAutomaton, line_automaton

Domains = tuple[int, ...]

_CACHE_LIMIT = 50_000
_NO_SOLUTION: Domains = ()


def clue_numbers(clue: Clue, colors: int) -> tuple[int, ...]:
    """A clue as plain numbers, a cheap key for it: the lengths in black and white, (length,
    color) pairs flattened in color. Hashing a clue hashes each Block through Python; this
    tuple of ints hashes in C, and every line of every puzzle is looked up by it."""
    if colors == 2:
        return tuple([block.length for block in clue])
    return tuple([number for block in clue for number in (block.length, block.color)])


#: Per (clue numbers, colors): the clue's automaton, its lengths and black-and-white pass
#: when it has them, and its step records; shared by every line and puzzle with the clue.
_PARTS: dict[
    tuple[tuple[int, ...], int],
    tuple[LineAutomaton, tuple[int, ...] | None, _BlackAndWhite | None, dict[int, _Step]],
] = {}
#: Distinct clues kept (an archive has tens of thousands; each entry is a few hundred bytes).
_PARTS_LIMIT = 100_000


def _parts(
    clue: Clue, colors: int
) -> tuple[LineAutomaton, tuple[int, ...] | None, _BlackAndWhite | None, dict[int, _Step]]:
    automaton = line_automaton(clue, colors)
    if colors == 2 and automaton.plain:
        lengths = tuple(block.length for block in clue)
        return automaton, lengths, _BlackAndWhite(automaton), {}
    return automaton, None, None, {}


class LineSolver:
    """Solves every line that has one particular clue and length; results are cached.

    Probing and search revisit the same partial lines very often, so a bounded cache keyed by
    the domains tuple pays for itself many times over.
    """

    __slots__ = ("_black_and_white", "_lengths", "_steps", "automaton", "cache", "clue", "length")

    def __init__(
        self, clue: Clue, length: int, colors: int, numbers: tuple[int, ...] | None = None
    ) -> None:
        """`numbers` is the clue as `clue_numbers` gives it, when the caller has it."""
        self.clue = clue
        self.length = length
        key = (clue_numbers(clue, colors) if numbers is None else numbers, colors)
        parts = _PARTS.get(key)
        if parts is None:
            if len(_PARTS) >= _PARTS_LIMIT:
                _PARTS.clear()
            parts = _PARTS[key] = _parts(clue, colors)
        self.automaton: LineAutomaton = parts[0]
        #: A black-and-white clue's numbers, for its empty line (see _empty_line), and what
        #: _BlackAndWhite.solve reads; None for a color or blotted clue (the automaton's).
        self._lengths, self._black_and_white = parts[1], parts[2]
        # _steps[domain]: what the automaton does on a cell with that domain (see _step),
        # shared by every solver of the clue.
        self._steps: dict[int, _Step] = parts[3]
        #: domains -> narrowed domains, or () for a contradiction. Propagation reads it
        #: directly: most lookups hit, and a hit then costs no call.
        self.cache: dict[Domains, Domains] = {}

    def _step(self, domain: int) -> _Step:
        """(advance mask, loop mask, background allowed, ((bit, entry mask) per color)).

        The masks are the union over the domain's colors; the last two parts let the backward
        pass test each color's support without looking anything else up (colors that enter
        no state are left out of the last part).
        """
        step = self._steps.get(domain)
        if step is None:
            masks = self.automaton.entry_masks
            advance = 0
            for color in colors_of(domain):
                advance |= masks[color]
            loop = self.automaton.loops if domain & 1 else 0
            # A blotted block's state loops on its own color (none in plain automata).
            loop |= self.automaton.color_loops & advance
            # The background also advances, into the mandatory gap between same-color blocks.
            entries = tuple((1 << c, masks[c]) for c in colors_of(domain) if masks[c])
            step = (advance, loop, bool(domain & 1), entries)
            self._steps[domain] = step
        return step

    def solve(self, domains: Domains) -> Domains | None:
        """The narrowed domains, or None when no arrangement of the clue fits."""
        cache = self.cache
        result = cache.get(domains)
        if result is None:
            result = self.solve_uncached(domains)
        return result or None

    def solve_uncached(self, domains: Domains) -> Domains:
        """Solve and remember the result; () stands for a contradiction."""
        result = self._solve(domains)
        cache = self.cache
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        cache[domains] = result
        return result

    def _solve(self, domains: Domains) -> Domains:
        if self._black_and_white is not None:
            if self._lengths is not None and domains.count(_UNKNOWN) == self.length:
                return _empty_line(self._lengths, self.length)
            return self._black_and_white.solve(domains)
        if not self.automaton.plain:
            return self._solve_blotted(domains)
        step = self._steps
        reached = [1]
        states = 1
        for domain in domains:
            advance, loop, _, _ = step.get(domain) or self._step(domain)
            states = ((states << 1) & advance) | (states & loop)
            if not states:
                return _NO_SOLUTION
            reached.append(states)
        accept = 1 << self.automaton.accept
        if not states & accept:
            return _NO_SOLUTION
        loops = self.automaton.loops
        narrowed = list(domains)
        after = accept  # states co-reachable after cell j
        for j in range(len(domains) - 1, -1, -1):
            domain = domains[j]
            advance, loop, background, entries = step.get(domain) or self._step(domain)
            if domain & (domain - 1):  # several colors left: keep the supported ones
                before = reached[j]
                kept = 1 if background and before & loops & after else 0
                shifted = (before << 1) & after
                if shifted:
                    for bit, mask in entries:
                        if shifted & mask:
                            kept |= bit
                narrowed[j] = kept
            after = ((after & advance) >> 1) | (after & loop)
        return tuple(narrowed)

    def _solve_blotted(self, domains: Domains) -> Domains:
        """`_solve` for an automaton with blotted blocks: color loops and skips too."""
        automaton = self.automaton
        reached = automaton.forward(domains)
        if not reached[-1] & automaton.accepting:
            return _NO_SOLUTION
        loops, color_loops, skips = automaton.loops, automaton.color_loops, automaton.skips
        narrowed = list(domains)
        after = reached[-1] & automaton.accepting
        step = self._steps
        for j in range(len(domains) - 1, -1, -1):
            domain = domains[j]
            advance, loop, background, entries = step.get(domain) or self._step(domain)
            before = reached[j]
            if not before:
                return _NO_SOLUTION
            if domain & (domain - 1):
                kept = 1 if background and before & loops & after else 0
                entered = (((before << 1) | ((before & skips) << 2)) & after) | (
                    before & color_loops & after
                )
                for bit, mask in entries:
                    if entered & mask:
                        kept |= bit
                narrowed[j] = kept
            entered_after = after & advance
            after = (
                (entered_after >> 1) | ((entered_after >> 2) & skips) | (after & loop)
            ) & reached[j]
        return tuple(narrowed)


#: A black-and-white cell that may still be either color.
_UNKNOWN = 0b11


class _BlackAndWhite:
    """`LineSolver._solve` for a black-and-white clue without blotted blocks: the same two
    passes over the automaton, with the three domains (white 1, black 2, unknown 3) looked up
    in tuples and the colors tested by name rather than through the generic step records.
    Most puzzles are black and white, so this is most of line logic's work: 1.3-1.7x faster
    than the generic pass (tools/bench_lines.py, BENCHMARKS.md)."""

    __slots__ = ("accept", "advance", "black", "loop", "loops", "white")

    def __init__(self, automaton: LineAutomaton) -> None:
        white, black = automaton.entry_masks
        self.white, self.black, self.loops = white, black, automaton.loops
        #: Indexed by a cell's domain: the states entered, and those that stay, on it.
        self.advance = (0, white, black, white | black)
        self.loop = (0, automaton.loops, 0, automaton.loops)
        self.accept = 1 << automaton.accept

    def solve(self, domains: Domains) -> Domains:
        advance, loop = self.advance, self.loop
        reached = [1]
        states = 1
        add = reached.append
        for domain in domains:
            states = ((states << 1) & advance[domain]) | (states & loop[domain])
            add(states)
        after = self.accept  # states co-reachable after the cell
        if not states & after:
            return _NO_SOLUTION
        white, black, loops = self.white, self.black, self.loops
        either = white | black
        narrowed = list(domains)
        cell = len(domains)
        for domain in reversed(domains):
            cell -= 1
            if domain == _UNKNOWN:
                before = reached[cell]
                entered = (before << 1) & after
                if not entered & black:
                    narrowed[cell] = 1
                elif not (entered & white or before & loops & after):
                    narrowed[cell] = 2
                after = ((after & either) >> 1) | (after & loops)
            elif domain == 2:
                after = (after & black) >> 1
            else:
                after = ((after & white) >> 1) | (after & loops)
        return tuple(narrowed)


def _empty_line(lengths: tuple[int, ...], length: int) -> Domains:
    """What a black-and-white clue decides on a line with nothing decided yet: the overlap of
    each block's leftmost and rightmost places (black), and nothing else unless the clue fills
    the line exactly. That is all a single empty line allows (the tests check it against the
    automaton and brute force), found in O(blocks) slice writes rather than a pass per cell:
    every line starts empty, so this is a third of line logic's solves on easy puzzles."""
    if not lengths:
        return (1,) * length
    slack = length - sum(lengths) - len(lengths) + 1
    if slack < 0:
        return _NO_SOLUTION
    cells = [1 if slack == 0 else _UNKNOWN] * length
    start = 0
    for size in lengths:
        if size > slack:
            cells[start + slack : start + size] = [2] * (size - slack)
        start += size + 1
    return tuple(cells)


#: See LineSolver._step.
_Step = tuple[int, int, bool, tuple[tuple[int, int], ...]]
