"""PySAT solvers that a deadline or Ctrl-C stops cleanly, through the solver's own interrupt().

Called from the main thread, PySAT's solve() and propagate() install a C handler for SIGINT
that longjmps out of the running solver. When the signal lands inside malloc, or halfway through
the growth of one of the solver's vectors, the heap is left corrupt and the process dies later
with "free(): invalid pointer" (2 runs in 8 of `satnono solve permutation-9.non
--max-solutions 0` interrupted after 2.5 s). So while a solver is in use SIGINT stays blocked
in the main thread, and one watcher thread takes it with sigtimedwait: it interrupts the solver,
as a deadline does, and raises KeyboardInterrupt in the main thread, which sees it as soon as
the solver call returns. The same watcher enforces the deadline, so no call needs a timer.
"""

from __future__ import annotations

import _thread
import os
import signal
import threading
from collections.abc import Iterable
from typing import Any

from satnono.deadline import Deadline

#: Longest sleep of the watcher between looks at the solver it watches (seconds).
_POLL = 0.05
_SIGINT = {signal.SIGINT}
_CAN_WAIT = hasattr(signal, "sigtimedwait") and hasattr(signal, "pthread_sigmask")


class StoppableSolver:
    """A PySAT solver in use: `with StoppableSolver(...) as s:` then s.solve(), s.propagate().

    `interruptible` says whether the solver supports solve_limited() and interrupt(); the
    others (CaDiCaL, Kissat, Lingeling) cannot be stopped mid-call, so their deadline and a
    Ctrl-C take effect when the call returns. The SAT backend runs those in a child process
    that it can kill instead.
    """

    def __init__(self, solver: Any, deadline: Deadline, interruptible: bool) -> None:
        self.solver = solver
        self.deadline = deadline
        self.interruptible = interruptible
        self._mask: set[int | signal.Signals] | None = None
        self._timer: threading.Timer | None = None
        self._watcher: _Watcher | None = None

    def __enter__(self) -> StoppableSolver:
        bounded = self.deadline.bounded and self.interruptible
        if not _CAN_WAIT or threading.current_thread() is not threading.main_thread():
            # PySAT installs no handler outside the main thread; only the deadline needs care.
            if bounded:
                self._timer = threading.Timer(self.deadline.remaining() or 0.0, self.interrupt)
                self._timer.daemon = True
                self._timer.start()
            return self
        self._mask = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGINT)
        # Only a Python handler wants Ctrl-C back; an ignored SIGINT (a worker process whose
        # parent handles it) just stays blocked.
        wants_sigint = callable(signal.getsignal(signal.SIGINT))
        if wants_sigint or bounded:
            self._watcher = _watcher()
            self._watcher.watch(self, wants_sigint)
        return self

    def __exit__(self, *_: object) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self._watcher is not None:
            self._watcher.unwatch(self)
        if self._mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, self._mask)

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
        """Stop the running call (or make the next one return at once); thread-safe."""
        if self.interruptible:
            self.solver.interrupt()


class _Watcher:
    """The thread that turns a blocked SIGINT or a passed deadline into solver.interrupt().

    It watches every solver in use in the main thread (they may nest: a counting search
    checks with one solver while another enumerates).
    """

    def __init__(self) -> None:
        self.lock = threading.Condition()
        #: (solver, whether it wants Ctrl-C) for every solver in use.
        self.watched: list[tuple[StoppableSolver, bool]] = []
        thread = threading.Thread(target=self._run, name="satnono solver watcher", daemon=True)
        # The thread must block SIGINT from its first instruction, or the kernel could hand it
        # a Ctrl-C meant for the main thread: it inherits the mask it is started with.
        old = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGINT)
        try:
            thread.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)

    def watch(self, solver: StoppableSolver, sigint: bool) -> None:
        with self.lock:
            self.watched.append((solver, sigint))
            self.lock.notify()

    def unwatch(self, solver: StoppableSolver) -> None:
        with self.lock:
            self.watched = [entry for entry in self.watched if entry[0] is not solver]

    def _run(self) -> None:
        lock = self.lock
        while True:
            with lock:
                while not self.watched:
                    lock.wait()
                watched = list(self.watched)
            timeout = _POLL
            for solver, _ in watched:
                remaining = solver.deadline.remaining()
                if remaining:  # an expired deadline is enforced at each later look
                    timeout = min(timeout, remaining)
            if any(sigint for _, sigint in watched):
                caught = signal.sigtimedwait(_SIGINT, timeout) is not None
            else:
                caught = False
                with lock:
                    lock.wait(timeout)
            with lock:
                for solver, _ in self.watched:
                    if caught or solver.deadline.expired():
                        solver.interrupt()
            if caught:
                # Raised in the main thread as soon as it runs Python code again.
                _thread.interrupt_main()


_WATCHER: _Watcher | None = None


def _watcher() -> _Watcher:
    """The process's watcher, started on first use (only ever from the main thread)."""
    global _WATCHER
    if _WATCHER is None:
        _WATCHER = _Watcher()
    return _WATCHER


def _forget_watcher() -> None:
    """A forked child has no watcher thread, whatever its parent had."""
    global _WATCHER
    _WATCHER = None


os.register_at_fork(after_in_child=_forget_watcher)


def leave_ctrl_c_to_parent() -> None:
    """In a child process whose parent handles Ctrl-C and kills it: never take SIGINT.

    Blocked rather than only ignored, because PySAT replaces an ignored SIGINT by its own
    handler for the length of every call.
    """
    if _CAN_WAIT:
        signal.pthread_sigmask(signal.SIG_BLOCK, _SIGINT)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
