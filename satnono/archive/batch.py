"""`satnono batch`: a resumable run over whole archives, each row stored as it arrives.

Every entry under the paths accounted for (satnono.archive.files): each puzzle solved once
(a duplicate by content recorded under every name), those already in the database for the
same settings skipped; the rest solved by the archive engine.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from satnono.archive.certificates import Manifest
from satnono.archive.engine import BatchSettings, collect, run_tasks
from satnono.archive.store import ResultRow, ResultStore


@dataclass
class BatchRun:
    """What a run did: every puzzle found (`found`, duplicates included), those skipped as
    done, the rows solved now (one per distinct puzzle), and the entries ignored."""

    found: int
    skipped: int
    rows: list[ResultRow]
    seconds: float = 0.0
    #: Puzzles whose content another file has too: solved once, recorded under each name.
    duplicates: int = 0
    #: Entries in the folders that are not puzzle files, with the reason.
    ignored: list[tuple[Path, str]] = field(default_factory=list)
    #: Of the skipped: finished verdicts taken from a run with another --timeout.
    adopted: int = 0
    #: The stored rows of every puzzle found, this run's and earlier runs' (a resumed run's
    #: summary covers the whole set), once under each name.
    every_row: list[ResultRow] = field(default_factory=list)


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
    The database is locked for the run: a second run on it refuses at once.
    """
    from satnono.backends import check_backend, cluster_workers

    if settings.backend is not None:
        check_backend(settings.backend)
    started = time.perf_counter()
    collected = collect(paths)
    with ResultStore(db) as store:
        store.lock()
        store.add_names(collected.names)
        done = store.done(settings.key())
        todo = [job for job in collected.jobs if job.puzzle_hash not in done]
        # A finished verdict under another --timeout holds here: adopted, not solved again.
        adopted = store.adopt(
            (job.puzzle_hash for job in todo), settings.key(), settings.same_but_timeout
        )
        todo = [job for job in todo if job.puzzle_hash not in adopted]
        run = BatchRun(
            len(collected.names), len(collected.jobs) - len(todo), [],
            duplicates=collected.duplicates, ignored=collected.skipped,
            adopted=len(adopted),
        )  # fmt: skip
        if todo:
            every = len(collected.jobs)

            manifest = Manifest(Path(settings.proof)) if settings.proof else None

            def stored(_: int, rows: list[ResultRow]) -> None:
                store.add_all(rows)
                if manifest is not None:
                    manifest.add(rows)
                for row in rows:
                    run.rows.append(row)
                    if on_row is not None:
                        on_row(row, run.skipped + len(run.rows), every)

            tasks = [(job, settings) for job in todo]
            run_tasks(tasks, workers or cluster_workers(scheduler), scheduler, stored)
        wanted = {(file, index) for file, index, _ in collected.names}
        run.every_row = [
            row
            for row in store.rows()
            if row.configuration == settings.key() and (row.file, row.puzzle_index) in wanted
        ]
    run.seconds = round(time.perf_counter() - started, 4)
    return run
