"""The `.cwd` format of Meshcheryakov's QNonograms and Sukhoy's solver; black and white.

Spec: pbnsolve doc/input.md (MESHCHERYAKOV AND SUKHOY'S .CWD FORMAT): the height, then the width,
each on its own line, the row clues, a blank line, the column clues; no fuller spec was found, so
the reading follows Tamura's Copris reader of webpbn's cwd exports: a blank clue line (or a lone
`0`) is an empty line, the separator must be blank. The writer writes empty lines as blank lines,
which is what Copris reads as empty.
"""

from __future__ import annotations

from collections.abc import Sequence

from satnono.core.model import Clue, Puzzle
from satnono.errors import InputError
from satnono.formats import _plain
from satnono.formats.limits import shown


def parse_cwd(text: str) -> list[Puzzle]:
    lines = _plain.numbered_lines(text)
    start = next((i for i, (_, line) in enumerate(lines) if line.strip()), None)
    if start is None:
        raise InputError("empty file: expected the height", line=1)
    sizes: list[int] = []
    for what in ("height", "width"):
        if start + len(sizes) >= len(lines):
            raise InputError(f"the file ends before the {what}", line=_plain.last_line(lines))
        number, line = lines[start + len(sizes)]
        parts = line.split()
        if len(parts) != 1:
            raise InputError(
                f"expected the {what} alone on its line, got {shown(line)}", line=number
            )
        sizes.append(_plain.side(parts[0], what, number))
    height, width = sizes
    at = start + 2
    rows = _section(lines, at, height, "row")
    at += height
    if at >= len(lines):
        raise InputError(
            "the file ends before the blank line and the column clues", line=_plain.last_line(lines)
        )
    number, separator = lines[at]
    if separator.strip():
        raise InputError(
            f"expected a blank line between the row and column clues, got {shown(separator)}",
            line=number,
        )
    columns = _section(lines, at + 1, width, "column")
    for number, extra in lines[at + 1 + width :]:
        if extra.strip():
            raise InputError(f"unexpected line after the {width} column clues", line=number)
    return [_plain.build(rows, columns, _plain.last_line(lines))]


def _section(lines: list[_plain.Line], at: int, count: int, kind: str) -> list[Clue]:
    section = lines[at : at + count]
    if len(section) < count:
        raise InputError(
            f"expected {count} {kind} clue lines, the file ends after {len(section)}",
            line=_plain.last_line(lines),
        )
    return [_plain.parse_clue(text, number) for number, text in section]


def write_cwd(puzzles: Sequence[Puzzle]) -> str:
    puzzle = _plain.single_black_and_white(puzzles, ".cwd")
    rows = [" ".join(str(block.length) for block in clue) for clue in puzzle.rows]
    columns = [" ".join(str(block.length) for block in clue) for clue in puzzle.columns]
    return "\n".join([str(puzzle.height), str(puzzle.width), *rows, "", *columns]) + "\n"


looks_like_cwd = _plain.sniffer(parse_cwd)
