"""Pieces shared by the plain clue-list formats (nin, cwd, mk, syro, makhorin); not a format.

These formats are lines of block lengths separated by spaces (pbnsolve also accepts commas), a
lone `0` for an empty line, one puzzle per file, black and white only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from satnono.core.model import BLACK_AND_WHITE, MAX_SIDE, Block, Clue, Puzzle
from satnono.errors import InputError, accepted
from satnono.formats.limits import MAX_LINES, check_blocks, check_lines, shown

#: (1-based line number, line text without its newline)
Line = tuple[int, str]

_SEPARATORS = re.compile(r"[\s,]+")
#: Seven digits are plenty for any length up to MAX_SIDE and keep int() away from huge strings.
_DIGITS = re.compile(r"[0-9]{1,7}")


#: Line ends as editors count them; str.splitlines() also breaks at form feeds, \x1c-\x1e, \x85
#: and U+2028, which would make the line numbers in error messages disagree with the editor's.
_LINE_END = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """The lines of a text, without their ends; a final line end starts no new line."""
    lines = _LINE_END.split(text)
    if lines and not lines[-1]:
        lines.pop()
    return lines


def numbered_lines(text: str) -> list[Line]:
    """The numbered lines of a text; more than MAX_LINES are refused before the text is split."""
    check_lines(text, MAX_LINES)
    return list(enumerate(split_lines(text), start=1))


_LINE = re.compile(r"([^\r\n]*)(?:\r\n|\r|\n)|([^\r\n]+)\Z")


def iter_lines(text: str) -> Iterator[Line]:
    """The numbered lines of a text one at a time, for files that may hold many puzzles."""
    for number, match in enumerate(_LINE.finditer(text), start=1):
        line = match.group(1)
        yield number, line if line is not None else match.group(2)


def last_line(lines: Sequence[Line]) -> int:
    """The line to blame when the file ends too early."""
    return lines[-1][0] if lines else 1


def whole_number(token: str, what: str, number: int) -> int:
    if not _DIGITS.fullmatch(token):
        raise InputError(f"{what}: expected a whole number, got {shown(token)}", line=number)
    return int(token)


def side(token: str, what: str, number: int) -> int:
    """A declared width or height, refused outside 1..MAX_SIDE before anything is allocated."""
    if token.isascii() and token.isdigit() and len(token) > 7:  # too long to be a side
        raise InputError(f"{what} {shown(token)} is outside 1..{MAX_SIDE}", line=number)
    value = whole_number(token, what, number)
    if not 1 <= value <= MAX_SIDE:
        raise InputError(f"{what} {value} is outside 1..{MAX_SIDE}", line=number)
    return value


def size_line(lines: Sequence[Line], first: str, second: str) -> tuple[int, int, int]:
    """The first non-blank line read as two sides, e.g. 'width height': (first, second, index).

    Both are checked as `side` checks them; `index` is the line's place in `lines`.
    """
    start = next((i for i, (_, line) in enumerate(lines) if line.strip()), None)
    if start is None:
        raise InputError(f"empty file: expected '{first} {second}'", line=1)
    number, header = lines[start]
    parts = header.split()
    if len(parts) != 2:
        raise InputError(f"expected '{first} {second}', got {shown(header)}", line=number)
    return side(parts[0], first, number), side(parts[1], second, number), start


def numbers(text: str, number: int) -> list[int]:
    """The whole numbers of one line, separated by spaces, tabs or commas."""
    values = []
    for token in _SEPARATORS.split(text.strip()):
        if not token:
            continue
        if not _DIGITS.fullmatch(token):
            raise InputError(f"cannot read {shown(token)} as a block length", line=number)
        values.append(int(token))
    return values


def clue(values: Sequence[int], number: int) -> Clue:
    """A clue from its block lengths; a lone 0 (or nothing) is an empty line."""
    if list(values) == [0]:
        return ()
    check_blocks(len(values), number)
    for value in values:
        if value == 0:
            raise InputError("a block of length 0 (a lone 0 marks an empty line)", line=number)
        if value > MAX_SIDE:
            raise InputError(f"a block of length {value} is longer than {MAX_SIDE}", line=number)
    return tuple(Block(value) for value in values)


def parse_clue(text: str, number: int) -> Clue:
    return clue(numbers(text, number), number)


def take_clues(section: Sequence[Line], count: int, kind: str, where: int) -> list[Clue]:
    """Exactly `count` clues from a section of lines.

    Read positionally first, as pbnsolve does: the first `count` lines, blank ones being empty
    clues, when only blank lines follow them. Failing that, as Wilk's reader does: the non-blank
    lines, when there are exactly `count` of them. Anything else is an error naming the line.
    """
    chosen = list(section[:count])
    if len(chosen) < count or any(text.strip() for _, text in section[count:]):
        chosen = [line for line in section if line[1].strip()]
    if len(chosen) > count:
        raise InputError(f"more than {count} {kind} clue lines", line=chosen[count][0])
    if len(chosen) < count:
        raise InputError(
            f"expected {count} {kind} clue lines, found {len(chosen)}",
            line=last_line(section) if section else where,
        )
    return [parse_clue(text, number) for number, text in chosen]


def count_limit(clues: Sequence[Clue], kind: str, number: int) -> None:
    """Refuse a headerless file as soon as it has more lines than any puzzle may."""
    if len(clues) > MAX_SIDE:
        raise InputError(f"more than {MAX_SIDE} {kind} clue lines", line=number)


def build(rows: Sequence[Clue], columns: Sequence[Clue], number: int) -> Puzzle:
    """A black-and-white puzzle; sizes were checked by the caller, `number` is blamed otherwise."""
    if not rows:
        raise InputError("no row clues", line=number)
    if not columns:
        raise InputError("no column clues", line=number)
    try:
        return Puzzle(len(columns), len(rows), tuple(rows), tuple(columns), BLACK_AND_WHITE)
    except InputError as error:
        raise InputError(error.message, line=number) from None


def single_black_and_white(puzzles: Sequence[Puzzle], name: str) -> Puzzle:
    """The one puzzle a writer of a one-puzzle, black-and-white format can hold."""
    if len(puzzles) != 1:
        raise InputError(f"a {name} file holds one puzzle; there are {len(puzzles)}")
    puzzle = puzzles[0]
    if not puzzle.is_black_and_white:
        raise InputError(
            f"a {name} file holds black-and-white puzzles only; this one has "
            f"{len(puzzle.palette) - 1} colors"
        )
    return puzzle


def clue_text(clue: Clue) -> str:
    """Block lengths separated by spaces; `0` for an empty line."""
    return " ".join(str(block.length) for block in clue) or "0"


def sniffer(parse: Callable[[str], list[Puzzle]]) -> Callable[[str], bool]:
    """Content sniffing by parsing: these formats have no magic words, only structure."""

    def sniff(text: str) -> bool:
        return accepted(lambda: parse(text))

    return sniff
