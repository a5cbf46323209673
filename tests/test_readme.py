"""Every command the README and the pages of docs/ show runs as printed and prints what is
shown (issues 23 and 42).

Each code block whose lines start with `$ ` is a transcript: its commands run one by one in a
sandbox laid out like the repository (examples/, an empty docs/, ../shared beside it), with
the venv's `satnono` first on PATH and the variables its `export` lines set; stdout and stderr
are compared with the lines shown under each command. Timings differ from run to run, so
every decimal number matches any other. `…` in the README stands for any text on its line, and
a line of `…` alone for any number of lines. A comment line before a block can say more:
`<!-- readme: skip (why) -->`, `<!-- readme: numbers -->` (every number may differ: the
estimate of a randomized counter), `<!-- readme: joined -->` (the lines shown are one output
line, wrapped for reading).
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from support import SHARED

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
#: The pages whose transcripts run: the README and the reference in docs/.
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
#: The stand-in for webpbn.com and nonograms.org that the README's fetch examples name.
STAND_IN_PORT = 8765


@dataclass
class Transcript:
    page: str
    line: int
    options: set[str]
    steps: list[tuple[str, list[str]]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.page}-line{self.line}-{self.steps[0][0].split()[1] if self.steps else ''}"


def transcripts() -> list[Transcript]:
    return [each for page in PAGES for each in _transcripts(page)]


def _transcripts(page: Path) -> list[Transcript]:
    found: list[Transcript] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    directive: set[str] = set()
    index = 0
    while index < len(lines):
        line = lines[index]
        marked = re.fullmatch(r"<!-- readme: (.*) -->", line.strip())
        if marked:
            directive = {marked.group(1).split()[0]}
        elif line.startswith("```"):
            end = lines.index("```", index + 1)
            body = lines[index + 1 : end]
            if body and body[0].startswith("$ "):
                transcript = Transcript(page.stem, index + 2, directive)
                for text in body:
                    if text.startswith("$ "):
                        transcript.steps.append((text[2:], []))
                    else:
                        transcript.steps[-1][1].append(text)
                found.append(transcript)
            directive = set()
            index = end
        elif line.strip():
            directive = set()
        index += 1
    return found


def _normal(text: str, numbers: bool) -> str:
    text = re.sub(r"\d+\.\d+(e[+-]\d+)?", "N", text.rstrip())
    return re.sub(r"\d+", "N", text) if numbers else text


def _line_pattern(expected: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part) for part in expected.split("…")))


def _matches(expected: list[str], actual: list[str]) -> bool:
    if not expected:
        return not actual
    first, rest = expected[0], expected[1:]
    if first.strip() == "…":
        return any(_matches(rest, actual[skip:]) for skip in range(len(actual) + 1))
    return (
        bool(actual)
        and bool(_line_pattern(first).fullmatch(actual[0]))
        and _matches(rest, actual[1:])
    )


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("readme")
    work = root / "satnono"
    work.mkdir()
    (work / "examples").symlink_to(ROOT / "examples")
    (work / "docs").mkdir()
    if SHARED.is_dir():
        (root / "shared").symlink_to(SHARED.parent)
    return work


@pytest.fixture(scope="module")
def stand_in() -> Iterator[None]:
    """webpbn's export form and nonograms.org's pages, on the port the README names."""
    from test_fetch import PUZZLE_XML
    from test_fetch_nonograms import FLAG, FLAG_RGB, page

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: object) -> None:
            pass

        def answer(self, body: str, kind: str, status: int = 200) -> None:
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            form = urllib.parse.parse_qs(self.rfile.read(length).decode("ascii"))
            self.answer(PUZZLE_XML.replace("{id}", form["id"][0]), "text/xml")

        def do_GET(self) -> None:
            if self.path == "/nonograms2/i/8":
                self.answer(page(FLAG, FLAG_RGB, "Flag", 2), "text/html; charset=utf-8")
            else:
                self.answer("Not found", "text/plain", 404)

    try:
        server = ThreadingHTTPServer(("127.0.0.1", STAND_IN_PORT), Handler)
    except OSError:
        pytest.skip(f"port {STAND_IN_PORT} is taken")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


def _environment() -> dict[str, str]:
    unset = ("http_proxy", "no_proxy")
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("SATNONO_") and key.lower() not in unset}  # fmt: skip
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        COLUMNS="80", TERM="dumb", NO_COLOR="1", PYTHONUNBUFFERED="1",
    )  # fmt: skip
    return env


def _run(command: str, cwd: Path, env: dict[str, str]) -> str:
    """What `command` prints on stdout and stderr; in a session of its own, so that a command
    that overruns is killed with every process it started."""
    # On a line of its own, the command may end in a comment (`# ...`).
    process = subprocess.Popen(
        ["bash", "-c", f"{{ {command}\n}} 2>&1"], cwd=cwd, env=env, text=True,
        stdout=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    try:
        output, _ = process.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"`{command}` ran for over 120 s")
    return output


@pytest.mark.parametrize("transcript", transcripts(), ids=lambda t: t.name)
def test_the_readme_commands_print_what_it_shows(
    transcript: Transcript, sandbox: Path, request: pytest.FixtureRequest
) -> None:
    if "skip" in transcript.options:
        pytest.skip("the page says why this block is not run")
    if any("../shared" in command for command, _ in transcript.steps) and not SHARED.is_dir():
        pytest.skip("needs ../shared")
    if any("8765" in command for command, _ in transcript.steps):
        request.getfixturevalue("stand_in")
    env = _environment()
    numbers = "numbers" in transcript.options
    for command, shown in transcript.steps:
        if command.startswith("export "):
            for assignment in shlex.split(command)[1:]:
                key, _, value = assignment.partition("=")
                env[key] = value
            continue
        output = _run(command, sandbox, env)
        actual = [_normal(line, numbers) for line in output.splitlines()]
        expected = [_normal(line, numbers) for line in shown]
        if "joined" in transcript.options:
            expected = [" ".join(line.strip() for line in expected)]
        assert _matches(expected, actual), (
            f"{transcript.page} line {transcript.line}: `{command}` printed:\n" + output
        )
