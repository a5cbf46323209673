"""Under abuse, round 4 (issue 41): every certificate the maker writes is one its checker
verifies, a checker no file can crash, stall or lead out of its folder, one set of input limits,
certificate folders written fresh."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import satnono
from satnono.core.model import BLOTTED, Block, Puzzle
from satnono.errors import InputError
from satnono.formats.generate import puzzle_from_grid
from satnono.proof.certify import CLUES, CNF, PROOF, SOLUTION, SOLUTIONS
from satnono.proof.check import check_certificate
from support import DRAT_TRIM, EXAMPLES, PALETTES, grids, long_listing

#: Degenerate puzzles whose contradiction the clues show at once (the audit's cases).
DEGENERATE = {
    "a row 1 across an empty column": "width 1\nheight 1\n\nrows\n1\n\ncolumns\n0\n",
    "an empty row across a column 1": "width 1\nheight 1\n\nrows\n0\n\ncolumns\n1\n",
    "colors that cannot meet": (
        "width 2\nheight 1\ncolor r #ff0000\ncolor b #0000ff\n\nrows\n1r\n\ncolumns\n1b\n0\n"
    ),
}


def _certify(puzzle: Puzzle, folder: Path) -> satnono.SolveResult:
    return satnono.solve(puzzle, proof=folder)


@pytest.mark.parametrize("case", DEGENERATE)
def test_a_contradiction_the_clues_show_at_once_is_certified(case: str, tmp_path: Path) -> None:
    """The whole puzzle's CNF skipped lines whose cells were all decided by their colors: a
    row `1` crossing a column `0` gave `p cnf 1 1 / 1 0`, a satisfiable CNF, and the checker
    rejected the maker's own proof."""
    (puzzle,) = satnono.read_puzzles(DEGENERATE[case], "non")
    result = _certify(puzzle, tmp_path / "cert")
    assert result.status == "unsolvable"
    checked = check_certificate(tmp_path / "cert")
    assert checked.verified, checked.reason


@st.composite
def _degenerate_or_blotted(draw: st.DrawFn) -> Puzzle:
    grid, colors = draw(grids(4, 4, 3))
    puzzle = puzzle_from_grid(grid, PALETTES[colors], keep_goal=False)
    rows, columns = list(puzzle.rows), list(puzzle.columns)
    for _ in range(draw(st.integers(0, 2))):  # a line emptied, or given a block it lacks
        lines = draw(st.sampled_from([rows, columns]))
        index = draw(st.integers(0, len(lines) - 1))
        color = draw(st.integers(1, len(puzzle.palette) - 1))
        lines[index] = draw(st.sampled_from([(), (*lines[index], Block(1, color))]))
    if draw(st.booleans()):
        rows = [tuple(Block(BLOTTED, b.color) if b.length == 1 else b for b in c) for c in rows]
    return Puzzle(puzzle.width, puzzle.height, tuple(rows), tuple(columns), puzzle.palette)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_degenerate_or_blotted())
