"""`satnono serve`: the JSON API against a real uvicorn server (the CLI's objects, 400s with
the CLI's line, limits), and the page in a real headless Chromium (solve, author's mode)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from web_support import LONG, post, running_server

from support import EXAMPLES, run_satnono

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with running_server() as (url, _):
        yield url


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


def test_a_count_s_progress_events_say_how_far_its_sweep_or_search_got() -> None:
    """The page's count showed only the count so far, minutes on a thin board's sweep."""
    import satnono
    from satnono.output.contract import progress_object

    board = satnono.read_puzzle(EXAMPLES / "switches-8.non")
    sweeping = satnono.Progress(phase="counting", swept=40, states=4096, nodes=7)
    event = progress_object(board, sweeping, 1.0)
    assert (event["swept"], event["states"]) == (40, 4096)
    assert "nodes" not in event  # the sweep is what runs now
    assert "both_ways" not in event
    sweeping.both_ways = True  # raced from the other end on the second core
    assert progress_object(board, sweeping, 1.0)["both_ways"] is True
    searched = progress_object(board, satnono.Progress(phase="counting", nodes=7), 1.0)
    assert searched["nodes"] == 7 and "swept" not in searched


# Hostile and careless clients (never locked up, only its own page): tests/test_hostile.py.


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


def test_the_certificate_is_a_zip_anyone_can_check(server: str, tmp_path: Path) -> None:
    """POST /api/certificate: the verdict's certificate, checked on the server, as a zip whose
    folder satnono's checker verifies again here; past its timeout it is a 503 saying so, and
    a puzzle too large for the server a 400."""
    import io
    import zipfile

    import satnono

    for name in ("duck.non", "unsolvable-1.non", "switches-8.non"):
        text = (EXAMPLES / name).read_bytes()
        request = urllib.request.Request(f"{server}/api/certificate?name={name}", text,
                                         method="POST")  # fmt: skip
        with urllib.request.urlopen(request, timeout=60) as response:
            assert response.headers["Content-Type"] == "application/zip"
            zipfile.ZipFile(io.BytesIO(response.read())).extractall(tmp_path)
        folder = tmp_path / f"{Path(name).stem}-certificate"
        assert "VERIFIED" in (folder / "README.txt").read_text()
        assert satnono.check_proof(folder).verified
    status, body = post(
        f"{server}/api/certificate?timeout=0", (EXAMPLES / "needs-search-25.non").read_bytes()
    )
    assert status == 503 and b"took over its timeout" in body
    big = b"width 101\nheight 100\nrows\n" + b"1\n" * 100 + b"columns\n" + b"1\n" * 101
    status, body = post(f"{server}/api/certificate", big)
    assert status == 400 and b"at most 10000 cells" in body


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
    # The picture may show while the verdict still says "Solving…" (seen once on CI): wait
    # for the verdict itself.
    page.wait_for_function(  # type: ignore[attr-defined]
        "!document.getElementById('verdict').textContent.startsWith('Solving')", timeout=30_000
    )
    page.wait_for_selector("#picture svg", timeout=30_000)  # type: ignore[attr-defined]
    assert page.inner_text("#verdict") == "Unique solution"  # type: ignore[attr-defined]
    svg = page.inner_html("#picture")  # type: ignore[attr-defined]
    puzzle_colors = {"#1f6fd0", "#ffd21f"}  # two of the sailboat's colors
    assert any(color in svg.lower() for color in puzzle_colors), svg[:300]
    page.screenshot(path=str(_shots(tmp_path) / "web-solve.png"), full_page=True)  # type: ignore[attr-defined]
    # Beside the verdict: its certificate, a zip that satnono's checker verifies.
    import zipfile

    import satnono

    with page.expect_download() as waiting:  # type: ignore[attr-defined]
        page.click("#download-certificate")  # type: ignore[attr-defined]
    saved = tmp_path / "certificate.zip"
    waiting.value.save_as(saved)
    zipfile.ZipFile(saved).extractall(tmp_path)
    assert satnono.check_proof(tmp_path / "pasted-text-certificate").verified


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


def _cell_box(page: object, r: int, c: int) -> dict[str, float]:
    return page.locator(f"#cell-{r}-{c}").bounding_box()  # type: ignore[attr-defined,no-any-return]


def test_the_authors_export_colors_and_clue_chips(page: object, tmp_path: Path) -> None:
    """Export right after a stroke holds that stroke and the title typed (it exported the
    last finished check); Add color makes the new color the brush (it stayed on black); a
    row's clue chips line up with its cells (a form .row margin pushed them 6.5 px down, the
    bottom row's under the board's frame); pasted text's errors say so (not "request")."""
    page.set_viewport_size({"width": 1280, "height": 900})  # type: ignore[attr-defined]
    page.reload()  # type: ignore[attr-defined]  # black and white, whatever ran before
    try:
        _export_colors_and_chips(page)
    finally:
        page.reload()  # type: ignore[attr-defined]  # the next tests start from black and white


