"""CNF encodings of the residual puzzle, one constraint per line, selectable by name.

Specified in encodings/automaton-cnf.md and encodings/blocks-cnf.md (code and text agree).
Only cells with more than one color left get variables; decided cells are constants that fold
away, and every line keeps only what lies on some accepted path under the propagated domains.
Several variants exist because no single one is fastest on every puzzle and solver: racing
them (the portfolio backend) turns that spread into a gain.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from satnono.grids import colors_of
from satnono.linesolver import LineSolver
from satnono.model import BACKGROUND, Puzzle
from satnono.propagate import Propagator
from satnono.runtime.deadline import Deadline, Timeout

Clause = list[int]

#: Variable 1 is the constant true (a unit clause pins it), so constants fold like literals.
TRUE = 1
FALSE = -1


@dataclass
class CnfFormula:
    """Clauses plus the map from residual cells to their color literals."""

    variables: int = 1
    clauses: list[Clause] = field(default_factory=lambda: [[TRUE]])
    #: cell -> (color, literal) for every color still possible in a residual cell.
    cell_literals: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    #: clause counts by family, for the stats and the specification's size table.
    families: dict[str, int] = field(default_factory=dict)
    #: The encoding variant that built the formula (a key of ENCODINGS; "blocks+automaton" when
    #: lines with blotted numbers needed the automaton).
    encoding: str = "blocks"
    #: True when unit propagation alone refutes every non-solution once all cells are assigned
    #: (enumeration may then accept a fully propagated assignment without a solver call).
    checks_by_propagation: bool = True
    #: The blocks encoding's order variables, per encoded line (its cells) and block:
    #: (lo, [y(lo + 1), ..., y(hi)]), y(p) meaning "the block starts at p or later". The sat
    #: backend sets their phases from where belief propagation expects each block.
    start_variables: dict[tuple[int, ...], list[tuple[int, list[int]]]] = field(
        default_factory=dict
    )

    def new_variable(self) -> int:
        self.variables += 1
        return self.variables

    def add(self, clause: list[int], family: str) -> None:
        """Add a clause, folding the constants TRUE and FALSE away."""
        if TRUE in clause:
            return
        if FALSE in clause:
            clause = [lit for lit in clause if lit != FALSE] or [FALSE]
        self.clauses.append(clause)
        families = self.families
        families[family] = families.get(family, 0) + 1

    def conjunction(self, a: int, b: int, family: str, redundant: bool = True) -> int:
        """A literal for a AND b (a new variable only when neither is constant).

        Without `redundant` only t -> a and t -> b are stated, which is all that soundness
        needs when t is used only positively (see encodings/automaton-cnf.md, lean variant).
        """
        if a == TRUE:
            return b
        if b == TRUE:
            return a
        if a == FALSE or b == FALSE:
            return FALSE
        t = self.new_variable()
        if redundant:
            self.clauses += ([-t, a], [-t, b], [t, -a, -b])
            count = 3
        else:
            self.clauses += ([-t, a], [-t, b])
            count = 2
        self.families[family] = self.families.get(family, 0) + count
        return t

    def literal_meanings(self) -> dict[int, tuple[int, int]]:
        """literal -> (cell, color) for every literal that says "this cell has this color"."""
        return {
            literal: (cell, color)
            for cell, options in self.cell_literals.items()
            for color, literal in options
        }

    def decode(self, true: Iterable[int], domains: Sequence[int]) -> list[int]:
        """Decided domains: `domains` with every residual cell set from its true literal."""
        meanings = self._meanings()
        decided = list(domains)
        for literal in true:
            meaning = meanings.get(literal)
            if meaning is not None:
                decided[meaning[0]] = 1 << meaning[1]
        return decided

    def cell_variables(self) -> list[int]:
        return [
            abs(lit) for options in self.cell_literals.values() for _, lit in options if lit > 0
        ]

    def blocking_clause(self, true: Iterable[int]) -> Clause:
        """Forbids exactly this assignment of the residual cells (given its true literals)."""
        meanings = self._meanings()
        return [-literal for literal in true if literal in meanings]

    def blocking_clause_of(self, decided: Sequence[int]) -> Clause:
        """Forbids the residual cells' assignment in `decided` (domains, one color each)."""
        return [
            -literal
            for cell, options in self.cell_literals.items()
            for color, literal in options
            if decided[cell] == 1 << color
        ]

    def _meanings(self) -> dict[int, tuple[int, int]]:
        # Computed once, after encoding: the formula's cells do not change while solving.
        cached = self.__dict__.get("_meanings_cache")
        if cached is None:
            cached = self.__dict__["_meanings_cache"] = self.literal_meanings()
        return cached

    def exported_clauses(self) -> list[list[int]]:
        """The clauses as DIMACS gets them: no clause that names a variable twice.

        The automaton encodings produce a few tautologies (x or not x): harmless to a solver,
        but strict DIMACS readers refuse them (tididi-cnf: "clause N names variable V twice"),
        so the export drops them and repeated literals.
        """
        exported = []
        for clause in self.clauses:
            literals = list(dict.fromkeys(clause))
            seen = set(literals)
            if not any(-literal in seen for literal in literals):
                exported.append(literals)
        return exported

    def dimacs(self, comments: Iterable[str] = ()) -> str:
        clauses = self.exported_clauses()
        lines = [f"c {comment}" for comment in comments]
        lines.append(f"p cnf {self.variables} {len(clauses)}")
        lines += [" ".join(map(str, clause)) + " 0" for clause in clauses]
        return "\n".join(lines) + "\n"


