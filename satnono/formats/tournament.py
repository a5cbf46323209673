"""The computer-olympiad tournament format (the TAAI, TCGA and ICGA nonogram tournaments):
many square black-and-white puzzles in one question file, and the answer file a program writes.

Question file: for each puzzle a line `$k` (its number), then N column clues (left to right,
each top to bottom), then N row clues (top to bottom, each left to right), block lengths
separated by tabs, an empty line for an empty clue (never `0`); line ends may be CRLF. A puzzle
is read with its number as its title. Answer file: for each puzzle solved, `$k` and then N
lines of N tab-separated `0` (white) and `1` (black), one solution (any one counts).

An empty last clue is an empty line too, so blank lines after a puzzle's clues may be clues
or separators: the file's puzzles all have one size, the smallest that holds every puzzle's
clues (its last line that is not blank); the blank lines past it are separators, any number
of them, after any puzzle. A puzzle with fewer lines than that size needs is named with its
`$` line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from satnono.core.model import MAX_SIDE, Grid, Puzzle
from satnono.errors import InputError, shown
from satnono.formats import _plain
from satnono.formats.limits import MAX_LINES, MAX_PUZZLES

#: A puzzle's number as the files write it after `$`.
_NUMBER = re.compile(r"[0-9A-Za-z_.-]{1,40}")


def _blocks(text: str) -> list[tuple[str, int, list[_plain.Line]]]:
    """(number, line of its `$`, its lines) for every `$` section of a file. A section (or
    what comes before the first) of more than MAX_LINES lines is refused as it is read."""
    sections: list[tuple[str, int, list[_plain.Line]]] = []
    since = 0  # lines since the last `$`, or since the start
    for number, line in _plain.iter_lines(text):
        if line.startswith("$"):
            name = line[1:].strip()
            if not _NUMBER.fullmatch(name):
                raise InputError(
                    f"expected '$' and a puzzle number, got {shown(line)}", line=number
                )
            if len(sections) >= MAX_PUZZLES:
                raise InputError(f"more than {MAX_PUZZLES} puzzles in one file", line=number)
            sections.append((name, number, []))
            since = 0
            continue
        since += 1
        if since > MAX_LINES:
            raise InputError(
                f"more than {MAX_LINES} lines; satnono reads at most {MAX_LINES} a puzzle",
                line=number,
            )
        if sections:
            sections[-1][2].append((number, line))
        elif line.strip():
            raise InputError(f"expected '$1' (a puzzle's number), got {shown(line)}", line=number)
    if not sections:
        raise InputError("no '$' line: not a tournament question file", line=1)
    return sections


def parse_tournament(text: str) -> list[Puzzle]:
    """Every puzzle; they all have one size (a tournament's puzzles do, and a puzzle cut short
    would otherwise read as a smaller one): the smallest that holds every puzzle's clues."""
    sections = _blocks(text)
    # Each puzzle's clue lines up to its last one that is not blank: the side is at least half.
    needed = [_last_clue_line(lines) for _, _, lines in sections]
    side = max((count + 1) // 2 for count in needed)
    if side == 0:
        name, start, _ = sections[0]
        raise InputError(f"puzzle ${name}: no clue lines", line=start)
    if side > MAX_SIDE:
        name, start, _ = sections[needed.index(max(needed))]
        raise InputError(f"puzzle ${name}: {side} x {side} is larger than {MAX_SIDE}", line=start)
    puzzles: list[Puzzle] = []
    for name, start, lines in sections:
        if len(lines) < 2 * side:
            widest = sections[needed.index(max(needed))][0]
            raise InputError(
                f"puzzle ${name}: {len(lines)} clue lines, where a {side} x {side} puzzle "
                f"(the size ${widest} needs) has {2 * side}",
                line=start,
            )
        clues = [_plain.parse_clue(line, number) for number, line in lines[: 2 * side]]
        try:
            puzzles.append(Puzzle(side, side, tuple(clues[side:]), tuple(clues[:side]), title=name))
        except InputError as error:
            raise InputError(f"puzzle ${name}: {error.message}", line=start) from None
    return puzzles


def _last_clue_line(lines: Sequence[_plain.Line]) -> int:
    """How many of a puzzle's lines run up to its last one that is not blank."""
    for index in range(len(lines) - 1, -1, -1):
        if lines[index][1].strip():
            return index + 1
    return 0


def puzzle_number(puzzle: Puzzle, position: int) -> str:
    """The number a puzzle goes by in a tournament file: its title when that is one, else its
    1-based position."""
    title = puzzle.title.strip().removeprefix("$")
    return title if _NUMBER.fullmatch(title) else str(position)


def write_tournament(puzzles: Sequence[Puzzle]) -> str:
    out = []
    for position, puzzle in enumerate(puzzles, start=1):
        if not puzzle.is_black_and_white:
            raise InputError("a tournament file holds black-and-white puzzles only")
        if puzzle.width != puzzle.height:
            raise InputError(
                "a tournament file holds square puzzles only; "
                f"one is {puzzle.width}x{puzzle.height}"
            )
        out.append(f"${puzzle_number(puzzle, position)}")
        for clue in (*puzzle.columns, *puzzle.rows):
            out.append("\t".join(str(block.length) for block in clue))
    return "\n".join(out) + "\n"


def looks_like_tournament(text: str) -> bool:
    """The first line that is not blank is `$` and a number: no other format starts so (a
    trial parse of a thousand puzzles would double the reading time)."""
    first = next((line for _, line in _plain.iter_lines(text) if line.strip()), "")
    return first.startswith("$") and _NUMBER.fullmatch(first[1:].strip()) is not None


def write_answers(answers: Iterable[tuple[str, Grid]]) -> str:
    """An answer file: for each (puzzle number, solution), `$k` and the grid as 0/1 rows."""
    out = []
    for number, grid in answers:
        out.append(f"${number}")
        out += ["\t".join(str(cell) for cell in row) for row in grid]
    return "\n".join(out) + ("\n" if out else "")


def parse_answers(text: str) -> dict[str, Grid]:
    """An answer file (or the published solutions): each puzzle number's grid."""
    answers: dict[str, Grid] = {}
    for name, start, lines in _blocks(text):
        rows = []
        for number, line in lines:
            if not line.strip():
                continue
            cells = line.split()
            if any(cell not in ("0", "1") for cell in cells):
                raise InputError(
                    f"puzzle ${name}: expected 0 and 1, got {shown(line)}", line=number
                )
            rows.append(tuple(int(cell) for cell in cells))
        if not rows or any(len(row) != len(rows[0]) for row in rows):
            raise InputError(f"puzzle ${name}: rows of different lengths", line=start)
        answers[name] = tuple(rows)
    return answers