def _export_colors_and_chips(page: object) -> None:
    page.click("#tab-author")  # type: ignore[attr-defined]
    page.fill("#author-width", "6")  # type: ignore[attr-defined]
    page.fill("#author-height", "5")  # type: ignore[attr-defined]
    page.click("#author-resize")  # type: ignore[attr-defined]
    page.click("#add-color")  # type: ignore[attr-defined]
    brush = page.evaluate("author.brush")  # type: ignore[attr-defined]
    assert brush != "k" and page.locator(f'.swatch.active[data-char="{brush}"]').count() == 1  # type: ignore[attr-defined]
    for c in range(6):
        page.click(f'.cell[data-row="4"][data-col="{c}"]')  # type: ignore[attr-defined]
    page.fill("#author-title", "Plus sign")  # type: ignore[attr-defined]
    with page.expect_download() as download:  # type: ignore[attr-defined]
        page.click("#author-export")  # type: ignore[attr-defined]
    assert download.value.suggested_filename == "plus-sign.non"
    text = Path(download.value.path()).read_text()
    assert 'title "Plus sign"' in text and f"\n6{brush}\n" in text
    page.wait_for_function(  # type: ignore[attr-defined]  # the board is drawn again after it
        "/^(Unique|Not unique)/.test(document.getElementById('author-verdict').textContent)",
        timeout=30_000,
    )
    board = page.locator("#author-board").bounding_box()  # type: ignore[attr-defined]
    for r in range(5):
        cell = _cell_box(page, r, 0)
        clue = page.locator(f"#clue-r{r}").bounding_box()  # type: ignore[attr-defined]
        assert clue["y"] == cell["y"] and clue["height"] == cell["height"]
    chip = page.locator("#clue-r4 span").first.bounding_box()  # type: ignore[attr-defined]
    assert chip["y"] + chip["height"] <= board["y"] + board["height"] - 1
    page.click("#tab-solve")  # type: ignore[attr-defined]
    page.fill("#text", "width 2\nheight 1\nrows\n1 x\ncolumns\n1\n0\n")  # type: ignore[attr-defined]
    page.click("#solve")  # type: ignore[attr-defined]
    page.wait_for_function(  # type: ignore[attr-defined]
        "document.getElementById('verdict').textContent.includes('pasted text:4')", timeout=30_000
    )


def test_hint_gives_the_next_step_on_the_page_and_in_the_api(page: object, server: str) -> None:
    """The page's Hint goes on from the grid the hints so far filled in; the API answers
    `satnono hint --json`'s object for a grid posted with the puzzle."""
    duck = (EXAMPLES / "duck.non").read_text()
    page.click("#tab-solve")  # type: ignore[attr-defined]
    page.fill("#text", duck)  # type: ignore[attr-defined]
    for expected in ("Hint: row 1 (clue 0)", "Hint: row 15 (clue 0)"):
        page.click("#hint")  # type: ignore[attr-defined]
        page.wait_for_function(  # type: ignore[attr-defined]
            f"document.getElementById('verdict').textContent.startsWith({expected!r})",
            timeout=30_000,
        )
    page.wait_for_selector("#picture svg", timeout=30_000)  # type: ignore[attr-defined]
    grid = ["." * 15] + ["?" * 15] * 13 + ["." * 15]
    status, body = post(f"{server}/api/hint", json.dumps({"puzzle": duck, "grid": grid}).encode())
    assert status == 200
    (step,) = json.loads(body)["steps"]
    assert step["line"] == "column 1" and step["reason"] == "empty line"
    status, body = post(f"{server}/api/hint", json.dumps({"puzzle": duck, "grid": ["?"]}).encode())
    assert status == 400 and "has 1 rows, the puzzle 15" in json.loads(body)["error"]