def encode_cells(formula: CnfFormula, domains: Sequence[int], cells: Iterable[int]) -> None:
    """One-hot color literals for every residual cell.

    A two-color cell is one variable (true = the higher palette index), which is the one-hot
    encoding with its two clauses resolved away; larger domains get one variable per color,
    at-least-one and pairwise at-most-one.
    """
    for cell in cells:
        domain = domains[cell]
        if not domain & (domain - 1):
            continue
        colors = colors_of(domain)
        if len(colors) == 2:
            v = formula.new_variable()
            formula.cell_literals[cell] = ((colors[0], -v), (colors[1], v))
            continue
        literals = [formula.new_variable() for _ in colors]
        formula.cell_literals[cell] = tuple(zip(colors, literals, strict=True))
        formula.add(literals, "cell-at-least-one")
        for i, a in enumerate(literals):
            for b in literals[i + 1 :]:
                formula.add([-a, -b], "cell-at-most-one")


def color_literal(formula: CnfFormula, cell: int, domain: int, color: int) -> int:
    if not domain & (domain - 1):
        return TRUE if domain == 1 << color else FALSE
    for option, literal in formula.cell_literals[cell]:
        if option == color:
            return literal
    return FALSE


#: Encodes one unfinished line: (formula, line solver, the line's cells, all domains).
LineEncoder = Callable[[CnfFormula, LineSolver, Sequence[int], Sequence[int]], None]


def encode_line_automaton(
    formula: CnfFormula,
    solver: LineSolver,
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
    live = solver.live_states(line)
    if live is None:
        formula.add([FALSE], "line-contradiction")
        return
    automaton = solver.automaton
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
            else:  # blotted blocks: color loops and skips too (satnono.automaton)
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
    formula: CnfFormula, solver: LineSolver, cells: Sequence[int], domains: Sequence[int]
) -> None:
    """The automaton without its redundant clauses (encodings/automaton-cnf.md, lean)."""
    encode_line_automaton(formula, solver, cells, domains, redundant=False)


def _only_state(states: int) -> int:
    if states & (states - 1):
        raise ValueError("the start boundary has exactly one live state")
    return states.bit_length() - 1


def block_starts(solver: LineSolver, line: Sequence[int]) -> list[list[int]] | None:
    """Each block's feasible start cells under the domains `line`, or None when none fits.

    Block i starts at cell p iff the automaton advances into the block's first state while
    reading cell p on some accepted path: the state before it is live at boundary p, the
    first state is live at boundary p + 1 and cell p may take the block's color.
    """
    live = solver.live_states(line)
    if live is None:
        return None
    starts = []
    first = 1
    previous = None
    for block in solver.clue:
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
    formula: CnfFormula, solver: LineSolver, cells: Sequence[int], domains: Sequence[int]
) -> None:
    """Block start positions in order encoding (see encodings/blocks-cnf.md).

    y(i, p) means "block i starts at cell p or later". Every clause has at most three
    literals and no auxiliary variable is needed beyond the starts: a cell is painted with
    block i's color when block i covers it, and is background when it lies in a gap.
    """
    line = [domains[cell] for cell in cells]
    starts = block_starts(solver, line)
    if starts is None:
        formula.add([FALSE], "line-contradiction")
        return
    add = formula.add
    clue = solver.clue
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


