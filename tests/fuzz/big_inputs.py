"""Time and memory of reading the largest inputs satnono accepts (just under MAX_FILE_BYTES).

Why: the size limits promise that no declared number decides what a read costs; what is left is
the file's own size. This script builds one near-limit hostile file per shape, reads each in a
fresh process, and prints seconds and peak memory, for RELIABILITY.md. Not a pytest module.

    python tests/fuzz/big_inputs.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from satnono.formats import MAX_FILE_BYTES

SIZE = MAX_FILE_BYTES - 1024


def _fill(unit: str, head: str = "", tail: str = "") -> str:
    """`head`, `unit` repeated to fill the size, `tail`."""
    return head + unit * ((SIZE - len(head) - len(tail)) // len(unit)) + tail


def _nested() -> str:
    depth = (SIZE - 40) // 7
    return "<puzzle><title>" + "<a>" * depth + "</a>" * depth + "</title></puzzle>"


TINY_XML = (
    '<puzzle><clues type="rows"><line/></clues><clues type="columns"><line/></clues></puzzle>'
)
#: label -> (suffix, file text)
SHAPES: dict[str, tuple[str, Callable[[], str]]] = {
    "xml, 2.4M nested elements": (".xml", _nested),
    "xml, 2.4M flat <line/>": (".xml", lambda: _fill("<line/>", '<puzzle><clues type="rows">',
                                                      '</clues><clues type="columns"/></puzzle>')),
    "xml, 190k tiny puzzles": (".xml", lambda: _fill(TINY_XML, "<puzzleset>", "</puzzleset>")),
    ".non, 400k one-cell puzzles": (
        ".non", lambda: _fill("width 1\nheight 1\nrows\n1\ncolumns\n1\n====\n")
    ),
    ".non, one 16 MB clue line": (".non", lambda: _fill("1,", "width 5\nheight 1\nrows\n", "\n")),
    ".g, 16 MB of commentary": (".g", lambda: _fill("comment\n", "", ": rows\n1\n: columns\n1\n")),
    ".non, 16M blank lines": (".non", lambda: _fill("\n", "", "x")),
    "sniffed by content, 16M blank lines": (".txt", lambda: _fill("\n", "", "x")),
}  # fmt: skip


_READ = """
import resource, sys, time
from satnono.errors import InputError
from satnono.formats import read_puzzles
started = time.perf_counter()
try:
    outcome = f"{len(read_puzzles(sys.argv[1]))} puzzles"
except InputError as error:
    outcome = "InputError: " + error.message[:60]
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
print(f"{time.perf_counter() - started:.2f} s, peak RSS {peak} MB, {outcome}")
"""


def _measure(path: Path) -> str:
    command = [sys.executable, "-c", _READ, str(path)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    return (done.stdout or done.stderr).strip().splitlines()[-1]


def main() -> None:
    print(f"files of {SIZE} bytes (MAX_FILE_BYTES - 1 KiB), each read in a fresh process")
    with tempfile.TemporaryDirectory() as directory:
        for label, (suffix, make) in SHAPES.items():
            path = Path(directory) / ("big" + suffix)
            path.write_text(make())
            started = time.perf_counter()
            result = _measure(path)
            print(f"{label:32} {result}  (process {time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
