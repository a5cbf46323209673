"""Certificates of verdicts: files anyone can check that a solution is unique, or that there is
none, without trusting satnono's solvers.

A certificate folder holds the clues (`puzzle.non`), the CNF of the whole puzzle in the
automaton encoding (`puzzle.cnf`: unit propagation on it is line logic, see
encodings/automaton-cnf.md; nothing of satnono's own line logic or probing is assumed), and:

- unique: the solution (`solution.txt`), the CNF with the clause that excludes it
  (`excluded.cnf`) and CaDiCaL's DRUP proof that `excluded.cnf` is unsatisfiable (`proof.drup`);
- no solution: the DRUP proof that `puzzle.cnf` is unsatisfiable (`proof.drup`);
- several solutions: two verified solutions (`solutions.txt`), which are their own proof.

satnono.proof.check checks a folder (`satnono check-proof DIR`); so does drat-trim
(`drat-trim excluded.cnf proof.drup`). Made from the verdict the solve gave, never instead of
it: a certificate that cannot be made in time says so.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path

from satnono.core.model import Grid, Puzzle
from satnono.errors import InputError
from satnono.runtime.deadline import Deadline, Timeout

#: The encoding every certificate uses: its unit propagation is line logic.
ENCODING = "automaton"
#: The proof-producing solver (PySAT's CaDiCaL 1.9.5 writes DRUP).
PROVER = "cadical195"
#: The most clauses a certificate's CNF may have: 30 times the survey's largest (2040-hot,
#: 307,000 clauses, 6 MB), about 250 MB of DIMACS, written twice. A random 400x400 puzzle's
#: has 97 million (2.4 GB, 20 s to write): past the limit the certificate is refused, one
#: line, and the verdict stands.
MAX_CLAUSES = 10_000_000
#: File names in a certificate folder (and Certificate.README, which the checker skips).
CLUES, CNF, EXCLUDED, PROOF, SOLUTION, SOLUTIONS = (
    "puzzle.non", "puzzle.cnf", "excluded.cnf", "proof.drup", "solution.txt", "solutions.txt",
)  # fmt: skip
#: The largest file of each name the checker reads (RELIABILITY.md): the clues and the
#: solutions as any puzzle file (16 MiB), the CNFs twice the largest MAX_CLAUSES makes, the
#: proof 1 GiB (CaDiCaL's proofs of the survey's hardest are a few MB).
MAX_FILE_BYTES = {
    CLUES: 16 << 20, SOLUTION: 16 << 20, SOLUTIONS: 16 << 20,
    CNF: 512 << 20, EXCLUDED: 512 << 20, PROOF: 1 << 30,
}  # fmt: skip


@dataclass(frozen=True)
class Certificate:
    """What was written: the verdict certified ("unique", "unsolvable" or "multiple"), the
    files (names in `folder`), the proof's steps (0 without a proof), what wrote the proof
    ("" without one) and the seconds taken; then what satnono's checker said of it
    (`verified` None until it is checked, `check_reason` the first failing step)."""

    verdict: str
    folder: str
    files: tuple[str, ...]
    encoding: str
    proof_steps: int
    prover: str
    seconds: float
    verified: bool | None = None
    check_reason: str = ""
    check_seconds: float = 0.0
    #: The file that says what the folder holds and how to check it (not checked itself).
    README = "README.txt"

    def readme(self, checked: str = "") -> str:
        """README.txt: what the certificate claims, its files and how to check it, for
        whoever receives it; `checked` a line saying who verified it already."""
        how = ("satnono check-proof FOLDER (the CNF rebuilt from puzzle.non and compared, the "
               "proof checked step by step)")  # fmt: skip
        if self.verdict != "multiple":
            refuted = EXCLUDED if self.verdict == "unique" else CNF
            how += f", or: drat-trim {refuted} {PROOF}"
        return (
            f"satnono certificate: {self.verdict}\n"
            f"files: {', '.join(self.files)}\n"
            f"encoding: {self.encoding} (encodings/automaton-cnf.md)\n"
            f"proof: {self.proof_steps} steps by {self.prover or '-'}\n"
            + (f"{checked}\n" if checked else "")
            + f"check it yourself: {how}\n"
        )


def puzzle_hash(clues_text: str) -> str:
    """The SHA-256 of the clues as written in the certificate (`puzzle.non`)."""
    return hashlib.sha256(clues_text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class WholeCnf:
    """The whole puzzle's CNF: its DIMACS text (header included), every undecided cell's
    (color, literal) pairs, and the clauses when they were asked for (for the prover)."""

    dimacs: str
    cell_literals: dict[int, tuple[tuple[int, int], ...]]
    clauses: list[list[int]] | None = None

    def lemma(self, lemma: tuple[int, int, int, int]) -> list[int]:
        """The clause of a lemma of the engine's probing, (cell, color, other cell, other
        color): "cell has color" rules out "other cell has other color" (other cell -1: the
        color is ruled out itself)."""
        cell, color, other, other_color = lemma
        if other < 0:
            return [-self.literal(cell, color)]
        return [-self.literal(cell, color), -self.literal(other, other_color)]

    def literal(self, cell: int, color: int) -> int:
        """The literal of "cell has color"."""
        for option, literal in self.cell_literals.get(cell, ()):
            if option == color:
                return literal
        raise ValueError(f"cell {cell} has no variable for color {color}")

    def excluding(self, grid: Grid) -> list[int]:
        """The clause that excludes `grid`: some cell takes another color than it has there
        (maker and checker build it so)."""
        colors = [color for row in grid for color in row]
        return [
            -literal
            for cell, options in self.cell_literals.items()
            for color, literal in options
            if colors[cell] == color
        ]


def whole_cnf(puzzle: Puzzle, deadline: Deadline | None = None, clauses: bool = False) -> WholeCnf:
    """The whole puzzle's CNF (from no decided cell), built by the engine (engine/src/cnf.rs,
    held clause for clause to satnono.encode.cnf's encoder). The header names the puzzle, the hash
    of its clues and the encoding. Timeout when the deadline passes first."""
    from satnono.encode.cnf import variable_comments
    from satnono.formats import FORMATS
    from satnono.logic.native import automaton_cnf

    clues = FORMATS["non"].write([puzzle])
    built = automaton_cnf(puzzle, deadline, clauses, MAX_CLAUSES)
    header = [
        f"satnono certificate CNF of {puzzle.title or 'a puzzle'!r}",
        f"clues sha256 {puzzle_hash(clues)} (puzzle.non)",
        f"encoding {ENCODING}: unit propagation is line logic (encodings/automaton-cnf.md)",
        *variable_comments(puzzle, ENCODING, built.cell_literals, "whole-puzzle"),
    ]
    head = "".join(f"c {line}\n" for line in header)
    dimacs = f"{head}p cnf {built.variables} {built.clause_count}\n{built.body}"
    return WholeCnf(dimacs, built.cell_literals, built.clauses)


def check_folder(folder: str | Path) -> None:
    """InputError when `folder` could not take a certificate: it is not a folder, or neither
    it nor its nearest existing parent can be written. Checked before a solve, so that its
    result is not lost to a folder that cannot take its certificate; nothing is made yet."""
    import os

    target = Path(folder)
    existing = next((place for place in (target, *target.parents) if place.exists()), Path("."))
    if not existing.is_dir():
        raise InputError(f"{existing} is not a folder", target)
    if not os.access(existing, os.W_OK | os.X_OK):
        raise InputError(f"cannot write in {existing}", target)


def certify(
    puzzle: Puzzle,
    verdict: str,
    grids: tuple[Grid, ...],
    folder: str | Path,
    deadline: Deadline | None = None,
) -> Certificate:
    """Write the certificate of `verdict` ("unique", "unsolvable" or "multiple", with the
    verified solutions `grids`: one for unique, two for multiple) into `folder`.

    Raises InputError for another verdict or a folder that cannot be written, and Timeout
    when the deadline passes before the proof is made.
    """
    from satnono.formats import FORMATS

    if verdict not in ("unique", "unsolvable", "multiple"):
        raise InputError(f"a {verdict!r} verdict has no certificate: it claims nothing to check",
                         "proof")  # fmt: skip
    started = time.perf_counter()
    target = Path(folder)
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"cannot make the folder: {error.strerror or error}", target) from None
    files: dict[str, str] = {CLUES: FORMATS["non"].write([puzzle])}
    steps, prover = 0, ""
    if verdict == "multiple":
        files[SOLUTIONS] = "\n\n".join("\n".join(puzzle.grid_rows(grid)) for grid in grids[:2])
        files[SOLUTIONS] += "\n"
    else:
        proved, steps, prover = _refuted(puzzle, grids[0] if verdict == "unique" else None,
                                         deadline)  # fmt: skip
        files.update(proved)
    seconds = round(time.perf_counter() - started, 4)
    named = (*files, Certificate.README)
    made = Certificate(verdict, str(target), named, ENCODING, steps, prover, seconds)
    files[Certificate.README] = made.readme()
    _write_fresh(target, files)
    return made


def _write_fresh(target: Path, files: dict[str, str]) -> None:
    """Write the certificate's files into `target`, each atomically (a new file renamed over
    the old name), so that nothing is ever written through a symbolic link found there (the
    link itself is replaced), and remove the files an older certificate left under the other
    names (an older solutions.txt would otherwise speak for this verdict). Other files in the
    folder are left alone."""
    import os
    import tempfile

    for name in (*MAX_FILE_BYTES, Certificate.README):
        if name not in files and os.path.lexists(target / name):
            try:
                (target / name).unlink()
            except OSError as error:
                raise InputError(f"cannot remove an older {name}: {error.strerror or error}",
                                 target / name) from None  # fmt: skip
    for name, text in files.items():
        temporary = ""
        try:
            descriptor, temporary = tempfile.mkstemp(prefix=f".{name}.", dir=target)
            with os.fdopen(descriptor, "w", encoding="utf-8") as file:
                file.write(text)
            os.chmod(temporary, 0o644)  # as a plain write would (mkstemp makes it 0600)
            os.replace(temporary, target / name)
        except OSError as error:
            if temporary:
                Path(temporary).unlink(missing_ok=True)
            raise InputError(f"cannot write: {error.strerror or error}", target / name) from None


def with_clause(dimacs: str, clause: list[int]) -> str:
    """`dimacs` with one more clause (the `p cnf` line counts it); the checker builds the
    excluded CNF it expects so too."""
    start = dimacs.find("p cnf ")
    if start < 0:
        raise InputError("not a DIMACS CNF: no 'p cnf' line", "proof")
    end = dimacs.find("\n", start)
    _, _, variables, count = dimacs[start:end].split()
    line = f"p cnf {variables} {int(count) + 1}"
    return f"{dimacs[:start]}{line}{dimacs[end:]}{' '.join(map(str, clause))} 0\n"


def _refuted(
    puzzle: Puzzle, solution: Grid | None, deadline: Deadline | None
) -> tuple[dict[str, str], int, str]:
    """The files of a proof that the puzzle has no solution (`solution` None) or none but
    `solution`: the CNF, for unique the solution and the CNF that excludes it, and the DRUP
    proof; with the proof's lemma count and what wrote it.

    The engine's probing writes the first lemmas (satnono.logic.native, engine/src/lemmas.rs):
    unit propagation on the CNF is line logic, so when probing solves or refutes the puzzle
    they are the whole proof, the empty clause last (the excluded solution is then falsified
    by propagation). Otherwise CaDiCaL refutes the CNF with those lemmas added, and its proof
    follows theirs.
    """
    from satnono.logic.native import Engine

    ending, lemmas = Engine(puzzle).probing_lemmas(deadline)
    if ending == "timeout":
        raise Timeout
    cnf = whole_cnf(puzzle, deadline, clauses=ending == "stable")
    files = {CNF: cnf.dimacs}
    excluded: list[int] = []
    if solution is not None:
        files[SOLUTION] = "\n".join(puzzle.grid_rows(solution)) + "\n"
        excluded = cnf.excluding(solution)
        files[EXCLUDED] = with_clause(cnf.dimacs, excluded)
    learned = [cnf.lemma(lemma) for lemma in lemmas]
    proof = [" ".join(map(str, clause)) + " 0" for clause in learned]
    prover = "satnono probing"
    if ending == "stable":
        clauses = cnf.clauses or []
        if solution is not None:
            clauses.append(excluded)
        proof += _refutation(clauses + learned, deadline)
        prover += f" + {PROVER}"
    else:  # solved (the excluded solution) or refuted by propagation after the lemmas
        proof.append("0")
    files[PROOF] = "\n".join(proof) + "\n"
    return files, sum(1 for line in proof if not line.startswith("d ")), prover


def _refutation(clauses: list[list[int]], deadline: Deadline | None) -> list[str]:
    """CaDiCaL's DRUP proof that `clauses` are unsatisfiable (its lines, the empty clause
    last). InputError if the formula is satisfiable after all (a wrong verdict)."""
    from satnono.runtime.sat_solvers import SatSolver

    with SatSolver(PROVER, deadline or Deadline(None), clauses, with_proof=True) as sat:
        answer = sat.solve([])
        if answer is None:
            raise Timeout
        if answer:
            raise InputError("the formula has a model: the verdict cannot be certified", "proof")
        proof: list[str] = sat.solver.get_proof()
    return proof
