"""Downloading webpbn puzzles, against a local server on 127.0.0.1 that mimics export.cgi.

No test touches the internet: every URL is the local server or a closed local port, and the
cache lives in tmp_path through SATNONO_CACHE_DIR.
"""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import platformdirs
import pytest

from satnono.errors import InputError
from satnono.formats import read_puzzle
from satnono.formats import sites as fetch
from satnono.formats.sites import endpoint, fetch_webpbn, resolve_puzzle_source

# A 3x2 puzzle: rows "##." and ".#.", so columns 1 / 2 / 0.
PUZZLE_XML = """<?xml version="1.0"?>
<!DOCTYPE pbn SYSTEM "https://webpbn.com/pbn-0.3.dtd">
<puzzleset>
<puzzle type="grid" defaultcolor="black">
<source>webpbn.com</source>
<id>#{id}</id>
<title>Tiny &amp; test &copy;</title>
<color name="white" char=".">fff</color>
<color name="black" char="X">000</color>
<clues type="columns">
<line><count>1</count></line>
<line><count>2</count></line>
<line></line>
</clues>
<clues type="rows">
<line><count>2</count></line>
<line><count>1</count></line>
</clues>
</puzzle>
</puzzleset>
"""

# What the server does for each id; any other id gets webpbn's "does not exist" text.
VALID, LATIN1, SERVER_ERROR, SLOW, TRICKLE, HUGE, HUGE_UNDECLARED = 1, 2, 3, 4, 5, 6, 7
EMPTY, BROKEN_XML, NOT_PUBLISHED, HTML_PAGE, EMPTY_SET = 8, 9, 10, 11, 12
TO_FTP, NOT_HTTP = 13, 14
MISSING = 99


