"""Evgeniy Syromolotov's JSolver format (webpbn export `syro`, `.syr`/`.syro`), black and white.

Spec: no published description was found. This follows what the public tools that exchange the
format show (webpbn's export consumed by nonogrid and its syr2toml script, the geo-tools
nono2jsolver writer): one line per row, each a list of block lengths ended by a `0` (an empty line
is a lone `0`), a line holding only `#`, one line per column in the same form, and a closing `#`
line. There is no size header: the numbers of lines give the height and width. Assumed, from
nonogrid's reader: other lines starting with `#` are comments, blank lines are ignored.
"""

from __future__ import annotations

from collections.abc import Sequence

from satnono.core.model import Clue, Puzzle
from satnono.errors import InputError
from satnono.formats import _plain
from satnono.formats.limits import shown


def parse_syro(text: str) -> list[Puzzle]:
    lines = _plain.numbered_lines(text)
    sections: list[list[Clue]] = [[]]
    closed = False
    for number, raw in lines:
        line = raw.strip()
        if not line or (line.startswith("#") and line != "#"):
            continue
        if closed:
            raise InputError("text after the '#' line that closes the column clues", line=number)
        if line == "#":
            if not sections[-1]:
                kind = "row" if len(sections) == 1 else "column"
                raise InputError(f"'#' with no {kind} clues before it", line=number)
            if len(sections) == 2:
                closed = True
            else:
                sections.append([])
            continue
        values = _plain.numbers(line, number)
        if not values or values[-1] != 0:
            raise InputError(
                f"a clue line must end with 0 (the terminator), got {shown(line)}", line=number
            )
        sections[-1].append(_plain.clue(values[:-1] or [0], number))
        _plain.count_limit(sections[-1], "row" if len(sections) == 1 else "column", number)
    end = _plain.last_line(lines)
    if not closed:
        expected = "after the row clues" if len(sections) == 1 else "closing the column clues"
        raise InputError(f"missing the '#' line {expected}", line=end)
    return [_plain.build(sections[0], sections[1], end)]


def write_syro(puzzles: Sequence[Puzzle]) -> str:
    puzzle = _plain.single_black_and_white(puzzles, "Syromolotov (.syr)")
    out = [_line(clue) for clue in puzzle.rows] + ["#"]
    out += [_line(clue) for clue in puzzle.columns] + ["#"]
    return "\n".join(out) + "\n"


def _line(clue: Clue) -> str:
    return " ".join([*(str(block.length) for block in clue), "0"])


looks_like_syro = _plain.sniffer(parse_syro)
