"""Press Ctrl-C in `satnono solve` runs again and again, and tally how each run ended.

Why: issue 5 promises that Ctrl-C prints what was found so far and exits 130, with no
traceback and no process left behind. A signal that lands at the wrong instant (inside malloc,
in another thread) fails only some of the time, so this sends SIGINT many times at slightly
different moments. It is not a test (pytest does not collect it): it takes minutes.

    python tests/fuzz/measure_ctrl_c.py [PUZZLE] [--after 2.5] [--runs 8] [--backends sat,...]

Each run starts `satnono solve PUZZLE --max-solutions 0 --json` in its own process group,
waits about --after seconds (spread over +-20 % across runs), sends SIGINT to the group as a
terminal would, and records the exit code, whether stdout is one JSON object, whether stderr
holds a traceback or a C library abort, and whether any process of the group survives it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from measuring import command_line

DEFAULT = Path(__file__).resolve().parents[2] / "examples/permutation-9.non"
ABORTS = ("Traceback", "free():", "double free", "Segmentation", "Aborted", "core dumped")


def group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def one_run(puzzle: Path, backend: str, after: float) -> str:
    command = [sys.executable, "-m", "satnono", "solve", str(puzzle), "--backend", backend,
               "--max-solutions", "0", "--json"]  # fmt: skip
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    time.sleep(after)
    os.killpg(process.pid, signal.SIGINT)
    try:
        out, err = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return "hung (killed after 30 s)"
    time.sleep(0.2)
    left = " +processes left" if group_alive(process.pid) else ""
    if left:
        os.killpg(process.pid, signal.SIGKILL)
    abort = next((word for word in ABORTS if word in err), None)
    try:
        json.loads(out)
        output = "one JSON object"
    except ValueError:
        output = "no JSON"
    return f"exit {process.returncode}, {output}" + (f", {abort!r}" if abort else "") + left


def main() -> None:
    parser = command_line(__doc__, DEFAULT, runs=8)
    parser.add_argument("--after", type=float, default=2.5)
    args = parser.parse_args()
    print(f"{args.puzzle.name}: SIGINT after about {args.after} s, {args.runs} runs each")
    for backend in args.backends.split(","):
        outcomes = Counter(
            one_run(args.puzzle, backend, args.after * (0.8 + 0.4 * run / max(1, args.runs - 1)))
            for run in range(args.runs)
        )
        print(f"{backend:10} " + "; ".join(f"{n} x {what}" for what, n in outcomes.items()))


if __name__ == "__main__":
    main()
