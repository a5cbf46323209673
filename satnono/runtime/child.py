"""Run a search in a forked process that the deadline, Ctrl-C or the parent's death ends.

For solvers that cannot be stopped in time from inside the process (PySAT solvers without
interrupt(), CP-SAT's model loading): killing a process is the only stop that is always prompt.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from satnono.runtime.deadline import Deadline, Timeout
from satnono.runtime.stoppable import leave_ctrl_c_to_parent

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

Send = Callable[[Any], None]
_FORKING = threading.Lock()


def _new_fork_lock() -> None:
    """In a child: a lock of its own (it was forked holding its parent's, for good)."""
    global _FORKING
    _FORKING = threading.Lock()


os.register_at_fork(after_in_child=_new_fork_lock)


@dataclass(frozen=True)
class _End:
    """The child's last message: it finished, or failed with `error`."""

    error: str | None = None


def can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


class ForkedChild:
    """`run(send)` in a forked process; what it sends is read here, in order, through a pipe.

    The one primitive behind every process satnono starts for a solver or counter: the child
    dies with its parent (even one killed outright), ignores Ctrl-C (the parent handles it and
    kills the child), optionally sends its C libraries' chatter on stdout and stderr to
    /dev/null, may be given a memory bound, and reports a failure as a message rather than a
    traceback. Leaving the `with` block (or `kill()`) kills and reaps it: no orphan, no
    zombie.
    """

    def __init__(
        self,
        run: Callable[..., None],
        what: str,
        quiet: bool = False,
        inbox: bool = False,
        memory: int | None = None,
    ) -> None:
        """`inbox` True gives the child a second pipe: `run(send, receive)`, where receive()
        waits for the next item the parent `post`s (a long-lived worker serving requests), and
        receive(timeout) at most that long, then raises Timeout (0: only looks). `memory`:
        bytes the child may allocate beyond what it was forked with (`bound_memory`); past
        them it fails with "out of memory"."""
        import multiprocessing

        context = multiprocessing.get_context("fork")
        self.what = what
        # One fork at a time in this process: a child forked by another thread between this
        # one's pipes and the fork would hold this child's ends of them, and its death would
        # then not close its pipe (a batch's worker threads fork their solvers at once).
        with _FORKING:
            self._start(context, run, quiet, inbox, memory)
        self.exitcode: int | None = None
        self.finished = False
        #: `kill` one thread at a time: a batch's main thread kills the solvers at Ctrl-C
        #: while a worker thread may be killing the same one, and a pipe closed by both had
        #: its fd closed twice (EBADF; or, reused meanwhile, someone else's file closed).
        self._killing = threading.Lock()

    def _start(
        self,
        context: BaseContext,
        run: Callable[..., None],
        quiet: bool,
        inbox: bool,
        memory: int | None,
    ) -> None:
        self.receiver, sender = context.Pipe(duplex=False)
        inbound, self.outbox = context.Pipe(duplex=False) if inbox else (None, None)  # type: ignore[var-annotated]
        parent = os.getpid()

        def child_main() -> None:
            # The collector would walk every object inherited from the parent, writing to each
            # and so copying the pages this child shares with it: frozen, they are left alone.
            gc.freeze()
            die_with_parent(parent)
            leave_ctrl_c_to_parent()
            if quiet:  # C libraries' chatter: Ganak's "ERROR: while reallocating clause
                # space" on stderr when it runs out of its memory, besides what it reports
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 1)
                os.dup2(devnull, 2)
            bound = f"{memory / 2**20:g} MB" if memory and bound_memory(memory) else None
            try:
                if inbound is not None:

                    def receive(timeout: float | None = None) -> Any:
                        if timeout is not None and not inbound.poll(timeout):
                            raise Timeout
                        return inbound.recv()

                    run(sender.send, receive)
                else:
                    run(sender.send)
                sender.send(_End())
            except BrokenPipeError:
                pass
            except BaseException as error:  # reported by the parent, not as a traceback here
                said = f"{type(error).__name__}: {error}"
                if bound is not None and _out_of_memory(error):
                    said = f"out of memory: past its {bound} ({said})"
                with contextlib.suppress(OSError):
                    sender.send(_End(said))
            finally:
                sender.close()

        # os.fork rather than multiprocessing.Process: a daemonic process (a Dask worker, a
        # multiprocessing pool's worker) may not have multiprocessing children, but may fork.
        try:
            self.pid = os.fork()
            if self.pid == 0:  # the child: run, and leave without the parent's exit handlers
                code = 0
                try:
                    child_main()
                except BaseException:
                    code = 1
                finally:
                    os._exit(code)
        finally:
            if self.pid != 0:
                sender.close()
                if inbound is not None:
                    inbound.close()

    def post(self, item: Any) -> None:
        """Send `item` to the child's receive() (only with `inbox`)."""
        if self.outbox is None:
            raise RuntimeError(f"the {self.what} process takes no input")
        self.outbox.send(item)

    def ready(self) -> bool:
        """True when a message (or the child's end) is waiting; never blocks. Thread-safe."""
        try:
            return bool(self.receiver.poll(0))
        except (OSError, ValueError):  # closed by kill() in another thread
            return True

    def receive(self, timeout: float | None = None) -> Any:
        """The next item sent; raises Timeout when none comes within `timeout` seconds,
        ChildFinished once `run` has returned, RuntimeError when the child failed or died."""
        if self.finished:
            raise ChildFinished
        if not self.receiver.poll(timeout):
            raise Timeout
        try:
            item = self.receiver.recv()
        except EOFError:
            self.finished = True
            raise RuntimeError(f"the {self.what} process died ({self._death()})") from None
        if isinstance(item, _End):
            self.finished = True
            if item.error is not None:
                raise RuntimeError(f"the {self.what} process failed: {item.error}")
            raise ChildFinished
        return item

    def _death(self) -> str:
        """How the child ended, once its pipe closed: it is exiting, so wait a moment."""
        for _ in range(100):
            code = self._reap(block=False)
            if code is not None:
                break
            time.sleep(0.01)
        if code is None:
            return "its pipe closed"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"killed by {name}"
        return f"exit code {code}"

    def _reap(self, block: bool) -> int | None:
        """The child's exit code once it has ended (reaped, so no zombie is left)."""
        if self.exitcode is None:
            with contextlib.suppress(ChildProcessError):
                pid, status = os.waitpid(self.pid, 0 if block else os.WNOHANG)
                if pid == self.pid:
                    self.exitcode = os.waitstatus_to_exitcode(status)
        return self.exitcode

    def kill(self) -> None:
        """Kill the child if it still runs, reap it and close the pipe; idempotent, and safe
        from several threads at once."""
        with self._killing:
            if self.exitcode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)
                self._reap(block=True)
            self.receiver.close()
            if self.outbox is not None:
                self.outbox.close()

    def __enter__(self) -> ForkedChild:
        return self

    def __exit__(self, *_: object) -> None:
        self.kill()


