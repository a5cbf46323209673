"""Argument checks for the library's calls: each value checked once, before any work, and
refused with an InputError naming the parameter (the CLI maps parameter names to its flags).

Why one module: the same parameter (a timeout, a count, a puzzle, a path) reaches the library
through a dozen calls, and a value that slips past one check surfaces later as a TypeError or
OverflowError deep inside a solver, which no caller can tell from a bug.
"""

from __future__ import annotations

import math
import operator
import os
from collections.abc import Callable
from typing import Any

from satnono.core.model import Puzzle
from satnono.errors import InputError, shown


def _kind(value: object) -> str:
    return "None" if value is None else type(value).__name__


def _is_real(value: object) -> bool:
    """A real number (int, float, numpy's, Fraction, Decimal), not a bool, a string or a
    complex. Checked by its float conversion rather than `numbers.Real`, whose import costs
    every run of the CLI more than all of this module."""
    return (
        not isinstance(value, bool | str | bytes | complex)
        and value is not None
        and hasattr(type(value), "__float__")
    )


#: Longest timeout, in seconds (11.6 days): a longer one is taken as this one. Past about
#: 2.1e6 s (2^31 ms) the system's timers overflow, and no run here is meant to take longer.
MAX_SECONDS = 1_000_000
#: Largest seed: CP-SAT takes a 32-bit signed seed, and the other seeds are taken alike.
MAX_SEED = 2**31 - 1
#: Most threads (CP-SAT's workers) and worker processes (cubes, batch) taken.
MOST_THREADS = 256


def whole_number(
    value: object, name: str, minimum: int | None = 0, maximum: int | None = None
) -> int:
    """`value` as an int in `minimum`..`maximum` (None: no bound); a bool, a float or a
    string is refused (1.5 solutions or "3" samples are mistakes, not requests to round or
    parse). Any integer type is taken (numpy's too: whatever has __index__)."""
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise InputError(f"expected a whole number, got {_kind(value)} {shown(value)}", name)
    number = operator.index(value)  # type: ignore[arg-type]
    if minimum is not None and number < minimum:
        raise InputError(f"must be {minimum} or more, not {shown(number)}", name)
    if maximum is not None and number > maximum:
        raise InputError(f"must be at most {maximum:,}, not {shown(number)}", name)
    return number


def seconds(value: object, name: str = "timeout") -> float | None:
    """`value` as a finite number of seconds >= 0 (at most MAX_SECONDS: more is taken as
    that), or None (no limit); NaN, infinity, a bool and a number too large for a float are
    refused."""
    if value is None:
        return None
    if not _is_real(value):
        raise InputError(f"expected a number of seconds or None, got {_kind(value)} {shown(value)}",
                         name)  # fmt: skip
    try:
        number = float(value)  # type: ignore[arg-type]
    except OverflowError:
        number = math.inf
    if not 0 <= number < math.inf:
        raise InputError(f"must be a finite number of seconds >= 0, not {shown(value)}", name)
    return min(number, MAX_SECONDS)  # longer is no limit in practice, and timers overflow


def probability(value: object, name: str, *, below_one: bool) -> float:
    """A real number in (0, 1) (`below_one`) or (0, infinity): a tolerance or a probability."""
    if not _is_real(value):
        raise InputError(f"expected a number, got {_kind(value)} {shown(value)}", name)
    number = float(value)  # type: ignore[arg-type]
    high = 1.0 if below_one else math.inf
    # Written as "not (a < x < b)" so that NaN is refused too.
    if not 0 < number < high:
        wanted = "in (0, 1)" if below_one else "a positive number"
        raise InputError(f"must be {wanted}, not {shown(value)}", name)
    return number


def puzzle(value: object, name: str = "puzzle") -> Puzzle:
    """`value` if it is a Puzzle (read one with satnono.read_puzzle)."""
    if not isinstance(value, Puzzle):
        raise InputError(
            f"expected a Puzzle (satnono.read_puzzle or Puzzle.from_clues), got {_kind(value)}",
            name,
        )
    return value


def path(value: object, name: str = "path") -> str:
    """`value` as a path string: a str or an os.PathLike (bytes paths are refused: satnono
    names files in its messages and JSON, which need text)."""
    if isinstance(value, str) or (isinstance(value, os.PathLike) and not isinstance(value, bytes)):
        text = os.fspath(value)
        if isinstance(text, str):
            if not text or "\0" in text:
                raise InputError(f"{shown(text)} is not a usable file name", name)
            return text
    raise InputError(f"expected a file name (str or Path), got {_kind(value)}", name)


def text(value: object, name: str) -> str:
    """`value` if it is a str."""
    if not isinstance(value, str):
        raise InputError(f"expected a string, got {_kind(value)} {shown(value)}", name)
    return value


def flag(value: object, name: str) -> bool:
    """`value` if it is a bool (a string such as "false" would be true)."""
    if not isinstance(value, bool):
        raise InputError(f"expected True or False, got {_kind(value)} {shown(value)}", name)
    return value


def optional_callable(value: object, name: str) -> Callable[..., Any] | None:
    """`value` if it is None or callable."""
    if value is not None and not callable(value):
        raise InputError(f"expected a function or None, got {_kind(value)}", name)
    return value


def instance_or_none(value: object, kind: type, name: str) -> Any:
    """`value` if it is None or a `kind`."""
    if value is not None and not isinstance(value, kind):
        raise InputError(f"expected a {kind.__name__} or None, got {_kind(value)}", name)
    return value
