"""What the measuring scripts here share (measure_timeouts.py, measure_ctrl_c.py): their
command line, a puzzle, how many runs, and the backends to run (every installed one)."""

from __future__ import annotations

import argparse
from pathlib import Path

from satnono.backends import installed_backends


def command_line(doc: str, puzzle: Path, runs: int) -> argparse.ArgumentParser:
    """PUZZLE (default `puzzle`), --runs (default `runs`) and --backends; the script adds its
    own options."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("puzzle", nargs="?", type=Path, default=puzzle)
    parser.add_argument("--runs", type=int, default=runs)
    parser.add_argument("--backends", default=",".join(installed_backends()))
    return parser
