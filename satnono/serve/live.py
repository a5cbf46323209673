"""POST /api/solve/stream, /api/count/stream and /api/analyze/stream: the work as it happens,
as JSON lines (a solve on a SolveHandle; a count or an analysis in a thread, with a Progress).

Events: "progress" (phase, cells left, solutions, elapsed seconds, the backbone's cells
settled and the grid as line logic and the search have it) four times a second, "solution"
for each verified solution of a solve, then "done" with the CLI's object (or "error").
Closing the connection, the page's Cancel and a server shutdown all cancel the work; the run
slot is released on every path, and at the latest RELEASE_GRACE seconds past the deadline,
whether or not the client reads.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from starlette.responses import StreamingResponse

import satnono
from satnono import InputError, Puzzle
from satnono.output import contract
from satnono.serve import work
from satnono.serve.guard import Bodies, Lease, RunSlots

#: Seconds between progress events while nothing else happens.
PROGRESS_EVERY = 0.25
#: Seconds past its deadline that a stream's run slot is given back, even while the last
#: events still wait for a client that does not read them.
RELEASE_GRACE = 0.5


class LeasedStream(StreamingResponse):
    """A streamed answer that gives its run slot back however the response ends."""

    def __init__(self, content: Any, lease: Lease) -> None:
        super().__init__(content, media_type="application/x-ndjson")
        self.lease = lease

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        remaining = self.lease.deadline.remaining() or 0.0
        due = asyncio.get_running_loop().call_later(remaining + RELEASE_GRACE, self.lease.release)
        try:
            await super().__call__(scope, receive, send)
        finally:
            due.cancel()
            self.lease.release()


async def handle(request: Any, slots: RunSlots, bodies: Bodies, kind: str = "solve") -> Any:
    """Check the request, take a run slot (503 when none frees up in time), read the puzzle
    in it (parsing is work too: many large bodies at once must wait their turn), stream the
    work of `kind` (solve, count or analyze)."""
    text = await bodies.read(request)
    query = dict(request.query_params)
    limit = work.number(query, "max_solutions", 2, int)
    if not 0 <= limit <= 10_000:
        raise InputError("max_solutions must be within 0..10000 here", "max_solutions")
    backend = query.get("backend") or satnono.DEFAULT_BACKEND
    satnono.check_options(backend)
    timeout = work.timeout_of(query)
    lease = await slots.lease(timeout)
    try:
        puzzle = await asyncio.to_thread(work.parse, text, query)
    except BaseException:
        lease.release()
        raise
    source = work.source_of(query)
    if kind == "solve":
        events = _events(request, puzzle, backend, limit, lease, source)
    else:
        events = _work_events(request, puzzle, kind, lease, source)
    return LeasedStream(events, lease)


async def _work_events(request: Any, puzzle: Puzzle, kind: str, lease: Lease, source: str) -> Any:
    """A count or an analysis in a worker thread, its Progress sent four times a second; a
    closed connection (the page's Cancel) cancels it through the lease's deadline."""
    progress = satnono.Progress()

    def run() -> dict[str, Any]:
        if kind == "count":
            counted = satnono.count(puzzle, deadline=lease.deadline, progress=progress)
            return contract.count_object(source, counted)
        analysis = satnono.analyze(puzzle, deadline=lease.deadline, progress=progress)
        return contract.analysis_object(source, analysis)

    task = asyncio.ensure_future(asyncio.to_thread(run))
    started = time.perf_counter()
    try:
        while not task.done():
            await asyncio.wait({task}, timeout=PROGRESS_EVERY)
            seconds = time.perf_counter() - started
            yield _line(contract.progress_object(puzzle, progress, seconds))
            if not task.done() and await request.is_disconnected():
                lease.deadline.cancel()
        try:
            answer = task.result()
        except Exception as error:  # reported to the page, never a traceback
            yield _line({"event": "error", "error": str(error)[:300]})
            return
        yield _line({"event": "done", "result": answer})
    finally:
        lease.deadline.cancel()  # a cancel, a closed page or the end: the work stops now


async def _events(
    request: Any, puzzle: Puzzle, backend: str, limit: int, lease: Lease, source: str
) -> Any:
    handle = satnono.start_solve(puzzle, backend, limit, keep=0, deadline=lease.deadline)
    progress = handle.progress
    started = time.perf_counter()
    shown = 0.0
    try:
        while True:
            ended, grid = await asyncio.to_thread(handle.next_solution, 0.1)
            if grid is not None:
                yield _line({"event": "solution", "solution": puzzle.grid_rows(grid)})
            if time.perf_counter() - shown >= PROGRESS_EVERY or ended:
                shown = time.perf_counter()
                yield _line(contract.progress_object(puzzle, progress, shown - started))
            if ended:
                try:
                    result = handle.result()
                except Exception as error:  # reported to the page, never a traceback
                    yield _line({"event": "error", "error": str(error)[:300]})
                else:
                    answer = contract.solve_object(source, result, None)
                    yield _line({"event": "done", "result": answer})
                return
            if await request.is_disconnected():
                return
    finally:
        handle.cancel()  # a cancel, a closed page or the end: the solve stops now


def _line(event: dict[str, Any]) -> bytes:
    return (json.dumps(event) + "\n").encode()
