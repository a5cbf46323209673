"""Work run in a thread of its own, so that the caller's thread stays free to be interrupted.

Every library call that searches runs its work through `run_off_main_thread`: the main thread
only waits, so a Ctrl-C raises KeyboardInterrupt there at once; the work is then cancelled
(its deadline expires, the watcher interrupts its solvers) and waited for, and the
KeyboardInterrupt goes on. No solver is ever called from the main thread, where PySAT would
install a SIGINT handler of its own (see satnono.runtime.stoppable).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from satnono.runtime.deadline import Deadline

T = TypeVar("T")

#: Longest wait in one piece while the main thread waits for work (seconds).
_SLICE = 0.1


class Background(Generic[T]):
    """`work()` started at once in a daemon thread; `result()` waits for what it returned
    (or raises what it raised); `cancel()` asks it to stop, through the caller's `cancel`."""

    def __init__(self, work: Callable[[], T], cancel: Callable[[], None], name: str) -> None:
        self._work = work
        self._cancel = cancel
        self._value: T | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._value = self._work()
        except BaseException as error:  # handed to the waiting thread, raised there
            self._error = error

    def done(self) -> bool:
        return not self._thread.is_alive()

    def cancel(self) -> None:
        """Ask the work to stop (thread-safe; it ends soon after, with what it had)."""
        self._cancel()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the work ends or `timeout` passes; True when it has ended. A Ctrl-C
        while waiting cancels the work, waits for it to end, and raises KeyboardInterrupt."""
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            # In slices: a signal delivered to another thread is only seen by the main thread
            # when it runs again, so a join without end could sit out a Ctrl-C.
            while self._thread.is_alive():
                left = _SLICE if deadline is None else min(_SLICE, deadline - time.monotonic())
                if left <= 0:
                    break
                self._thread.join(left)
        except KeyboardInterrupt:
            self._cancel()
            self._thread.join()
            raise
        return not self._thread.is_alive()

    def result(self) -> T:
        self.wait()
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        return self._value  # type: ignore[return-value]


#: Seconds `Helper.close` waits for its thread: its solver is interrupted within a moment.
HELPER_CLOSE = 2.0


class Helper(Generic[T]):
    """`work(deadline)` on a thread of its own, started at once, within a deadline of its own
    that passes with `deadline` or when `close()` cancels it: work that helps the caller's (a
    backbone beside a count, a guide for a listing) and must not outlive it. `answer()` is
    what it returned once it has ended (None before; None too where it raised, and `error`
    says what, for the caller's stats: a helper's bug must not end the work it helps).
    `close()` stops it and waits HELPER_CLOSE seconds at most."""

    def __init__(self, work: Callable[[Deadline], T], deadline: Deadline, name: str) -> None:
        own = deadline.sooner(None)  # cancelled alone by `close`
        self._work = Background(lambda: work(own), own.cancel, name)
        self.error: str | None = None

    @property
    def running(self) -> bool:
        return not self._work.done()

    def answer(self) -> T | None:
        if self.running:
            return None
        try:
            return self._work.result()
        except Exception as error:
            self.error = f"{type(error).__name__}: {error}"
            return None

    def wait(self, seconds: float) -> None:
        """Wait until it has ended, `seconds` at most."""
        self._work.wait(seconds)

    def close(self) -> None:
        self._work.cancel()
        self._work.wait(HELPER_CLOSE)


def run_off_main_thread(work: Callable[[], T], cancel: Callable[[], None], name: str) -> T:
    """`work()`, in a thread of its own when called from the main thread (see above)."""
    if threading.current_thread() is not threading.main_thread():
        return work()
    return Background(work, cancel, name).result()


Item = TypeVar("Item")


class HandOver(Generic[Item]):
    """Items passed from a producer thread to a consumer one at a time: the producer waits
    for the consumer rather than piling items up, and stops waiting once `close()` is called
    (the consumer has gone). `finish()` marks the end of the items."""

    _END = object()

    def __init__(self) -> None:
        import queue

        self._queue: queue.Queue[Any] = queue.Queue(maxsize=1)
        self._closed = threading.Event()
        self._released = threading.Event()

    def put(self, item: Item) -> bool:
        """Hand `item` over; False once the consumer has gone (the producer should stop)."""
        return self._put(item)

    def finish(self) -> None:
        self._put(self._END)

    def _put(self, item: object) -> bool:
        import queue

        while not self._closed.is_set():
            if self._released.is_set():
                return True  # nobody takes items any more: the producer goes on without
            try:
                self._queue.put(item, timeout=_HAND_OVER_POLL)
                return True
            except queue.Full:
                continue
        return False

    def close(self) -> None:
        self._closed.set()

    def release(self) -> None:
        """The consumer takes no more items, but the producer should go on (it then hands
        nothing over): what a caller that only wants the end needs, so that it cannot wait
        forever on a producer waiting for it."""
        import queue

        self._released.set()
        with contextlib.suppress(queue.Empty):
            while True:
                self._queue.get_nowait()

    def get(self, timeout: float | None = None) -> tuple[bool, Item | None]:
        """(ended, item): the next item if one comes within `timeout` seconds (None waits
        for it); `ended` once the producer has finished and every item has been taken, or
        once the hand-over is closed and empty."""
        import queue

        deadline = None if timeout is None else time.monotonic() + timeout
        while True:  # in slices, so that a Ctrl-C reaches a waiting main thread (see above)
            left = _SLICE if deadline is None else min(_SLICE, deadline - time.monotonic())
            try:
                item = self._queue.get(timeout=max(0.0, left))
                break
            except queue.Empty:
                if self._closed.is_set():  # closed by the consumer's side: nothing more comes
                    return True, None
                if deadline is not None and time.monotonic() >= deadline:
                    return False, None
        if item is self._END:
            self._queue.put(item)  # every later get() sees the end too
            return True, None
        return False, item

    def __iter__(self) -> Iterator[Item]:
        while True:
            ended, item = self.get()
            if ended:
                return
            yield item  # type: ignore[misc]


#: How long a blocked hand-over waits between looks at whether the consumer has gone.
_HAND_OVER_POLL = 0.05
