"""A person at the keyboard (issue 42): every puzzle of a file, interrupted work that says
what it did, install advice that works, one way of doing a thing across the commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support import EXAMPLES, SHARED, in_terminal, run_satnono

TOURNAMENT = str(EXAMPLES / "tournament-4.txt")  # four 15x15 puzzles


@pytest.mark.parametrize("command", ["solve", "count", "analyze", "sample"])
def test_every_puzzle_of_a_file_is_done_and_named(command: str) -> None:
    """solve, count and analyze did puzzle 1 of a tournament file and said nothing of the
    other three."""
    done = run_satnono(command, TOURNAMENT)
    assert done.returncode == 0, done.stderr
    for number in range(1, 5):
        assert f"tournament-4.txt, puzzle {number} of 4" in done.stdout


def test_json_gives_an_object_for_every_puzzle_and_puzzle_picks_one() -> None:
    done = run_satnono("count", TOURNAMENT, "--json")
    counts = [json.loads(line)["count"] for line in done.stdout.splitlines()]
    assert counts == [2, 12, 12, 54774]
    one = run_satnono("count", TOURNAMENT, "--json", "--puzzle", "2")
    assert [json.loads(line)["count"] for line in one.stdout.splitlines()] == [12]


def test_an_interrupted_tournament_says_what_it_did(tmp_path: Path) -> None:
    """It printed only "satnono: interrupted" (309 answers were in the file; the log had no
    closing line)."""
    import random

    from satnono.formats.generate import puzzle_from_grid, random_grid
    from satnono.formats.tournament import write_tournament

    rng = random.Random(45)  # random 45x45 puzzles of density 0.45: none decided in seconds
    hard = [puzzle_from_grid(random_grid(45, 45, 2, 0.45, rng)) for _ in range(3)]
    questions = tmp_path / "questions.txt"
    questions.write_text(write_tournament(hard))
    answers, log = tmp_path / "answers.txt", tmp_path / "log.tsv"
    code, out, err = _interrupted(
        1.5, "tournament", str(questions), "-o", str(answers), "--log", str(log)
    )
    assert code == 130, err
    assert out.startswith("interrupted after ") and "of 3 puzzles: solved" in out
    assert err.splitlines() == [f"satnono: interrupted; 0 answers (answers in {answers}, "
                                f"times in {log})"]  # fmt: skip
    assert log.read_text().splitlines()[-1].startswith("# interrupted after ")


def _interrupted(cpu: float, *args: str) -> tuple[int, str, str]:
    import os
    import signal
    import subprocess

    from support import SATNONO, default_ctrl_c, wait_busy

    process = subprocess.Popen(
        [*SATNONO, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, preexec_fn=default_ctrl_c,
    )  # fmt: skip
    wait_busy(process.pid, cpu)  # past start-up, into the work
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=30)
    return process.returncode, out, err


def test_an_interrupted_sample_says_how_many_it_drew() -> None:
    """`sample` said nothing."""
    code, _, err = _interrupted(
        1.0, "sample", str(EXAMPLES / "switchboard-10.non"), "-n", "100000000", "-q"
    )
    assert code == 130
    (line,) = err.splitlines()
    assert line.startswith("satnono: interrupted: ") and "of 100000000 samples drawn" in line


@pytest.mark.skipif(not (SHARED / "webpbn-survey").exists(), reason="../shared is absent")
def test_an_interrupted_analysis_says_interrupted_not_timeout() -> None:
    sierp = str(SHARED / "webpbn-survey" / "12548-sierp.non")
    code, out, err = _interrupted(1.5, "analyze", sierp)
    assert code == 130 and err.startswith("satnono: interrupted")
    assert "timeout" not in out and "(interrupted" in out


def test_an_interrupted_compare_shows_the_runs_that_finished(tmp_path: Path) -> None:
    """`compare` lost its finished rows."""
    import random
    import shutil

    from satnono import write_puzzles
    from satnono.formats.generate import puzzle_from_grid, random_grid

    shutil.copy(EXAMPLES / "duck.non", tmp_path / "a-duck.non")
    hard = puzzle_from_grid(random_grid(45, 45, 2, 0.45, random.Random(45)))
    write_puzzles([hard], tmp_path / "z-hard.non")
    csv_file = tmp_path / "runs.csv"
    code, out, err = _interrupted(
        2.5, "compare", str(tmp_path), "--backends", "sat,backtrack", "--timeout", "60",
        "--csv", str(csv_file),
    )  # fmt: skip
    assert code == 130, err
    (line,) = err.splitlines()
    assert line.startswith("satnono: interrupted: ") and "of 4 runs finished" in line
    assert "a-duck.non" in out and csv_file.exists()


def test_check_proof_takes_several_folders_and_a_batch_folder(tmp_path: Path) -> None:
    """`check-proof d1 d2` was refused; a `batch --proof` folder was "not a certificate
    folder"; CLI certificate folders had no README.txt."""
    import satnono

    for name in ("needs-search-25", "switches-8"):
        satnono.solve(satnono.read_puzzle(EXAMPLES / f"{name}.non"), proof=tmp_path / name)
        assert "check it yourself" in (tmp_path / name / "README.txt").read_text()
    done = run_satnono(
        "check-proof", str(tmp_path / "needs-search-25"), str(tmp_path / "switches-8")
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and all(": VERIFIED: " in line for line in lines)
    puzzles = tmp_path / "puzzles"
    puzzles.mkdir()
    for name in ("duck.non", "unsolvable-1.non", "switches-8.non"):
        (puzzles / name).write_bytes((EXAMPLES / name).read_bytes())
    proof = tmp_path / "batch-proof"
    batch = run_satnono("batch", "run", str(puzzles), "--db", str(tmp_path / "r.sqlite"),
                        "--proof", str(proof))  # fmt: skip
    assert batch.returncode in (0, 1), batch.stderr
    checked = run_satnono("check-proof", str(proof), "--json")
    verdicts = sorted(json.loads(line)["verdict"] for line in checked.stdout.splitlines())
    assert verdicts == ["multiple", "unique", "unsolvable"], checked.stderr
    assert checked.returncode == 0


def test_help_lists_solve_first_and_keeps_dask_options_apart() -> None:
    """`satnono --help` listed compare, tournament and convert first; `solve --help` put the
    Dask-only options beside --json."""
    listed = run_satnono("--help").stdout.split("Commands", 1)[1]
    rows = [line for line in listed.splitlines() if line.startswith("│ ") and line[2] != " "]
    commands = [line.split()[1] for line in rows]
    assert commands[:4] == ["solve", "count", "sample", "analyze"], commands
    solve_help = run_satnono("solve", "--help").stdout
    cubes = solve_help.index("Cubes backend (Dask)")
    assert solve_help.index("--workers") > cubes > solve_help.index("--json")


def test_result_of_a_streaming_handle_never_waits_on_solutions_nobody_takes() -> None:
    """`start_solve(..., max_solutions=0).result()` waited forever: the search waited for a
    consumer of `solutions()` that never came."""
    import satnono

    switches = satnono.read_puzzle(EXAMPLES / "switches-8.non")
    handle = satnono.start_solve(switches, max_solutions=0, timeout=60)
    assert handle.result().solutions_found == 256
    handle = satnono.start_solve(switches, max_solutions=0, timeout=60)
    taken = [next(iter(handle.solutions()))]  # one taken, the rest left
    result = handle.result()
    assert len(taken) == 1 and result.solutions_found == 256 and result.complete


def test_the_json_flags_are_where_a_user_looks_for_them() -> None:
    """--json was missing on sample, --json-lines on count."""
    sampled = run_satnono("sample", str(EXAMPLES / "switches-8.non"), "-n", "3", "--json")
    data = json.loads(sampled.stdout)
    assert data["samples"] == 3 and len(data["solutions"]) == 3 and data["status"] == "sampled"
    # The sampler asked for, and what drew: the exact count's draws, not CMSGen.
    assert (data["sampler"], data["sampled_by"]) == ("cmsgen", ["exact"])
    counted = run_satnono("count", str(EXAMPLES / "switches-8.non"), "--json-lines")
    assert json.loads(counted.stdout)["count"] == 256
    both = run_satnono("sample", str(EXAMPLES / "switches-8.non"), "--json", "--json-lines")
    assert both.returncode == 2 and "choose --json or --json-lines" in both.stderr


def test_a_stored_goal_that_does_not_fit_is_said(tmp_path: Path) -> None:
    """pbnsolve checks a file's stored goal against its clues (-c); satnono said nothing, and
    `render --show goal` called the goal "the solution"."""
    text = (EXAMPLES / "duck.non").read_text()
    wrong = tmp_path / "duck.non"
    wrong.write_text(text.replace('goal "0000', 'goal "1000', 1))
    solved = run_satnono("solve", str(wrong))
    assert solved.returncode == 0 and "unique solution" in solved.stdout
    assert "satnono: note: the goal stored in the file is not a solution" in solved.stderr
    right = run_satnono("solve", str(EXAMPLES / "duck.non"))
    assert "note" not in right.stderr
    drawn = run_satnono("render", str(wrong), "--show", "goal", "-o", str(tmp_path / "g.svg"))
    assert drawn.returncode == 2
    assert "the goal stored in the file does not fit the clues" in drawn.stderr


def test_a_further_ctrl_c_lets_the_report_of_an_interrupt_finish() -> None:
    """In a wide terminal a second Ctrl-C landed while the interrupted solve drew its grid:
    no grid, no status line, only 'satnono: interrupted' (issue 42). The first press stops
    the work; the next is let pass until the report is printed; afterwards Ctrl-C interrupts
    again. Once with the first press raising (solve), once with it taken already (a count it
    cancelled)."""
    import signal

    # As in a terminal: a suite run in a background job starts with SIGINT ignored, which
    # ctrl_c_once rightly leaves alone.
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _press_ctrl_c_during_reports()
    finally:
        signal.signal(signal.SIGINT, before)


def _press_ctrl_c_during_reports() -> None:
    import os
    import signal
    import time

    from satnono.cli.process import ctrl_c_once, reporting

    printed = []
    with ctrl_c_once():
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.5)
        except KeyboardInterrupt:
            os.kill(os.getpid(), signal.SIGINT)  # landing before the report has begun
            time.sleep(0.05)  # the handler runs here, between two bytecodes
            printed.append("the grid, then the status line")
    with reporting(True):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        printed.append("the count so far")
    assert printed == ["the grid, then the status line", "the count so far"]
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.5)


