"""The regular language of one clue as a small deterministic automaton over palette colors.

The line solver, the CNF encoding and the CP-SAT model all read the same automaton, so that
"what a clue allows" is defined in exactly one place.

For a clue (a, b) the language is  bg* A^a gap B^b bg*  where the gap is bg+ when A and B
have the same color and bg* otherwise. State q means "the first q pattern cells are consumed".
State 0 is the start; the last state is the only accepting one. Each state q >= 1 is entered by
exactly one color, `entry_color[q]` (an advance from q - 1); some states also loop on the
background (leading, trailing and between-block background). That shape makes it deterministic,
and lets sets of states be manipulated as Python integers, one bit per state.

A blotted block (unknown length, model.BLOTTED) is one state that also loops on its own color.
After it, a background cell must go to a gap state of its own (else "c bg c" would stay in the
block); when the next block has another color it may also follow at once, so the block's state
may skip the gap: an advance from q to q + 2 (`skips`). A clue ending in a blotted block has two
accepting states, the block's and the trailing gap's (`accepting`). Clues without blotted
blocks have no color loops, no skips and one accepting state, as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from satnono.core.grids import colors_of
from satnono.core.model import BACKGROUND, Block, Puzzle


@dataclass(frozen=True)
class LineAutomaton:
    #: entry_color[q]: the color read when advancing into state q; entry_color[0] is -1.
    entry_color: tuple[int, ...]
    #: bit q set when state q loops on the background.
    loops: int
    #: entry_masks[c]: bit q set when entry_color[q] == c, for every palette color c.
    entry_masks: tuple[int, ...]
    #: bit q set when state q loops on its own entry color (a blotted block).
    color_loops: int = 0
    #: bit q set when state q may advance straight to q + 2 (skipping a blotted block's gap).
    skips: int = 0
    #: bit q set for each accepting state; 0 stands for "the last state only".
    accepting_states: int = 0
    #: The clue it reads (the blocks encoding places its blocks).
    clue: tuple[Block, ...] = field(default=(), compare=False)

    @property
    def states(self) -> int:
        return len(self.entry_color)

    @property
    def accept(self) -> int:
        return len(self.entry_color) - 1

    @property
    def accepting(self) -> int:
        """The accepting states as a bit set."""
        return self.accepting_states or 1 << self.accept

    @property
    def plain(self) -> bool:
        """No blotted block: every state advances by one or loops on the background."""
        return not (self.color_loops or self.skips)

    def next_state(self, state: int, color: int) -> int | None:
        """The deterministic transition, or None when `color` is not allowed in `state`."""
        entry = self.entry_color
        if state + 1 < len(entry) and entry[state + 1] == color:
            return state + 1
        if self.skips >> state & 1 and state + 2 < len(entry) and entry[state + 2] == color:
            return state + 2
        if color == BACKGROUND and self.loops >> state & 1:
            return state
        if self.color_loops >> state & 1 and entry[state] == color:
            return state
        return None

    def transitions(self, state: int) -> list[tuple[int, int]]:
        """Every (color, next state) out of `state`."""
        entry, last = self.entry_color, len(self.entry_color) - 1
        out = []
        if state < last:
            out.append((entry[state + 1], state + 1))
        if self.skips >> state & 1 and state + 2 <= last:
            out.append((entry[state + 2], state + 2))
        if self.loops >> state & 1:
            out.append((BACKGROUND, state))
        if self.color_loops >> state & 1:
            out.append((entry[state], state))
        return out

    def step(self, domain: int) -> tuple[int, int]:
        """(advance, loop) for a cell whose colors are `domain`: the states entered by one of
        its colors from the state before, and the states that may stay where they are."""
        advance = 0
        for color in colors_of(domain):
            advance |= self.entry_masks[color]
        loop = self.loops if domain & 1 else 0
        return advance, loop | (self.color_loops & advance)  # a blotted block loops on its color

    def forward(self, domains: Sequence[int]) -> list[int]:
        """The states reachable from the start before each cell and after the last: one bit
        set per state, len(domains) + 1 sets."""
        reached = [1]
        states, skips = 1, self.skips
        for domain in domains:
            advance, loop = self.step(domain)
            states = (((states << 1) | ((states & skips) << 2)) & advance) | (states & loop)
            reached.append(states)
        return reached

    def live_states(self, domains: Sequence[int]) -> list[int] | None:
        """The states on some accepted path at each boundary (reachable forwards and
        backwards), or None when no filling of the line fits `domains`. The encoders make
        variables for these states only."""
        reached = self.forward(domains)
        states = reached[-1] & self.accepting
        if not states:
            return None
        live = [0] * len(reached)
        live[-1] = states
        skips = self.skips
        for j in range(len(domains) - 1, -1, -1):
            advance, loop = self.step(domains[j])
            entered = states & advance
            states = (entered >> 1) | (states & loop) | ((entered >> 2) & skips)
            live[j] = states & reached[j]
        return live


@lru_cache(maxsize=4096)
def clue_automaton(clue: tuple[Block, ...], colors: int) -> LineAutomaton:
    """`line_automaton`, kept for the clues met again (every line of a puzzle is encoded
    from its clue, and many lines share one)."""
    return line_automaton(clue, colors)


def automaton_of_line(puzzle: Puzzle, line: int) -> LineAutomaton:
    """The automaton of `line`'s clue (rows first, then columns)."""
    return clue_automaton(puzzle.line_clue(line), len(puzzle.palette))


def line_automaton(clue: tuple[Block, ...], colors: int) -> LineAutomaton:
    """Build the automaton of `clue` over a palette of `colors` colors (background included)."""
    entry = [-1]
    loops = 1  # leading background on the start state
    color_loops = skips = accepting = 0
    for i, block in enumerate(clue):
        if i > 0:
            previous = clue[i - 1]
            if previous.color == block.color:
                entry.append(BACKGROUND)  # the mandatory gap cell, which then loops
                loops |= 1 << (len(entry) - 1)
            elif previous.blotted:
                # A gap state of its own, which the block's state may also skip.
                skips |= 1 << (len(entry) - 1)
                entry.append(BACKGROUND)
                loops |= 1 << (len(entry) - 1)
            else:
                loops |= 1 << (len(entry) - 1)  # optional gap: the previous block's end loops
        if block.blotted:
            entry.append(block.color)
            color_loops |= 1 << (len(entry) - 1)
        else:
            entry.extend([block.color] * block.length)
    if clue and clue[-1].blotted:
        entry.append(BACKGROUND)  # the trailing gap, its own state
        loops |= 1 << (len(entry) - 1)
        accepting = 3 << (len(entry) - 2)  # the block's state and the gap's
    elif clue:
        loops |= 1 << (len(entry) - 1)  # trailing background
    masks = [0] * colors
    for state, color in enumerate(entry):
        if state:
            masks[color] |= 1 << state
    return LineAutomaton(
        tuple(entry), loops, tuple(masks), color_loops, skips, accepting, tuple(clue)
    )
