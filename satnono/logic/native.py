"""The native engine (engine/, Rust, built into satnono.logic._engine by maturin): line logic,
probing, search and belief propagation at native speed; counting, uniform sampling, every
solution in turn and the colors each cell takes; the blocks CNF of a residual for the SAT
solvers (`Clauses`, which load CaDiCaL straight); and for certificates the whole puzzle's
automaton CNF and the checker of proofs.

This is the one module that imports the extension. Its boundary is narrow: clues and domains
go in (a domain is a bitmask of the palette colors a cell may still take), domains, verdicts
and solutions come out. The engine checks its arguments and turns a panic into an error, so
nothing here can take the process down; a bad argument becomes InputError. Every call takes
a Deadline: the engine stops at it, and a search runs in slices so that a cancelled deadline
or a Ctrl-C is seen within SLICE seconds; a count (a draw, an ambiguity map, a listing) runs in
a thread of the engine's own, which satnono.logic.jobs waits on in slices and cancels.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from satnono.core.model import Puzzle
from satnono.errors import InputError
from satnono.logic import _engine
from satnono.logic.counted import CountKnobs
from satnono.logic.jobs import SLICE, Job, Sampler, Solutions, domains_list
from satnono.runtime.deadline import Deadline, Timeout

#: Rounds of belief propagation: on Knotty 5 left CaDiCaL without a solution after 100 s, 20
#: gave one in 0.1 s; of 10 to 200 on the tuning sets 20 was the safest, CDCL from forced
#: phases being heavy-tailed (BENCHMARKS.md, "The engine in Rust", the figures of each).
ESTIMATE_ROUNDS = 20

Status = Literal["fixpoint", "solved", "conflict", "timeout"]

#: A CNF's clauses as the engine holds them (its blocks CNF, probing's implications): a
#: sequence of lists, made only when read, that CaDiCaL is loaded from without them
#: (satnono.runtime.clause_loading).
Clauses = _engine.Clauses
Sequence.register(Clauses)


@dataclass(frozen=True)
class Reached:
    """Where propagation or probing ended: `domains` (every cell's, None after a conflict),
    the line that showed a conflict when one did, and the work done."""

    status: Status
    domains: list[int] | None
    line: int | None = None
    #: Lines solved (propagation) or cells probed (probing).
    work: int = 0


@dataclass(frozen=True)
class Estimate:
    """Belief propagation's guesses: each cell's most likely color, and for each line each
    block's median start (the first cell by which it has started with probability 1/2;
    empty for a line with a blotted number)."""

    colors: list[int]
    starts: list[list[int]]


@dataclass(frozen=True)
class BlocksCnf:
    """A residual's blocks CNF as the engine builds it: the variable count, the clauses (the
    first the unit clause of the constant true), every undecided cell's (color, literal)
    pairs, each encoded line's blocks as (line, [(lo, [y(lo + 1), ..., y(hi)])]) and the
    clauses made per family (satnono.encode.formula.CnfFormula's fields)."""

    variables: int
    clauses: Clauses
    cell_literals: dict[int, tuple[tuple[int, int], ...]]
    start_variables: list[tuple[int, list[tuple[int, list[int]]]]]
    families: dict[str, int]


def _clues(puzzle: Puzzle) -> list[list[int]] | list[list[tuple[int, int]]]:
    """Every line's clue, rows then columns: plain lengths in black and white (the engine
    reads them as color 1), (length, color) pairs in color."""
    lines = (*puzzle.rows, *puzzle.columns)
    if puzzle.is_black_and_white:
        return [[block.length for block in clue] for clue in lines]
    return [[(block.length, block.color) for block in clue] for clue in lines]


def _seconds(deadline: Deadline | None) -> float | None:
    return None if deadline is None else deadline.remaining()


#: Palettes up to this size send domains as bytes, one per cell (copied in C both ways; a list
#: of ints costs a conversion per cell, two thirds of an easy puzzle's call).
BYTE_PALETTE = 8


class Engine:
    """The native engine of one puzzle (cheap to make: the clues are copied once)."""

    __slots__ = ("_engine", "_wire", "puzzle")

    def __init__(self, puzzle: Puzzle) -> None:
        self.puzzle = puzzle
        self._wire: Callable[[Iterable[int]], bytes | list[int]] = (
            bytes if len(puzzle.palette) <= BYTE_PALETTE else list
        )
        try:
            self._engine = _engine.Engine(
                puzzle.width, puzzle.height, len(puzzle.palette), _clues(puzzle)
            )
        except ValueError as error:  # the model refuses such puzzles first; kept for safety
            raise InputError(f"the engine refuses the puzzle: {error}") from None

    def propagate(
        self,
        domains: Sequence[int],
        lines: Sequence[int] | None = None,
        deadline: Deadline | None = None,
    ) -> Reached:
        """Line logic over `lines` (all by default) to the fixpoint."""
        (status, reached, line), solves = self._engine.reach(
            self._wire(domains), list(lines or ()), _seconds(deadline)
        )
        return Reached(status, domains_list(reached), line, solves)

    def probe(
        self,
        domains: Sequence[int],
        lines: Sequence[int] | None = None,
        deadline: Deadline | None = None,
    ) -> Reached:
        """Line logic, then probing to its fixpoint: every cell it fixes has that color in every
        solution. "solved" when that decides every cell of `lines`."""
        (status, reached, line), probes = self._engine.reach(
            self._wire(domains), list(lines or ()), _seconds(deadline), probing=True
        )
        return Reached(status, domains_list(reached), line, probes)

    def split(
        self,
        domains: Sequence[int],
        lines: Sequence[int],
        count: int,
        candidates: int,
        deadline: Deadline | None = None,
        search: bool = False,
    ) -> tuple[list[tuple[list[tuple[int, int]], list[int]]], int]:
        """At least `count` cubes of `domains` (at line logic's fixpoint) over `lines` by the
        engine's lookahead (engine/src/lookahead.rs), `candidates` cells tried at each split:
        ([(decisions as (cell, color bitmask), domains)], failed literals). With `search`,
        each cube is split on the probing search's first branching instead
        (engine/src/branches.rs: the cubes for listing every solution). Raises Timeout when
        the deadline passes first."""
        found = self._engine.split(
            self._wire(domains), list(lines), count, candidates, _seconds(deadline), search=search
        )
        if found is None:
            raise Timeout
        cubes, failed = found
        return [(list(decisions), list(cube)) for decisions, cube in cubes], failed

    def probing_lemmas(
        self, deadline: Deadline | None = None
    ) -> tuple[str, list[tuple[int, int, int, int]]]:
        """Line logic and probing over the whole puzzle from its initial domains, writing
        down the lemmas a DRUP proof of its automaton CNF needs (engine/src/lemmas.rs): how
        it ended ("solved", "stable", "conflict" or "timeout") and the lemmas in order, each
        (cell, color, other cell, other color): "cell has color" rules out "other cell has
        other color" (other cell -1: the color is ruled out itself)."""
        ending: str
        lemmas: list[tuple[int, int, int, int]]
        ending, lemmas = self._engine.probing_lemmas(_seconds(deadline))
        return ending, lemmas

    def estimate(self, domains: Sequence[int], rounds: int = ESTIMATE_ROUNDS) -> Estimate:
        colors, starts = self._engine.estimate(self._wire(domains), rounds)
        return Estimate(list(colors), starts)

    def blocks_cnf(
        self, domains: Sequence[int], lines: Sequence[int], deadline: Deadline | None = None
    ) -> BlocksCnf | None:
        """The blocks CNF of `lines` under `domains` (engine/src/blocks_cnf.rs, held clause for
        clause to satnono.encode.lines.encode_line_blocks); None when one of the lines has a
        blotted number; Timeout when the deadline passes first."""
        try:
            built = self._engine.blocks_cnf(self._wire(domains), list(lines), _seconds(deadline))
        except TimeoutError:
            raise Timeout from None
        if built is None:
            return None
        variables, clauses, cells, starts, families = built
        literals = {cell: tuple(options) for cell, options in cells}
        return BlocksCnf(variables, clauses, literals, starts, dict(families))

    def count(
        self, domains: Sequence[int], deadline: Deadline, knobs: CountKnobs | None = None
    ) -> Job:
        """Start counting the grids that fit the clues and `domains`; the Job's `counted()`
        says how many once it has ended (exact, or a lower bound when stopped)."""
        knobs = knobs or CountKnobs()
        return Job(_engine.count(self._engine, self._wire(domains), knobs.wire, _seconds(deadline)))

    def sampler(
        self, domains: Sequence[int], seed: int, deadline: Deadline, knobs: CountKnobs | None = None
    ) -> Sampler:
        """Start counting the grids of `domains`, to draw from them: each solution with
        probability exactly 1/N (seeded); see Sampler."""
        knobs = knobs or CountKnobs()
        sampler = _engine.sampler(
            self._engine, self._wire(domains), seed & (2**64 - 1), knobs.wire, _seconds(deadline)
        )
        return Sampler(sampler)

    def ambiguity(
        self, domains: Sequence[int], deadline: Deadline, knobs: CountKnobs | None = None
    ) -> Job:
        """Start finding every color each cell takes in some solution; the Job's
        `ambiguity()` gives them once it has ended."""
        knobs = knobs or CountKnobs()
        job = _engine.count(
            self._engine, self._wire(domains), knobs.wire, _seconds(deadline), colors=True
        )
        return Job(job)

    def solutions(
        self, domains: Sequence[int], threads: int = 1, layers: bool = True,
        deadline: Deadline | None = None, guide: Sequence[int] | None = None,
    ) -> Solutions:  # fmt: skip
        """Every solution of `domains` in turn, each once; once the probing search takes the
        rest over, in `threads` threads sharing it (engine/src/search/parallel.rs). With
        `layers`, from the sweeps' layers first where every component sweeps (up to 0.5 s of
        setup in the first batch, whatever its slice, but not past `deadline`). `guide`, a
        color a cell (a known solution's), is the color the probing search tries first at
        each branch: the same solutions, sooner where it lists around a solution."""
        seconds = None if deadline is None else deadline.remaining()
        wire = self._wire(domains)
        listed = _engine.solutions(self._engine, wire, threads, layers, seconds, guide)
        return Solutions(listed)

    def decimation(
        self, domains: Sequence[int], lines: Sequence[int] | None = None, seed: int = 0
    ) -> Decimation:
        """Decimation guided by belief propagation over `lines` (all by default) from
        `domains` (engine/src/decimate.rs): a guess at a solution, attempt after attempt,
        for a SAT solver to start from (see Decimation)."""
        decimation = _engine.decimation(
            self._engine, self._wire(domains), list(lines or ()), DECIMATED_SHARE,
            DECIMATION_ROUNDS, DECIMATION_NOISE, seed & (2**64 - 1), True,
        )  # fmt: skip
        return Decimation(decimation)

    def search(
        self,
        domains: Sequence[int],
        lines: Sequence[int] | None = None,
        *,
        restarts: bool = True,
        budget: int | None = None,
        seed: int = 0,
        excluded: Sequence[Sequence[int]] = (),
    ) -> Search:
        """A depth-first search over `lines` (all by default) from `domains`, which reports no
        solution of `excluded`. With `restarts` it restarts on the Luby sequence (finding a
        few solutions fast; enumerating all of them runs without); `budget` caps the probes
        made after the root's (None: no cap)."""
        search = self._engine.search(
            self._wire(domains), list(lines or ()), restart_base=RESTART_BASE if restarts else 0,
            seed=seed & (2**64 - 1), max_probes=budget, excluded=[list(d) for d in excluded],
        )  # fmt: skip
        return Search(search)


#: Threads a listing may run in at most (the engine refuses more).
MAX_THREADS: int = _engine.MAX_THREADS

#: Search nodes per unit of the Luby sequence between restarts (nonosolve's 300).
RESTART_BASE = 300

Event = Literal["solution", "exhausted", "timeout", "budget"]

#: Decimation's steps: the share of the undecided cells fixed at each, the rounds of belief
#: propagation before it, and the noise on the confidences from the second attempt on
#: (probing follows each step). Chosen on round 16's ten random 45x45s (BENCHMARKS.md, round
#: 36): 0.02 / 20 / 0.02 found a grid of seven within 60 s, six of them in 5 s.
DECIMATED_SHARE = 0.02
DECIMATION_ROUNDS = 20
DECIMATION_NOISE = 0.02


class Decimation:
    """Decimation under way (`Engine.decimation`): attempts go on across calls of `run`."""

    __slots__ = ("_decimation",)

    def __init__(self, decimation: Any) -> None:
        self._decimation = decimation

    def run(self, deadline: Deadline) -> list[int] | Literal["refuted"] | None:
        """A grid line logic accepts whole (every cell of the lines decided: a guess to
        verify, not a proof), "refuted" when line logic or probing shows that no grid fits
        the domains, None when `deadline` passed first (the next call goes on)."""
        while not deadline.expired():
            ended, domains = self._decimation.run(SLICE, deadline.remaining())
            if ended == "found":
                return domains_list(domains)
            if ended == "refuted":
                return "refuted"
        return None

    def stats(self) -> dict[str, int]:
        """The attempts started and the steps taken so far."""
        attempts, steps = self._decimation.stats()
        return {"attempts": attempts, "steps": steps}


class Search:
    """A native search under way; `next` goes on to its next event."""

    __slots__ = ("_search", "outcome")

    def __init__(self, search: Any) -> None:
        self._search = search
        #: Why `solutions` stopped: "exhausted", "budget" or "timeout" ("solution" while the
        #: caller stops it early).
        self.outcome: Event = "solution"

    def next(self, deadline: Deadline) -> tuple[Event, list[int] | None]:
        """("solution", domains) for a solution not reported before, ("exhausted", None) when
        every solution has been reported, ("budget", None) when the probe budget is spent,
        ("timeout", None) when `deadline` passed (the search can go on after that)."""
        while True:
            # expired() as well as remaining(): a deadline may end early by its own rule (a
            # cube of the cubes backend gives way when workers wait).
            remaining = deadline.remaining()
            if deadline.expired() or (remaining is not None and remaining <= 0):
                return "timeout", None
            seconds = SLICE if remaining is None else min(SLICE, remaining)
            event, domains = self._search.run(seconds)
            if event != "paused":
                return event, domains_list(domains)

    def solutions(self, deadline: Deadline) -> Iterator[list[int]]:
        """Each solution as found; `outcome` then says why the search ended."""
        while True:
            event, domains = self.next(deadline)
            if event != "solution" or domains is None:
                self.outcome = event
                return
            yield domains

    def root_domains(self) -> list[int] | None:
        """The state probing reached at the root (None before); the search starts over there."""
        return domains_list(self._search.root_domains())

    def give_away(self) -> tuple[list[list[int]], list[list[int]]] | None:
        """Stop, giving away what is left: (the solutions found and not yet returned, the rest
        of the space as domains that partition the solutions not returned, the largest
        first); None, and the search goes on, when there are fewer than two parts to give."""
        given = self._search.give_away()
        if given is None:
            return None
        solutions, parts = given
        return [list(s) for s in solutions], [list(p) for p in parts]

    def implications(
        self, most: int, deadline: Deadline | None = None
    ) -> list[tuple[int, int, int, int]] | None:
        """At most `most` consequences of single assignments at the root, as (cell, color,
        other cell, other color): the first rules the second out (other cell -1: itself ruled
        out). None before the root is probed, or when the deadline passes first. (The SAT
        backend takes them as clauses, `implication_clauses`; tests hold those to these.)"""
        found: list[tuple[int, int, int, int]] | None = self._search.implications(
            most, _seconds(deadline)
        )
        return found

    def implication_clauses(
        self,
        most: int,
        literals: Mapping[int, Sequence[tuple[int, int]]],
        deadline: Deadline | None = None,
    ) -> tuple[Clauses, int] | None:
        """`implications` as clauses over a formula's cell literals (`literals`: cell ->
        (color, literal) pairs), made in the engine: "cell has color" rules out "other cell has
        other color" (a unit clause when the color is ruled out itself); those on cells or
        colors `literals` lacks are left out. With how many implications there were; None as
        `implications`."""
        made: tuple[Clauses, int] | None = self._search.implication_clauses(
            most, list(literals.items()), _seconds(deadline)
        )
        return made

    def stats(self) -> dict[str, int]:
        stats: dict[str, int] = self._search.stats()
        return stats


def solve_lines(
    colors: int,
    lines: Sequence[tuple[Sequence[tuple[int, int]], Sequence[int]]],
    repeat: int = 1,
) -> list[list[int] | None]:
    """Lines solved alone (the line solver, for tests and benchmarks): for each (clue as
    (length, color) pairs, length -1 blotted; domains), the narrowed domains, or None when
    the clue cannot fit. `colors` counts the palette, the background included. Each line is
    solved `repeat` (1..100000) times on its state, made once (tools/bench_lines.py times so)."""
    try:
        solved: list[list[int] | None] = _engine.solve_lines(
            colors,
            [([(n, c) for n, c in clue], list(domains)) for clue, domains in lines],
            repeat,
        )
    except (ValueError, OverflowError) as error:  # Overflow: a repeat past any integer
        why = error.args[0] if isinstance(error, ValueError) else f"repeat {repeat}"
        raise InputError(why) from None
    return solved


def check_drup(dimacs: str, proof: str, deadline: Deadline | None = None) -> tuple[str, int]:
    """A DRUP proof (its text) checked against a CNF (its DIMACS text) by reverse unit
    propagation in the engine: ("", lemmas checked) when it derives the empty clause, else
    (why, lemmas checked). The same check as satnono.proof.check.check_drup (its reference),
    at native speed; a CNF that cannot be read is an InputError."""
    try:
        return _engine.check_drup(dimacs, proof, _seconds(deadline))
    except ValueError as error:
        raise InputError(f"not a CNF: {error}") from None


@dataclass(frozen=True)
class AutomatonCnf:
    """The whole puzzle's automaton CNF as the engine builds it (engine/src/cnf.rs, held clause
    for clause to satnono.encode.cnf.encode_puzzle): the variable count, the clause lines of its
    DIMACS text, every undecided cell's (color, literal) pairs, and the clauses themselves
    when asked for."""

    variables: int
    clause_count: int
    body: str
    cell_literals: dict[int, tuple[tuple[int, int], ...]]
    clauses: list[list[int]] | None


def automaton_cnf(
    puzzle: Puzzle,
    deadline: Deadline | None = None,
    clauses: bool = False,
    max_clauses: int = 10_000_000,
) -> AutomatonCnf:
    """The automaton CNF of the whole puzzle from its initial domains; Timeout when the
    deadline passes first, InputError when it would have over `max_clauses` clauses."""
    try:
        built = _engine.automaton_cnf(
            puzzle.width, puzzle.height, len(puzzle.palette), _clues(puzzle),
            _seconds(deadline), clauses, max_clauses,
        )  # fmt: skip
    except ValueError as error:  # too large (the model refuses bad clues first)
        raise InputError(str(error), "proof") from None
    if built is None:
        raise Timeout
    variables, count, body, literals, listed = built
    cells = {cell: tuple(options) for cell, options in literals}
    return AutomatonCnf(variables, count, body, cells, listed)