@pytest.mark.parametrize("delay", [0.01, 0.03])
def test_a_second_ctrl_c_in_a_wide_terminal_keeps_the_grid_and_the_status_line(
    delay: float, tmp_path: Path
) -> None:
    """The issue's case itself, in a pseudo-terminal 250 columns wide: Ctrl-C, then another
    `delay` seconds later while the grid is drawn (before the fix: 4 to 39 of its 52 lines,
    then only 'satnono: interrupted')."""
    import random
    import signal

    from satnono.formats import write_puzzles
    from satnono.formats.generate import puzzle_from_grid, random_grid

    hard = tmp_path / "hard.non"  # random 45x45 at density 0.45: minutes of backtracking
    write_puzzles([puzzle_from_grid(random_grid(45, 45, 2, 0.45, random.Random(7)))], hard)
    code, text = in_terminal(
        ["solve", str(hard), "--backend", "backtrack"],
        [(2.0, signal.SIGINT), (delay, signal.SIGINT)],
    )
    assert code == 130
    assert "after line logic" in text and "interrupted: " in text, text[-300:]
    assert "satnono: interrupted" not in text
    assert text.count("\n") >= 46  # the header, the 45 rows, the status line


#: A Ctrl-C landing while the CLI exits: in its output's flush, and as an interrupted command
#: unwinds to its exit (the report written, the command's own Ctrl-C handler gone).
LATE_CTRL_C = {
    "flush": """
import os, signal, sys
from satnono.cli.process import exit_now
class Flushing:
    def write(self, text):
        return sys.__stdout__.write(text)
    def flush(self):
        os.kill(os.getpid(), signal.SIGINT)
        sys.__stdout__.flush()
sys.stdout = Flushing()
print("the report")
exit_now(130)
""",
    "unwinding": """
import os, signal, sys, time
import satnono.cli.shell
def run():
    print("the report")
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.5)
    raise SystemExit(130)
satnono.cli.shell.main = run
sys.argv = ["satnono", "count"]
from satnono.cli import main
main()
""",
}


