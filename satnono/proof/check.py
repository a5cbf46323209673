"""The checker of certificates (satnono.proof.certify), independent of the solvers that made them.

It reads only the folder: the clues, from which it rebuilds the CNF with the encoder and
compares (the CNF is the puzzle's, clause for clause); the solutions, which it checks against
the clues; and the DRUP proof, which it checks by reverse unit propagation with deletions
(no SAT solver, no line solver): in the engine (engine/src/drup.rs), held to `check_drup`
below, the same check on its own two-watched-literal propagation in Python. It says VERIFIED
or the first step that fails.
"""

from __future__ import annotations

import os
import stat
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from satnono.core.model import Grid, Puzzle
from satnono.errors import InputError
from satnono.runtime.deadline import Deadline, Timeout

#: Proof steps checked between two looks at the deadline.
_LOOK_EVERY = 256


@dataclass(frozen=True)
class Checked:
    """A certificate's check: `verified`, else `reason` names the first failing step."""

    verified: bool
    verdict: str
    reason: str
    steps: int
    seconds: float

    @property
    def timed_out(self) -> bool:
        """The timeout stopped the check: the certificate is neither verified nor rejected."""
        return not self.verified and self.reason.startswith("timeout")

    @property
    def line(self) -> str:
        """One line for the CLI: VERIFIED (what), REJECTED (why) or TIMEOUT (where)."""
        if self.verified:
            steps = f"{self.steps} proof step{'' if self.steps == 1 else 's'}"
            return f"VERIFIED: {self.verdict} ({steps}, {self.seconds:.2f} s)"
        return f"{'TIMEOUT' if self.timed_out else 'REJECTED'}: {self.reason}"


def check_certificate(folder: str | Path, timeout: float | None = None) -> Checked:
    """Check the certificate in `folder` (see satnono.proof.certify for its files)."""
    from satnono.formats import parse_text
    from satnono.proof import certify

    started = time.perf_counter()
    deadline = Deadline(timeout)
    place = Path(folder)

    def text(name: str) -> str | None:
        return read_plain(place, name, certify.MAX_FILE_BYTES[name])

    def done(verdict: str, reason: str = "", steps: int = 0) -> Checked:
        seconds = round(time.perf_counter() - started, 4)
        return Checked(not reason, verdict, reason, steps, seconds)

    clues = text(certify.CLUES)
    if clues is None:
        raise InputError(f"no {certify.CLUES}: not a certificate folder", place)
    (puzzle,) = parse_text(clues, certify.CLUES)[:1]
    several, single = text(certify.SOLUTIONS), text(certify.SOLUTION)
    if several is not None:
        grids = [_grid(puzzle, block) for block in several.strip(_BLANK).split("\n\n")]
        for grid in grids:
            problem = _problem(puzzle, grid)
            if problem:
                return done("multiple", f"{certify.SOLUTIONS}: {problem}")
        if len(grids) < 2 or grids[0] == grids[1]:
            return done("multiple", f"{certify.SOLUTIONS}: two different solutions are needed")
        return done("multiple")
    verdict = "unique" if single is not None else "unsolvable"
    try:
        cnf = certify.whole_cnf(puzzle, deadline)
    except Timeout:
        return done(verdict, "timeout while the CNF was rebuilt from the clues")
    expected = cnf.dimacs
    given = text(certify.CNF)
    if given is None or _body(given) != _body(expected):
        return done(verdict, f"{certify.CNF} is not the CNF of the clues in {certify.CLUES}")
    refuted = expected
    if single is not None:
        grid = _grid(puzzle, single)
        problem = _problem(puzzle, grid)
        if problem:
            return done(verdict, f"{certify.SOLUTION}: {problem}")
        refuted = certify.with_clause(expected, cnf.excluding(grid))
        excluded = text(certify.EXCLUDED)
        if excluded is None or _body(excluded) != _body(refuted):
            return done(verdict, f"{certify.EXCLUDED} is not the CNF with the solution excluded")
    proof = text(certify.PROOF)
    if proof is None:
        return done(verdict, f"no {certify.PROOF}")
    from satnono.logic import native

    reason, steps = native.check_drup(refuted, proof, deadline)
    return done(verdict, reason, steps)


