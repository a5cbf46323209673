"""`satnono serve`: the JSON API against a real uvicorn server (the CLI's objects, 400s with
the CLI's line, limits), and the page in a real headless Chromium (solve, author's mode)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from support import EXAMPLES, SATNONO, run_satnono

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@contextlib.contextmanager
def _running_server(
    stderr: int = subprocess.DEVNULL,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`satnono serve` on a free port, once it answers; stopped (or killed) at the end.
    `stderr=subprocess.PIPE` keeps its log for the caller."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [*SATNONO, "serve", "--port", str(port)], stdout=subprocess.DEVNULL, stderr=stderr
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


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with _running_server() as (url, _):
        yield url


def post(url: str, body: bytes) -> tuple[int, bytes]:
    request = urllib.request.Request(url, body, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def cli_json(*args: str) -> dict[str, object]:
    done = run_satnono(*args, "--json")
    return json.loads(done.stdout)  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("command", "example"),
    [("solve", "switches-8.non"), ("count", "permutation-9.non"), ("analyze", "switches-8.non")],
)
def test_the_api_answers_the_clis_objects(server: str, command: str, example: str) -> None:
    path = EXAMPLES / example
    status, body = post(f"{server}/api/{command}?name={example}", path.read_bytes())
    assert status == 200
    ours = json.loads(body)
    theirs = cli_json(command, str(path))
    assert list(ours) == list(theirs)  # the same fields, in the same order
    for volatile in ("file", "seconds", "stats", "factors", "backend", "solver"):
        ours.pop(volatile, None)
        theirs.pop(volatile, None)
    assert ours == theirs


def test_bad_input_is_400_with_the_clis_line(server: str, tmp_path: Path) -> None:
    bad = tmp_path / "bad.non"
    bad.write_text("width 2\nheight x\n")
    status, body = post(f"{server}/api/solve?name=bad.non", bad.read_bytes())
    assert status == 400
    cli = run_satnono("solve", str(bad))
    line = cli.stderr.strip().removeprefix("satnono: error: ")
    assert json.loads(body)["error"] == line.replace(str(bad), "bad.non")
    status, body = post(f"{server}/api/solve?backend=quantum", (EXAMPLES / "duck.non").read_bytes())
    assert status == 400 and "unknown backend 'quantum'" in json.loads(body)["error"]
    # A blotted number: solved, written as XML, refused by a format that cannot hold it.
    blotted = b"width 3\nheight 3\nrows\n?\n1 1\n?\ncolumns\n?\n1\n?\n"
    status, body = post(f"{server}/api/count?name=b.non", blotted)
    assert status == 200 and json.loads(body)["count"] == 16
    status, body = post(f"{server}/api/convert?name=b.non&to=xml", blotted)
    assert status == 200 and b"<count>0</count>" in body
    status, body = post(f"{server}/api/convert?name=b.non&to=g", blotted)
    assert status == 400 and "cannot hold a blotted" in json.loads(body)["error"]


def test_limits_and_no_file_system(server: str) -> None:
    # A declared size over the limit is refused before the body is read.
    host, port = server.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(f"POST /api/solve HTTP/1.1\r\nHost: {host}:{port}\r\n"
                     "Content-Length: 100000000\r\n\r\n".encode())  # fmt: skip
        assert sock.recv(100).startswith(b"HTTP/1.1 413")
    status, body = post(f"{server}/api/solve?timeout=999", (EXAMPLES / "duck.non").read_bytes())
    assert status == 400 and "timeout" in json.loads(body)["error"]
    # The name only picks a format: the text posted is what is read, never a server path.
    status, body = post(f"{server}/api/solve?name=/etc/passwd", b"width 1\n")
    assert status == 400 and "passwd:" in json.loads(body)["error"]


def test_the_stream_ends_with_the_solve_object(server: str) -> None:
    status, body = post(f"{server}/api/solve/stream?name=s.non&max_solutions=3",
                        (EXAMPLES / "switches-8.non").read_bytes())  # fmt: skip
    events = [json.loads(line) for line in body.decode().splitlines()]
    assert status == 200 and events[-1]["event"] == "done"
    assert sum(e["event"] == "solution" for e in events) == 3
    assert events[-1]["result"]["solutions_found"] == 3


# --- never locked up, only its own page (issue 20) -----------------------------------------------

LONG = (EXAMPLES / "permutation-9.non").read_bytes()  # 9! solutions: a stream that runs long


def _open_stream(server: str, body: bytes = LONG) -> socket.socket:
    """A /api/solve/stream request whose answer has started (its run slot is taken)."""
    host, port = server.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=20)
    sock.sendall(
        f"POST /api/solve/stream?max_solutions=0&timeout=60 HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    assert sock.recv(12).startswith(b"HTTP/1.1 200")
    return sock


def _solve_quickly(server: str) -> float:
    started = time.monotonic()
    status, body = post(f"{server}/api/solve?name=duck.non", (EXAMPLES / "duck.non").read_bytes())
    assert status == 200 and json.loads(body)["status"] == "unique"
    return time.monotonic() - started


def test_dropped_streams_give_their_slots_back(server: str) -> None:
    for _ in range(3):
        _open_stream(server).close()  # a closed tab, a Cancel click
    assert _solve_quickly(server) < 5
    for _ in range(3):
        sock = _open_stream(server)
        sock.shutdown(socket.SHUT_RDWR)
        sock.close()
    assert _solve_quickly(server) < 5


def test_a_third_stream_waits_then_gets_503(server: str) -> None:
    first, second = _open_stream(server), _open_stream(server)
    try:
        started = time.monotonic()
        status, body = post(f"{server}/api/solve/stream?name=d.non", LONG)
        assert status == 503 and "busy" in json.loads(body)["error"]
        assert time.monotonic() - started < 11
    finally:
        first.close()
        second.close()
    assert _solve_quickly(server) < 5


def _raw(server: str, headers: str, body: bytes = b"") -> bytes:
    host, port = server.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=20) as sock:
        sock.sendall(headers.format(host=f"{host}:{port}").encode() + body)
        return sock.recv(4096)


def test_only_the_pages_own_origin_and_host_drive_the_api(server: str) -> None:
    duck = (EXAMPLES / "duck.non").read_bytes()
    evil_origin = _raw(
        server,
        "POST /api/solve HTTP/1.1\r\nHost: {host}\r\nOrigin: "
        f"http://evil.example\r\nContent-Length: {len(duck)}\r\n\r\n",
        duck,
    )
    assert evil_origin.startswith(b"HTTP/1.1 403")
    evil_host = _raw(
        server,
        f"POST /api/solve HTTP/1.1\r\nHost: evil.example\r\nContent-Length: {len(duck)}\r\n\r\n",
        duck,
    )
    assert evil_host.startswith(b"HTTP/1.1 403")
    own = _raw(
        server,
        "POST /api/solve HTTP/1.1\r\nHost: {host}\r\nOrigin: http://{host}\r\n"
        f"Content-Length: {len(duck)}\r\n\r\n",
        duck,
    )
    assert own.startswith(b"HTTP/1.1 200")


def test_no_request_from_another_site_has_an_effect(server: str) -> None:
    """An <img> or a link of another page sends a GET, with Sec-Fetch-Site and perhaps an
    Origin: the API refuses it before any work, and a download never starts from a GET."""
    for headers in ("Origin: http://evil.example\r\n", "Sec-Fetch-Site: cross-site\r\n"):
        for method in ("GET", "POST"):
            answer = _raw(server, f"{method} /api/webpbn/4242 HTTP/1.1\r\nHost: {{host}}\r\n"
                                  f"{headers}Content-Length: 0\r\n\r\n")  # fmt: skip
            assert answer.startswith(b"HTTP/1.1 403"), (method, headers, answer[:80])
    plain_get = _raw(server, "GET /api/webpbn/4242 HTTP/1.1\r\nHost: {host}\r\n\r\n")
    assert plain_get.startswith(b"HTTP/1.1 405")


@pytest.mark.parametrize(
    ("endpoint", "body"),
    [
        ("picture", {"puzzle": "DUCK", "caption": 5}),
        ("picture", {"puzzle": "DUCK", "solution": 5}),
        ("picture", {"puzzle": "DUCK", "partial": 5}),
        ("picture", {"puzzle": "DUCK", "solution": [5]}),
        ("picture", {"puzzle": 5}),
        ("picture", [1, 2]),
        ("author", "[" * 100_000),
        ("picture", "{" * 100_000),
        ("webpbn/" + "9" * 5000, ""),
        ("webpbn/12a", ""),
    ],
)
def test_malformed_requests_get_400_never_500(server: str, endpoint: str, body: object) -> None:
    duck = (EXAMPLES / "duck.non").read_text()
    if isinstance(body, dict):
        body = {key: duck if value == "DUCK" else value for key, value in body.items()}
    data = body if isinstance(body, str) else json.dumps(body)
    status, answer = post(f"{server}/api/{endpoint}?name=duck.non", data.encode())
    assert status == 400, answer[:200]
    assert "error" in json.loads(answer)


def test_a_stalled_body_is_cut_off(server: str) -> None:
    started = time.monotonic()
    answer = _raw(server, "POST /api/solve HTTP/1.1\r\nHost: {host}\r\nContent-Length: 100\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 408") and time.monotonic() - started < 15


def test_stalled_uploads_are_answered_and_closed(server: str) -> None:
    """Twelve uploads that stop short of their length: each gets 408 or 503 and its
    connection is closed, within the body timeout."""
    host, port = server.removeprefix("http://").split(":")
    size = 1024 * 1024
    sockets = []
    for _ in range(12):
        sock = socket.create_connection((host, int(port)), timeout=30)
        sock.sendall(f"POST /api/solve HTTP/1.1\r\nHost: {host}:{port}\r\n"
                     f"Content-Length: {size}\r\n\r\n".encode() + b"x" * (size // 2))  # fmt: skip
        sockets.append(sock)
    started = time.monotonic()
    for sock in sockets:
        with sock:
            answer = sock.recv(12)
            assert answer in (b"HTTP/1.1 408", b"HTTP/1.1 503"), answer
            with contextlib.suppress(ConnectionResetError):  # closed with our bytes unread
                while sock.recv(65536):  # the server closes the connection after its answer
                    pass
    assert time.monotonic() - started < 20
    assert _solve_quickly(server) < 5


def test_the_authors_palette_is_checked(server: str) -> None:
    def author(palette: list[dict[str, str]], rows: list[str]) -> tuple[int, dict[str, object]]:
        status, body = post(
            f"{server}/api/author", json.dumps({"rows": rows, "palette": palette}).encode()
        )
        return status, json.loads(body)

    many = [{"char": chr(0x100 + n), "rgb": f"#{n:06x}"} for n in range(70)]
    status, data = author(many, ["".join(c["char"] for c in many[:5])])
    assert status == 400 and "at most" in str(data["error"])
    status, data = author([{"char": "a", "rgb": '"><x'}], ["a."])
    assert status == 400 and "#rrggbb" in str(data["error"])
    status, data = author(
        [{"char": "a", "rgb": "#ff0000"}, {"char": "a", "rgb": "#00ff00"}], ["a."]
    )
    assert status == 400 and "two colors" in str(data["error"])
    status, data = author(
        [{"char": "a", "rgb": "#ff0000"}, {"char": "b", "rgb": "#00ff00"}], ["ab"]
    )
    assert status == 200 and "non" in data


def test_answers_say_what_they_are_and_errors_stay_short(server: str) -> None:
    duck = (EXAMPLES / "duck.non").read_bytes()
    request = urllib.request.Request(f"{server}/api/convert?to=non&name=d.non", duck, method="POST")
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.headers["Content-Type"].startswith("text/plain")
    status, body = post(f"{server}/api/solve?timeout={'9' * 60000}", b"width 1\n")
    assert status == 400 and len(body) < 400
    with urllib.request.urlopen(f"{server}/favicon.ico", timeout=10) as response:
        assert response.status == 200


def test_sigterm_stops_the_server_at_once_whatever_runs() -> None:
    with _running_server() as (url, process):
        stream = _open_stream(url)
        palette = [{"char": chr(0x100 + n), "rgb": "#000000"} for n in range(70)]
        status, _ = post(
            f"{url}/api/author", json.dumps({"rows": ["a"], "palette": palette}).encode()
        )
        assert status == 400
        started = time.monotonic()
        process.terminate()
        process.wait(10)
        assert time.monotonic() - started < 2
        stream.close()


@pytest.mark.parametrize("backend", ["backtrack", "cpsat", "portfolio", "sat"])
def test_sigterm_during_a_solve_answers_it_and_logs_no_traceback(backend: str) -> None:
    """SIGTERM while a solve ran on backtrack, cpsat or portfolio gave the client 500 and the
    log a CancelledError: the runs were cancelled only after the graceful wait."""
    import random

    from satnono.formats import FORMATS
    from satnono.generate import puzzle_from_grid, random_grid

    hard = puzzle_from_grid(random_grid(45, 45, 2, 0.45, random.Random(45)))
    text = FORMATS["non"].write([hard]).encode()
    with _running_server(stderr=subprocess.PIPE) as (url, process):
        answer: dict[str, object] = {}

        def solve() -> None:
            answer["reply"] = post(f"{url}/api/solve?name=h.non&backend={backend}", text)

        client = threading.Thread(target=solve)
        client.start()
        time.sleep(2)  # the solve is running
        started = time.monotonic()
        process.terminate()
        _, log_bytes = process.communicate(timeout=10)
        client.join(10)
        assert time.monotonic() - started < 3
    log = log_bytes.decode()
    status, body = answer["reply"]  # type: ignore[misc]
    assert status == 503 and "shutting down" in json.loads(body)["error"], body
    assert "Traceback" not in log and "CancelledError" not in log, log[-2000:]


# --- in a real browser --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def page(server: str) -> Iterator[object]:
    if CHROMIUM is None:
        pytest.skip("no chromium: install Debian's chromium package to run the browser tests")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(server + "/")
        yield page
        browser.close()


def _shots(tmp_path: Path) -> Path:
    """Screenshots go to $SATNONO_SCREENSHOTS (the README's are made so), else a temp dir."""
    return Path(os.environ.get("SATNONO_SCREENSHOTS") or tmp_path)


def test_the_page_solves_a_color_puzzle(page: object, tmp_path: Path) -> None:
    page.fill("#text", (EXAMPLES / "sailboat-color.non").read_text())  # type: ignore[attr-defined]
    page.click("#solve")  # type: ignore[attr-defined]
    page.wait_for_selector("#picture svg", timeout=30_000)  # type: ignore[attr-defined]
    assert page.inner_text("#verdict") == "Unique solution"  # type: ignore[attr-defined]
    svg = page.inner_html("#picture")  # type: ignore[attr-defined]
    puzzle_colors = {"#1f6fd0", "#ffd21f"}  # two of the sailboat's colors
    assert any(color in svg.lower() for color in puzzle_colors), svg[:300]
    page.screenshot(path=str(_shots(tmp_path) / "web-solve.png"), full_page=True)  # type: ignore[attr-defined]


def test_the_authors_mode_marks_the_ambiguous_cells(page: object, tmp_path: Path) -> None:
    page.click("#tab-author")  # type: ignore[attr-defined]
    page.fill("#author-width", "6")  # type: ignore[attr-defined]
    page.fill("#author-height", "6")  # type: ignore[attr-defined]
    page.click("#author-resize")  # type: ignore[attr-defined]
    # A frame, and a diagonal pair inside it: the pair can flip, so 4 cells are ambiguous.
    for r, c in [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (2, 2), (3, 3)]:
        page.click(f'.cell[data-row="{r}"][data-col="{c}"]')  # type: ignore[attr-defined]
    page.wait_for_function(  # type: ignore[attr-defined]
        "document.getElementById('author-verdict').textContent.startsWith('Not unique')",
        timeout=30_000,
    )
    assert "4 ambiguous cells" in page.inner_text("#author-verdict")  # type: ignore[attr-defined]
    assert page.locator(".cell.ambiguous").count() == 4  # type: ignore[attr-defined]
    page.screenshot(path=str(_shots(tmp_path) / "web-author.png"), full_page=True)  # type: ignore[attr-defined]


def _solving_done(page: object) -> None:
    page.wait_for_selector("#solve:not([disabled])", timeout=30_000)  # type: ignore[attr-defined]


def test_cancel_three_times_then_solve_at_once(page: object, tmp_path: Path) -> None:
    page.click("#tab-solve")  # type: ignore[attr-defined]
    page.fill("#max", "0")  # type: ignore[attr-defined]
    page.fill("#timeout", "60")  # type: ignore[attr-defined]
    for attempt in range(3):
        page.fill("#text", LONG.decode())  # type: ignore[attr-defined]
        page.click("#solve")  # type: ignore[attr-defined]
        # Live progress: the grid is drawn while the search runs, with its phase and time.
        page.wait_for_selector("#picture svg", timeout=30_000)  # type: ignore[attr-defined]
        page.wait_for_function(  # type: ignore[attr-defined]
            "document.getElementById('phase').textContent.includes(' s')", timeout=30_000
        )
        if attempt == 0:
            page.screenshot(path=str(_shots(tmp_path) / "web-live.png"), full_page=True)  # type: ignore[attr-defined]
        page.click("#cancel")  # type: ignore[attr-defined]
        _solving_done(page)
        assert page.inner_text("#verdict") == "Cancelled."  # type: ignore[attr-defined]
    page.fill("#max", "2")  # type: ignore[attr-defined]
    page.fill("#text", (EXAMPLES / "duck.non").read_text())  # type: ignore[attr-defined]
    started = time.monotonic()
    page.click("#solve")  # type: ignore[attr-defined]
    page.wait_for_function(  # type: ignore[attr-defined]
        "document.getElementById('verdict').textContent === 'Unique solution'", timeout=10_000
    )
    assert time.monotonic() - started < 10


def test_a_new_action_clears_the_old_result(page: object, tmp_path: Path) -> None:
    page.click("#tab-solve")  # type: ignore[attr-defined]
    page.fill("#text", (EXAMPLES / "duck.non").read_text())  # type: ignore[attr-defined]
    page.click("#solve")  # type: ignore[attr-defined]
    page.wait_for_selector("#picture svg", timeout=30_000)  # type: ignore[attr-defined]
    _solving_done(page)
    page.fill("#text", (EXAMPLES / "switches-8.non").read_text())  # type: ignore[attr-defined]
    page.click("#count")  # type: ignore[attr-defined]
    assert page.inner_html("#picture") == ""  # type: ignore[attr-defined]
    page.wait_for_function(  # type: ignore[attr-defined]
        "document.getElementById('verdict').textContent.includes('solutions')", timeout=30_000
    )
    assert page.inner_html("#picture") == ""  # type: ignore[attr-defined]
    assert page.is_disabled("#download-svg")  # type: ignore[attr-defined]
    page.screenshot(path=str(_shots(tmp_path) / "web-cleared.png"), full_page=True)  # type: ignore[attr-defined]


def test_a_timeout_shows_the_grid_as_far_as_it_was_decided(page: object) -> None:
    page.click("#tab-solve")  # type: ignore[attr-defined]
    page.fill("#max", "2")  # type: ignore[attr-defined]
    page.fill("#timeout", "0")  # type: ignore[attr-defined]
    page.fill("#text", (EXAMPLES / "needs-search-25.non").read_text())  # type: ignore[attr-defined]
    page.click("#solve")  # type: ignore[attr-defined]
    _solving_done(page)
    page.wait_for_selector("#picture svg", timeout=30_000)  # type: ignore[attr-defined]
    assert page.inner_text("#verdict").startswith("Timeout")  # type: ignore[attr-defined]
    assert "hatch" in page.inner_html("#picture").lower()  # type: ignore[attr-defined]
    page.fill("#timeout", "30")  # type: ignore[attr-defined]


def test_a_count_after_a_timeout_says_none_was_counted(page: object) -> None:
    """The page said "at least 0 solutions (line logic ...)" where the CLI says no solution
    was counted, and "1 solutions" for one."""
    page.click("#tab-solve")  # type: ignore[attr-defined]
    page.fill("#timeout", "0")  # type: ignore[attr-defined]
    page.fill("#text", (EXAMPLES / "permutation-9.non").read_text())  # type: ignore[attr-defined]
    page.click("#count")  # type: ignore[attr-defined]
    page.wait_for_function(  # type: ignore[attr-defined]
        "document.getElementById('verdict').textContent.includes(' s)')", timeout=30_000
    )
    verdict = page.inner_text("#verdict")  # type: ignore[attr-defined]
    assert verdict.startswith("timeout before any solution was counted"), verdict
    page.fill("#timeout", "30")  # type: ignore[attr-defined]
    page.fill("#text", (EXAMPLES / "duck.non").read_text())  # type: ignore[attr-defined]
    page.click("#count")  # type: ignore[attr-defined]
    page.wait_for_function(  # type: ignore[attr-defined]
        "document.getElementById('verdict').textContent.includes(' s)')", timeout=30_000
    )
    assert page.inner_text("#verdict").startswith("1 solution (")  # type: ignore[attr-defined]


def test_a_busy_port_or_unknown_host_is_one_line_and_exit_2() -> None:
    # It printed "serving on ...", then uvicorn's error, and exited 3 (issue 23).
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        cases = ((["--port", str(port)], "--port"), (["--host", "no.such.invalid"], "--host"))
        for args, flag in cases:
            done = run_satnono("serve", *args, timeout=30)
            assert done.returncode == 2 and done.stdout == ""
            assert done.stderr.startswith(f"satnono: error: {flag}: ")
            assert len(done.stderr.splitlines()) == 1