@pytest.mark.parametrize("where", sorted(LATE_CTRL_C))
def test_a_ctrl_c_while_the_cli_exits_ends_it_with_130_and_its_output(where: str) -> None:
    """A second Ctrl-C 0.03 s after the first, on a fast machine, landed once the report was
    written and the command's handler restored: the KeyboardInterrupt it raised reached the
    top, and Python ended the process by SIGINT (exit -2) instead of 130 (a clean-clone CI
    run of `test_a_second_ctrl_c_in_a_wide_terminal_keeps_the_grid_and_the_status_line`)."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", LATE_CTRL_C[where]], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 130, done.stderr[-500:]
    assert done.stdout == "the report\n" and "Traceback" not in done.stderr


def test_unigen_says_it_is_hashing_before_its_first_sample() -> None:
    """`sample --sampler unigen` showed nothing for its minute of hashing (issue 42)."""
    import signal

    pytest.importorskip("pyunigen")
    code, text = in_terminal(
        ["sample", str(EXAMPLES / "switchboard-10.non"), "--sampler", "unigen"],
        [(2.5, signal.SIGINT)],
    )
    assert "0 of 1 samples drawn (UniGen first counts the solutions by hashing" in text
    assert code in (0, 130)  # drawn, or stopped by the Ctrl-C


def test_a_solve_started_with_ctrl_c_ignored_keeps_ignoring_it(tmp_path: Path) -> None:
    """A script's background job (`satnono solve ... &`) starts with SIGINT ignored; the
    solve's own handler took it over, so a Ctrl-C meant for the foreground stopped it."""
    import random
    import signal
    import subprocess
    import time

    from satnono.formats import write_puzzles
    from satnono.formats.generate import puzzle_from_grid, random_grid
    from support import SATNONO

    hard = tmp_path / "hard.non"
    write_puzzles([puzzle_from_grid(random_grid(45, 45, 2, 0.45, random.Random(7)))], hard)

    def ignoring() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    argv = [*SATNONO, "solve", str(hard), "--backend", "backtrack", "--timeout", "2.5"]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, preexec_fn=ignoring) as solving:  # fmt: skip
        time.sleep(1.5)
        solving.send_signal(signal.SIGINT)
        out, err = solving.communicate(timeout=60)
    assert solving.returncode == 3, (out, err)  # the timeout, not the Ctrl-C
    assert "timeout" in out and "interrupted" not in out + err