def test_every_certificate_the_maker_writes_is_verified(puzzle: Puzzle) -> None:
    """Random unsolvable, unique and multiple puzzles: black and white, color, blotted, with
    emptied lines and blocks that cannot fit."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        result = _certify(puzzle, Path(folder) / "cert")
        if result.status not in ("unique", "unsolvable", "multiple"):
            return
        assert result.certificate is not None
        checked = check_certificate(Path(folder) / "cert")
        assert checked.verified and checked.verdict == result.status, checked.reason
        if DRAT_TRIM.exists() and result.status != "multiple":  # the outside checker agrees
            cnf = "excluded.cnf" if result.status == "unique" else CNF
            cert = Path(folder) / "cert"
            done = subprocess.run([str(DRAT_TRIM), str(cert / cnf), str(cert / PROOF)],
                                  capture_output=True, text=True, timeout=60)  # fmt: skip
            assert "s VERIFIED" in done.stdout, done.stdout[-500:]


@pytest.fixture
def certificate(tmp_path: Path) -> Path:
    folder = tmp_path / "cert"
    _certify(satnono.read_puzzle(EXAMPLES / "needs-search-25.non"), folder)
    return folder


@pytest.mark.parametrize(
    ("proof", "said"),
    [
        ("2147483647 0\n", "not a variable of the CNF"),
        ("20000000 0\n", "not a variable of the CNF"),
        ("d -2147483647 0\n", "not a variable of the CNF"),
    ],
)
def test_a_literal_past_the_cnf_is_refused_without_an_abort(
    certificate: Path, proof: str, said: str
) -> None:
    """`2147483647 0` asked the checker for 103 GB and aborted the process."""
    (certificate / PROOF).write_text(proof)
    checked = check_certificate(certificate)
    assert not checked.verified and said in checked.reason


def test_a_lemma_of_a_million_literals_keeps_the_timeout(certificate: Path) -> None:
    """Removing repeated literals was quadratic: 51 s past `--timeout 2`."""
    lemma = " ".join(["1", "-1", "2"] * 333_334)
    (certificate / PROOF).write_text(f"{lemma} 0\nd {lemma} 0\n{lemma} 0\n")
    started = time.monotonic()
    checked = check_certificate(certificate, timeout=2)
    assert time.monotonic() - started < 2 + 1.5
    assert not checked.verified


@pytest.mark.parametrize("name", [PROOF, SOLUTION, CLUES])
@pytest.mark.parametrize("target", ["/dev/zero", "/dev/urandom", "/etc/passwd"])
def test_a_link_in_the_folder_is_refused_not_followed(
    certificate: Path, name: str, target: str
) -> None:
    """Links to /dev/zero were read until memory ran out; a link to /etc/passwd was parsed."""
    (certificate / name).unlink()
    (certificate / name).symlink_to(target)
    with pytest.raises(InputError, match="symbolic link"):
        check_certificate(certificate)


def test_a_folder_of_links_to_another_certificate_is_not_verified(
    certificate: Path, tmp_path: Path
) -> None:
    links = tmp_path / "links"
    links.mkdir()
    for file in certificate.iterdir():
        (links / file.name).symlink_to(file)
    with pytest.raises(InputError, match="symbolic link"):
        check_certificate(links)


@pytest.mark.parametrize("name", [PROOF, CNF, CLUES])
def test_a_fifo_in_the_folder_is_refused_at_once(certificate: Path, name: str) -> None:
    """A FIFO hung the check forever (without a timeout) or 30 s past it."""
    (certificate / name).unlink()
    os.mkfifo(certificate / name)
    started = time.monotonic()
    with pytest.raises(InputError, match="not a regular file"):
        check_certificate(certificate, timeout=3)
    assert time.monotonic() - started < 2


def test_a_file_over_its_limit_is_refused_before_it_is_read(certificate: Path) -> None:
    with (certificate / SOLUTION).open("wb") as file:
        file.truncate(17 << 20)  # sparse: no time spent writing it
    with pytest.raises(InputError, match="the limit is"):
        check_certificate(certificate)


def test_check_proof_on_the_cli_says_one_line_for_a_hostile_folder(certificate: Path) -> None:
    (certificate / PROOF).unlink()
    (certificate / PROOF).symlink_to("/dev/zero")
    done = subprocess.run(
        [sys.executable, "-m", "satnono", "check-proof", str(certificate), "--timeout", "3"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert "symbolic link" in done.stderr and "Traceback" not in done.stderr


def test_a_clue_past_the_limits_is_refused_before_any_work() -> None:
    """A clue of 5,000,000 blocks ended in MemoryError after 7 s; one of 100,000 was solved
    and given a certificate its own checker refused."""
    for blocks in (100_000, 5_000_000):
        started = time.monotonic()
        with pytest.raises(InputError, match="a clue has at most 1000"):
            Puzzle(10, 1, ((Block(1),) * blocks,), ((),) * 10)
        assert time.monotonic() - started < 1


def test_a_certificate_is_never_written_through_a_link(certificate: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    (certificate / PROOF).unlink()
    (certificate / PROOF).symlink_to(outside)
    _certify(satnono.read_puzzle(EXAMPLES / "needs-search-25.non"), certificate)
    assert outside.read_text() == "precious\n"
    assert not (certificate / PROOF).is_symlink()
    assert check_certificate(certificate).verified


def test_an_older_certificate_in_the_folder_does_not_speak_for_the_new_verdict(
    tmp_path: Path,
) -> None:
    """Multiple, then unique in one folder: the older solutions.txt was read first."""
    folder = tmp_path / "cert"
    _certify(satnono.read_puzzle(EXAMPLES / "switches-8.non"), folder)
    assert (folder / SOLUTIONS).exists()
    _certify(satnono.read_puzzle(EXAMPLES / "needs-search-25.non"), folder)
    assert not (folder / SOLUTIONS).exists()
    checked = check_certificate(folder)
    assert checked.verified and checked.verdict == "unique", checked.reason
    _certify(satnono.read_puzzle(EXAMPLES / "unsolvable-1.non"), folder)
    checked = check_certificate(folder)
    assert checked.verified and checked.verdict == "unsolvable", checked.reason


def test_a_download_is_named_safely() -> None:
    from satnono.serve.work import safe_stem

    assert safe_stem("a\x00b.non") == "a-b"
    assert safe_stem("../../etc/passwd") == "passwd"
    assert safe_stem("") == "puzzle"
    assert len(safe_stem("x" * 300 + ".non")) == 64


def test_the_threads_a_check_starts_end_with_it(certificate: Path) -> None:
    before = threading.active_count()
    assert check_certificate(certificate).verified
    assert threading.active_count() == before


def test_kissat_enumerates_through_an_incremental_solver_and_says_so() -> None:
    """PySAT drives Kissat without incremental solving: rebuilt with every blocking clause,
    2,000 solutions took 32-57 s."""
    puzzle = satnono.read_puzzle(EXAMPLES / "switches-8.non")
    started = time.monotonic()
    result = satnono.solve(puzzle, "sat", 0, timeout=60, solver="kissat404")
    assert result.complete and result.solutions_found == 256
    assert result.solver == "kissat404+cadical195"
    assert time.monotonic() - started < 20


@pytest.mark.parametrize("solver", ["glucose3", "cadical195", "minisat22", "kissat404"])
def test_an_interrupted_enumeration_never_claims_to_be_complete(solver: str) -> None:
    """Enumerations stopped at random moments: `complete` only with every solution listed."""
    import random

    puzzle = satnono.read_puzzle(EXAMPLES / "switches-8.non")  # 256 solutions
    rng = random.Random(solver)
    for _ in range(12):
        timeout = rng.choice([0.0, 0.001, 0.01, 0.05, 0.2])
        result = satnono.solve(puzzle, "sat", 0, timeout=timeout, solver=solver)
        grids = set(result.grids)
        assert len(grids) == result.solutions_found <= 256
        if result.complete:  # a stop may come after the last solution, before the proof
            assert result.solutions_found == 256, (timeout, result.status)


LEFTOVERS = """
import os, sys, threading, time
import satnono
if __name__ == "__main__":
    puzzle = satnono.read_puzzle(sys.argv[1])
    if sys.argv[2] == "list":  # the engine lists the cubes, in threads of this process
        found = satnono.solve(puzzle, backend="cubes", workers=2, max_solutions=65, timeout=60)
        print(found.solutions_found)  # the first cube to list 65 ends the run
    else:
        print(satnono.solve(puzzle, backend="cubes", timeout=60).status)
    time.sleep(0.5)
    print(sorted(t.name for t in threading.enumerate()))

    def parent_of(pid):
        try:  # a process of the machine's may end between the listing and the reading
            with open(f"/proc/{pid}/stat") as stat:
                return stat.read().rsplit(")", 1)[1].split()[1]
        except OSError:
            return None

    children = [
        pid for pid in os.listdir("/proc") if pid.isdigit() and parent_of(pid) == str(os.getpid())
    ]
    print(children)
