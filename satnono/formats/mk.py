"""The Olšák `.mk` format (Olšák solver examples, read by pbnsolve), black and white.

Spec: pbnsolve doc/input.md (OLSAK .MK FORMAT) and the Olšák example files it ships: `height
width`, the row clues, a line starting with `#`, the column clues. As in pbnsolve, a blank line or
a lone `0` is an empty line; blank lines beyond the declared counts (trailing, before the `#`) are
skipped.
Not to be confused with Makhorin's pbnsol format (see makhorin.py), which webpbn exports separately.
"""

from __future__ import annotations

from collections.abc import Sequence

from satnono.core.model import Puzzle
from satnono.errors import InputError
from satnono.formats import _plain


def parse_mk(text: str) -> list[Puzzle]:
    lines = _plain.numbered_lines(text)
    height, width, start = _plain.size_line(lines, "height", "width")
    number = lines[start][0]
    body = lines[start + 1 :]
    split = next((i for i, (_, line) in enumerate(body) if line.lstrip().startswith("#")), None)
    if split is None:
        raise InputError(
            "no line starting with '#' between the row and column clues",
            line=_plain.last_line(lines),
        )
    rows = _plain.take_clues(body[:split], height, "row", number)
    columns = _plain.take_clues(body[split + 1 :], width, "column", body[split][0])
    return [_plain.build(rows, columns, _plain.last_line(lines))]


def write_mk(puzzles: Sequence[Puzzle]) -> str:
    puzzle = _plain.single_black_and_white(puzzles, ".mk")
    out = [f"{puzzle.height} {puzzle.width}"]
    out += [_plain.clue_text(clue) for clue in puzzle.rows]
    out.append("#")
    out += [_plain.clue_text(clue) for clue in puzzle.columns]
    return "\n".join(out) + "\n"


looks_like_mk = _plain.sniffer(parse_mk)
