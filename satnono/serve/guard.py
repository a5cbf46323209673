"""What keeps the web server answering: run slots released on every path, limits on what a
client controls (bodies, waits, message length), and only the page's own origin and host.

Every endpoint (a search, a picture, a conversion: all of them are work) takes a slot through
`RunSlots.lease()`: at most CONCURRENCY runs at once, a request that waits QUEUE_WAIT seconds
for one gets 503, and the lease is given back however the request ends (answer, error,
timeout, dropped connection, cancel, shutdown).
Each run's deadline is registered with the slots, so a dropped request and a shutdown cancel
the search behind it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import satnono
from satnono import InputError

#: Searches running at once; more wait up to QUEUE_WAIT seconds, then get HTTP 503 (each run
#: may use every core for its race).
CONCURRENCY = 2
QUEUE_WAIT = 10.0
#: Largest request body (puzzle text) accepted; real puzzle files are a few hundred KB at most.
MAX_BODY = 4 * 1024 * 1024
#: Bodies being read at once (each held in memory up to MAX_BODY), and the time allowed to
#: send one: a client that stalls is cut off instead of holding memory.
BODIES = 8
BODY_TIMEOUT = 10.0
#: Longest error message sent back: quotes of what a client sent are cut well before this.
MAX_MESSAGE = 300


class RequestError(Exception):
    """A request the API refuses: HTTP `status` with {"error": message}."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def error_body(error: Exception) -> tuple[dict[str, str], int]:
    """The JSON body and status of a refused request; the message is cut to MAX_MESSAGE."""
    status = error.status if isinstance(error, RequestError) else 400
    message = str(error)
    if len(message) > MAX_MESSAGE:
        message = message[: MAX_MESSAGE - 3] + "..."
    return {"error": message}, status


class Lease:
    """One run slot, held until `release()` (idempotent); `deadline` stops the run."""

    def __init__(self, slots: RunSlots, deadline: satnono.Deadline) -> None:
        self.slots = slots
        self.deadline = deadline
        self.released = False

    def release(self) -> None:
        self.deadline.cancel()  # whatever still runs under this lease stops now
        self.slots.running.discard(self)
        if not self.released:
            self.released = True
            self.slots.free.release()


class RunSlots:
    """The run slots every endpoint shares (see the module's docstring)."""

    def __init__(self, size: int = CONCURRENCY, wait: float = QUEUE_WAIT) -> None:
        self.free = asyncio.Semaphore(size)
        self.wait = wait
        self.running: set[Lease] = set()
        #: Set at shutdown: a run that ends then is answered 503, not with its cut result.
        self.closing = False

    async def lease(self, timeout: float | None) -> Lease:
        """A slot within `wait` seconds, else RequestError 503; its deadline is `timeout`."""
        try:
            await asyncio.wait_for(self.free.acquire(), self.wait)
        except TimeoutError:
            raise RequestError("the server is busy: try again", 503) from None
        lease = Lease(self, satnono.Deadline(timeout))
        self.running.add(lease)
        return lease

    def cancel_all(self) -> None:
        """At shutdown: every run stops now, so the process can end at once (called from the
        signal handler, before the server's graceful wait, so that each request is answered
        within it rather than cancelled mid-run)."""
        self.closing = True
        for lease in list(self.running):
            lease.deadline.cancel()


class Bodies:
    """The request bodies being read: at most `at_once` (each held in memory up to MAX_BODY),
    each within `timeout` seconds (a client that stalls is cut off instead of holding memory)."""

    def __init__(self, at_once: int = BODIES, timeout: float = BODY_TIMEOUT) -> None:
        self.free = asyncio.Semaphore(at_once)
        self.timeout = timeout

    async def read(self, request: Any) -> str:
        """The request's text: refused past MAX_BODY (before it is all read), if not UTF-8,
        when it takes over `timeout` seconds to arrive, or when `at_once` others are being
        read."""
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_BODY:
            raise RequestError(f"the request is over {MAX_BODY} bytes, the limit", 413)
        try:
            await asyncio.wait_for(self.free.acquire(), 1.0)
        except TimeoutError:
            message = "the server is busy reading other requests: try again"
            raise RequestError(message, 503) from None
        try:
            return await asyncio.wait_for(_read(request), self.timeout)
        except TimeoutError:
            message = f"the request took over {self.timeout:g} s to arrive"
            raise RequestError(message, 408) from None
        finally:
            self.free.release()


async def _read(request: Any) -> str:
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise RequestError(f"the request is over {MAX_BODY} bytes, the limit", 413)
        chunks.append(chunk)
    try:
        return b"".join(chunks).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", "request") from None


Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class SameOrigin:
    """ASGI middleware: only the page itself may drive the API.

    A request whose Host is not an address this server serves (127.0.0.1, localhost, [::1]
    or the --host given, with its port) gets 403, so a rebound DNS name cannot reach the API.
    A request to the API whose Origin is another site's, or that the browser marks as sent
    from another site (Sec-Fetch-Site: cross-site or same-site, which an `<img>` or a link
    of another page sends without an Origin), gets 403 before any work, whatever its method:
    no other page the user visits can make the browser post to it (a text/plain POST needs
    no preflight) or start a download through it.
    """

    def __init__(self, app: Any, host: str, port: int) -> None:
        self.app = app
        names = {"127.0.0.1", "localhost", "[::1]", host if ":" not in host else f"[{host}]"}
        self.hosts = {f"{name}:{port}" for name in names} | (names if port == 80 else set())
        self.origins = {f"http://{host}" for host in self.hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
            host = headers.get("host", "").lower()
            origin = headers.get("origin")
            if host not in self.hosts:
                await _forbidden(send, "this server answers only to its own address")
                return
            foreign = (origin is not None and origin not in self.origins) or headers.get(
                "sec-fetch-site"
            ) in ("cross-site", "same-site")
            if foreign and (scope["method"] != "GET" or scope["path"].startswith("/api/")):
                await _forbidden(send, "only the page of this server may use its API")
                return
        await self.app(scope, receive, send)


async def _forbidden(send: Send, message: str) -> None:
    from satnono.output import contract

    body = contract.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": 403,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})  # fmt: skip
    await send({"type": "http.response.body", "body": body})
