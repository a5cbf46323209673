"""Limits on what a puzzle file may declare, refused by every parser before it allocates.

Why: a file is untrusted input, so a number written in it must not decide how much memory or
time satnono spends. Each limit sits far above any real puzzle (webpbn's largest are 99 x 99,
with a few dozen colors at most) and is checked where the number is read, before any list,
grid or clause set sized by it exists. RELIABILITY.md documents them as the input contract:

- a file: at most MAX_FILE_BYTES (16 MiB, checked in satnono.formats before reading);
- width and height: 1..MAX_SIDE (1000, satnono.core.model); a headerless format is refused at its
  MAX_SIDE + 1st clue line;
- a block length: 1..MAX_SIDE, and a number is read only when it has at most MAX_DIGITS digits,
  so no parser ever converts a 5000-digit string;
- blocks in one clue: at most MAX_BLOCKS (a line of MAX_SIDE cells holds no more);
- colors besides the background: at most MAX_COLORS;
- lines in a one-puzzle file (.g, .mk, .nin, .cwd, Syromolotov, Makhorin) or in one puzzle of
  a .non bundle: at most MAX_LINES, counted before the text is split (a .non file is read line
  by line), so that a huge file of blank lines costs little, even to content sniffing, which
  trial-parses a file in every format;
- puzzles in one file (.non bundles, XML puzzle sets): at most MAX_PUZZLES.
"""

from __future__ import annotations

from satnono.core.model import MAX_BLOCKS, MAX_COLORS, MAX_SIDE
from satnono.errors import InputError, shown

#: Digits in a number worth converting; any size or length within the limits has fewer.
MAX_DIGITS = 7
#: Lines in a one-puzzle file: a MAX_SIDE x MAX_SIDE puzzle needs 2 * MAX_SIDE clue lines, the
#: rest is room for commentary and blank lines.
MAX_LINES = 100_000
#: Puzzles in one file.
MAX_PUZZLES = 10_000

__all__ = [
    "MAX_BLOCKS",
    "MAX_COLORS",
    "MAX_DIGITS",
    "MAX_LINES",
    "MAX_PUZZLES",
    "MAX_SIDE",
    "check_blocks",
    "check_colors",
    "check_lines",
    "check_puzzles",
    "color_char",
    "shown",
]


def check_colors(count: int, line: int | None) -> None:
    """Refuse a puzzle with more than MAX_COLORS colors (background not counted)."""
    if count > MAX_COLORS:
        raise InputError(f"{count} colors; satnono reads at most {MAX_COLORS}", line=line)


def check_blocks(count: int, line: int | None) -> None:
    """Refuse a clue of more than MAX_BLOCKS blocks."""
    if count > MAX_BLOCKS:
        raise InputError(
            f"a clue of {count} blocks; no line is longer than {MAX_SIDE} cells", line=line
        )


def check_lines(text: str, limit: int = MAX_LINES) -> None:
    """Refuse a text of more than `limit` lines, before it is split into them."""
    if max(text.count("\n"), text.count("\r")) >= limit:
        raise InputError(f"more than {limit} lines; satnono reads at most {limit}", line=limit + 1)


def check_puzzles(count: int, line: int | None) -> None:
    """Refuse a file of more than MAX_PUZZLES puzzles, as soon as there are more."""
    if count > MAX_PUZZLES:
        raise InputError(f"more than {MAX_PUZZLES} puzzles in one file", line=line)


def color_char(char: str, line: int | None) -> str:
    """A color character from a file: one printable character, not a space."""
    if len(char) != 1 or not char.isprintable() or char.isspace():
        raise InputError(f"color character {char!r} is not a printable character", line=line)
    return char
