"""satnono.runtime: the one race of forked children, calls off the main thread, the hand-over
between a producer thread and its consumer, and a solve watched through its handle."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import satnono
from satnono.runtime.background import Background, HandOver, run_off_main_thread
from satnono.runtime.child import Send
from satnono.runtime.deadline import Deadline
from satnono.runtime.race import Race
from support import EXAMPLES

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
LONG = EXAMPLES / "permutation-9.non"  # 9! solutions: long enough to cancel


def _answer(value: int, after: float) -> object:
    def run(send: Send) -> None:
        time.sleep(after)
        send(value)

    return run


def test_the_first_deciding_message_wins_and_every_child_is_killed(
    no_children_left: None,
) -> None:
    with Race(lambda _, message: message > 0) as race:
        race.enter("slow", _answer(1, 30), "slow")  # type: ignore[arg-type]
        race.enter("zero", _answer(0, 0), "zero")  # type: ignore[arg-type]
        race.enter("fast", _answer(2, 0.2), "fast")  # type: ignore[arg-type]
        winner = race.collect(Deadline(20))
        assert winner is not None and winner.tag == "fast" and winner.messages == [2]
        assert next(e for e in race.entrants if e.tag == "zero").messages == [0]


def test_a_race_ends_at_its_deadline_or_when_every_child_failed(no_children_left: None) -> None:
    with Race(lambda _, message: True) as race:
        race.enter("slow", _answer(1, 30), "slow")  # type: ignore[arg-type]
        started = time.monotonic()
        assert race.collect(Deadline(0.3)) is None
        assert time.monotonic() - started < 5
        assert race.poll() is None

    def broken(send: Send) -> None:
        raise ValueError("boom")

    with Race(lambda _, message: True) as race:
        race.enter("a", broken, "broken one")
        race.enter("b", lambda send: None, "silent one")
        assert race.collect(Deadline(20)) is None
        assert not race.running()
        assert any("boom" in error for error in race.errors)
        assert any("ended without an answer" in error for error in race.errors)


def test_work_off_the_main_thread_returns_and_raises_as_if_called_here() -> None:
    names: list[str] = []

    def work() -> int:
        names.append(threading.current_thread().name)
        return 7

    assert run_off_main_thread(work, lambda: None, "worker") == 7
    assert names == ["worker"]

    def fails() -> int:
        raise KeyError("lost")

    with pytest.raises(KeyError, match="lost"):
        run_off_main_thread(fails, lambda: None, "worker")


@pytest.fixture
def ctrl_c_raises() -> Iterator[None]:
    """Python's own SIGINT handler, as in a terminal: a test run started in the background
    inherits SIGINT ignored, and Python then installs none."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def test_ctrl_c_while_waiting_cancels_the_work_and_goes_on(ctrl_c_raises: None) -> None:
    stop = threading.Event()

    def work() -> str:
        stop.wait(30)
        return "stopped"

    call = Background(work, stop.set, "worker")
    timer = threading.Timer(0.2, signal.raise_signal, [signal.SIGINT])
    timer.start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        call.result()
    assert stop.is_set() and call.done() and time.monotonic() - started < 5


def test_a_hand_over_waits_for_its_consumer_and_stops_once_it_has_gone() -> None:
    handed: HandOver[int] = HandOver()
    sent: list[bool] = []

    def produce() -> None:
        for n in range(100):
            if not handed.put(n):
                sent.append(False)
                return
            sent.append(True)
        handed.finish()

    producer = threading.Thread(target=produce)
    producer.start()
    taken = [handed.get(5)[1] for _ in range(3)]
    assert taken == [0, 1, 2]
    time.sleep(0.2)
    assert len(sent) <= 4  # one waiting in the hand-over, one blocked: nothing piled up
    handed.close()
    producer.join(5)
    assert not producer.is_alive() and sent[-1] is False


def test_a_solve_handle_streams_shows_progress_and_cancels() -> None:
    puzzle = satnono.read_puzzle(LONG)
    with satnono.start_solve(puzzle, max_solutions=0, keep=0) as handle:
        seen = []
        for grid in handle.solutions():
            seen.append(grid)
            if len(seen) == 50:
                handle.cancel()
        result = handle.result()
    assert handle.progress.phase == "search" and handle.progress.solutions >= 50
    # Stopped early: what was found stands, and the search is not complete.
    assert result.status in ("multiple", "timeout") and not result.complete
    assert result.solutions_found >= 50
    assert len(set(seen)) == len(seen) >= 50


def test_a_solve_handle_without_a_stream_gives_its_result() -> None:
    puzzle = satnono.read_puzzle(EXAMPLES / "duck.non")
    handle = satnono.start_solve(puzzle, stream=False)
    assert handle.wait(30) and handle.result().status == satnono.Status.UNIQUE
    assert handle.next_solution(0.1) == (True, None)


