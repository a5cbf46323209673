"""Whole archives on Dask: the engine that solves puzzles as tasks, the SQLite store of their
results, and what `satnono batch` and `satnono compare` make of them; and tournament runs.

engine (jobs, settings, the Dask client and the one task loop), store (SQLite rows),
batch (a resumable run into the store), report (summaries and plots of stored rows),
compare (several backends on the same puzzles, checked against each other), tournament (a
question file in order on one core, as the computer-olympiad tournaments run it). The names
below are what the front ends use; each module is imported on first use (Dask, SQLite and
matplotlib only by the calls that need them).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from satnono.archive.batch import BatchRun, run_batch
    from satnono.archive.compare import SolveRun, disagreements, run_all
    from satnono.archive.compare import plot as plot_compare
    from satnono.archive.compare import write_csv as write_compare_csv
    from satnono.archive.engine import BatchSettings
    from satnono.archive.files import find_entries, puzzle_files
    from satnono.archive.report import plot, summary_lines, summary_object
    from satnono.archive.store import ResultRow, ResultStore, write_csv
    from satnono.archive.tournament import Tournament, run_tournament

_NAMES = {
    "BatchRun": ("satnono.archive.batch", "BatchRun"),
    "run_batch": ("satnono.archive.batch", "run_batch"),
    "SolveRun": ("satnono.archive.compare", "SolveRun"),
    "disagreements": ("satnono.archive.compare", "disagreements"),
    "run_all": ("satnono.archive.compare", "run_all"),
    "plot_compare": ("satnono.archive.compare", "plot"),
    "write_compare_csv": ("satnono.archive.compare", "write_csv"),
    "BatchSettings": ("satnono.archive.engine", "BatchSettings"),
    "plot": ("satnono.archive.report", "plot"),
    "summary_lines": ("satnono.archive.report", "summary_lines"),
    "summary_object": ("satnono.archive.report", "summary_object"),
    "ResultRow": ("satnono.archive.store", "ResultRow"),
    "ResultStore": ("satnono.archive.store", "ResultStore"),
    "write_csv": ("satnono.archive.store", "write_csv"),
    "find_entries": ("satnono.archive.files", "find_entries"),
    "puzzle_files": ("satnono.archive.files", "puzzle_files"),
    "Tournament": ("satnono.archive.tournament", "Tournament"),
    "run_tournament": ("satnono.archive.tournament", "run_tournament"),
}

__all__ = [
    "BatchRun",
    "BatchSettings",
    "ResultRow",
    "ResultStore",
    "SolveRun",
    "Tournament",
    "disagreements",
    "find_entries",
    "plot",
    "plot_compare",
    "puzzle_files",
    "run_all",
    "run_batch",
    "run_tournament",
    "stored_rows",
    "summary_lines",
    "summary_object",
    "write_compare_csv",
    "write_csv",
]


def stored_rows(db: Path) -> list[ResultRow]:
    """Every row of an existing results database (InputError if it is not one)."""
    from satnono.archive.store import ResultStore

    with ResultStore(db, create=False) as store:
        return list(store.rows())


def __getattr__(name: str) -> Any:
    if name not in _NAMES:
        raise AttributeError(f"module 'satnono.archive' has no attribute {name!r}")
    module, attribute = _NAMES[name]
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value
