"""Certificates (issue 34): a proof anyone can check that a solution is unique or that there
is none; satnono's own checker verifies the honest ones and rejects every tampered one, and
drat-trim agrees when it is built beside the repository."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import satnono
from satnono.certify import CLUES, CNF, EXCLUDED, PROOF, SOLUTION, SOLUTIONS
from satnono.proofcheck import check_certificate, check_drup
from support import EXAMPLES, SHARED, run_satnono

#: drat-trim (marijnheule/drat-trim, built in a scratch folder): on the PATH or named by
#: $SATNONO_DRAT_TRIM; the cross-check skips without it.
DRAT_TRIM = Path(os.environ.get("SATNONO_DRAT_TRIM") or shutil.which("drat-trim") or "/absent")


def _certified(name: str, folder: Path) -> satnono.SolveResult:
    puzzle = satnono.read_puzzle(EXAMPLES / name)
    return satnono.solve(puzzle, proof=folder)


@pytest.mark.parametrize(
    ("name", "verdict", "files"),
    [
        ("needs-search-25.non", "unique", {CLUES, CNF, EXCLUDED, PROOF, SOLUTION}),
        ("heart-color.non", "unique", {CLUES, CNF, EXCLUDED, PROOF, SOLUTION}),
        ("switches-8.non", "multiple", {CLUES, SOLUTIONS}),
        ("bad/too-long.non", "unsolvable", {CLUES, CNF, PROOF}),
    ],
)
def test_each_verdict_gets_a_certificate_the_checker_verifies(
    name: str, verdict: str, files: set[str], tmp_path: Path
) -> None:
    result = _certified(name, tmp_path / "cert")
    assert result.status == verdict and result.certificate is not None
    assert set(result.certificate.files) == files
    assert {path.name for path in (tmp_path / "cert").iterdir()} == files
    checked = check_certificate(tmp_path / "cert")
    assert checked.verified and checked.verdict == verdict, checked.reason


def _tampered(tmp_path: Path, change: str) -> str:
    folder = tmp_path / "cert"
    _certified("needs-search-25.non", folder)
    proof = folder / PROOF
    lines = proof.read_text().splitlines()
    if change == "truncated":
        proof.write_text("\n".join(lines[: len(lines) // 2]) + "\n")
    elif change == "lemmas dropped":
        kept = [line for n, line in enumerate(lines[:-1]) if n % 3 or line.startswith("d")]
        proof.write_text("\n".join([*kept, "0"]) + "\n")
    elif change == "empty clause alone":
        proof.write_text("0\n")
    elif change == "cnf clause dropped":
        cnf = (folder / CNF).read_text().splitlines()
        first = next(n for n, line in enumerate(cnf) if line and line[0] not in "cp")
        (folder / CNF).write_text("\n".join(cnf[:first] + cnf[first + 1 :]) + "\n")
    elif change == "another puzzle":
        shutil.copy(EXAMPLES / "duck.non", folder / CLUES)
    elif change == "another solution":
        rows = (folder / SOLUTION).read_text().splitlines()
        rows[0] = ("#" if rows[0][0] == "." else ".") + rows[0][1:]
        (folder / SOLUTION).write_text("\n".join(rows) + "\n")
    elif change == "not a clause":
        proof.write_text("1 2 x 0\n0\n")
    return check_certificate(folder).reason


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ("truncated", "does not derive the empty clause"),
        ("lemmas dropped", "is not implied"),
        ("empty clause alone", "is not implied"),
        ("cnf clause dropped", "is not the CNF of the clues"),
        ("another puzzle", "is not the CNF of the clues"),
        ("another solution", "solution.txt"),
        ("not a clause", "not a clause"),
    ],
)
def test_every_tampered_certificate_is_rejected(change: str, said: str, tmp_path: Path) -> None:
    assert said in _tampered(tmp_path, change)


def test_the_rup_checker_on_small_cases() -> None:
    unsat = [[1, 2], [-1, 2], [1, -2], [-1, -2]]
    assert check_drup(unsat, ["2 0", "0"]) == ("", 2)
    assert check_drup(unsat, ["0"])[0].startswith("proof line 1")  # needs the lemma first
    assert check_drup([[1, 2]], ["1 0", "0"])[0].startswith("proof line 1")
    assert check_drup(unsat, ["2 0", "d -1 2 0", "d 1 2 0", "0"])[0] == ""  # 2 stays implied


def test_the_cli_writes_and_checks_a_certificate(tmp_path: Path) -> None:
    folder = tmp_path / "cert"
    done = run_satnono("solve", str(EXAMPLES / "needs-search-25.non"), "--proof", str(folder),
                       "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    certificate = json.loads(done.stdout)["certificate"]
    assert certificate["verdict"] == "unique" and certificate["proof_steps"] > 0
    assert certificate["encoding"] == "automaton"
    checked = run_satnono("check-proof", str(folder))
    assert checked.returncode == 0 and checked.stdout.startswith("VERIFIED: unique")
    (folder / PROOF).write_text("0\n")
    rejected = run_satnono("check-proof", str(folder), "--json")
    assert rejected.returncode == 1
    assert json.loads(rejected.stdout)["verified"] is False
    missing = run_satnono("check-proof", str(tmp_path / "nothing"))
    assert missing.returncode == 2 and "not a certificate folder" in missing.stderr


@pytest.mark.skipif(not DRAT_TRIM.exists(), reason="drat-trim is not built beside the repository")
@pytest.mark.skipif(not SHARED.exists(), reason="../shared is absent")
def test_drat_trim_agrees_on_the_surveys_forever(tmp_path: Path) -> None:
    puzzle = satnono.read_puzzle(SHARED / "webpbn-survey" / "6574-forever.non")
    result = satnono.solve(puzzle, proof=tmp_path)
    assert result.status == "unique" and check_certificate(tmp_path).verified
    done = subprocess.run([str(DRAT_TRIM), str(tmp_path / EXCLUDED), str(tmp_path / PROOF)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert "s VERIFIED" in done.stdout, done.stdout[-500:]


@pytest.mark.parametrize("number", range(1, 6))
def test_the_unsolvable_examples_need_a_search_and_are_certified(
    number: int, tmp_path: Path
) -> None:
    """examples/unsolvable-N.non (tools/bench_certify.py --unsolvable 5 --seed 34): line
    logic alone finds no contradiction, yet there is no solution, and the proof says so."""
    from satnono.pipeline import prepare

    puzzle = satnono.read_puzzle(EXAMPLES / f"unsolvable-{number}.non")
    assert prepare(puzzle).reason is None
    result = satnono.solve(puzzle, proof=tmp_path)
    assert result.status == "unsolvable" and result.certificate is not None
    checked = check_certificate(tmp_path)
    assert checked.verified and checked.verdict == "unsolvable" and checked.steps > 1


def test_the_engines_checker_agrees_with_the_python_reference() -> None:
    """The engine checks proofs (engine/src/drup.rs); the Python checker is its reference:
    on random unsatisfiable formulas, with CaDiCaL's proofs whole and tampered, both give the
    same verdict, step count and first failing line."""
    import random

    from pysat.solvers import Solver

    from satnono import native

    rng = random.Random(34)
    compared = 0
    while compared < 40:
        variables = rng.randint(5, 12)
        clauses = [
            [rng.choice((-1, 1)) * rng.randint(1, variables) for _ in range(3)]
            for _ in range(variables * 6)
        ]
        with Solver(name="cadical195", bootstrap_with=clauses, with_proof=True) as solver:
            if solver.solve():
                continue
            proof = list(solver.get_proof())
        cases = [proof, proof[: len(proof) // 2], [line for line in proof if rng.random() < 0.7]]
        if len(proof) > 1:
            flipped = proof[0].split()
            flipped[0] = str(-int(flipped[0])) if flipped[0] not in ("d", "0") else flipped[0]
            cases.append([" ".join(flipped), *proof[1:]])
        dimacs = f"p cnf {variables} {len(clauses)}\n" + "".join(
            " ".join(map(str, clause)) + " 0\n" for clause in clauses
        )
        for case in cases:
            text = "\n".join(case) + "\n"
            assert native.check_drup(dimacs, text) == check_drup(clauses, text.splitlines())
            compared += 1


def test_a_puzzle_with_blotted_numbers_is_certified(tmp_path: Path) -> None:
    """A blotted number (any run of one cell or more) is read by the automaton encoding, so
    its certificate checks like any other."""
    puzzle = satnono.Puzzle.from_clues([["?"], [1]], [[2], ["?"]])
    result = satnono.solve(puzzle, proof=tmp_path)
    assert result.status == "unique" and result.certificate is not None
    checked = check_certificate(tmp_path)
    assert checked.verified and checked.verdict == result.status, checked.reason