@dataclass(frozen=True)
class Encoding:
    """A named CNF encoding variant of the line constraint."""

    name: str
    summary: str
    encode_line: LineEncoder
    #: Unit propagation refutes any full cell assignment that breaks a line.
    checks_by_propagation: bool


ENCODINGS: dict[str, Encoding] = {
    e.name: e
    for e in (
        Encoding(
            "automaton",
            "state-per-position automaton, unit propagation = line solving",
            encode_line_automaton,
            True,
        ),
        Encoding(
            "automaton-lean",
            "the automaton without its redundant (backward) clauses",
            encode_line_automaton_lean,
            False,
        ),
        Encoding("blocks", "block start positions in order encoding", encode_line_blocks, False),
    )
}

#: Measured (BENCHMARKS.md, portfolio section): a third of the automaton's size and several
#: times faster on the hard survey puzzles with every solver tried, and faster to enumerate.
DEFAULT_ENCODING = "blocks"


def check_encoding(name: str | None) -> str:
    """The encoding's name, or the default for None; an unknown name is an input error."""
    if name is None:
        return DEFAULT_ENCODING
    if not isinstance(name, str) or name not in ENCODINGS:
        from satnono.errors import InputError

        known = ", ".join(ENCODINGS)
        raise InputError(f"unknown encoding {name!r}; choose one of: {known}", "encoding")
    return name


def encode_puzzle(
    propagator: Propagator,
    domains: Sequence[int],
    lines: Sequence[int] | None = None,
    encoding: str | None = None,
    deadline: Deadline | None = None,
) -> CnfFormula:
    """The CNF of the residual puzzle: cell literals, then one constraint per unfinished line
    (or a decided one that does not fit). `lines` restricts the formula to one independent
    component (default: every line). Raises Timeout when `deadline` passes first, looked at
    before each line: a wide residual takes long (76 s for a random 400 x 400 grid's 32
    million clauses)."""
    chosen = ENCODINGS[check_encoding(encoding)]
    formula = CnfFormula(encoding=chosen.name, checks_by_propagation=chosen.checks_by_propagation)
    scope = range(len(propagator.cells)) if lines is None else lines
    # Lines with an undecided cell, and decided ones that do not fit (their empty clause).
    unfinished = [
        line
        for line in scope
        if any(domains[cell] & (domains[cell] - 1) for cell in propagator.cells[line])
        or propagator.solver(line).live_states([domains[c] for c in propagator.cells[line]]) is None
    ]
    encode_cells(
        formula, domains, sorted({c for line in unfinished for c in propagator.cells[line]})
    )
    encode_line = chosen.encode_line
    # Blocks need known lengths: a line with a blotted one is encoded by its automaton.
    by_automaton = ENCODINGS["automaton"].encode_line
    for line in unfinished:
        if deadline is not None and deadline.expired():
            raise Timeout
        solver = propagator.solver(line)
        if chosen.name == "blocks" and not solver.automaton.plain:
            formula.encoding = "blocks+automaton"  # said in the stats and the DIMACS header
            by_automaton(formula, solver, propagator.cells[line], domains)
        else:
            encode_line(formula, solver, propagator.cells[line], domains)
    return formula


def variable_comments(
    puzzle: Puzzle,
    encoding: str,
    cell_literals: dict[int, tuple[tuple[int, int], ...]],
    scope: str = "residual",
) -> Iterator[str]:
    """DIMACS comment lines naming the cell and color of every cell variable; `scope` says
    what is encoded (the residual after line logic, or the whole puzzle)."""
    size = f"{puzzle.width}x{puzzle.height}"
    yield f"satnono {scope} encoding ({encoding}) of a {size} puzzle"
    yield "variable 1 is the constant true; cells are (row, column), 1-based"
    for cell, options in cell_literals.items():
        row, column = divmod(cell, puzzle.width)
        names = ", ".join(f"{puzzle.palette[color].name}={literal}" for color, literal in options)
        yield f"cell ({row + 1},{column + 1}): {names}"
