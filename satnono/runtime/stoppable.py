"""Solvers that a deadline stops cleanly, through the solver's own public interrupt().

One watcher thread looks at the deadlines of the solvers in use and calls `interrupt()` on
each whose deadline has passed (or was cancelled). Ctrl-C needs nothing more: the library runs
every search off the main thread (satnono.runtime.background), so the main thread takes the
KeyboardInterrupt and cancels the deadline, and the watcher stops the solver. A solver called
from the main thread would make PySAT install a C handler for SIGINT that longjmps out of the
solver, which can leave the heap corrupt ("free(): invalid pointer" after a Ctrl-C).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from typing import Self

from satnono.runtime.deadline import Deadline

#: Longest sleep of the watcher between looks at the solvers it watches (seconds).
_POLL = 0.05


class Stoppable:
    """A solver in use, stopped through `interrupt()` when its deadline passes.

    `with` it around every call into the solver (or around a whole run of calls). Subclasses
    say how to interrupt; `interruptible` False means the solver cannot be stopped mid-call,
    so its deadline takes effect when the call returns.
    """

    def __init__(self, deadline: Deadline, interruptible: bool = True) -> None:
        self.deadline = deadline
        self.interruptible = interruptible
        self._watcher: _Watcher | None = None

    def interrupt(self) -> None:
        """Stop the running call (or make the next one return at once); thread-safe."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        if self.interruptible:
            self._watcher = _watch(self)
        return self

    def __exit__(self, *_: object) -> None:
        if self._watcher is not None:
            self._watcher.unwatch(self)
            self._watcher = None


class _Watcher:
    """The thread that turns a passed deadline into interrupt() of each solver."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.watched: list[Stoppable] = []
        # A pipe to end the watcher's sleep early: `os.pipe`, not a socket pair, whose
        # module costs every CLI run 3 ms of start-up.
        self.reader, self.writer = os.pipe()
        os.set_blocking(self.reader, False)
        os.set_blocking(self.writer, False)
        self.stopping = False
        self.thread = threading.Thread(target=self._run, name="satnono watcher", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        """End the thread and close the pipe (only once nothing is watched)."""
        self.stopping = True
        self._wake()
        self.thread.join()
        os.close(self.reader)
        os.close(self.writer)

    def watch(self, solver: Stoppable) -> None:
        with self.lock:
            self.watched.append(solver)
        self._wake()

    def unwatch(self, solver: Stoppable) -> None:
        with self.lock:
            self.watched = [other for other in self.watched if other is not solver]

    def _wake(self) -> None:
        """Make the watcher look at its list again now (its sleep ends on any byte)."""
        with contextlib.suppress(OSError):  # a full pipe is awake already
            os.write(self.writer, b"\0")

    def _run(self) -> None:
        import select

        while not self.stopping:
            with self.lock:
                watched = list(self.watched)
            timeout: float | None = None  # nothing to watch: sleep until woken
            if watched:
                # An expired deadline (0 left) is enforced at each later look, every _POLL.
                left = [solver.deadline.remaining() for solver in watched]
                timeout = min([_POLL, *(seconds for seconds in left if seconds)])
            ready, _, _ = select.select([self.reader], [], [], timeout)
            if ready:
                with contextlib.suppress(OSError):
                    os.read(self.reader, 4096)
            with self.lock:
                for solver in self.watched:
                    if solver.deadline.expired():
                        solver.interrupt()


_WATCHER: _Watcher | None = None
_WATCHER_LOCK = threading.Lock()


def _watch(solver: Stoppable) -> _Watcher:
    """Have the process's watcher (started on first use) watch `solver`."""
    global _WATCHER
    with _WATCHER_LOCK:
        if _WATCHER is None:
            _WATCHER = _Watcher()
        _WATCHER.watch(solver)
        return _WATCHER


def stop_watcher() -> None:
    """End the watcher thread when no solver is in use, so that none outlives a library call.

    The library API calls this as it returns; the thread starts again on the next solve
    (starting it costs about 0.1 ms, so it is kept between the calls within one solve).
    """
    global _WATCHER
    with _WATCHER_LOCK:
        watcher = _WATCHER
        if watcher is None:
            return
        with watcher.lock:
            if watcher.watched:
                return
            _WATCHER = None
    watcher.stop()


def _forget_watcher() -> None:
    """A forked child has no watcher thread, whatever its parent had, nor its pipe."""
    global _WATCHER, _WATCHER_LOCK
    _WATCHER = None
    _WATCHER_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_forget_watcher)


def leave_ctrl_c_to_parent() -> None:
    """In a child process whose parent handles Ctrl-C and kills it: never see SIGINT.

    Ignored, and blocked too: a PySAT call from the child's (main) thread installs PySAT's own
    SIGINT handler for its duration, which a blocked signal never reaches.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
