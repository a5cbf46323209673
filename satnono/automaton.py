"""The regular language of one clue as a small deterministic automaton over palette colors.

The line solver, the CNF encoding and the CP-SAT model all read the same automaton, so that
"what a clue allows" is defined in exactly one place.

For a clue (a, b) the language is  bg* A^a gap B^b bg*  where the gap is bg+ when A and B
have the same color and bg* otherwise. State q means "the first q pattern cells are consumed".
State 0 is the start; the last state is the only accepting one. Each state q >= 1 is entered by
exactly one color, `entry_color[q]` (an advance from q - 1); some states also loop on the
background (leading, trailing and between-block background). That shape makes it deterministic,
and lets sets of states be manipulated as Python integers, one bit per state.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from satnono.model import BACKGROUND, Block


@dataclass(frozen=True)
class LineAutomaton:
    #: entry_color[q]: the color read when advancing into state q; entry_color[0] is -1.
    entry_color: tuple[int, ...]
    #: bit q set when state q loops on the background.
    loops: int
    #: entry_masks[c]: bit q set when entry_color[q] == c, for every palette color c.
    entry_masks: tuple[int, ...]

    @property
    def states(self) -> int:
        return len(self.entry_color)

    @property
    def accept(self) -> int:
        return len(self.entry_color) - 1

    def next_state(self, state: int, color: int) -> int | None:
        """The deterministic transition, or None when `color` is not allowed in `state`."""
        if state + 1 < len(self.entry_color) and self.entry_color[state + 1] == color:
            return state + 1
        if color == BACKGROUND and self.loops >> state & 1:
            return state
        return None


@cache
def line_automaton(clue: tuple[Block, ...], colors: int) -> LineAutomaton:
    """Build the automaton of `clue` over a palette of `colors` colors (background included)."""
    entry = [-1]
    loops = 1  # leading background on the start state
    for i, block in enumerate(clue):
        if i > 0:
            if clue[i - 1].color == block.color:
                entry.append(BACKGROUND)  # the mandatory gap cell, which then loops
                loops |= 1 << (len(entry) - 1)
            else:
                loops |= 1 << (len(entry) - 1)  # optional gap: the previous block's end loops
        entry.extend([block.color] * block.length)
    if clue:
        loops |= 1 << (len(entry) - 1)  # trailing background
    masks = [0] * colors
    for state, color in enumerate(entry):
        if state:
            masks[color] |= 1 << state
    return LineAutomaton(tuple(entry), loops, tuple(masks))
