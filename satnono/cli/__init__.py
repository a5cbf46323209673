"""The `satnono` command line, a thin shell over the library API (satnono/__init__.py).

app (the typer app, exit codes, errors, process plumbing), options (shared options),
present (every line of text), live (progress displays); the commands: solving (solve,
count, sample, analyze), files (convert, cnf, fetch, render, from-image), archive (batch,
compare), web (serve).
"""

from satnono.cli import archive, files, solving, web  # noqa: F401 - register the commands
from satnono.cli.app import app, main

__all__ = ["app", "main"]
