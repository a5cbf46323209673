"""nonograms.org: `fetch nonograms ID` and `nonograms:ID` against a local server that serves
pages built like the site's (the picture obfuscated in `var d=[[...]]`, black-and-white under
/nonograms/i/ID, color under /nonograms2/i/ID, 404 otherwise)."""

from __future__ import annotations

import json
import math
import random
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from satnono.core.verify import problems
from satnono.errors import InputError
from satnono.formats import read_puzzle
from satnono.formats.generate import puzzle_from_grid
from satnono.formats.sites import decode_nonograms_page, fetch_nonograms, resolve_puzzle_source
from support import run_satnono

# A black-and-white cross and a two-color flag, as grids of palette indices.
CROSS = ((0, 1, 0), (1, 1, 1), (0, 1, 0))
FLAG = ((1, 1, 1, 1), (2, 2, 2, 2), (1, 0, 0, 1))
FLAG_RGB = ("#c81e1e", "#1f6fd0")


def hidden(value: int, rng: random.Random) -> list[int]:
    """[a, b, c, m] with a % m + b % m - c % m == value, as the site hides a number."""
    m = value + rng.randrange(5, 60)
    k = rng.randrange(m)
    return [value + m * rng.randrange(1, 9), k + m * rng.randrange(1, 9),
            k + m * rng.randrange(1, 9), m]  # fmt: skip


def hidden_runs(runs: int, rng: random.Random) -> list[int]:
    q = math.isqrt(runs)
    rest = runs - q * q
    m = max(q, rest) + rng.randrange(5, 60)
    return [q + m * rng.randrange(1, 9), rest // 2 + m * rng.randrange(1, 9),
            rest % 2 + m * rng.randrange(1, 9), m]  # fmt: skip


def page(grid: tuple[tuple[int, ...], ...], rgbs: tuple[str, ...], title: str, seed: int) -> str:
    rng = random.Random(seed)
    key = [rng.randrange(1, 200) for _ in range(4)]
    d: list[list[int]] = [[rng.randrange(1000) for _ in range(4)]]
    d += [hidden(len(grid[0]), rng), hidden(len(grid), rng), hidden(len(rgbs), rng), key]
    for rgb in rgbs:
        r, g, b = (int(rgb[i : i + 2], 16) for i in (1, 3, 5))
        d.append([r + key[1], g + key[0], b + key[3], rng.randrange(9) + r + key[2]])
    runs = []
    for y, row in enumerate(grid):
        x = 0
        while x < len(row):
            if row[x]:
                end = x
                while end < len(row) and row[end] == row[x]:
                    end += 1
                runs.append((x, end - x, row[x], y))
                x = end
            else:
                x += 1
    run_key = [rng.randrange(1, 200) for _ in range(4)]
    d += [hidden_runs(len(runs), rng), run_key]
    d += [[x + 1 + run_key[0], n + run_key[1], c + run_key[2], y + 1 + run_key[3]]
          for x, n, c, y in runs]  # fmt: skip
    return (f"<html><head><title>Nonogram \u00ab{title}\u00bb</title></head><body>"
            f"<h1>\u00ab{title}\u00bb</h1><canvas></canvas><script>var d={json.dumps(d)};"
            "</script></body></html>")  # fmt: skip


PAGES = {
    "/nonograms/i/7": page(CROSS, ("#000000",), "Cross", 1),
    "/nonograms2/i/8": page(FLAG, FLAG_RGB, "Flag", 2),
    "/nonograms/i/9": "<html><body>No puzzle data here</body></html>",
}


@pytest.fixture
def site(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[str]:
    requests: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: object) -> None:
            pass

        def do_GET(self) -> None:
            requests.append(self.path)
            body = PAGES.get(self.path)
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            data = (body or "Not found").encode()
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setenv("SATNONO_NONOGRAMS_URL", url)
    monkeypatch.setenv("SATNONO_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("http_proxy", "HTTP_PROXY", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()


def test_black_and_white_puzzle(site: str) -> None:
    path = fetch_nonograms(7)
    puzzle = read_puzzle(path)
    assert puzzle.title == "Cross" and puzzle == puzzle_from_grid(CROSS, title="Cross")
    assert not problems(puzzle, CROSS)
    assert resolve_puzzle_source("nonograms:7") == path  # from the cache now


def test_color_puzzle_comes_from_the_color_path(site: str) -> None:
    puzzle = read_puzzle(fetch_nonograms(8))
    assert [c.rgb for c in puzzle.palette[1:]] == list(FLAG_RGB)
    assert not problems(puzzle, FLAG)


def test_missing_and_broken_pages_are_input_errors(site: str) -> None:
    with pytest.raises(InputError, match=r"nonograms\.org has no puzzle 5"):
        fetch_nonograms(5)
    with pytest.raises(InputError, match=r"not a nonograms\.org puzzle page"):
        fetch_nonograms(9)
    with pytest.raises(InputError, match="cannot be decoded"):
        decode_nonograms_page("var d=[[1,2],[3]];", "x", "nonograms:1")


def test_the_cli_fetches_and_solves(site: str, tmp_path: Path) -> None:
    done = run_satnono("solve", "nonograms:8", "--quiet")
    assert done.returncode == 0 and done.stdout.startswith("unique solution"), done.stderr
    target = tmp_path / "flag.xml"
    done = run_satnono("fetch", "nonograms", "8", "-o", str(target))
    assert done.returncode == 0 and read_puzzle(target).width == 4
    done = run_satnono("fetch", "nonograms", "404")
    assert done.returncode == 2 and "no puzzle 404" in done.stderr
