"""One line's constraint as clauses (encodings/automaton-cnf.md, encodings/blocks-cnf.md: code
and text agree): the clue's automaton unrolled over the line, with or without its redundant
clauses, or the blocks' start positions in order encoding. Each keeps only what lies on some
accepted path under the cells' domains (the automaton's live states).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from satnono.core.grids import colors_of
from satnono.core.model import BACKGROUND
from satnono.encode.automaton import LineAutomaton
from satnono.encode.formula import FALSE, TRUE, CnfFormula, color_literal

#: Encodes one unfinished line: (formula, its clue's automaton, the line's cells, all domains).
LineEncoder = Callable[[CnfFormula, LineAutomaton, Sequence[int], Sequence[int]], None]


def encode_line_automaton(
    formula: CnfFormula,
    automaton: LineAutomaton,
    cells: Sequence[int],
    domains: Sequence[int],
    redundant: bool = True,
) -> None:
    """Unroll the clue automaton over one line (see encodings/automaton-cnf.md).

    Transitions are literals equivalent to (source state AND cell color). A state entered by a
    single transition *is* that transition, and a transition that is its source state's only
    way out *is* that state, so inside a block the states collapse into one variable per
    start position and only branching points cost fresh variables. Without `redundant` only
    the clauses that define the language are kept (the lean variant): the backward half of
    line propagation (state-continues, transition-implies-state, color-support) is dropped.
    """
    line = [domains[cell] for cell in cells]
    live = automaton.live_states(line)
    if live is None:
        formula.add([FALSE], "line-contradiction")
        return
    entry, loops = automaton.entry_color, automaton.loops
    last_state = len(entry) - 1
    plain = automaton.plain
    add, conjunction, new_variable = formula.add, formula.conjunction, formula.new_variable
    # Literal of each live state at the current boundary; a lone live state is certain.
    current = {_only_state(live[0]): TRUE}
    for j, cell in enumerate(cells):
        domain = line[j]
        colors = colors_of(domain)
        undecided = len(colors) > 1
        after = live[j + 1]
        # Transitions (source, color, target) between live states.
        transitions: list[tuple[int, int, int]] = []
        for q in current:
            if plain:
                for color in colors:
                    if q < last_state and entry[q + 1] == color and after >> (q + 1) & 1:
                        transitions.append((q, color, q + 1))
                    elif color == BACKGROUND and loops >> q & 1 and after >> q & 1:
                        transitions.append((q, color, q))
            else:  # blotted blocks: color loops and skips too (satnono.encode.automaton)
                transitions += [
                    (q, color, target)
                    for color, target in automaton.transitions(q)
                    if color in colors and after >> target & 1
                ]
        out_count: dict[int, int] = {}
        for q, _, _ in transitions:
            out_count[q] = out_count.get(q, 0) + 1
        single_after = not after & (after - 1)
        following: dict[int, int] = {}
        incoming: dict[int, list[int]] = {}
        outgoing: dict[int, list[int]] = {}
        supports: dict[int, list[int]] = {}
        for q, color, target in transitions:
            source = current[q]
            x = color_literal(formula, cell, domain, color) if undecided else TRUE
            if out_count[q] == 1:
                # The source's only way out: the transition is the source state itself.
                transition = source
                if undecided:
                    add([-source, x], "state-implies-color")
            else:
                transition = conjunction(source, x, "transition", redundant)
            if redundant:
                supports.setdefault(color, []).append(transition)
                outgoing.setdefault(q, []).append(transition)
            incoming.setdefault(target, []).append(transition)
        for target, into in incoming.items():
            if single_after:
                state = TRUE
                add(into, "state-support")
            elif len(into) == 1:
                state = into[0]
            else:
                state = new_variable()
                if redundant:
                    for transition in into:
                        add([-transition, state], "transition-implies-state")
                add([-state, *into], "state-support")
            following[target] = state
        if redundant:
            for q, out in outgoing.items():
                if len(out) > 1:
                    add([-current[q], *out], "state-continues")
            if undecided:
                for color in colors:
                    x = color_literal(formula, cell, domain, color)
                    add([-x, *supports.get(color, [])], "color-support")
        current = following
    if len(current) > 1:
        # A clue ending in a blotted block accepts in two states; one of them ends the line
        # (the lean variant has no forward clauses that would imply it).
        add(list(current.values()), "final-state")


def encode_line_automaton_lean(
    formula: CnfFormula, automaton: LineAutomaton, cells: Sequence[int], domains: Sequence[int]
) -> None:
    """The automaton without its redundant clauses (encodings/automaton-cnf.md, lean)."""
    encode_line_automaton(formula, automaton, cells, domains, redundant=False)


def _only_state(states: int) -> int:
    if states & (states - 1):
        raise ValueError("the start boundary has exactly one live state")
    return states.bit_length() - 1


def block_starts(automaton: LineAutomaton, line: Sequence[int]) -> list[list[int]] | None:
    """Each block's feasible start cells under the domains `line`, or None when none fits.

    Block i starts at cell p iff the automaton advances into the block's first state while
    reading cell p on some accepted path: the state before it is live at boundary p, the
    first state is live at boundary p + 1 and cell p may take the block's color.
    """
    live = automaton.live_states(line)
    if live is None:
        return None
    starts = []
    first = 1
    previous = None
    for block in automaton.clue:
        if previous is not None and previous.color == block.color:
            first += 1  # the mandatory gap state
        before, color = first - 1, block.color
        starts.append(
            [
                p
                for p in range(len(line))
                if live[p] >> before & 1 and live[p + 1] >> first & 1 and line[p] >> color & 1
            ]
        )
        first += block.length
        previous = block
    return starts


def encode_line_blocks(
    formula: CnfFormula, automaton: LineAutomaton, cells: Sequence[int], domains: Sequence[int]
) -> None:
    """Block start positions in order encoding (see encodings/blocks-cnf.md).

    y(i, p) means "block i starts at cell p or later". Every clause has at most three
    literals and no auxiliary variable is needed beyond the starts: a cell is painted with
    block i's color when block i covers it, and is background when it lies in a gap.
    """
    line = [domains[cell] for cell in cells]
    starts = block_starts(automaton, line)
    if starts is None:
        formula.add([FALSE], "line-contradiction")
        return
    add = formula.add
    clue = automaton.clue
    n = len(cells)

    def x(j: int, color: int) -> int:
        return color_literal(formula, cells[j], line[j], color)

    if not clue:
        for j in range(n):
            add([x(j, BACKGROUND)], "gap-background")
        return
    # at[i][p] for p in lo..hi + 1; y(i, p) is TRUE below lo and FALSE above hi.
    bounds = [(s[0], s[-1]) for s in starts]
    at: list[list[int]] = []
    for lo, hi in bounds:
        at.append([TRUE] + [formula.new_variable() for _ in range(lo + 1, hi + 1)] + [FALSE])
    formula.start_variables[tuple(cells)] = [
        (lo, variables[1:-1]) for (lo, _), variables in zip(bounds, at, strict=True)
    ]

    def y(i: int, p: int) -> int:
        lo, hi = bounds[i]
        if p <= lo:
            return TRUE
        if p > hi:
            return FALSE
        return at[i][p - lo]

    for i, block in enumerate(clue):
        lo, hi = bounds[i]
        feasible = set(starts[i])
        for p in range(lo + 1, hi):
            add([-y(i, p + 1), y(i, p)], "start-order")
            if p not in feasible:
                add([-y(i, p), y(i, p + 1)], "start-hole")
        if i + 1 < len(clue):
            distance = block.length + (clue[i + 1].color == block.color)
            for p in range(lo + 1, hi + 1):
                add([-y(i, p), y(i + 1, p + distance)], "block-order")
        for j in range(lo, hi + block.length):
            add([y(i, j + 1), -y(i, j - block.length + 1), x(j, block.color)], "cover-color")
    # Gap g lies after block g - 1 and before block g (g = 0: before the first block).
    for g in range(len(clue) + 1):
        first = 0 if g == 0 else bounds[g - 1][0] + clue[g - 1].length
        last = n - 1 if g == len(clue) else bounds[g][1] - 1
        for j in range(first, last + 1):
            clause = [x(j, BACKGROUND)]
            if g < len(clue):
                clause.append(-y(g, j + 1))
            if g > 0:
                clause.append(y(g - 1, j - clue[g - 1].length + 1))
            add(clause, "gap-background")
