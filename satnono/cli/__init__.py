"""The `satnono` command line, a thin shell over the library API (satnono/__init__.py).

process (exit codes, errors, deadlines, streams), shell (the typer app), options (shared
options), present (every line of text), live (progress displays); the commands: solving
(solve, count, sample, analyze; solve's work in solve), hinting (hint), files (convert, cnf,
fetch, render, from-image, check-proof), archive (batch, compare), web (serve). A run imports
only the module of the command it names; quick parses common `satnono solve` and `satnono
count` lines without typer.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

#: Which module declares each command.
COMMANDS = {
    "solve": "solving", "count": "solving", "sample": "solving", "analyze": "solving",
    "hint": "hinting", "convert": "files", "cnf": "files", "fetch": "files", "render": "files",
    "from-image": "files", "check-proof": "files", "batch": "archive", "compare": "archive",
    "tournament": "archive", "serve": "web",
}  # fmt: skip

__all__ = ["COMMANDS", "app", "main"]


def _register(modules: set[str]) -> Any:
    # In the order above: `satnono --help` lists the commands in the order they are declared
    # (solving first, then files, archives, the web page).
    for module in dict.fromkeys(COMMANDS.values()):
        if module in modules:
            importlib.import_module(f"satnono.cli.{module}")
    from satnono.cli.shell import app

    return app


def main() -> None:
    """The console script: loads the named command's module (every one for --help). Common
    `satnono solve` and `satnono count` lines run on the fast path (quick.py), which never
    imports typer."""
    named = sys.argv[1] if len(sys.argv) > 1 else None
    try:
        if named in ("solve", "count"):
            from satnono.cli import quick

            quick.main(named, sys.argv[2:])  # returns only when typer must parse the line
        module = COMMANDS.get(named or "")
        _register({module} if module else set(COMMANDS.values()))
        from satnono.cli.shell import main as run

        run()
    except KeyboardInterrupt:
        # A Ctrl-C no command took: a further press as an interrupted command unwinds to its
        # exit, its report written and its own handler gone. Exit 130 with the output flushed
        # (uncaught, Python would end by SIGINT: exit -2, the output still buffered lost).
        from satnono.cli.process import EXIT_INTERRUPTED, exit_now

        exit_now(EXIT_INTERRUPTED)


def __getattr__(name: str) -> Any:
    if name == "app":  # the whole app, every command registered (tests, completion)
        return _register(set(COMMANDS.values()))
    raise AttributeError(f"module 'satnono.cli' has no attribute {name!r}")
