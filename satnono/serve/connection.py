"""Time limits per connection and per phase, which uvicorn does not have: a client that sends
nothing, sends its request head a byte at a time, or reads nothing of an answer holds a
connection (and its place among CONNECTIONS) for a bounded time only.

Phases: the request head must arrive within HEAD_TIMEOUT seconds of the connection opening or
of the previous answer's end (uvicorn's keep-alive timer is dropped on any byte, so a slow
head would escape it); the body has guard.BODY_TIMEOUT; the run its deadline; and an answer
that the client stops reading for SEND_STALL seconds is cut off (the run behind it is cancelled
as for a dropped connection).

Whether a client reads is what its TCP stack acknowledges (Linux TCP_INFO's bytes acked),
looked at every WATCH_EVERY seconds while part of an answer is still unsent: a stall is timed
from the client's last read, whatever the server's buffers hold, and a client reading a large
answer slowly is never cut while it reads (the next head's limit starts once it has it all).
Where the kernel does not say, the stall is timed from when the server's buffer filled.
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
#: Seconds between looks at whether a client still reads the answer it is sent.
WATCH_EVERY = 1.0


class GuardedProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with the head and send limits above (`head_within`: the
    head limit; `stalled_after`: the send limit)."""

    head_within = HEAD_TIMEOUT
    stalled_after = SEND_STALL

    @classmethod
    def with_limits(
        cls, send_stall: float | None = None, head_timeout: float | None = None
    ) -> type[GuardedProtocol]:
        """The protocol of a server with these limits in seconds (None: SEND_STALL,
        HEAD_TIMEOUT)."""
        limits = {"stalled_after": send_stall, "head_within": head_timeout}
        given = {name: seconds for name, seconds in limits.items() if seconds is not None}
        return type("GuardedProtocol", (cls,), given) if given else cls

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.head_timer: asyncio.TimerHandle | None = None
        self.stall_timer: asyncio.TimerHandle | None = None
        self.watch_timer: asyncio.TimerHandle | None = None
        self.acked: int | None = None  # bytes the client has received, where the kernel says
        self.read_at = 0.0  # when it last received any (loop time)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.acked = _acked(transport.get_extra_info("socket"))
        self.read_at = self.loop.time()
        self._wait_for_head()
        if self.acked is not None:
            self.watch_timer = self.loop.call_later(WATCH_EVERY, self._watch)

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

    def timeout_keep_alive_handler(self) -> None:
        """uvicorn's keep-alive limit closes the connection gracefully, which left an answer
        the client had not yet received to the kernel (a stalled client then kept the
        connection for minutes): while the client still receives one, the head limit and the
        watch decide instead."""
        if not self._receiving():
            super().timeout_keep_alive_handler()

    def pause_writing(self) -> None:
        super().pause_writing()
        if self.stall_timer is None and self.acked is None:  # else the watch times stalls
            self.stall_timer = self.loop.call_later(self.stalled_after, self._cut_off)

    def resume_writing(self) -> None:
        if self.stall_timer is not None:
            self.stall_timer.cancel()
            self.stall_timer = None
        super().resume_writing()

    def _wait_for_head(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
        self.head_timer = self.loop.call_later(self.head_within, self._head_due)

    def _head_due(self) -> None:
        """No request head in time: cut off, unless the client is still receiving the previous
        answer (then its next head has `head_within` more; the watch cuts it if it stalls)."""
        self.head_timer = None
        if self._receiving():
            self._wait_for_head()
        else:
            self._cut_off()

    def _watch(self) -> None:
        """Every WATCH_EVERY seconds: note whether the client received anything since the
        last look; cut it off once it has received nothing for `stalled_after` seconds while part
        of an answer waits for it."""
        self.watch_timer = None
        acked = _acked(self.transport.get_extra_info("socket"))
        now = self.loop.time()
        if acked is None:  # the socket is gone: the connection is ending
            return
        if acked != self.acked or not self._unread():
            self.acked, self.read_at = acked, now
        elif now - self.read_at >= self.stalled_after:
            self._cut_off()
            return
        self.watch_timer = self.loop.call_later(WATCH_EVERY, self._watch)

    def _receiving(self) -> bool:
        """Whether the watch sees the client still receiving an answer (part of it unread)."""
        return self.watch_timer is not None and self._unread() > 0

    def _unread(self) -> int:
        """Bytes of answers not yet received by the client: in the server's buffer and in
        the kernel's."""
        return self.transport.get_write_buffer_size() + _unsent(
            self.transport.get_extra_info("socket")
        )

    def _cut_off(self) -> None:
        """Close the connection now: nothing more is owed to this client. The answer being
        sent, if any, ends as for a dropped connection (its run is cancelled). What the client
        left unread is dropped with a reset: a plain close would leave the kernel holding it
        (megabytes on loopback) for as long as the client keeps its connection open."""
        self._cancel_timers()
        if self.transport.is_closing() and not self.flow.write_paused:
            return
        sock = self.transport.get_extra_info("socket")
        if sock is not None and (self.transport.get_write_buffer_size() or _unsent(sock)):
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.transport.abort()

    def _cancel_timers(self) -> None:
        for timer in (self.head_timer, self.stall_timer, self.watch_timer):
            if timer is not None:
                timer.cancel()
        self.head_timer = self.stall_timer = self.watch_timer = None


def _acked(sock: Any) -> int | None:
    """Bytes of this connection the client's TCP stack has acknowledged (Linux TCP_INFO's
    tcpi_bytes_acked, at byte 120 since Linux 4.1); None where the kernel does not say."""
    tcp_info = getattr(socket, "TCP_INFO", None)
    if sock is None or tcp_info is None:
        return None
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, tcp_info, 128)
    except OSError:
        return None
    return int(struct.unpack_from("Q", info, 120)[0]) if len(info) >= 128 else None


def _unsent(sock: Any) -> int:
    """Bytes the kernel still holds for the client (Linux SIOCOUTQ; 0 where unknown)."""
    try:
        import fcntl
        import termios

        queued = fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0\0\0\0")
    except (ImportError, OSError, AttributeError):
        return 0
    return int(struct.unpack("i", queued)[0])