def read_plain(place: Path, name: str, limit: int) -> str | None:
    """The UTF-8 text of the file `name` in the folder `place`, None when there is none.

    A certificate is untrusted input: InputError when the entry is a symbolic link (it could
    lead out of the folder, or to another certificate's files), not a regular file (a FIFO
    would stall the check, /dev/zero would fill the memory) or over `limit` bytes; all before
    anything is read, and the read itself stops past the limit and never blocks."""
    path = place / name
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise InputError(f"cannot read {name}: {error.strerror or error}", place) from None
    if stat.S_ISLNK(status.st_mode):
        raise InputError(f"{name} is a symbolic link: a certificate's files are its own", place)
    if not stat.S_ISREG(status.st_mode):
        raise InputError(f"{name} is not a regular file", place)
    if status.st_size > limit:
        raise InputError(f"{name} is {status.st_size} bytes; the limit is {limit}", place)
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(descriptor, "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                raise InputError(f"{name} is not a regular file", place)
            data = file.read(limit + 1)
    except OSError as error:
        raise InputError(f"cannot read {name}: {error.strerror or error}", place) from None
    if len(data) > limit:
        raise InputError(f"{name} grew past the limit of {limit} bytes while read", place)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{name} is not UTF-8 text", place) from None


def check_drup(
    clauses: Sequence[Sequence[int]], proof: Iterable[str], deadline: Deadline | None = None
) -> tuple[str, int]:
    """("", steps) when `proof` (DRUP lines: a lemma "l1 l2 0", a deletion "d l1 l2 0")
    derives the empty clause from `clauses` by reverse unit propagation; else (why, steps)."""
    checker = _Rup(clauses)
    steps = 0
    for number, line in enumerate(proof, start=1):
        words = line.split()
        if not words or words[0] == "c":
            continue
        if deadline is not None and number % _LOOK_EVERY == 0 and deadline.expired():
            return f"timeout at proof line {number}", steps
        deleting = words[0] == "d"
        try:
            literals = [int(word) for word in words[deleting:]]
        except ValueError:
            return f"proof line {number}: not a clause", steps
        if not literals or literals[-1] != 0 or 0 in literals[:-1]:
            return f"proof line {number}: a clause must end with one 0", steps
        clause = literals[:-1]
        if deleting:
            checker.delete(clause)
            continue
        steps += 1
        if not checker.implied(clause):
            return f"proof line {number}: lemma {' '.join(words)} is not implied (RUP)", steps
        if not clause:
            return "", steps
        checker.add(clause)
    return "the proof does not derive the empty clause", steps


class _Rup:
    """Clauses under unit propagation with two watched literals, at a top level that only
    grows (deleting a clause never takes back a literal it implied: that literal remains
    implied by the formula, so keeping it is sound)."""

    def __init__(self, clauses: Iterable[Sequence[int]]) -> None:
        self.true: set[int] = set()  # the literals true now (their negations are false)
        self.trail: list[int] = []
        self.head = 0
        self.clauses: list[list[int]] = []
        self.alive: list[bool] = []
        self.watches: defaultdict[int, list[int]] = defaultdict(list)
        self.by_key: defaultdict[frozenset[int], list[int]] = defaultdict(list)
        self.refuted = False  # the top level holds a conflict: everything follows
        # The formula's clauses all at once (as many `add`s would, in half the time):
        # watch each clause's first two literals, then assign the unit clauses and propagate.
        units: list[int] = []
        for clause in clauses:
            literals = list(dict.fromkeys(clause))
            key = frozenset(literals)
            if len(literals) > 1 and any(-literal in key for literal in literals):
                continue
            number = len(self.clauses)
            self.clauses.append(literals)
            self.alive.append(True)
            self.by_key[key].append(number)
            if len(literals) > 1:
                self.watches[literals[0]].append(number)
                self.watches[literals[1]].append(number)
            elif literals:
                units.append(literals[0])
            else:
                self.refuted = True
        for literal in units:
            value = self._value(literal)
            if value == -1:
                self.refuted = True
            elif value == 0:
                self._assign(literal)
        if not self.refuted and not self._propagate():
            self.refuted = True

    def _value(self, literal: int) -> int:
        """1 true, -1 false, 0 unassigned."""
        return 1 if literal in self.true else -1 if -literal in self.true else 0

    def _assign(self, literal: int) -> None:
        self.true.add(literal)
        self.trail.append(literal)

    def add(self, clause: Sequence[int]) -> None:
        """Add a clause at the top level (and propagate what it implies there)."""
        literals = list(dict.fromkeys(clause))
        key = frozenset(literals)
        if len(literals) > 1 and any(-literal in key for literal in literals):
            return  # a tautology constrains nothing
        number = len(self.clauses)
        self.clauses.append(literals)
        self.alive.append(True)
        self.by_key[key].append(number)
        if self.refuted:
            return
        # Watch two literals that are not false, when there are two: move the first two such
        # literals to the front.
        free, true = 0, self.true
        for index, literal in enumerate(literals):
            if -literal not in true:
                literals[free], literals[index] = literal, literals[free]
                free += 1
                if free == 2:
                    break
        if free == 0:
            self.refuted = True
            return
        if free == 1:
            if self._value(literals[0]) == 0:
                self._assign(literals[0])
                if not self._propagate():
                    self.refuted = True
            if len(literals) == 1:
                return
        self.watches[literals[0]].append(number)
        self.watches[literals[1]].append(number)

    def delete(self, clause: Sequence[int]) -> None:
        """Delete one copy of the clause (unit clauses are kept, as drat-trim does)."""
        key = frozenset(clause)
        copies = self.by_key.get(key)
        if copies and len(key) > 1:
            self.alive[copies.pop()] = False

    def implied(self, clause: Sequence[int]) -> bool:
        """Whether unit propagation refutes the clause's negation (at the top level)."""
        if self.refuted:
            return True
        mark = len(self.trail)
        conflict = False
        for literal in clause:
            value = self._value(literal)
            if value == 1:
                conflict = True  # the clause is already satisfied at the top level
                break
            if value == 0:
                self._assign(-literal)
        if not conflict:
            conflict = not self._propagate()
        self.true.difference_update(self.trail[mark:])
        del self.trail[mark:]
        self.head = mark
        return conflict

    def _propagate(self) -> bool:
        """Propagate the trail; False on a conflict."""
        clauses, alive, watches = self.clauses, self.alive, self.watches
        true, trail = self.true, self.trail
        while self.head < len(trail):
            false = -trail[self.head]
            self.head += 1
            watching = watches[false]
            kept: list[int] = []
            for position, number in enumerate(watching):
                if not alive[number]:
                    continue
                literals = clauses[number]
                if literals[0] == false:
                    literals[0], literals[1] = literals[1], literals[0]
                other = literals[0]
                if other in true:
                    kept.append(number)
                    continue
                for index in range(2, len(literals)):
                    literal = literals[index]
                    if -literal not in true:  # not false: watch it instead
                        literals[1], literals[index] = literal, false
                        watches[literal].append(number)
                        break
                else:
                    kept.append(number)
                    if -other in true:
                        kept.extend(watching[position + 1 :])
                        watches[false] = kept
                        return False
                    true.add(other)
                    trail.append(other)
            watches[false] = kept
        return True


def _body(dimacs: str) -> str:
    """A DIMACS text from its `p cnf` line on (the comments before it left out): two texts
    with the same body are the same formula, clause for clause, as satnono writes it."""
    start = dimacs.find("p cnf ")
    return dimacs[start:] if start >= 0 else dimacs


def _grid(puzzle: Puzzle, block: str) -> Grid:
    """The grid of a solution's rows. Only a line end (\n, \r\n, \r) ends a row, as in every
    format satnono reads: str.splitlines() also ends one at a record separator (0x1c-0x1e),
    0x85, a vertical tab or a form feed, so a row end mangled into one of those passed."""
    from satnono.formats._plain import split_lines
    from satnono.output.contract import grid_of_rows

    rows = [row for row in split_lines(block.strip(_BLANK)) if row]
    return grid_of_rows(puzzle, rows, "certificate")


#: What may stand around a solution's rows: spaces, tabs and line ends (str.strip() would also
#: take the separators and control characters that no row may hold).
_BLANK = " \t\r\n"


def _problem(puzzle: Puzzle, grid: Grid) -> str:
    from satnono.core.verify import problems

    found = problems(puzzle, grid)
    return found[0] if found else ""