def test_painting_at_speed_paints_every_cell_with_the_board_held_still(
    page: object, tmp_path: Path
) -> None:
    """A fast drag across a row painted 4 of its 10 cells, and the board moved under the
    pointer as the clues grew (issue 33); a title names the export; Undo takes a stroke back."""
    page.click("#tab-author")  # type: ignore[attr-defined]
    page.fill("#author-width", "10")  # type: ignore[attr-defined]
    page.fill("#author-height", "10")  # type: ignore[attr-defined]
    page.click("#author-resize")  # type: ignore[attr-defined]
    page.fill("#author-title", "Tiny Heart")  # type: ignore[attr-defined]
    start, end = _cell_box(page, 2, 0), _cell_box(page, 2, 9)
    mouse = page.mouse  # type: ignore[attr-defined]
    mouse.move(start["x"] + 12, start["y"] + 12)
    mouse.down()
    mouse.move(end["x"] + 12, end["y"] + 12, steps=2)  # two events for ten cells
    assert _cell_box(page, 2, 0) == start  # nothing moved while the stroke went on
    mouse.up()
    assert page.evaluate("author.grid[2].join('')") == "#" * 10  # type: ignore[attr-defined]
    assert page.inner_text("#clue-r2") == "10"  # type: ignore[attr-defined]
    page.wait_for_function(  # type: ignore[attr-defined]
        "document.getElementById('author-verdict').textContent.startsWith('Unique')",
        timeout=30_000,
    )
    with page.expect_download() as download:  # type: ignore[attr-defined]
        page.click("#author-export")  # type: ignore[attr-defined]
    assert download.value.suggested_filename == "tiny-heart.non"
    assert "Tiny Heart" in Path(download.value.path()).read_text()
    page.click("#author-undo")  # type: ignore[attr-defined]
    assert page.evaluate("author.grid[2].join('')") == "." * 10  # type: ignore[attr-defined]
    page.screenshot(path=str(_shots(tmp_path) / "web-author-undo.png"), full_page=True)  # type: ignore[attr-defined]


def test_the_page_fits_a_phone_and_shows_the_result_on_a_laptop(
    page: object, tmp_path: Path
) -> None:
    """At 390 px wide the panel overflowed; at 1280x900 the result fell below the fold once
    a puzzle was open (issue 33)."""
    page.click("#tab-solve")  # type: ignore[attr-defined]
    page.fill("#text", (EXAMPLES / "sailboat-color.non").read_text())  # type: ignore[attr-defined]
    page.click("#solve")  # type: ignore[attr-defined]
    page.wait_for_selector("#picture svg", timeout=30_000)  # type: ignore[attr-defined]
    _solving_done(page)
    top = "document.getElementById('%s').getBoundingClientRect().top"
    assert page.evaluate(top % "verdict") < 900 and page.evaluate(top % "picture") < 900  # type: ignore[attr-defined]
    page.set_viewport_size({"width": 390, "height": 844})  # type: ignore[attr-defined]
    try:
        for tab in ("solve", "author"):
            page.click(f"#tab-{tab}")  # type: ignore[attr-defined]
            assert page.evaluate("document.documentElement.scrollWidth") <= 390, tab  # type: ignore[attr-defined]
            page.screenshot(path=str(_shots(tmp_path) / f"web-{tab}-390.png"), full_page=True)  # type: ignore[attr-defined]
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})  # type: ignore[attr-defined]


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


def test_count_and_analyze_show_progress_and_cancel(page: object) -> None:
    """Count and Analyze showed "Counting..." with Cancel disabled (issue 33): both now
    stream their progress, and Cancel stops them."""
    import random

    from satnono.formats import FORMATS
    from satnono.formats.generate import puzzle_from_grid, random_grid

    hard = puzzle_from_grid(random_grid(45, 45, 2, 0.45, random.Random(45)))
    page.click("#tab-solve")  # type: ignore[attr-defined]
    page.fill("#timeout", "60")  # type: ignore[attr-defined]
    page.fill("#text", FORMATS["non"].write([hard]))  # type: ignore[attr-defined]
    for action, shown in (("count", "so far"), ("analyze", " s")):
        page.click(f"#{action}")  # type: ignore[attr-defined]
        page.wait_for_function(  # type: ignore[attr-defined]
            f"document.getElementById('phase').textContent.includes({shown!r})", timeout=30_000
        )
        assert page.is_enabled("#cancel") and not page.is_enabled("#solve")  # type: ignore[attr-defined]
        started = time.monotonic()
        page.click("#cancel")  # type: ignore[attr-defined]
        _solving_done(page)
        assert page.inner_text("#verdict") == "Cancelled."  # type: ignore[attr-defined]
        assert time.monotonic() - started < 5


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


def test_a_failed_fetch_leaves_no_stale_picture(page: object) -> None:
    """A failed webpbn Fetch left the previous puzzle's picture and time under its error."""
    page.click("#tab-solve")  # type: ignore[attr-defined]
    page.fill("#text", (EXAMPLES / "duck.non").read_text())  # type: ignore[attr-defined]
    page.click("#solve")  # type: ignore[attr-defined]
    page.wait_for_selector("#picture svg", timeout=30_000)  # type: ignore[attr-defined]
    _solving_done(page)
    page.fill("#webpbn", "0")  # type: ignore[attr-defined]
    page.click("#fetch")  # type: ignore[attr-defined]
    page.wait_for_function(  # type: ignore[attr-defined]
        "document.getElementById('verdict').textContent.includes('puzzle_id')", timeout=30_000
    )
    assert page.inner_html("#picture") == "" and page.inner_text("#phase") == ""  # type: ignore[attr-defined]


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
