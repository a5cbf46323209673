"""`satnono batch`: a resumable run over whole archives, each row stored as it arrives.

Every puzzle under the paths once (duplicates by content dropped), those already in the
database for the same settings skipped; the rest solved by the archive engine.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from satnono.archive.engine import BatchSettings, collect, run_tasks
from satnono.archive.store import ResultRow, ResultStore


@dataclass
class BatchRun:
    """What a run did: puzzles found, skipped as done, solved now, and their rows."""

    total: int
    skipped: int
    rows: list[ResultRow]
    seconds: float = 0.0


def run_batch(
    paths: Sequence[Path],
    db: Path,
    settings: BatchSettings,
    workers: int | None = None,
    scheduler: str = "local",
    on_row: Callable[[ResultRow, int, int], None] | None = None,
) -> BatchRun:
    """Solve every puzzle under `paths` not yet in `db` for these settings; rows as they come.

    `on_row(row, done, total)` sees each row once it is stored (for a progress display).
    """
    from satnono.backends import check_backend, usable_cores

    if settings.backend is not None:
        check_backend(settings.backend)
    started = time.perf_counter()
    jobs = collect(paths)
    with ResultStore(db) as store:
        done = store.done(settings.key())
        todo = [job for job in jobs if job.puzzle_hash not in done]
        run = BatchRun(len(jobs), len(jobs) - len(todo), [])
        if todo:

            def stored(_: int, row: ResultRow) -> None:
                store.add(row)
                run.rows.append(row)
                if on_row is not None:
                    on_row(row, run.skipped + len(run.rows), run.total)

            tasks = [(job, settings) for job in todo]
            run_tasks(tasks, workers or usable_cores(), scheduler, stored)
    run.seconds = round(time.perf_counter() - started, 4)
    return run