def test_samples_stream_then_say_how_it_went() -> None:
    puzzle = satnono.read_puzzle(EXAMPLES / "switches-8.non")
    with satnono.iter_samples(puzzle, 3, seed=1) as drawing:
        grids = list(drawing)
    assert len(grids) == drawing.drawn == 3 and drawing.status == "sampled"
    assert "exactly uniform" in drawing.guarantee
    unsolvable = satnono.Puzzle.from_clues(rows=[[2], []], columns=[[1], []])
    with satnono.iter_samples(unsolvable, 2) as drawing:
        assert list(drawing) == []
    assert drawing.status == "unsolvable" and drawing.reason


def test_a_paused_collector_runs_again_after_unless_it_was_off_before() -> None:
    import gc

    from satnono.runtime.collector import collector_paused

    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_pause_with_a_limit_ends_when_it_has_lasted_that_long() -> None:
    """`collector_paused(at_most)`: the watcher turns the collector on again once `at_most`
    seconds have passed, with the block still running (the collector is the whole process's,
    and other threads need it); a block that ends first turns it on itself."""
    import gc

    from satnono.runtime.collector import collector_paused

    with collector_paused(0.05):
        assert not gc.isenabled()
        waited = time.monotonic()
        while not gc.isenabled() and time.monotonic() - waited < 5:
            time.sleep(0.01)
        assert gc.isenabled()
    assert gc.isenabled()
    with collector_paused(30):
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_race_without_a_timeout_stops_when_its_deadline_is_cancelled(
    no_children_left: None,
) -> None:
    """A race with no timeout waited for its children's messages for ever: a cancel (a
    dropped request, a shutdown) was never seen, and a portfolio solve never returned."""

    def silent(send: Send) -> None:
        time.sleep(60)

    deadline = Deadline(None)
    threading.Timer(0.3, deadline.cancel).start()
    started = time.monotonic()
    with Race[str](lambda entrant, message: True) as race:
        race.enter("a", silent, "silent")
        assert race.collect(deadline) is None
    assert time.monotonic() - started < 0.3 + 0.5


def test_a_timed_out_wait_left_unretrieved_by_a_dask_close_prints_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A loaded machine's Dask close left a Tornado wait's TimeoutError unretrieved, and
    asyncio printed it after `compare`'s table (a clean CI run). Dropped once a satnono
    client has been made; any other unretrieved exception is still reported."""
    import asyncio
    import gc

    pytest.importorskip("distributed")
    from satnono.runtime import dask

    def leave_unretrieved(error: BaseException) -> None:
        loop = asyncio.new_event_loop()
        future = loop.create_future()
        future.set_exception(error)
        del future
        gc.collect()
        loop.close()

    dask._quiet_timed_out_waits()
    dask._quiet_timed_out_waits()  # installed once however many clients are made
    assert logging_filters("asyncio").count(dask._TIMED_OUT_WAIT) == 1
    with caplog.at_level("ERROR", logger="asyncio"):
        leave_unretrieved(TimeoutError("Timeout"))
        assert not [r for r in caplog.records if "never retrieved" in r.getMessage()]
        leave_unretrieved(ValueError("something else"))
        assert [r for r in caplog.records if "never retrieved" in r.getMessage()]


@pytest.mark.parametrize("threads", [True, False], ids=["thread workers", "worker processes"])
def test_a_heartbeat_a_close_cut_off_prints_nothing(
    threads: bool, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """A loaded machine's close of `compare`'s local cluster cut off a worker's heartbeat,
    and Dask logged it as an error with two tracebacks after the table (a flaky README test;
    dask/distributed#7105). Dropped, in this process and in the worker processes; any other
    error of a worker is still shown."""
    pytest.importorskip("distributed")
    from satnono.runtime import dask

    def cut_off() -> None:  # as Worker.heartbeat logs a closed comm
        import logging

        logger = logging.getLogger("distributed.worker")
        try:
            raise OSError("Stream is closed")
        except OSError:
            logger.exception("Failed to communicate with scheduler during heartbeat.")
        logger.error("a worker's other error")

    quiet = caplog.at_level("ERROR", logger="distributed.worker")
    with quiet, dask.client("local", 1, threads=threads) as running:
        running.run(cut_off)
    # A thread worker logs here (pytest takes the records); a worker process to its stderr.
    printed = capfd.readouterr().err + "".join(f"{r.getMessage()}\n" for r in caplog.records)
    assert "during heartbeat" not in printed and "Stream is closed" not in printed
    assert "a worker's other error" in printed


def logging_filters(name: str) -> list[object]:
    import logging

    return list(logging.getLogger(name).filters)
