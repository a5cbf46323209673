"""The fast path of `satnono solve`: a command line of puzzles and common options is parsed
here, without importing typer (a third of a line-solvable puzzle's whole process).

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
from satnono.cli.solve import SolveArgs, run


def _number(convert: Callable[[str], Any], low: float | None) -> Callable[[str], Any]:
    """Reads a plain number (ASCII digits, one decimal point for a float) of at least `low`;
    None (defer) for any other form (a sign, an exponent, "1_000"), however typer reads it."""

    def read(text: str) -> Any:
        digits = text.replace(".", "", 1) if convert is float else text
        if not (digits.isascii() and digits.isdigit() and len(text) <= 12):
            return None
        value = convert(text)
        return None if low is not None and value < low else value

    return read


def _text(text: str) -> str | None:
    return text or None


def _path(text: str) -> Path | None:
    return Path(text) if text else None


#: Options without a value: the SolveArgs field each sets to True.
FLAGS = {"--json": "json_output", "--json-lines": "json_lines", "--quiet": "quiet", "-q": "quiet"}
#: Options with a value: the field, and how its value is read (None: leave it to typer). The
#: lower bounds are typer's (`min=` in solving.py and options.py; the test compares them).
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


def parse(argv: Sequence[str]) -> tuple[list[Path], SolveArgs] | None:
    """The puzzles and options of `satnono solve ARGV...`, or None for typer to parse."""
    puzzles: list[Path] = []
    fields: dict[str, Any] = {}
    value: Any
    tokens = iter(argv)
    for token in tokens:
        if token == "-" or (token and not token.startswith("-")):
            puzzles.append(Path(token))
            continue
        if token in FLAGS:
            field, value = FLAGS[token], True
        elif token in VALUES:
            field, read = VALUES[token]
            text = next(tokens, "")
            value = None if text.startswith("-") else read(text)
            if value is None:
                return None
        else:
            return None
        if field in fields:
            return None
        fields[field] = value
    return (puzzles, SolveArgs(**fields)) if puzzles else None


def main(argv: Sequence[str]) -> None:
    """Run `satnono solve ARGV...` and exit, or return at once when typer must parse it."""
    parsed = parse(argv)
    if parsed is None:
        return
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
