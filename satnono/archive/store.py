"""The results of archive runs in SQLite: one row per (puzzle content hash, configuration).

Written as results arrive (WAL, a commit every few rows), so an interrupted run loses at most
the puzzles in flight; the primary key makes a resumed run skip what is done and never
duplicate a row. Counts are stored as text (they exceed SQLite's 64-bit integers).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import TextIO

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


#: The fields a results database holds (the others travel to compare only).
_UNSTORED = frozenset({"solutions", "variables", "clauses"})
_COLUMNS = [f.name for f in fields(ResultRow) if f.name not in _UNSTORED]
_TYPES = {
    "puzzle_index": "INTEGER", "width": "INTEGER", "height": "INTEGER", "colors": "INTEGER",
    "complete": "INTEGER", "solutions_found": "INTEGER", "exact": "INTEGER", "seconds": "REAL",
    "cells_left": "INTEGER",
}  # fmt: skip
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS results ("
    + ", ".join(f"{name} {_TYPES.get(name, 'TEXT')}" for name in _COLUMNS)
    + ", PRIMARY KEY (puzzle_hash, configuration))"
)


class ResultStore:
    """An open results database; rows are committed in small groups as they are added."""

    def __init__(self, path: str | Path, create: bool = True) -> None:
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise InputError("no such results database", self.path)
        try:
            self.connection = sqlite3.connect(self.path, timeout=30)
            self.connection.execute("PRAGMA journal_mode=WAL")
            self.connection.execute("PRAGMA synchronous=NORMAL")
            self.connection.execute(_SCHEMA)
            self.connection.commit()
        except sqlite3.DatabaseError as error:
            raise InputError(f"not a satnono results database: {error}", self.path) from None
        self.pending = 0

    def done(self, configuration: str) -> set[str]:
        """Hashes of the puzzles that already have a row for this configuration. A puzzle
        that was read but whose run failed (a worker that died) is not done: it runs again,
        its row replaced; a file that cannot be read (no size known) stays an error row."""
        query = (
            "SELECT puzzle_hash FROM results WHERE configuration = ? "
            "AND (status != 'error' OR width IS NULL)"
        )
        return {row[0] for row in self.connection.execute(query, (configuration,))}

    def add(self, row: ResultRow, commit_every: int = 1) -> None:
        """Store a row; committed at once by default (about 0.1 ms in WAL mode), so that a
        killed run loses only the puzzles in flight."""
        values = asdict(row)
        self.connection.execute(
            f"INSERT OR REPLACE INTO results ({', '.join(_COLUMNS)}) "
            f"VALUES ({', '.join('?' for _ in _COLUMNS)})",
            [values[name] for name in _COLUMNS],
        )
        self.pending += 1
        if self.pending >= commit_every:
            self.commit()

    def commit(self) -> None:
        self.connection.commit()
        self.pending = 0

    def rows(self) -> Iterator[ResultRow]:
        cursor = self.connection.execute(f"SELECT {', '.join(_COLUMNS)} FROM results")
        for values in cursor:
            data = dict(zip(_COLUMNS, values, strict=True))
            for flag in ("complete", "exact"):
                if data[flag] is not None:
                    data[flag] = bool(data[flag])
            yield ResultRow(**data)

    def close(self) -> None:
        self.commit()
        self.connection.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


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
