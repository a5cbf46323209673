"""Solvers that a deadline or Ctrl-C stops cleanly, through the solver's own interrupt().

Called from the main thread, PySAT's solve() and propagate() install a C handler for SIGINT
that longjmps out of the running solver. When the signal lands inside malloc, or halfway through
the growth of one of the solver's vectors, the heap is left corrupt and the process dies later
with "free(): invalid pointer" (2 runs in 8 of `satnono solve permutation-9.non
--max-solutions 0` interrupted after 2.5 s); and when the kernel hands the signal to another
thread (rich's display, OR-tools' pool), the longjmp crosses stacks. So satnono tells PySAT that
no call is made from the main thread, which keeps PySAT's handler out, and Python's own handler
stays in place. It writes every signal to a wakeup socket; one watcher thread reads it and
interrupts the solvers in use, as it does when their deadline passes, and Python raises
KeyboardInterrupt in the main thread as soon as the solver call returns. CP-SAT is stopped the
same way, with its own SIGINT catching off (see satnono/backends/cpsat.py).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
import threading
from collections.abc import Iterable
from typing import Any, Self

from satnono.deadline import Deadline

#: Longest sleep of the watcher between looks at the solvers it watches (seconds).
_POLL = 0.05


class Stoppable:
    """A solver in use, stopped through `interrupt()` at its deadline or on Ctrl-C.

    `with` it around every call into the solver (or around a whole run of calls). Subclasses
    say how to interrupt; `interruptible` False means the solver cannot be stopped mid-call,
    so its deadline and a Ctrl-C take effect when the call returns.
    """

    def __init__(self, deadline: Deadline, interruptible: bool = True) -> None:
        self.deadline = deadline
        self.interruptible = interruptible
        self._watcher: _Watcher | None = None
        #: True while the watcher listens for Ctrl-C on this solver's behalf.
        self.listening = False
        #: Set when a Ctrl-C (rather than the deadline) made the watcher interrupt.
        self.ctrl_c = False

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


class StoppableSolver(Stoppable):
    """A PySAT solver in use: `with StoppableSolver(...) as s:` then s.solve(), s.propagate().

    `interruptible` says whether the solver supports solve_limited() and interrupt(); the
    others (CaDiCaL, Kissat, Lingeling) cannot be stopped mid-call. The SAT backend runs those
    in a child process that it can kill instead.
    """

    def __init__(self, solver: Any, deadline: Deadline, interruptible: bool) -> None:
        super().__init__(deadline, interruptible)
        self.solver = solver

    def __enter__(self) -> Self:
        _PYSAT_OFF_SIGINT.__enter__()
        return super().__enter__()

    def __exit__(self, *_: object) -> None:
        super().__exit__()
        _PYSAT_OFF_SIGINT.__exit__()

    def solve(self, assumptions: Iterable[int] = ()) -> bool | None:
        """Satisfiable or not under `assumptions`; None when the deadline stopped the solver."""
        remaining = self.deadline.remaining()
        if remaining is not None and remaining <= 0:
            return None
        solver = self.solver
        if not self.interruptible:
            return bool(solver.solve(assumptions=list(assumptions)))
        result = solver.solve_limited(assumptions=list(assumptions), expect_interrupt=True)
        if result is None:
            solver.clear_interrupt()
            return None
        return bool(result)

    def propagate(self, assumptions: Iterable[int] = ()) -> tuple[bool, list[int]]:
        """Unit propagation under `assumptions`: (consistent, implied literals)."""
        consistent, implied = self.solver.propagate(assumptions=list(assumptions))
        return bool(consistent), implied

    def interrupt(self) -> None:
        if self.interruptible:
            self.solver.interrupt()


class _PySatOffSigint:
    """While any StoppableSolver is in use, PySAT believes no call comes from the main thread,
    so it never installs its longjmp handler for SIGINT (all PySAT uses the check for).

    A patch of PySAT's internals, so it is scoped: made by the first solver entered, undone
    when the last one exits, and never at import time.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users = 0
        self.original: Any = None

    def __enter__(self) -> None:
        from pysat import _utils

        with self.lock:
            if not self.users:
                self.original = _utils.MainThread.__dict__["check"]
                _utils.MainThread.check = staticmethod(lambda: False)
            self.users += 1

    def __exit__(self, *_: object) -> None:
        from pysat import _utils

        with self.lock:
            self.users -= 1
            if not self.users:
                _utils.MainThread.check = self.original


