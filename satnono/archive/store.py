"""The results of archive runs in SQLite: one row per (puzzle content hash, configuration),
and every name (file, index) each puzzle was found under.

Written as results arrive (WAL, a commit every few rows), so an interrupted run loses at most
the puzzles in flight; the primary key makes a resumed run skip what is done and never
duplicate a row. Counts are stored as text (they exceed SQLite's 64-bit integers). A file
whose content duplicates another's is solved once; `rows()` gives its row under each name.
One run at a time writes a database (an exclusive lock on the file, taken by `lock()`).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, fields, replace
from operator import attrgetter
from pathlib import Path
from typing import TextIO

from satnono.core.status import FINISHED
from satnono.errors import InputError


@dataclass(frozen=True)
class ResultRow:
    """What one puzzle under one configuration gave."""

    puzzle_hash: str
    configuration: str
    file: str
    puzzle_index: int
    title: str | None
    width: int | None
    height: int | None
    colors: int | None
    status: str  # unique, multiple, solved, unsolvable, timeout, error
    complete: bool | None
    solutions_found: int | None
    count: str | None
    exact: bool | None
    seconds: float
    cells_left: int | None
    difficulty: str | None
    version: str
    error: str | None
    #: The solutions found, as row strings, when asked for (compare); not stored.
    solutions: tuple[tuple[str, ...], ...] = field(default=(), compare=False)
    #: The size of the model searched (CNF variables and clauses, or CP-SAT variables and
    #: constraints), when asked for (compare); not stored.
    variables: int | None = field(default=None, compare=False)
    clauses: int | None = field(default=None, compare=False)
    #: The time this worker waited for the answer (the solve, and handing the puzzle and
    #: its answer over); `seconds` is the solve's own, in the solver process. Not stored.
    wall_seconds: float | None = field(default=None, compare=False)
    #: With `batch run --proof`: what satnono's checker said of the certificate written
    #: ("VERIFIED", "REJECTED: why", "NOT CHECKED: why" or "none: why"). Not stored: the
    #: folder's certificates.csv lists them.
    certificate: str | None = field(default=None, compare=False)


#: Seconds a run waits for a database another run holds before it refuses (`lock`).
LOCK_WAIT = 2.0

#: The fields a results database holds (the others travel to compare and batch only).
_UNSTORED = frozenset({"solutions", "variables", "clauses", "wall_seconds", "certificate"})
_COLUMNS = [f.name for f in fields(ResultRow) if f.name not in _UNSTORED]
_TYPES = {
    "puzzle_index": "INTEGER", "width": "INTEGER", "height": "INTEGER", "colors": "INTEGER",
    "complete": "INTEGER", "solutions_found": "INTEGER", "exact": "INTEGER", "seconds": "REAL",
    "cells_left": "INTEGER",
}  # fmt: skip
_INSERT = (
    f"INSERT OR REPLACE INTO results ({', '.join(_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in _COLUMNS)})"
)
#: A row's stored values in _COLUMNS order (dataclasses.asdict copies every field deeply).
_values = attrgetter(*_COLUMNS)
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS results ("
    + ", ".join(f"{name} {_TYPES.get(name, 'TEXT')}" for name in _COLUMNS)
    + ", PRIMARY KEY (puzzle_hash, configuration))"
)
#: Every name a puzzle was found under (a database from before this table has none: its rows
#: then stand under their own file alone).
_NAMES_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS names (file TEXT, puzzle_index INTEGER, puzzle_hash TEXT, "
    "PRIMARY KEY (file, puzzle_index))"
)


class ResultStore:
    """An open results database; rows are committed in small groups as they are added.

    Every SQLite failure (a damaged file, a table that is not satnono's, a read-only place)
    is an InputError naming the database and the problem, never a traceback.
    """

    def __init__(self, path: str | Path, create: bool = True) -> None:
        self.path = Path(path)
        self._lock: int | None = None
        if not create and not self.path.is_file():
            raise InputError("no such results database", self.path)
        if create and not self.path.exists():
            folder = self.path.parent
            if not os.access(folder, os.W_OK | os.X_OK):
                raise InputError(f"cannot create the database: {folder} is not writable",
                                 self.path)  # fmt: skip
        elif self.path.exists():
            self._check_before_writing()
        with self._guarded():
            self.connection = sqlite3.connect(self.path, timeout=30)
            if create:
                self.connection.execute("PRAGMA journal_mode=WAL")
                self.connection.execute("PRAGMA synchronous=NORMAL")
                self.connection.execute(_SCHEMA)
                self.connection.execute(_NAMES_SCHEMA)
                self.connection.commit()
            self._check_schema()
        self.pending = 0

    @contextlib.contextmanager
    def _guarded(self) -> Iterator[None]:
        """SQLite's errors as one line naming the database and what is wrong with it."""
        try:
            yield
        except sqlite3.DatabaseError as error:
            text = str(error)
            if "readonly" in text or "read-only" in text:
                problem = "the database is read-only here"
            elif "locked" in text or "busy" in text:
                problem = "the database is locked by another process"
            elif "malformed" in text or "not a database" in text or "corrupt" in text:
                problem = f"the database is damaged ({text}); run on a copy or a new --db"
            elif "unable to open" in text:
                problem = f"cannot open the database ({text})"
            else:
                problem = f"not a satnono results database ({text})"
            raise InputError(problem, self.path) from None

    def _check_before_writing(self) -> None:
        """An existing file is opened for writing only if it is a satnono results database
        (or an empty file): another program's database is refused before anything in it
        changes (no table added, no switch to WAL), and so is a device such as /dev/null
        (SQLite would write a journal beside it)."""
        if not self.path.is_file():
            raise InputError("not a regular file: a results database must be a file", self.path)
        if self.path.stat().st_size == 0:
            return
        with self._guarded():
            reading = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True)
            try:
                tables = {name for (name,) in reading.execute(
                    "SELECT name FROM sqlite_master WHERE type='table'")}  # fmt: skip
                self._check_schema(reading)
            finally:
                reading.close()
        others = sorted(tables - {"results", "names"})
        if others:
            raise InputError(f"not a satnono results database (it has a table {others[0]!r}): "
                             "refused, nothing in it was changed", self.path)  # fmt: skip

    def _check_schema(self, connection: sqlite3.Connection | None = None) -> None:
        connection = connection or self.connection
        columns = {row[1] for row in connection.execute("PRAGMA table_info(results)")}
        if not columns:
            raise InputError("not a satnono results database (no results table)", self.path)
        missing = [name for name in _COLUMNS if name not in columns]
        if missing:
            raise InputError(
                f"not a satnono results database: its results table has no {missing[0]} column",
                self.path,
            )

    def lock(self) -> None:
        """Hold the database for this run alone, until close(): a second run on the same
        database refuses within LOCK_WAIT rather than doing the same work again. The wait is
        for a run killed a moment ago, whose forked processes share the lock's descriptor
        until the last of them has exited (most likely why a resumed run started as its batch
        was reaped was refused, once, in CI)."""
        descriptor = os.open(self.path, os.O_RDONLY)
        until = time.monotonic() + LOCK_WAIT
        while not _locked(descriptor):
            if time.monotonic() >= until:
                os.close(descriptor)
                said = "another satnono batch run is using this database; wait for it to finish"
                raise InputError(f"{said}, or use another --db", self.path)
            time.sleep(0.05)
        self._lock = descriptor

    def done(self, configuration: str) -> set[str]:
        """Hashes of the puzzles that already have a row for this configuration. A puzzle
        that was read but whose run failed (a worker that died) is not done: it runs again,
        its row replaced; a file that cannot be read (no size known) stays an error row."""
        query = (
            "SELECT puzzle_hash FROM results WHERE configuration = ? "
            "AND (status != 'error' OR width IS NULL)"
        )
        with self._guarded():
            return {row[0] for row in self.connection.execute(query, (configuration,))}

    def adopt(
        self, hashes: Iterable[str], configuration: str, same: Callable[[str], bool]
    ) -> set[str]:
        """Copy under `configuration` the finished verdicts (unique, multiple, solved,
        unsolvable) that another configuration `same` accepts holds for these puzzles; the
        hashes adopted. A timeout or an error is never adopted: it runs again."""
        wanted = set(hashes)
        finished = tuple(sorted(FINISHED))
        query = (
            f"SELECT {', '.join(_COLUMNS)} FROM results WHERE status IN "
            f"({', '.join('?' for _ in finished)}) AND configuration != ?"
        )
        adopted: dict[str, ResultRow] = {}
        with self._guarded():
            for values in self.connection.execute(query, (*finished, configuration)):
                data = dict(zip(_COLUMNS, values, strict=True))
                if data["puzzle_hash"] in wanted and same(data["configuration"]):
                    adopted[data["puzzle_hash"]] = replace(
                        _row_of(data), configuration=configuration
                    )
        for row in adopted.values():
            self.add(row, commit_every=1000)
        self.commit()
        return set(adopted)

    def add_names(self, names: Iterable[tuple[str, int, str]]) -> None:
        """Record where each puzzle was found: (file, index, puzzle hash)."""
        with self._guarded():
            self.connection.executemany(
                "INSERT OR REPLACE INTO names (file, puzzle_index, puzzle_hash) VALUES (?, ?, ?)",
                names,
            )
            self.connection.commit()

    def add(self, row: ResultRow, commit_every: int = 1) -> None:
        """Store a row; committed at once by default (about 0.1 ms in WAL mode), so that a
        killed run loses only the puzzles in flight."""
        with self._guarded():
            self.connection.execute(_INSERT, _values(row))
            self.pending += 1
            if self.pending >= commit_every:
                self.commit()

    def add_all(self, rows: Iterable[ResultRow]) -> None:
        """Store rows that arrived together (a chunk of batch's puzzles) in one commit: a
        commit per row cost as much as solving an easy puzzle."""
        with self._guarded():
            self.connection.executemany(_INSERT, map(_values, rows))
        self.commit()

    def commit(self) -> None:
        with self._guarded():
            self.connection.commit()
        self.pending = 0

    def rows(self) -> Iterator[ResultRow]:
        """Every stored row, once under each name its puzzle was found under (a duplicate
        file gets its own row, the same verdict), in configuration and file order."""
        with self._guarded():
            names: dict[str, list[tuple[str, int]]] = {}
            named: set[tuple[str, int]] = set()
            if self._has_names():
                for file, index, digest in self.connection.execute(
                    "SELECT file, puzzle_index, puzzle_hash FROM names ORDER BY file, puzzle_index"
                ):
                    names.setdefault(digest, []).append((file, index))
                    named.add((file, index))
            cursor = self.connection.execute(
                f"SELECT {', '.join(_COLUMNS)} FROM results ORDER BY configuration, file, "
                "puzzle_index"
            )
            stored = [dict(zip(_COLUMNS, values, strict=True)) for values in cursor]
        for data in stored:
            row = _row_of(data)
            if row.puzzle_hash not in names and (row.file, row.puzzle_index) in named:
                continue  # the file was edited since: it now holds another puzzle
            found = names.get(row.puzzle_hash) or [(row.file, row.puzzle_index)]
            for file, index in found:
                yield replace(row, file=file, puzzle_index=index)

    def _has_names(self) -> bool:
        query = "SELECT 1 FROM sqlite_master WHERE type='table' AND name='names'"
        return self.connection.execute(query).fetchone() is not None

    def close(self) -> None:
        try:
            self.commit()
            self.connection.close()
        finally:
            if self._lock is not None:
                os.close(self._lock)
                self._lock = None

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _row_of(data: dict[str, object]) -> ResultRow:
    """A stored row back as a ResultRow (SQLite keeps the flags as integers)."""
    for flag in ("complete", "exact"):
        if data[flag] is not None:
            data[flag] = bool(data[flag])
    return ResultRow(**data)  # type: ignore[arg-type]


def write_csv(rows: Iterable[ResultRow], path: Path) -> None:
    """Every row as CSV, into `path` or, for `-`, onto standard output."""
    import csv
    import sys

    def write(file: TextIO) -> None:
        writer = csv.writer(file)
        writer.writerow(_COLUMNS)
        for row in rows:
            writer.writerow([getattr(row, name) for name in _COLUMNS])

    if str(path) == "-":
        write(sys.stdout)
        sys.stdout.flush()
        return
    try:
        with path.open("w", newline="", encoding="utf-8") as file:
            write(file)
    except OSError as error:
        raise InputError(f"cannot write: {error.strerror or error}", path) from None


def _locked(descriptor: int) -> bool:
    """Whether this process now holds the file's lock (False: another holds it)."""
    import fcntl

    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True
