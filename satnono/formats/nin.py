"""Jakub Wilk's `.nin` format (his `nonogram` solver, also pbnsolve and BGU); black and white.

Spec: jwilk nonogram manpage, DATA FORMAT (`W H`, then H row lines, then W column lines, block
lengths separated by spaces); pbnsolve doc/input.md (JAKUB WILK'S .NIN FORMAT). Wilk's reader skips
blank lines and writes an empty line as `0`, pbnsolve reads a blank line as an empty line: a file
with exactly W + H lines after the header is read pbnsolve's way, otherwise blank lines are skipped.
"""

from __future__ import annotations

from collections.abc import Sequence

from satnono.core.model import Puzzle
from satnono.formats import _plain


def parse_nin(text: str) -> list[Puzzle]:
    lines = _plain.numbered_lines(text)
    width, height, start = _plain.size_line(lines, "width", "height")
    number = lines[start][0]
    clues = _plain.take_clues(lines[start + 1 :], height + width, "row and column", number)
    return [_plain.build(clues[:height], clues[height:], _plain.last_line(lines))]


def write_nin(puzzles: Sequence[Puzzle]) -> str:
    puzzle = _plain.single_black_and_white(puzzles, ".nin")
    out = [f"{puzzle.width} {puzzle.height}"]
    out += [_plain.clue_text(clue) for clue in (*puzzle.rows, *puzzle.columns)]
    return "\n".join(out) + "\n"


looks_like_nin = _plain.sniffer(parse_nin)
