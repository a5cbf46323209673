"""Helpers for the web server's tests: a real `satnono serve` on a free port, and clients
that speak HTTP by hand (raw sockets, so that a test can misbehave as a hostile client does)."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

from support import EXAMPLES, SATNONO

LONG = (EXAMPLES / "permutation-9.non").read_bytes()  # 9! solutions: a stream that runs long


@contextlib.contextmanager
def running_server(
    stderr: int = subprocess.DEVNULL, options: tuple[str, ...] = ()
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`satnono serve` on a free port, once it answers; stopped (or killed) at the end.
    `stderr=subprocess.PIPE` keeps its log for the caller; `options` go to `serve`."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [*SATNONO, "serve", "--port", str(port), *options],
        stdout=subprocess.DEVNULL,
        stderr=stderr,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(url + "/", timeout=1).close()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, "no server"
                time.sleep(0.1)
        yield url, process
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(10)


def post(url: str, body: bytes) -> tuple[int, bytes]:
    request = urllib.request.Request(url, body, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def connect(server: str, timeout: float = 20) -> socket.socket:
    host, port = server.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=timeout)


def host_of(server: str) -> str:
    return server.removeprefix("http://")


def raw(server: str, headers: str, body: bytes = b"") -> bytes:
    """The first bytes of the answer to `headers` ("{host}" filled in) and `body`."""
    with connect(server) as sock:
        sock.sendall(headers.format(host=host_of(server)).encode() + body)
        return sock.recv(4096)


def open_stream(
    server: str, body: bytes = LONG, timeout: float = 60, receive_buffer: int | None = None
) -> socket.socket:
    """A /api/solve/stream request whose answer has started (its run slot is taken)."""
    sock = connect(server)
    if receive_buffer is not None:  # a client that reads nothing fills this, then the server's
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.sendall(
        f"POST /api/solve/stream?max_solutions=0&timeout={timeout} HTTP/1.1\r\n"
        f"Host: {host_of(server)}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    assert sock.recv(12).startswith(b"HTTP/1.1 200")
    return sock


def solve_quickly(server: str) -> float:
    """Seconds to solve a small puzzle through the API (asserting the right answer)."""
    started = time.monotonic()
    status, body = post(f"{server}/api/solve?name=duck.non", (EXAMPLES / "duck.non").read_bytes())
    assert status == 200 and json.loads(body)["status"] == "unique", body[:200]
    return time.monotonic() - started


def closed_by_server(sock: socket.socket, within: float) -> bool:
    """Whether the server closes `sock` within `within` seconds (reading what it sends)."""
    end = time.monotonic() + within
    while (left := end - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            if not sock.recv(65536):
                return True
        except TimeoutError:
            return False
        except OSError:  # reset: closed too
            return True
    return False
