"""Run a search in a forked process that the deadline, Ctrl-C or the parent's death ends.

For solvers that cannot be stopped in time from inside the process (PySAT solvers without
interrupt(), CP-SAT's model loading): killing a process is the only stop that is always prompt.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

from satnono.backends.stoppable import leave_ctrl_c_to_parent
from satnono.deadline import Deadline, Timeout

Send = Callable[[Any], None]


@dataclass(frozen=True)
class _End:
    """The child's last message: it finished, or failed with `error`."""

    error: str | None = None


def can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def stream_from_child(
    run: Callable[[Send], None], deadline: Deadline, what: str, grace: float = 0.0
) -> Generator[Any, None, None]:
    """Yield every item that `run(send)` sends from a forked child, until `run` returns.

    `run` need not be picklable (fork); the items must be. Raises Timeout if `grace` seconds
    past the deadline `run` has not returned, and RuntimeError if the child fails. The child
    is killed then, and also when the consumer stops iterating or on Ctrl-C in the parent.
    """
    import multiprocessing

    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    parent = os.getpid()

    def child_main() -> None:
        die_with_parent(parent)
        leave_ctrl_c_to_parent()
        try:
            run(sender.send)
            sender.send(_End())
        except BrokenPipeError:
            pass
        except Exception as error:  # reported by the parent, not as a traceback here
            with contextlib.suppress(OSError):
                sender.send(_End(f"{type(error).__name__}: {error}"))
        finally:
            sender.close()

    child = context.Process(target=child_main, daemon=True)
    child.start()
    sender.close()
    try:
        while True:
            remaining = deadline.remaining()
            if not receiver.poll(None if remaining is None else remaining + grace):
                raise Timeout
            try:
                item = receiver.recv()
            except EOFError:
                raise RuntimeError(f"the {what} process died") from None
            if isinstance(item, _End):
                if item.error is not None:
                    raise RuntimeError(f"the {what} process failed: {item.error}")
                return
            yield item
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        receiver.close()


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
