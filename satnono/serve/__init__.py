"""`satnono serve`: a local web app (Starlette on uvicorn) over the library API.

One page (satnono/web/, no build step) to open, solve, watch and author puzzles, and a JSON API
whose answers are exactly the CLI's `--json` objects (satnono.output.contract). The API takes puzzle
text, never a path: it gives no access to the server's files. guard (slots, limits, same
origin), connection (time limits per connection and phase), work (each endpoint's work), live
(the streamed solve, count and analysis).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

WEB = Path(__file__).resolve().parent.parent / "web"
#: uvicorn's limits: idle keep-alive connections close after this many seconds, at most this
#: many connections are served at once (a request on one more gets 503), and a shutdown waits
#: this long. Each phase of a connection has its own limit too (serve.connection), so that
#: clients doing nothing cannot hold these places for long.
KEEP_ALIVE = 5
CONNECTIONS = 256
SHUTDOWN_WAIT = 1
#: Longest webpbn puzzle id taken (its ids have 6 digits today).
MAX_ID_DIGITS = 9


def create_app(
    host: str = "127.0.0.1", port: int = 8000, slots: Any = None, bodies: Any = None
) -> Any:
    """The Starlette application (routes below), behind the same-origin guard; `slots`
    (a guard.RunSlots) are the run slots and `bodies` (a guard.Bodies) the bodies being read,
    made here with the defaults unless the server holds them."""
    from starlette.applications import Starlette
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    import satnono
    from satnono import InputError, Timeout
    from satnono.output import contract
    from satnono.serve import live, work
    from satnono.serve.guard import Bodies, RequestError, RunSlots, SameOrigin, error_body

    slots = slots or RunSlots()
    bodies = bodies or Bodies()

    def refused(error: Exception) -> Any:
        body, status = error_body(error)
        # A body left unread (too big, too slow, no room) would keep the connection busy.
        closing = {"Connection": "close"} if status in (408, 413, 503) else None
        return JSONResponse(body, status_code=status, headers=closing)

    def endpoint(name: str) -> Any:
        """POST /api/NAME: the work in a thread, in a run slot (see guard), within the
        request's timeout; work that cannot finish in it is 503."""
        run = getattr(work, name)

        async def handle(request: Any) -> Any:
            try:
                text = await bodies.read(request)
                query = dict(request.query_params)
                timeout = work.timeout_of(query)
                lease = await slots.lease(timeout)
                try:
                    task = asyncio.ensure_future(
                        asyncio.to_thread(run, text, query, lease.deadline)
                    )
                    while not task.done():  # a dropped request cancels its search
                        await asyncio.wait({task}, timeout=0.25)
                        if not task.done() and await request.is_disconnected():
                            lease.deadline.cancel()
                    data = task.result()
                finally:
                    lease.release()
                if slots.closing:  # cut short by the shutdown: not an answer to give
                    raise RequestError("the server is shutting down: try again later", 503)
            except Timeout:  # work with no partial answer (a picture, a conversion)
                return refused(RequestError(f"the {name} took over its timeout, {timeout:g} s: "
                                            "ask for a longer one", 503))  # fmt: skip
            except (InputError, RequestError) as error:
                return refused(error)
            if isinstance(data, str | bytes):
                return Response(data, media_type=work.media_type(name, query))
            # The CLI's own serialization, so that the bytes are those of `--json` too.
            return Response(contract.dumps(data), media_type="application/json")

        return handle

    def stream(kind: str) -> Any:
        """POST /api/KIND/stream: the work as JSON lines (see live)."""

        async def handle(request: Any) -> Any:
            try:
                return await live.handle(request, slots, bodies, kind)
            except (InputError, RequestError) as error:
                return refused(error)

        return handle

    async def index(_: Any) -> Any:
        return FileResponse(WEB / "index.html")

    async def favicon(_: Any) -> Any:
        return FileResponse(WEB / "favicon.svg", media_type="image/svg+xml")

    async def webpbn(request: Any) -> Any:
        from satnono.formats import read_text

        try:
            digits = request.path_params["puzzle_id"]
            if not (digits.isascii() and digits.isdigit() and len(digits) <= MAX_ID_DIGITS):
                raise InputError(f"a webpbn puzzle id is a number of at most {MAX_ID_DIGITS} "
                                 "digits", "puzzle_id")  # fmt: skip
            path = await asyncio.to_thread(satnono.fetch, "webpbn", int(digits))
            return JSONResponse({"text": read_text(path), "name": f"webpbn-{digits}.xml"})
        except InputError as error:
            return refused(error)

    routes = [
        Route("/", index),
        Route("/favicon.ico", favicon),
        *(Route(f"/api/{name}", endpoint(name), methods=["POST"])
          for name in ("solve", "count", "analyze", "author", "picture", "convert",
                       "certificate", "hint")),
        *(Route(f"/api/{kind}/stream", stream(kind), methods=["POST"])
          for kind in ("solve", "count", "analyze")),
        # POST: a download and a write to the cache never start from a GET (a link or an
        # <img> of another page could send one).
        Route("/api/webpbn/{puzzle_id}", webpbn, methods=["POST"]),
        Mount("/static", StaticFiles(directory=WEB), name="static"),
    ]  # fmt: skip

    @contextlib.asynccontextmanager
    async def lifespan(_: Any) -> AsyncIterator[None]:
        yield
        slots.cancel_all()  # at shutdown every search stops, so the process ends at once

    app = Starlette(routes=routes, lifespan=lifespan)
    return SameOrigin(app, host, port)


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    open_browser: bool = False,
    on_ready: Callable[[str], None] | None = None,
    queue_wait: float | None = None,
    body_timeout: float | None = None,
    send_stall: float | None = None,
    head_timeout: float | None = None,
) -> None:
    """Run the app until Ctrl-C or SIGTERM (both stop it within SHUTDOWN_WAIT seconds).

    The port is bound here first, so that a port in use is an InputError before anything is
    announced; `on_ready(url)` is told the address then (port 0 picks a free port).
    `queue_wait` and `body_timeout` (seconds; None: guard's QUEUE_WAIT and BODY_TIMEOUT) are
    how long a request waits for a run slot before its 503, and how long its body may take to
    arrive before its 408; `send_stall` (None: connection's SEND_STALL) how long an answer may
    wait on a client that reads none of it before the connection is cut; `head_timeout` (None:
    connection's HEAD_TIMEOUT) how long a connection has to send a whole request head.
    """
    from satnono.core.extras import require

    for module in ("starlette", "uvicorn"):
        require(module, "serve")
    import uvicorn

    listening = _bind(host, port)
    port = listening.getsockname()[1]
    url = f"http://{host}:{port}/"
    if on_ready is not None:
        on_ready(url)
    if open_browser:
        import webbrowser

        threading.Timer(1.0, webbrowser.open, [url]).start()
    from satnono.serve.connection import GuardedProtocol
    from satnono.serve.guard import BODY_TIMEOUT, QUEUE_WAIT, Bodies, RunSlots

    slots = RunSlots(wait=QUEUE_WAIT if queue_wait is None else queue_wait)
    bodies = Bodies(timeout=BODY_TIMEOUT if body_timeout is None else body_timeout)

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            # Runs stop first, so that each request is answered within the graceful wait;
            # uvicorn would otherwise cancel it mid-run (a 500 and a CancelledError).
            slots.cancel_all()
            super().handle_exit(sig, frame)

    config = uvicorn.Config(
        create_app(host, port, slots, bodies), log_level="warning", timeout_keep_alive=KEEP_ALIVE,
        limit_concurrency=CONNECTIONS, timeout_graceful_shutdown=SHUTDOWN_WAIT,
        http=GuardedProtocol.with_limits(send_stall, head_timeout),
    )  # fmt: skip
    Server(config).run(sockets=[listening])


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port, or InputError saying why not (in use, no such host)."""
    import os

    from satnono import InputError

    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    except (socket.gaierror, UnicodeError) as error:
        reason = getattr(error, "strerror", None) or error
        raise InputError(f"cannot resolve {host!r}: {reason}", "host") from None
    try:
        return socket.create_server((host, port), family=family, backlog=CONNECTIONS)
    except OSError as error:
        reason = os.strerror(error.errno) if error.errno else error
        raise InputError(f"cannot listen on {host}:{port}: {reason}", "port") from None
