"""The fast path of `satnono solve` and `satnono count`: a command line of puzzles and common
options is parsed here, without importing typer (a third of a line-solvable puzzle's whole
process; a twelfth of a small count's, which imports more: BENCHMARKS.md, round 25).

Anything else (help, another option, a value typer would reject or read differently, a
repeated option) goes to typer, which then parses the whole line as before: the fast path
never gives a different answer, only an earlier one. tests/test_quick.py holds the two
parsers to the same options, ranges and results.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from satnono.cli.process import (
    EXIT_BROKEN_PIPE,
    exit_now,
    handles_errors,
    identity,
    start,
)


def _number(
    convert: Callable[[str], Any], low: float | None, high: float | None = None
) -> Callable[[str], Any]:
    """Reads a plain number (ASCII digits, one decimal point for a float) from `low` to
    `high`; None (defer) for any other form (a sign, an exponent, "1_000"), however typer
    reads it."""

    def read(text: str) -> Any:
        digits = text.replace(".", "", 1) if convert is float else text
        if not (digits.isascii() and digits.isdigit() and len(text) <= 12):
            return None
        value = convert(text)
        if (low is not None and value < low) or (high is not None and value > high):
            return None
        return value

    return read


def _text(text: str) -> str | None:
    return text or None


def _path(text: str) -> Path | None:
    return Path(text) if text else None


#: `satnono solve`'s options without a value: the SolveArgs field each sets to True.
FLAGS = {"--json": "json_output", "--json-lines": "json_lines", "--quiet": "quiet", "-q": "quiet"}
#: Its options with a value: the field, and how its value is read (None: leave it to typer).
#: The bounds are typer's (`min=`, `max=` in solving.py and options.py; the test compares
#: them).
VALUES: dict[str, tuple[str, Callable[[str], Any]]] = {
    "--backend": ("backend", _text),
    "--solver": ("solver", _text),
    "--encoding": ("encoding", _text),
    "--threads": ("threads", _number(int, 1)),
    "--seed": ("seed", _number(int, None)),
    "--max-solutions": ("max_solutions", _number(int, 0)),
    "--timeout": ("timeout", _number(float, 0)),
    "--proof": ("proof", _path),
}
#: The same for `satnono count` (CountArgs).
COUNT_FLAGS = {"--json": "json_output", "--json-lines": "json_output", "--approx": "approx"}
COUNT_VALUES: dict[str, tuple[str, Callable[[str], Any]]] = {
    "--limit": ("limit", _number(int, 0)),
    "--timeout": ("timeout", _number(float, 0)),
    "--memory": ("memory", _number(int, 16, 2**20)),
    "--backend": ("backend", _text),
    "--solver": ("solver", _text),
    "--encoding": ("encoding", _text),
    "--threads": ("threads", _number(int, 1)),
    "--seed": ("seed", _number(int, None)),
}
#: The commands with a fast path.
COMMANDS = ("solve", "count")


def _command(command: str) -> tuple[Any, dict[str, str], dict[str, Any], Callable[..., int]]:
    """A command's Args class, options and work, imported only for the command run."""
    if command == "count":
        from satnono.cli.count import CountArgs, run

        return CountArgs, COUNT_FLAGS, COUNT_VALUES, run
    from satnono.cli.solve import SolveArgs
    from satnono.cli.solve import run as solve

    return SolveArgs, FLAGS, VALUES, solve


def parse(argv: Sequence[str], command: str = "solve") -> tuple[list[Path], Any] | None:
    """The puzzles and options (the command's Args) of `satnono COMMAND ARGV...`, or None for
    typer to parse."""
    args, flags, values, _ = _command(command)
    puzzles: list[Path] = []
    fields: dict[str, Any] = {}
    value: Any
    tokens = iter(argv)
    for token in tokens:
        if token == "-" or (token and not token.startswith("-")):
            puzzles.append(Path(token))
            continue
        if token in flags:
            field, value = flags[token], True
        elif token in values:
            field, read = values[token]
            text = next(tokens, "")
            value = None if text.startswith("-") else read(text)
            if value is None:
                return None
        else:
            return None
        if field in fields:
            return None
        fields[field] = value
    return (puzzles, args(**fields)) if puzzles else None


def main(command: str, argv: Sequence[str]) -> None:
    """Run `satnono COMMAND ARGV...` and exit, or return at once when typer must parse it."""
    parsed = parse(argv, command)
    if parsed is None:
        return
    run = _command(command)[3]
    start()
    stdout = identity(1)
    try:
        code = handles_errors(run)(*parsed)
    except SystemExit as done:
        # A closed pipe under a live display: rich points fd 1 at /dev/null (as in shell.main).
        exit_now(EXIT_BROKEN_PIPE if identity(1) != stdout else done.code)
    except BrokenPipeError:
        exit_now(EXIT_BROKEN_PIPE)
    exit_now(code)
