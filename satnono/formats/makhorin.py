"""The clue format of Andrew Makhorin's pbnsol solver (webpbn export "makhorin"), black and white.

Spec: no document of Makhorin's was found; webpbn's export page names it "Format for Andrew
Makhorin's pbnsol nonogram solver. Not for multi-color puzzles", and the public readers of those
exports agree: lines starting with `*` are comments, one line of block lengths per row (a lone `0`
for an empty row), a line `&`, one line per column. No size header and no file suffix; detection is
by content. Assumed: blank lines are ignored. (Makhorin's GLPK examples/pbn files are MathProg
model data, a different thing, not read here.)
"""

from __future__ import annotations

from collections.abc import Sequence

from satnono.core.model import Clue, Puzzle
from satnono.errors import InputError
from satnono.formats import _plain


def parse_makhorin(text: str) -> list[Puzzle]:
    lines = _plain.numbered_lines(text)
    sections: list[list[Clue]] = [[]]
    for number, raw in lines:
        line = raw.strip()
        if not line or line.startswith("*"):
            continue
        if line == "&":
            if len(sections) == 2:
                raise InputError("a second '&' line", line=number)
            if not sections[0]:
                raise InputError("'&' with no row clues before it", line=number)
            sections.append([])
            continue
        sections[-1].append(_plain.parse_clue(line, number))
        _plain.count_limit(sections[-1], "row" if len(sections) == 1 else "column", number)
    end = _plain.last_line(lines)
    if len(sections) == 1:
        raise InputError("no '&' line between the row and column clues", line=end)
    return [_plain.build(sections[0], sections[1], end)]


def write_makhorin(puzzles: Sequence[Puzzle]) -> str:
    puzzle = _plain.single_black_and_white(puzzles, "Makhorin pbnsol")
    out = ["* row clues, top to bottom"]
    out += [_plain.clue_text(clue) for clue in puzzle.rows]
    out += ["&", "* column clues, left to right"]
    out += [_plain.clue_text(clue) for clue in puzzle.columns]
    return "\n".join(out) + "\n"


looks_like_makhorin = _plain.sniffer(parse_makhorin)
