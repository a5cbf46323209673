"""The `satnono` app (typer) and its console script: typer builds only the command named,
and its usage errors become one line with exit 2 (process.py has the rest of the plumbing).

Commands live in the modules beside this one; each is options -> one library call -> output
(satnono.output.contract's JSON, or present.py's text).
"""

from __future__ import annotations

import sys
from typing import Any

import typer
from typer.core import TyperGroup

import satnono
from satnono.cli.process import (
    EXIT_BAD_INPUT,
    EXIT_BROKEN_PIPE,
    EXIT_INTERRUPTED,
    MAX_MESSAGE,
    exit_now,
    identity,
    output_error,
    say,
    start,
)
from satnono.output.terminal import printable


def _backends_help() -> str:
    summaries = satnono.backend_summaries()
    return "; ".join(f"{name}: {summary}" for name, summary in summaries.items())


app = typer.Typer(
    add_completion=True,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    # Markdown: a docstring's wrapped lines are one paragraph, re-wrapped to the terminal
    # (rich mode keeps every line break, and breaks sentences mid-line at 80 columns).
    rich_markup_mode="markdown",
    context_settings={"help_option_names": ["-h", "--help"]},
    help="satnono: nonogram solver. Line propagation first, then SAT on the cells left.\n\n"
    f"Backends (--backend): {_backends_help()}. Default: {satnono.DEFAULT_BACKEND}.",
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"satnono {satnono.__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version."
    ),
) -> None:
    """satnono: nonogram solver. Line propagation first, then SAT on the cells left."""


class DefaultCommandGroup(TyperGroup):
    """A command group whose first command runs when no command is named:
    `satnono batch PATHS...` is `satnono batch run PATHS...`; `satnono batch report DB` the
    other command."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        default = next(iter(self.commands), None)
        named = args[0] if args else None
        if default is not None and named not in (None, "-h", "--help", *self.commands):
            args = [default, *args]
        return super().parse_args(ctx, args)


def main() -> None:
    """The console script: typer builds only the command asked for; usage errors are one line.

    Building every command's click object costs 15-20 ms of each run, a tenth of a
    line-solvable puzzle's whole process; `satnono --help` (no command named) builds them all.
    """
    from typer.main import get_command_name

    start()
    stdout = identity(1)
    named = sys.argv[1] if len(sys.argv) > 1 else None
    chosen = [
        info
        for info in app.registered_commands
        if info.callback is not None
        and (info.name or get_command_name(info.callback.__name__)) == named
    ]
    groups = [info for info in app.registered_groups if info.name == named]
    if chosen or groups:
        app.registered_commands = chosen
        app.registered_groups = groups
    try:
        code = app(standalone_mode=False, prog_name="satnono")
    except typer.TyperException as error:  # click's usage errors: one line, exit 2
        message = " ".join(error.format_message().split())
        if not message:  # bare `satnono`: the help printed is all there is to say
            exit_now(getattr(error, "exit_code", EXIT_BAD_INPUT))
        if len(message) > MAX_MESSAGE:
            message = message[: MAX_MESSAGE - 3] + "..."
        command = f"satnono {named} --help" if chosen or groups else "satnono --help"
        say(printable(f"satnono: error: {message} (see '{command}')"))
        exit_now(getattr(error, "exit_code", EXIT_BAD_INPUT))
    except typer.Abort:
        typer.echo("satnono: interrupted", err=True)
        exit_now(EXIT_INTERRUPTED)
    except SystemExit as done:
        # A broken pipe (`satnono --help | head -1`) is 141; click and rich say 1 and make
        # stdout harmless (click wraps it, rich points fd 1 at /dev/null).
        if type(sys.stdout).__name__ == "PacifyFlushWrapper" or identity(1) != stdout:
            exit_now(EXIT_BROKEN_PIPE)
        exit_now(done.code)
    except BrokenPipeError:
        exit_now(EXIT_BROKEN_PIPE)
    except OSError as error:  # --version or --help into a full or broken stream
        say(f"satnono: {output_error(error)}")
        exit_now(EXIT_BAD_INPUT)
    exit_now(code if isinstance(code, int) else 0)