"""


@pytest.mark.parametrize("listing", [False, True])
def test_nothing_the_cubes_backend_starts_outlives_the_call(tmp_path: Path, listing: bool) -> None:
    """A multiprocessing resource tracker and a Dask-Offload thread stayed alive. Listing
    65 solutions of a random 30x30 (16 s for all 4,704), the cubes run in threads of the
    caller's process, which the run's early end (the first cube to list 65) must stop: a
    thread cannot be killed, and the other cubes search on for seconds."""
    from satnono.formats import write_puzzles

    script = tmp_path / "leftovers.py"
    script.write_text(LEFTOVERS)
    puzzle, how, status = EXAMPLES / "needs-search-25.non", "decide", "unique"
    if listing:
        puzzle, how, status = tmp_path / "r30.non", "list", "65"
        write_puzzles([long_listing()], puzzle)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, str(script), str(puzzle), how],
        capture_output=True,
        text=True,
        timeout=120,
    )
    # Python threads and child processes; not the native thread pool numpy's OpenBLAS starts
    # when Dask imports it, which belongs to the module, as its other caches do.
    assert done.stdout.splitlines() == [status, "['MainThread']", "[]"], done.stderr
    assert time.monotonic() - started < 30


def test_the_line_benchmark_call_refuses_a_repeat_it_could_not_finish() -> None:
    from satnono.logic import native

    line = ([(1, 1)], [3, 3, 3])
    assert native.solve_lines(2, [line], 100_000) == [[3, 3, 3]]
    for repeat in (0, 100_001, 10**13, 10**30, -1):
        with pytest.raises(InputError, match="repeat"):
            native.solve_lines(2, [line], repeat)


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """An honest certificate's files (unique: every file a certificate has but one)."""
    folder = tmp_path_factory.mktemp("honest") / "cert"
    _certify(satnono.read_puzzle(EXAMPLES / "needs-search-25.non"), folder)
    return {path.name: path.read_bytes() for path in folder.iterdir()}


