"""`satnono batch`: real Dask (a LocalCluster, and a scheduler and workers started as separate
processes), SQLite rows that survive a killed batch and a killed worker, resume without
duplicates, bad files as error rows, and the report."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from satnono.formats import write_puzzles
from satnono.generate import TUNING_SEED, random_set
from support import EXAMPLES, SATNONO, run_satnono

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
    write_puzzles(random_set(TUNING_SEED, 2), folder / "two.xml")
    return folder


def test_local_cluster_rows_resume_and_report(archive: Path, tmp_path: Path) -> None:
    db = tmp_path / "results.sqlite"
    done = run_satnono("batch", str(archive), "--db", str(db), "--timeout", "20", "--workers", "2")
    assert done.returncode == 0, done.stderr
    found = rows(db)
    examples = len(list(EXAMPLES.glob("*.non")))
    # every example once (the copy is the same puzzle), both puzzles of two.xml, the bad file
    assert len(found) == examples + 2 + 1 == len({h for h, _, _ in found})
    assert [s for _, _, s in found].count("error") == 1
    assert "run now, 0 already" in done.stdout
    again = run_satnono("batch", str(archive), "--db", str(db), "--timeout", "20")
    assert again.returncode == 0 and f"0 run now, {len(found)} already" in again.stdout
    assert rows(db) == found
    report = run_satnono("batch", "report", str(db), "--csv", str(tmp_path / "r.csv"),
                     "--plot", str(tmp_path / "r.png"))  # fmt: skip
    assert report.returncode == 0 and "1 error" in report.stdout
    assert "broken.non:2" in report.stdout
    assert (tmp_path / "r.png").stat().st_size > 1000
    assert len((tmp_path / "r.csv").read_text().splitlines()) == len(found) + 1
    # `--csv -`: the CSV alone on stdout (no file named "-"), the summary on stderr.
    piped = run_satnono("batch", "report", str(db), "--csv", "-", cwd=tmp_path)
    assert piped.returncode == 0 and "1 error" in piped.stderr
    assert piped.stdout.splitlines()[0].startswith("puzzle_hash,")
    assert len(piped.stdout.splitlines()) == len(found) + 1
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
    puzzles = random_set(TUNING_SEED + 100, 24)
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


def test_a_killed_batch_resumes_without_lost_or_duplicated_rows(tmp_path: Path) -> None:
    folder = tmp_path / "random"
    folder.mkdir()
    puzzles = random_set(TUNING_SEED + 200, 30)
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
    assert partial > 0
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
