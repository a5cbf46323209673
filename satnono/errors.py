"""Error types shared by every layer of satnono.

Bad input (exit code 2) and proven unsolvability (exit code 1) are different outcomes, so they
are different exception types; the CLI maps each to its exit code without a traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path


class InputError(ValueError):
    """A file or argument that cannot be used; always names where the problem is.

    A ValueError, so that library callers can catch bad arguments the usual way; its message
    is the one line the CLI prints after "satnono: error: ".
    """

    def __init__(
        self,
        message: str,
        path: str | Path | None = None,
        line: int | None = None,
        *,
        hint: str | None = None,
    ):
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        #: The parameter that would settle the problem (a file's `format`): the library names
        #: it as a keyword, a front end renames it to its own flag before printing.
        self.hint = hint
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path or "<input>"
        if self.line is not None:
            where = f"{where}:{self.line}"
        if self.hint is None:
            return f"{where}: {self.message}"
        hint = self.hint if self.hint.startswith("-") else f"{self.hint}="
        return f"{where}: {self.message} (use {hint})"

    def at(self, path: str | Path) -> InputError:
        """The same error attributed to a file, for parsers that work on text."""
        return InputError(self.message, path, self.line, hint=self.hint)


def accepted(check: Callable[[], object]) -> bool:
    """Whether `check` runs without an InputError: for the questions that only ask whether
    input is usable (a format's sniffer, a cached download, a file's suffix)."""
    try:
        check()
    except InputError:
        return False
    return True


class Contradiction(Exception):  # noqa: N818 - a contradiction is a result, not an error
    """Proof that no grid satisfies the clues; the message says why, for the user."""


def shown(value: object, limit: int = 40) -> str:
    """A value for an error message: quoted and escaped (its repr), cut short when long, so
    that a message stays one readable line whatever a file or a caller held."""
    if isinstance(value, str):
        value = value.strip()
        size = f"{len(value)} chars"
        text = repr(value) if len(value) <= limit else repr(value[:limit]) + f"... ({size})"
        return text
    text = repr(value)
    unit = "digits" if isinstance(value, int) else "chars"
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} {unit})"