@st.composite
def _mangled(draw: st.DrawFn, files: dict[str, bytes]) -> tuple[str, bytes]:
    """One file of the certificate, mangled: bytes flipped, lines cut, repeated or replaced by
    numbers near the limits of 32-bit integers."""
    name = draw(st.sampled_from(sorted(files)))
    data = bytearray(files[name])
    lines = data.split(b"\n")
    how = draw(st.sampled_from(["flip", "cut", "repeat", "number", "garbage"]))
    at = draw(st.integers(0, max(0, len(lines) - 1)))
    if how == "flip" and data:
        spot = draw(st.integers(0, len(data) - 1))
        data[spot] ^= draw(st.integers(1, 255))
        return name, bytes(data)
    if how == "cut":
        return name, b"\n".join(lines[:at])
    if how == "repeat":
        return name, b"\n".join([*lines[:at], *[lines[at]] * draw(st.integers(2, 50)), *lines[at:]])
    if how == "number":
        big = draw(st.sampled_from([2**31 - 1, -(2**31), 2**31, 2**63, 0, -1, 10**6]))
        lines[at] = f"{big} 0".encode()
        return name, b"\n".join(lines)
    return name, draw(st.binary(max_size=200))


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_mangled_certificate_is_checked_or_refused_within_its_timeout(
    honest: dict[str, bytes], data: st.DataObject
) -> None:
    """Never an abort, an internal error or a hang: VERIFIED, REJECTED, TIMEOUT or one
    InputError, within the timeout and a second."""
    import tempfile

    name, mangled = data.draw(_mangled(honest))
    with tempfile.TemporaryDirectory() as place:
        folder = Path(place)
        for file, content in honest.items():
            (folder / file).write_bytes(mangled if file == name else content)
        started = time.monotonic()
        try:
            checked = check_certificate(folder, timeout=2)
        except InputError:
            pass
        else:
            if checked.verified:  # only a change that keeps the meaning (a comment, a blank)
                assert name != SOLUTION or mangled.split() == honest[SOLUTION].split()
        assert time.monotonic() - started < 2 + 1


@pytest.mark.parametrize("separator", [b"\x1e", b"\x1c", b"\x85", b"\x0b", b"\x0c"])
def test_a_solution_s_rows_end_only_at_a_line_end(
    honest: dict[str, bytes], tmp_path: Path, separator: bytes
) -> None:
    """Found by the mangling test above: a row end flipped to a record separator (0x1e) was
    read as a line end (Python's str.splitlines() takes 0x1c-0x1e, 0x85, vertical tab and
    form feed for line ends), so the mangled solution.txt was VERIFIED. Only \\n, \\r\\n and
    \\r end a row, as in every format satnono reads."""
    for file, content in honest.items():
        mangled = content.replace(b"\n", separator, 1) if file == SOLUTION else content
        (tmp_path / file).write_bytes(mangled)
    try:
        checked = check_certificate(tmp_path, timeout=10)
    except InputError:
        return
    assert not checked.verified, checked