def bound_memory(allowed: int) -> bool:
    """In a forked child: allow it `allowed` bytes of data beyond what it holds now (its
    RLIMIT_DATA: the heap and private mappings, the parent's inherited ones included, so the
    bound is counted from them). An allocation past it fails: std::bad_alloc in a C++ library
    (Ganak's and ApproxMC's bindings raise it as RuntimeError), MemoryError in Python. False
    where the platform has no such limit."""
    try:
        import resource

        with open("/proc/self/status") as status:
            held = next(int(ln.split()[1]) * 1024 for ln in status if ln.startswith("VmData:"))
        hard = resource.getrlimit(resource.RLIMIT_DATA)[1]
        soft = held + allowed
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))
    except (ImportError, OSError, StopIteration, ValueError):
        return False
    return True


def _out_of_memory(error: BaseException) -> bool:
    return isinstance(error, MemoryError) or "bad_alloc" in str(error)


class ChildFinished(Exception):  # noqa: N818 - the normal end of a child's messages
    """The child's function returned: it will send nothing more."""


def wait_any(children: Sequence[ForkedChild], timeout: float | None) -> list[ForkedChild]:
    """The children with a message (or their end) waiting, after at most `timeout` seconds."""
    from multiprocessing.connection import wait

    by_receiver = {child.receiver: child for child in children}
    return [by_receiver[ready] for ready in wait(list(by_receiver), timeout)]  # type: ignore[index]


#: Longest wait for a child's next item between two looks at the deadline (seconds).
_LOOK = 0.1


def stream_from_child(
    run: Callable[[Send], None],
    deadline: Deadline,
    what: str,
    grace: float = 0.0,
    quiet: bool = False,
) -> Generator[Any, None, None]:
    """Yield every item that `run(send)` sends from a forked child, until `run` returns.

    `run` need not be picklable (fork); the items must be. Raises Timeout if `grace` seconds
    past the deadline `run` has not returned, and RuntimeError if the child fails. The child
    is killed then, and also when the consumer stops iterating or on Ctrl-C in the parent.
    """
    with ForkedChild(run, what, quiet) as child:
        yield from stream_from(child, deadline, grace)


def stream_from(
    child: ForkedChild, deadline: Deadline, grace: float = 0.0
) -> Generator[Any, None, None]:
    """`stream_from_child` of a child already started (one forked ahead, to work while
    another is read): every item it sends, until its `run` returns. The caller kills it."""
    passed: float | None = None  # when the deadline was first seen passed
    while True:
        # Waits are short: a deadline may be cancelled (Ctrl-C, a cancelled web solve) or
        # end early (a cube told to make way) while the child sends nothing.
        wait = _LOOK
        if deadline.expired():
            passed = time.monotonic() if passed is None else passed
            wait = min(wait, passed + grace - time.monotonic())
        try:
            item = child.receive(max(0.0, wait))
        except ChildFinished:
            return
        except Timeout:
            if passed is not None and time.monotonic() >= passed + grace:
                raise
            continue
        yield item


_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """In a forked child: have the kernel SIGKILL it when its parent dies (Linux prctl).

    A parent killed outright (SIGKILL, OOM) runs no clean-up code, so only the kernel can
    guarantee that no solver process outlives it. `parent` is the pid seen before the fork:
    if it already differs, the parent died before the request took effect.
    """
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)
