"""Searches run in a forked child: CP-SAT under a deadline, PySAT solvers without interrupt().

The child is the only stop that is always prompt (CP-SAT ignores its time limit while it loads
a model), so it must give the in-process answers and never outlive the search that started it.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from satnono.backends import installed_backends
from satnono.formats import read_puzzle
from satnono.pipeline.solutions import solve
from satnono.runtime.child import Send, stream_from_child
from satnono.runtime.deadline import Deadline, Timeout
from support import EXAMPLES

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
needs_cpsat = pytest.mark.skipif("cpsat" not in installed_backends(), reason="no OR-tools")


def test_items_arrive_in_order_then_the_stream_ends(no_children_left: None) -> None:
    def run(send: Send) -> None:
        for n in range(5):
            send(n)

    assert list(stream_from_child(run, Deadline(30), "test")) == [0, 1, 2, 3, 4]


def test_a_child_past_the_deadline_is_killed(no_children_left: None) -> None:
    def run(send: Send) -> None:
        send("first")
        signal.pause()  # only a signal ends it

    items = []
    with pytest.raises(Timeout):
        items.extend(stream_from_child(run, Deadline(0.3), "test", grace=0.1))
    assert items == ["first"]


@pytest.mark.parametrize("seconds", [None, 60.0])
def test_a_cancelled_deadline_stops_a_silent_child_at_once(
    seconds: float | None, no_children_left: None
) -> None:
    """A deadline cancelled by another thread (Ctrl-C, the web page's Cancel, a cube told to
    make way) ends the stream within moments, not when the deadline would have passed (or
    never, without one), even while the child sends nothing."""
    import threading
    import time

    def run(send: Send) -> None:
        signal.pause()

    deadline = Deadline(seconds)
    threading.Timer(0.2, deadline.cancel).start()
    started = time.monotonic()
    with pytest.raises(Timeout):
        list(stream_from_child(run, deadline, "test"))
    assert time.monotonic() - started < 2.0


def test_a_failing_child_is_an_error_naming_it(no_children_left: None) -> None:
    def run(send: Send) -> None:
        raise ValueError("broken")

    with pytest.raises(RuntimeError, match="the test process failed: ValueError: broken"):
        list(stream_from_child(run, Deadline(30), "test"))


def test_a_consumer_that_stops_early_kills_the_child(no_children_left: None) -> None:
    def run(send: Send) -> None:
        n = 0
        while True:
            send(n)
            n += 1

    stream = stream_from_child(run, Deadline(None), "test")
    assert next(stream) == 0
    stream.close()


@needs_cpsat
@pytest.mark.parametrize("limit", [1, 2, 7, 0])
def test_cpsat_under_a_deadline_gives_the_in_process_answers(
    limit: int, no_children_left: None
) -> None:
    puzzle = read_puzzle(EXAMPLES / "switches-8.non")  # 256 solutions
    here = solve(puzzle, backend="cpsat", limit=limit)
    child = solve(puzzle, backend="cpsat", limit=limit, timeout=60)
    assert (child.status, child.complete, child.solutions_found) == (
        here.status, here.complete, here.solutions_found
    )  # fmt: skip
    if here.complete:
        assert set(child.grids) == set(here.grids)


@needs_cpsat
def test_cpsat_stops_at_the_deadline_and_leaves_no_child(no_children_left: None) -> None:
    puzzle = read_puzzle(EXAMPLES / "permutation-9.non")  # 9! solutions: takes minutes
    result = solve(puzzle, backend="cpsat", limit=0, timeout=0.5)
    assert (result.status, result.complete) == ("multiple", False)
    assert 1 < result.solutions_found < 362880


def test_a_killed_child_says_how_it_died(no_children_left: None) -> None:
    # A killed batch solver was "the batch solver process died (exit code None)" (issue 23).
    import os

    from satnono.runtime.child import ForkedChild

    def die(send: Send, receive: object) -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    died = r"test solver process died \(killed by SIGKILL\)"
    with (
        ForkedChild(die, "test solver", quiet=True, inbox=True) as child,
        pytest.raises(RuntimeError, match=died),
    ):
        child.receive(10)


def test_two_threads_killing_a_child_at_once_close_its_pipes_once(
    no_children_left: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C on a batch: the main thread killed the solver processes while a worker thread
    was killing the same one; both closed its pipe, the second an fd already closed, and the
    batch ended "error: cannot write the output: Bad file descriptor" (exit 2, not 130; 1 run
    in 8 under load). A pipe whose close lingers after the fd is gone makes the race sure."""
    import os
    import threading
    import time
    from multiprocessing.connection import Connection

    from satnono.runtime.child import ForkedChild

    def lingering_close(self: Connection, _close: object = os.close) -> None:
        os.close(self._handle)  # type: ignore[attr-defined]
        time.sleep(0.05)  # the handle is still set: a second close() closes the fd again

    def wait(send: Send, receive: object) -> None:
        time.sleep(30)

    monkeypatch.setattr(Connection, "_close", lingering_close)
    errors: list[BaseException] = []
    with ForkedChild(wait, "test solver", quiet=True, inbox=True) as child:
        both = threading.Barrier(2)

        def kill() -> None:
            both.wait()
            try:
                child.kill()
            except BaseException as error:  # the test reports any
                errors.append(error)

        threads = [threading.Thread(target=kill) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
    assert errors == []


def test_a_child_keeps_within_its_memory_beyond_what_it_was_forked_with(
    no_children_left: None,
) -> None:
    """A counter's child held as much as it liked (Ganak's cache has no bound: Marley's child
    527 MB after 240 s under `count --memory 64`). Bounded, an allocation past the bound fails
    in the child, which says so; the same allocation within it goes through."""
    from satnono.runtime.child import ForkedChild

    def allocate(send: Send) -> None:
        send(len(bytearray(200 << 20)))

    with ForkedChild(allocate, "test", memory=400 << 20) as roomy:
        assert roomy.receive(30) == 200 << 20
    tight = ForkedChild(allocate, "test", memory=50 << 20)
    with tight, pytest.raises(RuntimeError) as error:
        tight.receive(30)
    assert "the test process failed: out of memory: past its 50 MB (MemoryError" in str(error.value)
