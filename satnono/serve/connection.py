"""Time limits per connection and per phase, which uvicorn does not have: a client that sends
nothing, sends its request head a byte at a time, or reads nothing of an answer holds a
connection (and its place among CONNECTIONS) for a bounded time only.

Phases: the request head must arrive within HEAD_TIMEOUT seconds of the connection opening or
of the previous answer's end (uvicorn's keep-alive timer is dropped on any byte, so a slow
head would escape it); the body has guard.BODY_TIMEOUT; the run its deadline; and an answer
that the client stops reading for SEND_STALL seconds is cut off (the run behind it is cancelled
as for a dropped connection).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

#: Seconds a connection has to send a whole request head (from its opening, or from the end
#: of its previous answer): an idle or trickling connection is closed then.
HEAD_TIMEOUT = 5.0
#: Seconds an answer may wait on a client that reads none of it before the connection is cut.
SEND_STALL = 10.0


class GuardedProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with the head and send limits above."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.head_timer: asyncio.TimerHandle | None = None
        self.stall_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._wait_for_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_timers()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        cycle = self.cycle
        super().handle_events()
        if self.cycle is not cycle and self.head_timer is not None:  # a whole head came
            self.head_timer.cancel()
            self.head_timer = None

    def on_response_complete(self) -> None:
        # Armed before uvicorn looks for a pipelined request, which disarms it at once.
        if not self.transport.is_closing():
            self._wait_for_head()
        super().on_response_complete()

    def pause_writing(self) -> None:
        super().pause_writing()
        if self.stall_timer is None:
            self.stall_timer = self.loop.call_later(SEND_STALL, self._cut_off)

    def resume_writing(self) -> None:
        if self.stall_timer is not None:
            self.stall_timer.cancel()
            self.stall_timer = None
        super().resume_writing()

    def _wait_for_head(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
        self.head_timer = self.loop.call_later(HEAD_TIMEOUT, self._cut_off)

    def _cut_off(self) -> None:
        """Close the connection now: nothing more is owed to this client. The answer being
        sent, if any, ends as for a dropped connection (its run is cancelled). What the client
        left unread is dropped with a reset: a plain close would leave the kernel holding it
        (megabytes on loopback) for as long as the client keeps its connection open."""
        self.head_timer = self.stall_timer = None
        if self.transport.is_closing() and not self.flow.write_paused:
            return
        sock = self.transport.get_extra_info("socket")
        if sock is not None and (self.transport.get_write_buffer_size() or _unsent(sock)):
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.transport.abort()

    def _cancel_timers(self) -> None:
        for timer in (self.head_timer, self.stall_timer):
            if timer is not None:
                timer.cancel()
        self.head_timer = self.stall_timer = None


def _unsent(sock: Any) -> int:
    """Bytes the kernel still holds for the client (Linux SIOCOUTQ; 0 where unknown)."""
    try:
        import fcntl
        import termios

        queued = fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0\0\0\0")
    except (ImportError, OSError, AttributeError):
        return 0
    return int(struct.unpack("i", queued)[0])
