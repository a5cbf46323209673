"""How the web server holds up under stalled uploads: a measurement for BENCHMARKS.md.

`python tools/measure_stalled_uploads.py [--connections 30] [--port 8765]` starts `satnono
serve`, opens the connections, has each declare a body just under 4 MiB, send all but 1,000
bytes of it and stall; then it reports the server's peak memory (VmRSS, Linux) and when each
connection was answered and closed by the server.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time

SIZE = 4 * 1024 * 1024 - 10


def resident_mb(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024
    return 0


def stalled_upload(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(
        f"POST /api/solve HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Length: {SIZE}\r\n\r\n".encode()
    )
    sock.setblocking(False)
    sent, chunk, started = 0, b"x" * 65536, time.monotonic()
    while sent < SIZE - 1000 and time.monotonic() - started < 2:
        try:
            sent += sock.send(chunk[: min(len(chunk), SIZE - 1000 - sent)])
        except BlockingIOError:
            time.sleep(0.01)
    return sock


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=30)
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    command = [sys.executable, "-m", "satnono", "serve", "--port", str(args.port)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(3)
        print(f"server at start: {resident_mb(server.pid)} MB")
        sockets = [stalled_upload(args.port) for _ in range(args.connections)]
        peak, started = 0, time.monotonic()
        answered: dict[int, tuple[float, bytes]] = {}
        closed: dict[int, float] = {}
        while time.monotonic() - started < 45 and len(closed) < len(sockets):
            peak = max(peak, resident_mb(server.pid))
            for number, sock in enumerate(sockets):
                if number in closed:
                    continue
                try:
                    data = sock.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    closed[number] = time.monotonic() - started
                elif number not in answered:
                    answered[number] = (time.monotonic() - started, data[:12])
            time.sleep(0.2)
        kinds = sorted({kind.decode() for _, kind in answered.values()})
        print(f"peak: {peak} MB")
        print(
            f"answered: {len(answered)} of {len(sockets)} ({', '.join(kinds)}), the last after "
            f"{max((t for t, _ in answered.values()), default=0):.1f} s"
        )
        print(
            f"closed by the server: {len(closed)}, the last after "
            f"{max(closed.values(), default=0):.1f} s"
        )
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
