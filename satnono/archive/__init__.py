"""Whole archives on Dask: the engine that solves puzzles as tasks, the SQLite store of their
results, and what `satnono batch` and `satnono compare` make of them.

engine (jobs, settings, the Dask client and the one task loop), store (SQLite rows),
batch (a resumable run into the store), report (summaries and plots of stored rows),
compare (several backends on the same puzzles, checked against each other).
"""
