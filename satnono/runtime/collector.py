"""Pausing Python's cyclic garbage collector around allocation-heavy work that makes no cycles.

Encoding a residual builds tens of thousands of small lists (clauses) at once; each batch of
700 new objects starts a collection, and every tenth a walk of older generations that holds
every module satnono imported: 8% of the CPU of a tournament set (taai2014 #600-799, 15.2 s
with the collector, 14.0 s without). Nothing made while it is paused is a cycle that
reference counting cannot free, so nothing is lost; the collector runs again afterwards.

The collector is the whole process's: a pause also holds back every other thread (a server's
requests, a caller's own work). A pause that may last (`at_most`) is ended by the watcher
thread of satnono.runtime.stoppable once that time has passed, whether the block is done or
not.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from contextlib import contextmanager

from satnono.runtime.deadline import Deadline
from satnono.runtime.stoppable import Stoppable


@contextmanager
def collector_paused(at_most: float | None = None) -> Iterator[None]:
    """The block runs with the collector off (as it was, if it was off already); with
    `at_most`, for that many seconds at most."""
    was_on = gc.isenabled()
    gc.disable()
    timed = was_on and at_most is not None
    resumer = _Resumer(Deadline(at_most)) if timed else contextlib.nullcontext()
    try:
        with resumer:
            yield
    finally:
        if was_on:
            gc.enable()


class _Resumer(Stoppable):
    """Turns the collector on again once its deadline has passed (the watcher calls
    `interrupt` then, and every look after: turning it on twice changes nothing)."""

    def interrupt(self) -> None:
        gc.enable()
