"""Dask for work spread over processes or machines: a client on a new LocalCluster or on a
scheduler's address, and the one submit-and-collect loop (batch, compare, the cubes backend).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from satnono.errors import InputError

#: Seconds the client and a local cluster may take to close. (A shorter wait once the workers
#: are killed closed 8 of them in 0.04 s instead of 2.1 s, but left the scheduler of an
#: in-process cluster serving: later clusters found its port taken.)
CLOSE_WAIT = 5


class client:  # noqa: N801 - used as a context manager, like distributed.Client
    """A Dask client on a new LocalCluster ("local") or on the scheduler at an address."""

    def __init__(
        self,
        scheduler: str,
        workers: int,
        threads: bool = False,
        stop_tasks: Callable[[], None] | None = None,
    ) -> None:
        """`threads`: a local cluster's workers are threads of this process, for tasks that
        do their work in processes of their own (batch's forked solvers); else processes.
        `stop_tasks` ends the tasks running in such threads (kills their processes), for an
        early end: a thread cannot be killed, and closing waits for its task."""
        from satnono.core.extras import require

        require("distributed", "dask")
        self.stop_tasks = stop_tasks
        _quiet_timed_out_waits()

        from distributed import Client, LocalCluster

        self.cluster = None
        #: Set when the work ended early: the local workers are killed at exit, not waited for.
        self.abandoned = False
        #: Whether multiprocessing's resource tracker ran before this cluster started it.
        self.tracker_was_running = _tracker_running()
        try:
            if scheduler == "local":
                check_worker_processes_can_start(scheduler, threads)
                # The workers ignore Ctrl-C (a process started with SIGINT ignored keeps it
                # so): this process alone answers it, closing the cluster, so that a Ctrl-C
                # prints one line rather than every worker's KeyboardInterrupt traceback.
                main = threading.current_thread() is threading.main_thread()
                previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
                try:
                    # A second cluster in one process (compare's worker running the cubes
                    # backend) finds the first one's HTTP port taken, takes another and warns.
                    warnings.filterwarnings("ignore", "Port .* is already in use")
                    self.cluster = LocalCluster(
                        dashboard_address=None, silence_logs=logging.ERROR,
                        **_local_workers(workers, threads),
                    )  # fmt: skip
                finally:
                    if main:
                        signal.signal(signal.SIGINT, previous)
                self.client = Client(self.cluster)
                _quiet_cut_off_heartbeats(self.client)
            else:
                self.client = Client(scheduler, timeout=10)
        except OSError as error:
            raise InputError(f"cannot reach the Dask scheduler: {error}", "scheduler") from None
        with _OPEN_LOCK:  # made: __exit__ counts it off
            _OPEN[0] += 1

    def __enter__(self) -> Any:
        return self.client

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        killed = (kind is not None or self.abandoned) and self.cluster is not None
        # Killed workers break their connections on purpose: Dask's errors about them (logged
        # with tracebacks, some at CRITICAL) say nothing the caller needs, so none is shown.
        with _silenced("distributed") if killed else contextlib.nullcontext():
            if killed:
                # Interrupted (Ctrl-C), failed or abandoned: the workers may be deep in a task,
                # and a graceful close would wait for them (up to --timeout). Kill them
                # outright; their solver processes die with them.
                self._kill_workers()
                if self.stop_tasks is not None:
                    self.stop_tasks()
            # Bounded: a run must end promptly however the cluster is (killed workers, a lost
            # scheduler); what is not closed by then goes with the process.
            with contextlib.suppress(Exception):
                self.client.close(timeout=CLOSE_WAIT)
            if self.cluster is not None:
                with contextlib.suppress(Exception):
                    self.cluster.close(timeout=CLOSE_WAIT)
            with _OPEN_LOCK:
                _OPEN[0] -= 1
                last = _OPEN[0] == 0
            # Only when no other client of this process is open (a cubes backend run inside a
            # batch's in-process worker shares Dask's offload executor with that worker).
            if last and self.cluster is not None:
                _release_process_globals(self.tracker_was_running)

    def _kill_workers(self) -> None:
        from distributed import Nanny

        for nanny in list(getattr(self.cluster, "workers", {}).values()):
            if not isinstance(nanny, Nanny):
                continue  # a worker thread of this process: its tasks are stopped otherwise
            # Said first, else the nanny starts a new worker in its place, only to close it (2 s).
            with contextlib.suppress(Exception):
                nanny.close_gracefully()
            process = getattr(getattr(nanny, "process", None), "process", None)
            pid = getattr(process, "pid", None)
            if isinstance(pid, int):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)


#: Clients open in this process (a list, to be changed in place), and its lock.
_OPEN = [0]
_OPEN_LOCK = threading.Lock()


def _tracker_running() -> bool:
    from multiprocessing import resource_tracker

    return getattr(resource_tracker._resource_tracker, "_pid", None) is not None


def _release_process_globals(tracker_was_running: bool) -> None:
    """End what a local cluster leaves running in this process once it is closed, so that
    nothing a call starts outlives it: multiprocessing's resource tracker (a process, started
    for the worker processes; started again if ever needed) unless it ran before, and Dask's
    offload thread (its executor is replaced by a fresh one, which starts no thread until a
    later cluster uses it)."""
    from concurrent.futures import ThreadPoolExecutor
    from multiprocessing import resource_tracker

    if not tracker_was_running and _tracker_running():
        with contextlib.suppress(Exception):
            resource_tracker._resource_tracker._stop()  # type: ignore[attr-defined]
    with contextlib.suppress(Exception):
        from distributed import utils

        executor = utils._offload_executor
        if getattr(executor, "_threads", None):
            executor.shutdown(wait=True)
            utils._offload_executor = ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="Dask-Offload"
            )


class _TimedOutWait(logging.Filter):
    """Drops asyncio's "Future exception was never retrieved" for a TimeoutError: Tornado's
    timed wait (in Dask's batched sends) leaves one behind when a close stops the coroutine
    waiting on it, and a loaded machine's close printed it after `compare`'s table (a clean
    CI run's README test). Any other unretrieved exception is still shown."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        unretrieved = str(record.msg).startswith("Future exception was never retrieved")
        return not (unretrieved and isinstance(error, TimeoutError))


_TIMED_OUT_WAIT = _TimedOutWait()


class _CutOffHeartbeat(logging.Filter):
    """Drops a worker's "Failed to communicate with scheduler during heartbeat" (an error
    with two tracebacks): a local cluster's close cuts off a heartbeat in flight now and then
    (dask/distributed#7105), and a loaded machine's close printed it after `compare`'s table
    (a README test). Such a cluster is this run's own, so the scheduler it lost is one being
    closed, or one whose loss the run reports itself. Any other error of a worker is shown."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Failed to communicate with scheduler")


_CUT_OFF_HEARTBEAT = _CutOffHeartbeat()


def _install(logger_name: str, noise: logging.Filter) -> None:
    """`noise` on the logger `logger_name`, once however many clients are made."""
    logger = logging.getLogger(logger_name)
    if noise not in logger.filters:
        logger.addFilter(noise)


def _quiet_timed_out_waits() -> None:
    """Installs _TimedOutWait on asyncio's logger (the futures are collected whenever the
    garbage collector gets to them, after the close too)."""
    _install("asyncio", _TIMED_OUT_WAIT)


def _quiet_cut_off_heartbeats(cluster_client: Any) -> None:
    """Installs _CutOffHeartbeat here (thread workers log in this process) and, through a
    worker plugin, in each worker process of the local cluster `cluster_client` runs on."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class Quiet(WorkerPlugin):
        name = "satnono-quiet-heartbeats"

        def setup(self, worker: Any) -> None:
            _install("distributed.worker", _CUT_OFF_HEARTBEAT)

    _install("distributed.worker", _CUT_OFF_HEARTBEAT)
    cluster_client.register_plugin(Quiet())


@contextlib.contextmanager
def _silenced(logger_name: str) -> Iterator[None]:
    """Nothing from the logger `logger_name` (and its children) is shown meanwhile."""
    logger = logging.getLogger(logger_name)
    previous = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        logger.setLevel(previous)


def cluster_threads(scheduler: str) -> int:
    """How many tasks the cluster at the address `scheduler` runs at once: its workers'
    threads now (at least 1), asked of its scheduler."""
    with client(scheduler, 1) as dask:
        threads: dict[str, int] = dask.nthreads()
        return max(1, sum(threads.values()))


def check_worker_processes_can_start(scheduler: str, threads: bool = False) -> None:
    """InputError, in one line, when a local cluster's worker processes would re-run the
    script this process runs: Python starts them by importing the main script again (its
    "spawn" method, Dask's), so a script whose work is not under `if __name__ ==
    "__main__":` would run again in every worker and start clusters of its own ("Nanny
    failed to start" and dozens of tracebacks). Called before any work is done."""
    import multiprocessing
    import re
    import sys

    if scheduler != "local" or threads or multiprocessing.current_process().daemon:
        return  # no process started here
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or getattr(main, "__spec__", None) is not None or not path:
        return  # run as a module (-m), interactively or with -c: nothing is re-run
    try:
        with open(path, encoding="utf-8", errors="replace") as script:
            source = script.read()
    except OSError:
        return
    main_test = r"""__name__\s*==\s*['"]__main__['"]|['"]__main__['"]\s*==\s*__name__"""
    if not re.search(rf"^\s*if\s+\(?\s*(?:{main_test})", source, re.M):
        raise InputError("the cubes backend starts worker processes, which re-run this script: "
                         'put its work under `if __name__ == "__main__":`', path)  # fmt: skip


def _local_workers(workers: int, threads: bool) -> dict[str, Any]:
    """One worker process per worker; threads of this process when asked, and in a daemonic
    process (a Dask worker, or a solver it forked: `compare` running the cubes backend),
    which may not start processes."""
    import multiprocessing

    if threads or multiprocessing.current_process().daemon:
        return {"n_workers": 1, "threads_per_worker": workers, "processes": False}
    return {"n_workers": workers, "threads_per_worker": 1, "processes": True}


def each_result(
    dask: Any,
    function: Callable[..., Any],
    arguments: Iterable[tuple[Any, ...]],
    on_result: Callable[[int, Any], bool],
    stopped: Callable[[], bool] | None = None,
    in_flight: int | None = None,
    cancel: bool = True,
) -> bool:
    """Submit `function(*a)` for each `a` of `arguments`; `on_result(number, future)` for each
    as it finishes, in any order (`number` is its place in `arguments`). True when every one
    finished; False, with the rest cancelled (unless `cancel` is False: a cluster about to be
    killed need not be told, and telling it takes a round trip per call), once `on_result`
    returns False or `stopped()` (looked at several times a second) is true.

    `in_flight` caps the tasks submitted and not yet finished: the next argument is taken from
    `arguments` only when one finishes, after its `on_result`, so that a generator can shape
    each task by the results before it (batch sizes its chunks so). None submits all at once.
    """
    from distributed import as_completed, wait

    source = iter(arguments)
    pending: dict[str, int] = {}  # future key -> number
    futures: dict[str, Any] = {}
    taken = 0

    def top_up() -> list[Any]:
        nonlocal taken
        added = []
        while in_flight is None or len(pending) < in_flight:
            each = next(source, None)
            if each is None:
                break
            future = dask.submit(function, *each, pure=False)
            pending[future.key], futures[future.key] = taken, future
            taken += 1
            added.append(future)
        return added

    def stop() -> bool:
        if cancel:
            dask.cancel(list(futures.values()))
        return False

    def finish(future: Any) -> bool:
        number = pending.pop(future.key)
        del futures[future.key]
        return on_result(number, future) or stop()

    if stopped is None:  # nothing to look at between results: wait for each as it comes
        finishing = as_completed(top_up())
        for future in finishing:
            if not finish(future):
                return False
            finishing.update(top_up())
        return True
    top_up()
    while pending:
        if stopped():
            return stop()
        try:
            done, _ = wait(list(futures.values()), timeout=_LOOK, return_when="FIRST_COMPLETED")
        except TimeoutError:  # none finished in this look
            continue
        # Looked at between results too: at a deadline, every running task ends at once, and
        # fetching each result takes a while from workers that still hold every core.
        for future in sorted(done, key=lambda future: pending[future.key]):
            if stopped():
                return stop()
            if not finish(future):
                return False
        top_up()
    return True


def run_on_cluster(
    scheduler: str,
    workers: int,
    function: Callable[..., Any],
    arguments: Iterable[tuple[Any, ...]],
    on_result: Callable[[int, Any], bool],
    stopped: Callable[[], bool] | None = None,
    in_flight: int | None = None,
    threads: bool = False,
    stop_tasks: Callable[[], None] | None = None,
) -> bool:
    """`each_result` on a client of `scheduler` (see `client`, with `threads` and
    `stop_tasks`). When it ends early, the tasks still running are not waited for: a cluster
    of this call's own is killed; on a shared one they end at whatever deadline they were
    given."""
    if stopped is not None and stopped():
        return False
    cluster = client(scheduler, workers, threads, stop_tasks)
    with cluster as dask:
        own = cluster.cluster is not None  # killed when the work ends early: not cancelled
        # A local cluster's start cannot be cut short (10 s for 8 workers on 2 cores busy
        # with 6 other processes): looked at before any task is submitted.
        if stopped is not None and stopped():
            cluster.abandoned = True
            return False
        finished = each_result(
            dask, function, arguments, on_result, stopped, in_flight, cancel=not own
        )
        cluster.abandoned = not finished
    return finished


#: Seconds between two looks at `stopped` while tasks run.
_LOOK = 0.2
