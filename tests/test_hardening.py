"""The contract at the edges (issue 13): closed and full streams, --timeout over reading and
downloading, control characters, NaN: one line and the documented exit code, never a
traceback. Each case runs the real console script, since streams are the process's own."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
import xml.dom.minidom
from pathlib import Path

import pytest

from support import EXAMPLES, SATNONO, run_satnono

DUCK = str(EXAMPLES / "duck.non")


def run(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return run_satnono(*args, timeout=60, **kwargs)


def run_with_fd_closed(fd: int, *args: str) -> tuple[int, str]:
    """Run with stdout (1) or stderr (2) closed; (exit code, what the other stream got)."""
    other = 2 if fd == 1 else 1
    read_end, write_end = os.pipe()

    def arrange() -> None:
        os.dup2(write_end, other)
        os.close(fd)

    process = subprocess.Popen(
        [*SATNONO, *args], preexec_fn=arrange, stdin=subprocess.DEVNULL, close_fds=True,
        pass_fds=(write_end,),
    )  # fmt: skip
    os.close(write_end)
    with os.fdopen(read_end) as reader:
        text = reader.read()
    return process.wait(timeout=60), text


@pytest.mark.parametrize(
    "args",
    [
        ("solve", DUCK),
        ("count", DUCK),
        ("analyze", DUCK),
        ("cnf", DUCK),
        ("convert", DUCK, "-", "--to", "g"),
        ("--version",),
        ("--help",),
    ],
)
def test_closed_stdout_is_one_line_and_exit_2(args: tuple[str, ...]) -> None:
    code, err = run_with_fd_closed(1, *args)
    assert code == 2
    closed = "satnono: error: standard output is closed: nowhere to write the result"
    assert err.splitlines() == [closed]


def test_closed_stderr_does_not_change_the_outcome() -> None:
    code, out = run_with_fd_closed(2, "solve", DUCK, "--quiet")
    assert code == 0 and out.startswith("unique solution")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize(
    "args", [("solve", DUCK), ("solve", DUCK, "--json"), ("count", DUCK), ("--version",)]
)
def test_a_full_stdout_is_one_line_and_exit_2(args: tuple[str, ...]) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [*SATNONO, *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=60,
            check=False,
        )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "satnono: error: cannot write the output: No space left on device"
    ]


def test_a_fifo_without_writer_ends_at_the_timeout(tmp_path: Path) -> None:
    fifo = tmp_path / "puzzle.non"
    os.mkfifo(fifo)
    started = time.monotonic()
    done = run("solve", str(fifo), "--timeout", "1")
    assert done.returncode == 3 and "--timeout passed before" in done.stderr
    assert time.monotonic() - started < 20  # without the alarm: forever
    done = run("count", str(fifo), "--timeout", "0.5", "--json")
    assert done.returncode == 3 and '"stopped": "timeout"' in done.stdout


def test_a_stalled_server_ends_at_the_timeout(tmp_path: Path) -> None:
    """A server that accepts and never answers: the download is inside --timeout too."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    held: list[socket.socket] = []
    threading.Thread(target=lambda: held.append(server.accept()[0]), daemon=True).start()
    url = f"http://127.0.0.1:{server.getsockname()[1]}/export.cgi"
    env = {**os.environ, "SATNONO_WEBPBN_URL": url, "SATNONO_CACHE_DIR": str(tmp_path)}
    started = time.monotonic()
    done = run("solve", "webpbn:12", "--timeout", "1", env=env)
    assert done.returncode == 3, done.stderr
    assert time.monotonic() - started < 15  # the fixed download limit was 20 s
    server.close()


def test_nan_timeouts_are_refused() -> None:
    for command in ("solve", "count", "analyze", "sample", "render"):
        extra = ("-o", "x.svg") if command == "render" else ()
        done = run(command, DUCK, "--timeout", "nan", *extra)
        assert done.returncode == 2, command
        assert done.stderr.splitlines() == [
            "satnono: error: --timeout: must be a finite number of seconds >= 0, not nan"
        ]


def test_control_characters_never_reach_the_terminal_or_break_the_svg(tmp_path: Path) -> None:
    evil = tmp_path / "evil.non"
    evil.write_text('title "Evil\x1b]0;pwned\x07 title"\nwidth 1\nheight 1\nrows\n1\ncolumns\n1\n')
    done = run("render", str(evil), "-o", str(tmp_path / "evil.svg"))
    assert done.returncode == 0
    assert "\x1b" not in done.stderr and "\\x1b]0;pwned\\x07" in done.stderr
    xml.dom.minidom.parse(str(tmp_path / "evil.svg"))  # well-formed
    done = run("solve", str(tmp_path / "missing\x1bname.non"))
    assert done.returncode == 2 and "\x1b" not in done.stderr


def test_usage_errors_are_one_line_even_for_huge_arguments() -> None:
    done = run("fetch", "webpbn", "9" * 5000)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert len(done.stderr) < 400
    done = run("solve", DUCK, "--solver", "minisatgh")
    assert done.returncode == 2 and "unknown SAT solver" in done.stderr
    done = run("solve", DUCK, "-h")
    assert done.returncode == 0 and "Usage" in done.stdout


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("twice.non",
         "width 1\nheight 1\ncolor a #ff0000\ncolor a #00ff00\nrows\n1a\ncolumns\n1a\n",
         "twice.non:4: color 'a' is declared twice"),
        ("typo.non", "width 2\nheight 1\ncolor a #ff0000\nrows\n2z\ncolumns\n1z\n1z\n",
         "typo.non:5: block 2z: color 'z' is not declared (declared: a)"),
        ("huge.nin", "99999999999999999999999 5\n", "huge.nin:1: width '99999999999999999999999' "
         "is outside 1..1000"),
        ("huge.mk", "99999999999999999999999 5\n", "is outside 1..1000"),
        ("huge.cwd", "5\n99999999999999999999\n", "huge.cwd:2: width '99999999999999999999' is "
         "outside 1..1000"),
        ("twice.xml", '<puzzleset><puzzle><color name="a">f00</color><color name="a">0f0</color>'
         '<clues type="rows"><line><count color="a">1</count></line></clues><clues '
         'type="columns"><line><count color="a">1</count></line></clues></puzzle></puzzleset>',
         "color 'a' is declared twice"),
        ("typo.xml", '<puzzleset><puzzle><color name="black">000</color><clues type="rows"><line>'
         '<count color="z">1</count></line></clues><clues type="columns"><line><count '
         'color="z">1</count></line></clues></puzzle></puzzleset>',
         "a clue uses the color 'z', which no <color> declares"),
    ],
)  # fmt: skip
def test_bad_colors_and_sizes_are_refused_everywhere(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    (tmp_path / name).write_text(text)
    done = run("solve", str(tmp_path / name))
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert message in line


def test_tabs_between_keyword_and_value_in_non(tmp_path: Path) -> None:
    (tmp_path / "tabs.non").write_text("width\t1\nheight\t1\nrows\n1\ncolumns\n1\n")
    done = run("solve", str(tmp_path / "tabs.non"), "--quiet")
    assert done.returncode == 0 and done.stdout.startswith("unique solution")
