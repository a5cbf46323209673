"""`satnono batch`: real Dask (a LocalCluster, and a scheduler and workers started as separate
processes), SQLite rows that survive a killed batch and a killed worker, resume without
duplicates, bad files as error rows, and the report."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import satnono
from satnono.formats import write_puzzles
from satnono.formats.generate import TUNING_SEED, random_set
from support import EXAMPLES, SATNONO, default_ctrl_c, run_satnono

pytest.importorskip("distributed")
DASK = str(Path(sys.executable).parent / "dask")


def rows(db: Path) -> list[tuple[str, str, str]]:
    with sqlite3.connect(db) as connection:
        return connection.execute(
            "SELECT puzzle_hash, configuration, status FROM results"
        ).fetchall()


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    """The examples (a few duplicated by content), a bad file, and a two-puzzle file."""
    folder = tmp_path / "archive"
    folder.mkdir()
    for path in EXAMPLES.glob("*.non"):
        (folder / path.name).write_bytes(path.read_bytes())
    (folder / "copy-of-duck.non").write_bytes((EXAMPLES / "duck.non").read_bytes())
    (folder / "broken.non").write_text("width 3\nheight\n")
    write_puzzles(random_set(TUNING_SEED + 300, 2), folder / "two.xml")  # both decided at once
    return folder


def test_local_cluster_rows_resume_and_report(archive: Path, tmp_path: Path) -> None:
    db = tmp_path / "results.sqlite"
    done = run_satnono("batch", str(archive), "--db", str(db), "--timeout", "20", "--workers", "2")
    assert done.returncode == 2, done.stderr  # every row stored; the broken file's is an error
    found = rows(db)
    examples = len(list(EXAMPLES.glob("*.non")))
    # every example once (the copy is the same puzzle), both puzzles of two.xml, the bad file
    assert len(found) == examples + 2 + 1 == len({h for h, _, _ in found})
    assert [s for _, _, s in found].count("error") == 1
    assert "run now, 0 already" in done.stdout
    again = run_satnono("batch", str(archive), "--db", str(db), "--timeout", "20")
    assert again.returncode == 2 and f"0 run now, {len(found)} already" in again.stdout
    assert rows(db) == found
    # A resumed run summarizes the whole set, not only its own share (none here).
    summary = [line for line in done.stdout.splitlines() if line.endswith(" error")]
    assert len(summary) == 1 and summary[0].startswith(f"{len(found) + 1} puzzles: ")
    assert summary[0] in again.stdout.splitlines()
    as_json = run_satnono("batch", "report", str(db), "--json")
    (configuration,) = json.loads(as_json.stdout)["configurations"]
    assert configuration["puzzles"] == len(found) + 1 and configuration["verdicts"]["error"] == 1
    (error,) = configuration["errors"]
    assert error["file"].endswith("broken.non") and "broken.non:2" in error["error"]
    report = run_satnono("batch", "report", str(db), "--csv", str(tmp_path / "r.csv"),
                     "--plot", str(tmp_path / "r.png"))  # fmt: skip
    assert report.returncode == 0 and "1 error" in report.stdout
    assert "broken.non:2" in report.stdout
    assert (tmp_path / "r.png").stat().st_size > 1000
    # One row per file: the copy of duck has its own row, with duck's verdict (issue 23).
    csv_lines = (tmp_path / "r.csv").read_text().splitlines()
    assert len(csv_lines) == len(found) + 1 + 1
    assert sum("copy-of-duck.non" in line for line in csv_lines) == 1
    # `--csv -`: the CSV alone on stdout (no file named "-"), the summary on stderr.
    piped = run_satnono("batch", "report", str(db), "--csv", "-", cwd=tmp_path)
    assert piped.returncode == 0 and "1 error" in piped.stderr
    assert piped.stdout.splitlines()[0].startswith("puzzle_hash,")
    assert len(piped.stdout.splitlines()) == len(found) + 2
    assert not (tmp_path / "-").exists()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[str, list[subprocess.Popen[bytes]]]]:
    """`dask scheduler` and two `dask worker`s as separate processes on 127.0.0.1."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    log = (tmp_path / "dask.log").open("wb")
    scheduler = subprocess.Popen(
        [DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
        stdout=log, stderr=log,
    )  # fmt: skip
    workers = [
        subprocess.Popen(
            [DASK, "worker", address, "--nthreads", "1", "--no-dashboard", "--nworkers", "1"],
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
        for _ in range(2)
    ]
    try:
        yield address, workers
    finally:
        for process in [*workers, scheduler]:
            if process.poll() is None:
                with_group = process is not scheduler
                if with_group:
                    os.killpg(process.pid, signal.SIGKILL)
                else:
                    process.kill()
            process.wait(10)
        log.close()


def test_an_existing_cluster_and_a_worker_killed_mid_run(
    cluster: tuple[str, list[subprocess.Popen[bytes]]], tmp_path: Path
) -> None:
    address, workers = cluster
    folder = tmp_path / "random"
    folder.mkdir()
    puzzles = random_set(TUNING_SEED + 340, 24)  # one takes seconds: the kill is mid-run
    for number, puzzle in enumerate(puzzles):
        write_puzzles([puzzle], folder / f"p{number}.non")
    db = tmp_path / "results.sqlite"
    batch = subprocess.Popen(
        [*SATNONO, "batch", str(folder), "--db", str(db), "--timeout", "20", "--scheduler",
         address, "--backend", "sat"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    _wait_for_rows(db, 3, batch)
    os.killpg(workers[0].pid, signal.SIGKILL)  # one worker dies mid-run; the other goes on
    _, err = batch.communicate(timeout=180)
    assert batch.returncode == 0, err
    found = rows(db)
    assert len(found) == len({p.rows for p in puzzles}) == len({h for h, _, _ in found})
    assert all(status in ("unique", "multiple") for _, _, status in found), found


def test_on_an_existing_cluster_batch_keeps_all_its_threads_busy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --workers, the chunks in flight are sized by the cluster's threads (three
    here), not by the cores of the machine that submits: a 2-core laptop kept only 2 workers'
    worth of chunks in flight on a cluster of any size (found while closing issue 21)."""
    from distributed import LocalCluster

    from satnono.archive import batch, engine

    seen: list[int] = []
    real = engine.run_tasks

    def run_tasks(tasks: Any, workers: int, scheduler: str, on_rows: Any) -> None:
        seen.append(workers)
        real(tasks, workers, scheduler, on_rows)

    monkeypatch.setattr(batch, "run_tasks", run_tasks)
    db = tmp_path / "results.sqlite"
    # Worker processes: a worker keeps its solver process, which goes with the worker.
    with LocalCluster(
        n_workers=1, threads_per_worker=3, processes=True, dashboard_address=None
    ) as cluster:
        settings = engine.BatchSettings(backend="sat", timeout=20)
        done = batch.run_batch(
            [EXAMPLES / "duck.non"], db, settings, scheduler=cluster.scheduler_address
        )
    assert seen == [3] and [row.status for row in done.rows] == ["unique"]


def test_a_killed_batch_resumes_without_lost_or_duplicated_rows(tmp_path: Path) -> None:
    folder = tmp_path / "random"
    folder.mkdir()
    puzzles = random_set(TUNING_SEED + 345, 12)  # one takes seconds: the kill is mid-run
    for number, puzzle in enumerate(puzzles):
        write_puzzles([puzzle], folder / f"p{number}.non")
    db = tmp_path / "results.sqlite"
    command = [*SATNONO, "batch", str(folder), "--db", str(db), "--timeout", "20",
               "--workers", "2", "--backend", "sat"]  # fmt: skip
    first = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)  # fmt: skip
    _wait_for_rows(db, 2, first)
    os.killpg(first.pid, signal.SIGKILL)  # the batch, its cluster and workers, at once
    first.wait(10)
    partial = len(rows(db))
    assert 0 < partial < len(puzzles)
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    found = rows(db)
    assert len(found) == len({p.rows for p in puzzles}) == len({h for h, _, _ in found})


def _wait_for_rows(
    db: Path, count: int, process: subprocess.Popen[str] | subprocess.Popen[bytes]
) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert process.poll() is None, "the batch ended before it could be interrupted"
        if db.exists():
            try:
                if len(rows(db)) >= count:
                    return
            except sqlite3.OperationalError:
                pass
        time.sleep(0.05)
    raise AssertionError("no rows appeared")


def test_every_entry_is_accounted_for(tmp_path: Path) -> None:
    # A duplicate got no row, and FIFOs, link loops, broken links and files without a
    # puzzle suffix were passed over silently: 12 entries summarised as "4 puzzles" (issue 23).
    folder = tmp_path / "mixed"
    folder.mkdir()
    duck = (EXAMPLES / "duck.non").read_bytes()
    (folder / "duck.non").write_bytes(duck)
    (folder / "same-duck.non").write_bytes(duck)
    (folder / "switches.non").write_bytes((EXAMPLES / "switches-8.non").read_bytes())
    (folder / "broken.non").write_text("width 3\nheight\n")
    (folder / "notes.txt").write_text("not a puzzle")
    (folder / "no-suffix").write_bytes(duck)
    os.mkfifo(folder / "fifo.non")
    (folder / "loop-a.non").symlink_to(folder / "loop-b.non")
    (folder / "loop-b.non").symlink_to(folder / "loop-a.non")
    (folder / "dangling.non").symlink_to(folder / "missing.non")
    db = tmp_path / "results.sqlite"
    done = run_satnono("batch", str(folder), "--db", str(db), "--timeout", "20", timeout=180)
    assert done.returncode == 2, done.stderr  # the unreadable entries are error rows
    lines = done.stdout.splitlines()
    # 8 puzzle entries (one a duplicate, solved once) + 2 skipped = the 10 entries.
    assert lines[0].startswith("8 puzzles: 7 run now, 0 already in")
    assert "1 duplicate of another file's puzzle (solved once)" in lines[0]
    assert "not puzzle files, skipped: 2" in done.stdout
    assert "no-suffix: not a puzzle file suffix (none)" in done.stdout
    assert "notes.txt: not a puzzle file suffix (.txt)" in done.stdout
    assert "8 puzzles: 5 error, 2 unique, 1 multiple" in done.stdout
    for reason in ("fifo.non: not a regular file (a FIFO)", "loop-a.non: a symbolic link loop",
                   "dangling.non: a broken symbolic link", "broken.non:2"):  # fmt: skip
        assert reason in done.stdout
    report = run_satnono("batch", "report", str(db), "--csv", "-")
    files = [line.split(",")[2] for line in report.stdout.splitlines()[1:]]
    assert sorted(Path(f).name for f in files) == sorted(
        ["duck.non", "same-duck.non", "switches.non", "broken.non", "fifo.non", "loop-a.non",
         "loop-b.non", "dangling.non"]
    )  # fmt: skip


def test_a_second_run_on_the_same_database_refuses(tmp_path: Path) -> None:
    from satnono.archive.store import ResultStore

    db = tmp_path / "results.sqlite"
    with ResultStore(db) as store:
        store.lock()  # as a first run does for its whole length
        done = run_satnono("batch", str(EXAMPLES / "duck.non"), "--db", str(db))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"satnono: error: {db}: another satnono batch run is using this database; wait for it "
        "to finish, or use another --db"
    ]
    assert rows(db) == []


def test_a_database_released_a_moment_later_is_taken(tmp_path: Path) -> None:
    """A batch resumed as the killed one was reaped was refused (CI, round 33): the killed
    run's processes held the lock until the last of them had exited. A lock released within
    LOCK_WAIT is taken; one held past it is refused (above)."""
    import fcntl
    import threading

    from satnono.archive.store import LOCK_WAIT, ResultStore

    db = tmp_path / "results.sqlite"
    with ResultStore(db) as store:
        held = os.open(db, os.O_RDONLY)
        fcntl.flock(held, fcntl.LOCK_EX)  # as the killed run's last process holds it
        release = threading.Timer(LOCK_WAIT / 4, os.close, (held,))
        release.start()
        started = time.monotonic()
        store.lock()
        assert LOCK_WAIT / 4 <= time.monotonic() - started < LOCK_WAIT
        release.join()


@pytest.mark.parametrize("damage", ["foreign", "damaged", "not sqlite", "no folder"])
def test_a_database_that_cannot_be_used_is_one_line_and_exit_2(tmp_path: Path, damage: str) -> None:
    # A damaged database or a foreign results table was exit 4 "internal error" (issue 23).
    db = tmp_path / "results.sqlite"
    if damage == "foreign":
        with sqlite3.connect(db) as connection:
            connection.execute("CREATE TABLE results (name TEXT, score REAL)")
    elif damage == "damaged":
        assert run_satnono("batch", str(EXAMPLES), "--db", str(db)).returncode == 2  # bad/
        with db.open("r+b") as file:
            file.seek(4096)
            file.write(b"\xff" * 4096)
    elif damage == "not sqlite":
        db.write_text("hello")
    else:
        (tmp_path / "a-file").write_text("")
        db = tmp_path / "a-file" / "results.sqlite"
    for command in (["batch", str(EXAMPLES / "duck.non"), "--db", str(db)],
                    ["batch", "report", str(db)]):  # fmt: skip
        done = run_satnono(*command)
        if damage == "no folder" and command[1] == "report":
            assert "no such results database" in done.stderr
        assert done.returncode == 2, done.stderr
        assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("satnono: error: ")
        assert str(db) in done.stderr and "internal error" not in done.stderr


def test_report_sums_up_each_configuration(tmp_path: Path) -> None:
    # Another --timeout is another configuration: the report counted both as one (issue 23).
    # Three examples and a broken file (the whole examples folder took 7.8 s, the same test).
    folder = tmp_path / "few"
    folder.mkdir()
    for name in ("duck.non", "heart-color.non", "switches-8.non"):
        (folder / name).write_bytes((EXAMPLES / name).read_bytes())
    (folder / "broken.non").write_text("width 3\nheight\n")
    db = tmp_path / "results.sqlite"
    for timeout in ("20", "30"):
        done = run_satnono("batch", str(folder), "--db", str(db), "--timeout", timeout)
        assert done.returncode == 2  # the broken file: an error row
    puzzles = int(done.stdout.split()[0])
    # The finished verdicts of the first run hold under the second's timeout: adopted, not
    # solved again; only the error (the broken file) runs again.
    assert done.stdout.startswith(f"{puzzles} puzzles: 1 run now, ")
    assert "finished under another --timeout" in done.stdout
    report = run_satnono("batch", "report", str(db))
    assert report.stdout.count("configuration backend=default") == 2
    assert report.stdout.count(f"{puzzles} puzzles:") == 2


def test_ctrl_c_on_a_batch_is_one_line(tmp_path: Path) -> None:
    # The workers printed two ~30-line KeyboardInterrupt tracebacks (issue 23).
    import random

    from satnono.formats.generate import puzzle_from_grid, random_grid

    folder = tmp_path / "random"
    folder.mkdir()
    for number, puzzle in enumerate(random_set(TUNING_SEED + 300, 10)):
        write_puzzles([puzzle], folder / f"p{number}.non")
    # Random 45x45 grids of density 0.45 are decided by no solver in minutes: the run is
    # still going when Ctrl-C comes, however fast the easy puzzles went.
    rng = random.Random(45)
    for number in range(4):
        hard = puzzle_from_grid(random_grid(45, 45, 2, 0.45, rng))
        write_puzzles([hard], folder / f"z-hard{number}.non")  # after the easy ones
    command = [*SATNONO, "batch", str(folder), "--db", str(tmp_path / "r.sqlite"),
               "--workers", "2", "--timeout", "60"]  # fmt: skip
    # SIGINT as a terminal leaves it (a test run in the background inherits it ignored).
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, preexec_fn=default_ctrl_c,
    )  # fmt: skip
    _wait_for_rows(tmp_path / "r.sqlite", 1, process)
    time.sleep(1)  # the hard puzzles are being solved now
    os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl-C: to every process
    interrupted = time.monotonic()
    try:
        _, err = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        _, err = process.communicate()
        pytest.fail(f"the batch did not stop on Ctrl-C; it said: {err[-2000:]}")
    assert process.returncode == 130
    # One line that says what was kept and how to go on (issue 42).
    (line,) = err.splitlines()
    assert line.startswith("satnono: interrupted: ") and "rows stored in" in line
    assert line.endswith("the same command resumes where it stopped")
    assert time.monotonic() - interrupted < 10  # not the 60 s of the puzzles' timeout


def test_only_finished_verdicts_are_taken_from_another_timeout(tmp_path: Path) -> None:
    from satnono.archive.engine import BatchSettings
    from satnono.archive.store import ResultRow, ResultStore

    short = BatchSettings(timeout=1.0)

    def row(digest: str, status: str, settings: BatchSettings) -> ResultRow:
        return ResultRow(
            digest, settings.key(), f"{digest}.non", 1, None, 5, 5, 1, status, None, None,
            None, None, 0.5, None, None, "0", None,
        )  # fmt: skip

    with ResultStore(tmp_path / "r.sqlite") as store:
        store.add(row("solved", "unique", short))
        store.add(row("stuck", "timeout", short))
        store.add(row("broken", "error", short))
        longer = BatchSettings(timeout=60.0)
        adopted = store.adopt(["solved", "stuck", "broken"], longer.key(), longer.same_but_timeout)
        assert adopted == {"solved"}
        assert store.done(longer.key()) == {"solved"}
        counting = BatchSettings(timeout=60.0, count=True)  # a count may have been cut short
        assert store.adopt(["solved"], counting.key(), counting.same_but_timeout) == set()
        other = BatchSettings(backend="cpsat", timeout=60.0)  # another backend: not the same
        assert store.adopt(["solved"], other.key(), other.same_but_timeout) == set()


def _tasks(count: int) -> list[tuple[Any, Any]]:
    from satnono.archive.engine import BatchSettings, Job

    settings = BatchSettings()
    return [
        (Job(f"h{number}", f"f{number}", 1, None, "unread"), settings) for number in range(count)
    ]


def _measured(chunks: Any, span: tuple[int, int], seconds: float) -> None:
    """Report chunk `span` back with every puzzle taking `seconds`."""
    from satnono.archive.engine import _row

    rows = [
        _row(job, settings, {"status": "unique", "seconds": seconds})
        for job, settings in chunks.tasks[span[0] : span[1]]
    ]
    chunks.measured(rows)


def test_chunks_cover_every_task_once_in_order_and_follow_the_measured_speed() -> None:
    from satnono.archive.engine import CHUNK_SECONDS, FIRST_CHUNK, MAX_CHUNK, _Chunks

    chunks = _Chunks(_tasks(5000), workers=2)
    taken: list[Any] = []
    sizes: list[int] = []
    for number, (start, end) in enumerate(chunks):
        chunk = chunks.tasks[start:end]
        taken += chunk
        sizes.append(len(chunk))
        span = chunks.spans[number]
        assert span[1] - span[0] == len(chunk)
        # Easy puzzles at first (chunks grow to MAX_CHUNK), then slow ones (chunks of one).
        _measured(chunks, span, 0.0005 if len(taken) < 3000 else 5.0)
    assert taken == chunks.tasks
    assert sizes[0] == FIRST_CHUNK
    assert CHUNK_SECONDS / 0.0005 > MAX_CHUNK  # so the easy part's chunks reach the cap
    assert max(sizes) == MAX_CHUNK
    assert sizes[-50:] == [1] * 50


def test_the_last_chunks_share_what_is_left_between_the_workers() -> None:
    from satnono.archive.engine import CHUNKS_PER_WORKER, _Chunks

    chunks = _Chunks(_tasks(100), workers=2)
    sizes = []
    for number, (start, end) in enumerate(chunks):
        sizes.append(end - start)
        _measured(chunks, chunks.spans[number], 0.0001)  # so fast that only the share limits
    assert sum(sizes) == 100 and sizes[-1] == 1
    # Each chunk is at most an even share of what was left when it was cut.
    left = 100
    for size in sizes:
        assert size <= -(-left // (CHUNKS_PER_WORKER * 2))
        left -= size


def test_each_result_keeps_at_most_in_flight_tasks_and_takes_arguments_as_results_come() -> None:
    from distributed import Client

    from satnono.runtime.dask import each_result

    seen: list[int] = []
    pending_when_taken: list[int] = []

    def arguments() -> Iterator[tuple[int]]:
        for number in range(12):
            pending_when_taken.append(number - len(seen))
            yield (number,)

    # ":0", a free port: with None its HTTP server took 8787, and warned when the other test
    # worker's cluster had it (distributed's UserWarning in a clean-clone run).
    with Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0") as dask:

        def on_result(number: int, future: Any) -> bool:
            assert future.result() == number * number
            seen.append(number)
            return True

        assert each_result(dask, lambda x: x * x, arguments(), on_result, in_flight=3)
    assert sorted(seen) == list(range(12))
    assert max(pending_when_taken) <= 3


def test_the_puzzle_hash_is_the_hash_of_the_repr_it_always_was() -> None:
    """Databases are keyed by it: a changed hash would solve every archive again."""
    import hashlib

    from satnono.archive.engine import puzzle_hash
    from satnono.formats import read_puzzles

    def by_repr(puzzle: Any) -> str:
        content = repr((puzzle.width, puzzle.height, puzzle.rows, puzzle.columns,
                        tuple(color.rgb for color in puzzle.palette)))  # fmt: skip
        return hashlib.sha256(content.encode()).hexdigest()[:32]

    puzzles = [p for path in sorted(EXAMPLES.glob("*.non")) for p in read_puzzles(path)]
    puzzles += random_set(TUNING_SEED, 5)
    puzzles.append(satnono.Puzzle.from_clues([[], [1]], [[1], []]))  # an empty clue
    puzzles.append(satnono.Puzzle.from_clues([["?"]], [[1]]))  # a blotted number
    for puzzle in puzzles:
        assert puzzle_hash(puzzle) == by_repr(puzzle)


def test_batch_proof_writes_a_checked_certificate_for_each_verdict(
    archive: Path, tmp_path: Path
) -> None:
    """`batch run --proof DIR`: a certificate folder per puzzle solved (unique, unsolvable,
    multiple), each listed in DIR/certificates.csv with satnono's checker's verdict, each
    verified again from its files; a rerun skips them, and a run without --proof before does
    not count as one with it (its puzzles have no certificate)."""
    import csv

    db, certificates = tmp_path / "r.sqlite", tmp_path / "certs"
    plain = run_satnono("batch", str(archive / "duck.non"), "--db", str(db), "--timeout", "20")
    assert plain.returncode == 0, plain.stderr
    done = run_satnono("batch", str(archive), "--db", str(db), "--timeout", "20",
                       "--proof", str(certificates), timeout=180)  # fmt: skip
    assert done.returncode == 2, done.stderr  # the broken file's row is an error
    with (certificates / "certificates.csv").open(encoding="utf-8") as file:
        listed = list(csv.DictReader(file))
    verdicts = {line["verdict"] for line in listed}
    assert {"unique", "unsolvable", "multiple"} <= verdicts
    assert any(line["file"].endswith("duck.non") for line in listed)  # solved again
    assert all(line["checker"] == "VERIFIED" for line in listed)
    for line in listed:
        assert satnono.check_proof(line["folder"]).verified
    assert f"{len(listed)} certificates in {certificates}" in done.stdout
    again = run_satnono("batch", str(archive), "--db", str(db), "--timeout", "20",
                        "--proof", str(certificates))  # fmt: skip
    assert again.returncode == 2 and "0 run now" in again.stdout
    with (certificates / "certificates.csv").open(encoding="utf-8") as file:
        assert len(list(csv.DictReader(file))) == len(listed)


def test_a_batch_solver_process_keeps_to_its_share_of_the_cores(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each worker's solver process may use the machine's cores divided among the workers
    (a listing's threads, a rival solver's core): two workers of two cores listing every
    solution each in two threads, with their rivals, would run four things on two cores."""
    from satnono.archive import engine
    from satnono.backends import share_cores, usable_cores

    seen: list[int] = []
    monkeypatch.setattr(engine, "_solve_here", lambda *_: seen.append(usable_cores()) or {})
    monkeypatch.setitem(engine._SHARED, -1, [("a job", "its settings")])
    monkeypatch.setitem(engine._CORES, -1, 1)
    monkeypatch.setattr(engine, "_work", lambda *_: (None, None, None))
    messages = iter([(-1, [0]), (None, [(None, None, None)])])

    def receive() -> object:
        try:
            return next(messages)
        except StopIteration:
            raise EOFError from None

    with pytest.raises(EOFError):
        engine._serve(lambda _: None, receive)
    cores = usable_cores()
    assert seen == [1, cores]  # the run's share, then none for a remote cluster's chunk
    with share_cores(3), share_cores(1):
        assert usable_cores() == 1
    assert usable_cores() == cores
