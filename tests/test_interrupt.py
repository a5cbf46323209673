"""Ctrl-C and closed pipes: exit 130 or 141, no traceback, no process left behind.

A real SIGINT to a real `satnono` process, in its own session so that every process it
started can be checked for afterwards; and a reader that stops reading, like `| head -1`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from satnono.backends import installed_backends
from support import EXAMPLES, SHARED, wait_busy

# 9! solutions, streamed: long enough to be interrupted on any backend.
LONG = str(EXAMPLES / "permutation-9.non")


def _interrupt(args: list[str], cpu: float) -> tuple[int, str, str, int]:
    process = subprocess.Popen(
        [sys.executable, "-m", "satnono", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    wait_busy(process.pid, cpu)  # past start-up, into the solve
    process.send_signal(signal.SIGINT)
    try:
        out, err = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail("satnono did not stop on Ctrl-C")
    return process.returncode, out, err, process.pid


def _group_is_gone(group: int) -> bool:
    for _ in range(50):
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    os.killpg(group, signal.SIGKILL)
    return False


@pytest.mark.parametrize("backend", installed_backends())
def test_ctrl_c_reports_progress_and_exits_130(backend: str) -> None:
    code, out, err, group = _interrupt(
        ["solve", LONG, "--backend", backend, "--max-solutions", "0"], cpu=1.0
    )
    assert code == 130, err
    assert "Traceback" not in err + out
    assert "interrupted:" in out
    assert _group_is_gone(group)


def test_ctrl_c_with_json_gives_one_object() -> None:
    code, out, err, group = _interrupt(["solve", LONG, "--max-solutions", "0", "--json"], 1.0)
    assert code == 130, err
    data = json.loads(out)
    assert data["status"] == "interrupted" and data["complete"] is False
    assert data["solutions_found"] >= len(data["solutions"])
    assert _group_is_gone(group)


@pytest.mark.parametrize("output", [[], ["--json-lines"]])
def test_closed_pipe_exits_141_quietly(output: list[str]) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "satnono", "solve", LONG, "--max-solutions", "0", *output],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()
    try:
        code = process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        pytest.fail("satnono kept running after its reader went away")
    assert code == 141
    assert process.stderr.read() == b""
    assert _group_is_gone(process.pid)


@pytest.mark.parametrize("args", [["--help"], ["solve", "--help"]])
def test_help_into_a_closed_pipe_exits_141(args: list[str]) -> None:
    # click and rich turn a broken pipe into exit 1 (issue 23: `satnono --help | head -1`).
    process = subprocess.Popen(
        [sys.executable, "-m", "satnono", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    assert process.wait(timeout=30) == 141
    assert b"Traceback" not in process.stderr.read()


def test_bare_satnono_prints_the_help_and_no_empty_error() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "satnono"], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 2 and "Usage" in done.stdout
    assert done.stderr == ""


@pytest.mark.skipif(not SHARED.is_dir(), reason="needs ../shared")
@pytest.mark.parametrize("output", [[], ["--json"]])
def test_ctrl_c_on_count_reports_the_lower_bound(output: list[str]) -> None:
    # Ctrl-C on count printed only "satnono: interrupted" (issue 23). Marley is counted by
    # no tool in minutes.
    marley = str(SHARED / "webpbn-survey" / "10088-marley.non")
    code, out, err, group = _interrupt(["count", marley, *output], cpu=2.0)
    assert code == 130, err
    assert "Traceback" not in err + out
    if output:
        data = json.loads(out)
        assert data["stopped"] == "interrupted" and data["exact"] is False and data["count"] >= 1
    else:
        assert "(interrupted: a lower bound)" in out and out.startswith("at least ")
    assert _group_is_gone(group)