_PYSAT_OFF_SIGINT = _PySatOffSigint()


class _Watcher:
    """The thread that turns a Ctrl-C or a passed deadline into interrupt() of each solver.

    While a solver is in use in the main thread and Python handles SIGINT, the watcher's socket
    is Python's wakeup fd: the interpreter writes the number of every signal it receives there,
    whichever thread the kernel delivered it to.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.watched: list[Stoppable] = []
        self.reader, self.writer = socket.socketpair()
        self.reader.setblocking(False)
        self.writer.setblocking(False)
        #: The wakeup fd this watcher replaced (-1 for none), and how many users need it.
        self.previous_fd = -1
        self.listening = 0
        self.stopping = False
        self.thread = threading.Thread(target=self._run, name="satnono watcher", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        """End the thread and close the socket (only once nothing is watched)."""
        self.stopping = True
        self._wake()
        self.thread.join()
        self.reader.close()
        self.writer.close()

    def watch(self, solver: Stoppable) -> None:
        with self.lock:
            self.watched.append(solver)
            if threading.current_thread() is threading.main_thread() and callable(
                signal.getsignal(signal.SIGINT)
            ):
                if not self.listening:
                    self.previous_fd = signal.set_wakeup_fd(
                        self.writer.fileno(), warn_on_full_buffer=False
                    )
                self.listening += 1
                solver.listening = True
        self._wake()

    def unwatch(self, solver: Stoppable) -> None:
        with self.lock:
            self.watched = [other for other in self.watched if other is not solver]
            if solver.listening:
                solver.listening = False
                self.listening -= 1
                if not self.listening:
                    signal.set_wakeup_fd(self.previous_fd)

    def _wake(self) -> None:
        """Make the watcher look at its list again now (its sleep ends on any byte)."""
        with contextlib.suppress(OSError):
            self.writer.send(b"\0")

    def _run(self) -> None:
        while not self.stopping:
            with self.lock:
                watched = list(self.watched)
            timeout: float | None = None  # nothing to watch: sleep until woken
            if watched:
                # An expired deadline (0 left) is enforced at each later look, every _POLL.
                left = [solver.deadline.remaining() for solver in watched]
                timeout = min([_POLL, *(seconds for seconds in left if seconds)])
            ready, _, _ = select.select([self.reader], [], [], timeout)
            sigint = False
            if ready:
                with contextlib.suppress(OSError):
                    data = self.reader.recv(4096)
                    sigint = signal.SIGINT in data
                    self._forward(data)
            with self.lock:
                for solver in self.watched:
                    if sigint:
                        solver.ctrl_c = True
                    if sigint or solver.deadline.expired():
                        solver.interrupt()

    def _forward(self, data: bytes) -> None:
        """Signals also go to the wakeup fd that was there before (an event loop's, say)."""
        signals = data.replace(b"\0", b"")
        if signals and self.previous_fd != -1:
            with contextlib.suppress(OSError):
                os.write(self.previous_fd, signals)


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
    """A forked child has no watcher thread, whatever its parent had, nor its wakeup socket."""
    global _WATCHER, _WATCHER_LOCK
    if _WATCHER is not None and _WATCHER.listening:
        with contextlib.suppress(ValueError):  # only possible from the main thread
            signal.set_wakeup_fd(-1)
    _WATCHER = None
    _WATCHER_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_forget_watcher)


def leave_ctrl_c_to_parent() -> None:
    """In a child process whose parent handles Ctrl-C and kills it: ignore SIGINT."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