@dataclass
class Endpoint:
    url: str
    requests: list[dict[str, str]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    #: A port where a listener records whether anything connects (the redirect test).
    ftp_port: int = 0

    def count(self) -> int:
        return len(self.requests)


def _handler(state: Endpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            form = urllib.parse.parse_qs(self.rfile.read(length).decode("ascii"))
            fields = {key: values[0] for key, values in form.items()}
            state.requests.append(
                {**fields, "_type": self.headers.get("Content-Type", ""), "_path": self.path}
            )
            with contextlib.suppress(OSError):  # the client gave up first (timeout tests)
                self.answer(int(fields.get("id", "0")))

        def send(
            self, status: int, body: bytes, ctype: str = "text/plain", length: bool = True
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            if length:
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def answer(self, puzzle_id: int) -> None:
            xml = PUZZLE_XML.replace("{id}", str(puzzle_id))
            if puzzle_id == VALID:
                self.send(200, xml.encode(), "text/xml; charset=utf-8")
            elif puzzle_id == LATIN1:
                latin = xml.replace('"1.0"?>', '"1.0" encoding="ISO-8859-1"?>', 1)
                self.send(200, latin.replace("Tiny", "Café").encode("latin-1"), "text/xml")
            elif puzzle_id == SERVER_ERROR:
                self.send(500, b"Internal Server Error\n")
            elif puzzle_id == SLOW:
                state.release.wait(10)
                self.send(200, xml.encode())
            elif puzzle_id == TRICKLE:
                self.send_response(200)
                self.end_headers()
                for byte in xml.encode():
                    if state.release.wait(0.05):
                        return
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
            elif puzzle_id in (HUGE, HUGE_UNDECLARED):
                body = xml.encode() + b"<!--" + b"x" * 10_000 + b"-->"
                self.send(200, body, "text/xml", length=puzzle_id == HUGE)
            elif puzzle_id == EMPTY:
                self.send(200, b"")
            elif puzzle_id == BROKEN_XML:
                self.send(200, xml.replace("</puzzleset>", "").encode(), "text/xml")
            elif puzzle_id == NOT_PUBLISHED:
                self.send(200, f"Puzzle {puzzle_id} has not been published\n".encode())
            elif puzzle_id == HTML_PAGE:
                page = "<html><head><title>Oops</title></head><body><h1>Error</h1></body></html>"
                self.send(200, page.encode(), "text/html")
            elif puzzle_id == TO_FTP:
                self.send_response(302)
                self.send_header("Location", f"ftp://127.0.0.1:{state.ftp_port}/x.xml")
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif puzzle_id == NOT_HTTP:  # not an HTTP status line, over two lines
                self.wfile.write(b"SSH-2.0-OpenSSH\r\nProtocol mismatch.\r\n")
            elif puzzle_id == EMPTY_SET:
                self.send(200, b'<?xml version="1.0"?>\n<puzzleset>\n</puzzleset>\n', "text/xml")
            else:
                self.send(200, f"Puzzle {puzzle_id} does not exist\n".encode())

    return Handler


@pytest.fixture
def server() -> Iterator[Endpoint]:
    state = Endpoint("")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    host, port = httpd.server_address[:2]
    state.url = f"http://{host!s}:{port}/export.cgi"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.release.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


@pytest.fixture
def closed_url() -> str:
    """A URL on a local port that nothing listens on: what being offline looks like."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/export.cgi"


@pytest.fixture(autouse=True)
def hermetic(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Cache in tmp_path, no endpoint override, and no proxy between us and 127.0.0.1."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("SATNONO_CACHE_DIR", str(cache))
    monkeypatch.delenv("SATNONO_WEBPBN_URL", raising=False)
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    return cache


def cached_files(cache: Path) -> list[str]:
    return sorted(p.name for p in (cache / "webpbn").glob("*")) if cache.exists() else []


# --- endpoint and cache location ------------------------------------------------------------


def test_endpoint_prefers_explicit_then_environment_then_webpbn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert endpoint(None) == fetch.WEBPBN_URL == "https://webpbn.com/export.cgi"
    monkeypatch.setenv("SATNONO_WEBPBN_URL", "http://mirror.example/export.cgi")
    assert endpoint(None) == "http://mirror.example/export.cgi"
    assert endpoint("http://other.example/x") == "http://other.example/x"


def test_cache_dir_defaults_to_the_user_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SATNONO_CACHE_DIR")
    assert fetch.cache_dir() == Path(platformdirs.user_cache_dir("satnono"))
    monkeypatch.setenv("SATNONO_CACHE_DIR", "/somewhere/else")
    assert fetch.cache_path(1234) == Path("/somewhere/else/webpbn/1234.xml")


def test_importing_the_module_does_not_import_urllib_request() -> None:
    code = "import sys, satnono.formats.sites; print('urllib.request' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- downloading and caching ----------------------------------------------------------------


def test_fetch_posts_the_export_form_and_caches_valid_xml(server: Endpoint, hermetic: Path) -> None:
    path = fetch_webpbn(VALID, server.url)
    assert path == hermetic / "webpbn" / "1.xml"
    assert server.requests == [
        {"id": "1", "fmt": "xml", "go": "1", "_type": "application/x-www-form-urlencoded",
         "_path": "/export.cgi"}
    ]  # fmt: skip
    puzzle = read_puzzle(path)
    assert (puzzle.width, puzzle.height, puzzle.title) == (3, 2, "Tiny & test ©")
    assert cached_files(hermetic) == ["1.xml"]  # no temporary file left behind


def test_second_fetch_uses_the_cache_and_refresh_downloads_again(server: Endpoint) -> None:
    first = fetch_webpbn(VALID, server.url)
    assert fetch_webpbn(VALID, server.url) == first
    assert server.count() == 1
    first.write_text("stale", encoding="utf-8")
    assert fetch_webpbn(VALID, server.url, refresh=True) == first
    assert server.count() == 2
    assert read_puzzle(first).width == 3


def test_cached_puzzle_needs_no_network(server: Endpoint, closed_url: str) -> None:
    path = fetch_webpbn(VALID, server.url)
    assert fetch_webpbn(VALID, closed_url) == path


def test_environment_variable_points_at_the_endpoint(
    server: Endpoint, closed_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SATNONO_WEBPBN_URL", server.url)
    fetch_webpbn(VALID)
    assert server.count() == 1
    monkeypatch.setenv("SATNONO_WEBPBN_URL", closed_url)
    fetch_webpbn(VALID, server.url, refresh=True)  # an explicit URL beats the variable
    assert server.count() == 2


def test_latin1_answer_is_stored_as_utf8(server: Endpoint) -> None:
    path = fetch_webpbn(LATIN1, server.url)
    text = path.read_text(encoding="utf-8")
    assert 'encoding="UTF-8"' in text and "Café" in text
    assert read_puzzle(path).title == "Café & test ©"


# --- failures -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("puzzle_id", "expected"),
    [
        (MISSING, "webpbn has no public puzzle 99 ("),
        (NOT_PUBLISHED, "webpbn has no public puzzle 10 ("),
        (HTML_PAGE, "webpbn has no public puzzle 11 ("),
        (EMPTY_SET, "webpbn has no public puzzle 12 ("),
        (SERVER_ERROR, "answered HTTP 500"),
        (EMPTY, "sent an empty answer for puzzle 8"),
        (BROKEN_XML, "sent puzzle 9 as XML that satnono cannot read"),
    ],
)
def test_bad_answers_are_input_errors_naming_the_url(
    server: Endpoint, hermetic: Path, puzzle_id: int, expected: str
) -> None:
    with pytest.raises(InputError) as caught:
        fetch_webpbn(puzzle_id, server.url)
    assert expected in caught.value.message
    assert server.url in caught.value.message
    assert caught.value.path == f"webpbn:{puzzle_id}"
    assert cached_files(hermetic) == []


def test_missing_puzzle_message_quotes_the_server(server: Endpoint) -> None:
    with pytest.raises(InputError, match="answered 'Puzzle 99 does not exist'"):
        fetch_webpbn(MISSING, server.url)


def test_offline_is_an_input_error_naming_the_url(closed_url: str) -> None:
    with pytest.raises(InputError) as caught:
        fetch_webpbn(VALID, closed_url)
    assert f"cannot reach {closed_url}: " in caught.value.message
    assert caught.value.message.endswith("(offline?)")


def test_slow_server_times_out(server: Endpoint) -> None:
    start = time.monotonic()
    with pytest.raises(InputError, match=r"no answer from http://127\.0\.0\.1:\d+/export\.cgi "):
        fetch_webpbn(SLOW, server.url, timeout=0.3)
    assert time.monotonic() - start < 3


def test_trickling_server_times_out_on_the_whole_body(server: Endpoint) -> None:
    start = time.monotonic()
    with pytest.raises(InputError, match=r"within 0\.3 s"):
        fetch_webpbn(TRICKLE, server.url, timeout=0.3)
    assert time.monotonic() - start < 3


@pytest.mark.parametrize("puzzle_id", [HUGE, HUGE_UNDECLARED])
def test_oversized_answers_are_refused(
    server: Endpoint, hermetic: Path, monkeypatch: pytest.MonkeyPatch, puzzle_id: int
) -> None:
    monkeypatch.setattr(fetch, "MAX_DOWNLOAD_BYTES", 5000)
    with pytest.raises(InputError, match="sent more than 5000 bytes"):
        fetch_webpbn(puzzle_id, server.url)
    assert cached_files(hermetic) == []


def test_failed_refresh_keeps_the_cached_copy(server: Endpoint, closed_url: str) -> None:
    path = fetch_webpbn(VALID, server.url)
    with pytest.raises(InputError, match="cannot reach"):
        fetch_webpbn(VALID, closed_url, refresh=True)
    assert read_puzzle(path).width == 3


@pytest.mark.parametrize(
    "url", ["ftp://127.0.0.1/x", "file:///etc/passwd", "export.cgi", "http://"]
)
def test_only_http_urls_are_used(url: str) -> None:
    with pytest.raises(InputError, match="is not an http or https URL"):
        fetch_webpbn(VALID, url)


def test_malformed_url_is_an_input_error() -> None:
    with pytest.raises(InputError, match="is not a usable URL"):
        fetch_webpbn(VALID, "http://127.0.0.1:notaport/export.cgi")


@pytest.mark.parametrize("puzzle_id", [0, -3, True, "12"])
def test_bad_ids_are_refused(puzzle_id: object) -> None:
    with pytest.raises(InputError, match="is not a webpbn puzzle id"):
        fetch_webpbn(puzzle_id, "http://127.0.0.1:9/")  # type: ignore[arg-type]


def test_unwritable_cache_is_an_input_error(
    server: Endpoint, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory", encoding="utf-8")
    monkeypatch.setenv("SATNONO_CACHE_DIR", str(blocker))
    with pytest.raises(InputError, match="cannot write the cache"):
        fetch_webpbn(VALID, server.url)


# --- puzzle arguments -----------------------------------------------------------------------


def test_resolve_fetches_webpbn_ids(server: Endpoint, hermetic: Path) -> None:
    assert resolve_puzzle_source("webpbn:1", server.url) == hermetic / "webpbn" / "1.xml"
    assert resolve_puzzle_source("webpbn:001", server.url) == hermetic / "webpbn" / "1.xml"
    assert server.count() == 1


def test_resolve_leaves_other_arguments_alone(closed_url: str) -> None:
    assert resolve_puzzle_source("puzzles/cat.non", closed_url) == Path("puzzles/cat.non")
    assert resolve_puzzle_source(Path("a.xml")) == Path("a.xml")
    assert resolve_puzzle_source("-") == Path("-")


@pytest.mark.parametrize(
    "argument", ["webpbn:abc", "webpbn:-3", "webpbn:0", "webpbn:", "webpbn:1.5", "webpbn:٣"]
)
def test_resolve_refuses_bad_ids(argument: str, closed_url: str) -> None:
    with pytest.raises(InputError, match="is not a webpbn puzzle id") as caught:
        resolve_puzzle_source(argument, closed_url)
    assert caught.value.path == argument


# The commands a user types: `satnono fetch webpbn ID` and `satnono solve webpbn:ID`.


def _cli(*args: str) -> tuple[int, str, str]:
    from typer.testing import CliRunner

    from satnono.cli import app

    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_fetch_command_prints_the_cached_file_and_saves_a_copy(
    server: Endpoint, hermetic: Path, tmp_path: Path
) -> None:
    code, out, _ = _cli("fetch", "webpbn", str(VALID), "--url", server.url)
    assert code == 0 and Path(out.strip()) == hermetic / "webpbn" / f"{VALID}.xml"
    target = tmp_path / "tiny.non"
    code, out, _ = _cli("fetch", "webpbn", str(VALID), "--url", server.url, "-o", str(target))
    assert code == 0 and server.count() == 1  # the second time came from the cache
    assert read_puzzle(target).rows == read_puzzle(hermetic / "webpbn" / f"{VALID}.xml").rows


def test_solve_webpbn_id_uses_the_environment_endpoint(
    server: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SATNONO_WEBPBN_URL", server.url)
    code, out, _ = _cli("solve", f"webpbn:{VALID}", "--json")
    assert code == 0, out
    assert json.loads(out)["status"] == "unique"


def test_offline_fetch_and_unknown_site_exit_2(closed_url: str) -> None:
    code, _, err = _cli("fetch", "webpbn", "5", "--url", closed_url)
    assert code == 2 and closed_url in err and "Traceback" not in err
    code, _, err = _cli("fetch", "nonograms.org", "5")
    assert code == 2 and "unknown site" in err
    code, _, err = _cli("solve", "webpbn:abc")
    assert code == 2 and "not a webpbn puzzle id" in err
    # The site asked for is the one named (issue 23: it said "webpbn" for nonograms.org).
    code, _, err = _cli("fetch", "nonograms", "123456789012345678")
    assert code == 2 and "not a nonograms.org puzzle id" in err and "webpbn" not in err


def test_a_redirect_to_ftp_is_refused(server: Endpoint) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.5)
    server.ftp_port = listener.getsockname()[1]
    with pytest.raises(InputError, match="redirect to a ftp: URL refused"):
        fetch_webpbn(TO_FTP, server.url)
    with pytest.raises(TimeoutError):
        listener.accept()  # nothing was sent to the ftp port
    listener.close()


def test_a_reply_that_is_not_http_is_one_line(server: Endpoint) -> None:
    with pytest.raises(InputError) as caught:
        fetch_webpbn(NOT_HTTP, server.url)
    assert "\n" not in str(caught.value) and "did not answer in HTTP" in str(caught.value)


def test_garbage_in_the_cache_is_downloaded_again(server: Endpoint, hermetic: Path) -> None:
    path = fetch_webpbn(VALID, server.url)
    path.write_bytes(b"\x00garbage")
    assert fetch_webpbn(VALID, server.url) == path
    assert server.count() == 2 and read_puzzle(path).width == 3


@pytest.mark.parametrize("url", ["http://[::1", "http://127.0.0.1:99999/x"])
def test_unparseable_urls_are_input_errors(url: str) -> None:
    with pytest.raises(InputError, match="is not a usable URL"):
        fetch_webpbn(VALID, url)


def test_an_absurd_id_is_refused_before_any_file_name_is_made() -> None:
    with pytest.raises(InputError, match="at most 12 digits"):
        fetch_webpbn(int("9" * 300), "http://127.0.0.1:9/")
