"""Mirek and Petr Olšák's `.g` format (their `grid` solver; webpbn export "olsak"), with colors.

Spec: the grammar documented inside the Olšák example files (kocka.g: sections; oko.g: colors;
rose.g: #rrggbb colors, no default) as shipped with pbnsolve, and pbnsolve's read_olsak.c. Text
before a `#` or `:` in the first column is commentary. `#d` (any word starting `#d`/`#D`) opens
the color declarations, one per line: `<inchar>:<outchar> <XPM color> <comment>`; inchar `0`
declares the background, `1` the default color of blocks without a letter. A line starting with
`:` opens the row clues, the next such line the column clues, a third ends the puzzle (the rest
of the file is commentary). One clue per line, `3`, `3a` or `3 1m 2`; a blank line is an empty
line. Triddlers (`#t`) and triangle blocks (`/` and `\\` colors) are refused.
Assumed where the sources are silent: other `#` lines before the clues are commentary; a lone `0`
is also an empty line; with no closing `:` line the column clues run to the end of the file,
trailing blank lines not counted; the color name is the XPM word when it is a name, else the first
word of the comment (webpbn writes `n:%  #00B000   green`); every declared color is kept in the
palette, used or not, and the default color `1` is shown by its display character.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from dataclasses import dataclass

from satnono.core.model import (
    BLACK,
    BLACK_AND_WHITE,
    MAX_SIDE,
    WHITE,
    Block,
    Clue,
    Color,
    Puzzle,
    default_rgb,
    make_palette,
)
from satnono.errors import InputError
from satnono.formats import _plain
from satnono.formats.limits import MAX_DIGITS, check_blocks, check_colors, color_char, shown

_HEX = re.compile(r"#((?:[0-9a-fA-F]{3}){1,4})")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_TOKEN = re.compile(r"[^\s,]+")
_BLOCK = re.compile(r"([0-9]+)([^0-9\s,]?)")
#: Characters that cannot name a color in clue text (digits are refused separately).
_UNSAFE_INCHARS = set(",:/\\.") | set(string.whitespace)


@dataclass(frozen=True)
class _Declared:
    name: str
    outchar: str
    rgb: str


def parse_olsak(text: str) -> list[Puzzle]:
    lines = _plain.numbered_lines(text)
    end = _plain.last_line(lines)
    declared: dict[str, _Declared] | None = None
    at: int | None = None
    for i, (number, line) in enumerate(lines):
        if line.startswith(":"):
            at = i + 1
            break
        if line[:2] in ("#t", "#T"):
            raise InputError("triddlers (#t) are not supported", line=number)
        if line[:2] in ("#d", "#D"):
            declared, at = _declarations(lines, i + 1)
            break
    if at is None:
        raise InputError("no line starting with ':' before the row clues", line=end)
    rows, at = _section(lines, at, "row")
    if at is None:
        raise InputError("no line starting with ':' between the row and column clues", line=end)
    columns, closed = _section(lines, at, "column")
    if closed is None:
        while columns and not columns[-1][1].strip():
            columns.pop()
    for kind, section, where in (("row", rows, lines[at - 1][0]), ("column", columns, end)):
        if not section:
            raise InputError(f"no {kind} clues", line=where)
    return [_build(rows, columns, declared, end)]


def _declarations(lines: list[_plain.Line], at: int) -> tuple[dict[str, _Declared], int]:
    """The color declarations from line index `at`; returns them and the first row-clue index."""
    declared: dict[str, _Declared] = {}
    for i in range(at, len(lines)):
        number, raw = lines[i]
        line = raw.lstrip()
        if not line:
            continue
        if line.startswith(":"):
            return declared, i + 1
        inchar = color_char(line[0], number)
        if line[1:2] != ":":
            raise InputError(
                f"color declaration: expected '<letter>:<char> <color>', got {shown(raw)}",
                line=number,
            )
        if inchar in "/\\":
            raise InputError("triangle blocks ('/' and '\\' colors) are not supported", line=number)
        if (inchar.isdigit() and inchar not in "01") or inchar == ",":
            raise InputError(f"{inchar!r} cannot name a color", line=number)
        if inchar in declared:
            raise InputError(f"color {inchar!r} declared twice", line=number)
        words = line[3:].split()
        if not words:
            raise InputError(f"color {inchar!r}: no color after {line[:3]!r}", line=number)
        name, rgb = _color(words[0], words[1:], inchar, len(declared), number)
        outchar = line[2:3]
        declared[inchar] = _Declared(name, outchar if outchar.isprintable() else " ", rgb)
        check_colors(len(declared) - ("0" in declared), number)
    raise InputError(
        "the file ends in the color declarations, before the ':' line of the row clues",
        line=_plain.last_line(lines),
    )


def _color(
    word: str, comment: list[str], inchar: str, position: int, number: int
) -> tuple[str, str]:
    match = _HEX.fullmatch(word)
    if match:
        digits = match.group(1).lower()
        width = len(digits) // 3
        parts = [digits[k * width : (k + 1) * width] for k in range(3)]
        rgb = "#" + "".join(part * 2 if width == 1 else part[:2] for part in parts)
        fallback = {"0": "background", "1": "default"}.get(inchar, inchar)
        return (comment[0] if comment else fallback), rgb
    if _NAME.fullmatch(word):
        return word, default_rgb(word, position)
    raise InputError(f"cannot read the color {shown(word)} (an X11 name or #rrggbb)", line=number)


def _section(lines: list[_plain.Line], at: int, kind: str) -> tuple[list[_plain.Line], int | None]:
    """Clue lines from index `at` to the next ':' line; returns them and the index after it."""
    section: list[_plain.Line] = []
    for i in range(at, len(lines)):
        number, line = lines[i]
        if line.startswith(":"):
            return section, i + 1
        section.append((number, line))
        if len(section) > MAX_SIDE:
            raise InputError(f"more than {MAX_SIDE} {kind} clue lines", line=number)
    return section, None


def _blocks(text: str, number: int, declared: dict[str, _Declared] | None) -> list[tuple[int, str]]:
    """(length, color letter) pairs of one clue line; the letter is '' for the default color."""
    tokens = _TOKEN.findall(text)
    if tokens == ["0"]:
        return []
    blocks: list[tuple[int, str]] = []
    for token in tokens:
        if "/" in token or "\\" in token:
            raise InputError(f"triangle blocks are not supported: {shown(token)}", line=number)
        pieces = list(_BLOCK.finditer(token))
        if not pieces or "".join(p.group(0) for p in pieces) != token:
            raise InputError(f"cannot read the block {shown(token)}", line=number)
        for piece in pieces:
            digits, letter = piece.groups()
            length = int(digits) if len(digits) <= MAX_DIGITS else MAX_SIDE + 1
            if length == 0:
                raise InputError("a block of length 0", line=number)
            if length > MAX_SIDE:
                shown_length = digits if len(digits) <= MAX_DIGITS else shown(digits)
                raise InputError(
                    f"a block of length {shown_length} is longer than {MAX_SIDE}", line=number
                )
            blocks.append((length, _letter(letter, number, declared)))
            check_blocks(len(blocks), number)
    return blocks


def _letter(letter: str, number: int, declared: dict[str, _Declared] | None) -> str:
    if declared is None:
        if letter:
            raise InputError(
                f"color letter {letter!r}, but no colors are declared (#d)", line=number
            )
        return ""
    if not letter:
        if "1" not in declared:
            raise InputError(
                "a block with no color letter, and no default color ('1:') is declared",
                line=number,
            )
        return "1"
    if letter == "0" or letter not in declared:
        raise InputError(f"undeclared color letter {letter!r}", line=number)
    return letter


def _build(
    rows: list[_plain.Line],
    columns: list[_plain.Line],
    declared: dict[str, _Declared] | None,
    end: int,
) -> Puzzle:
    row_blocks = [_blocks(text, number, declared) for number, text in rows]
    column_blocks = [_blocks(text, number, declared) for number, text in columns]
    if declared is None:
        palette, index = BLACK_AND_WHITE, {"": 1}
    else:
        letters = [c for c in declared if c != "0"]
        background = declared.get("0")
        names: set[str] = {background.name if background else WHITE.name}
        colors = []
        for letter in letters:
            color = declared[letter]
            name = color.name if color.name not in names else f"{color.name}-{letter}"
            names.add(name)
            char = color.outchar if letter == "1" else letter
            colors.append(Color(name, char, color.rgb))
        palette = make_palette(
            Color(background.name, ".", background.rgb) if background else WHITE,
            colors or [BLACK],
        )
        index = {letter: i + 1 for i, letter in enumerate(letters)}

    def clues(blocks: list[list[tuple[int, str]]]) -> tuple[Clue, ...]:
        return tuple(tuple(Block(length, index[letter]) for length, letter in b) for b in blocks)

    try:
        return Puzzle(len(columns), len(rows), clues(row_blocks), clues(column_blocks), palette)
    except InputError as error:
        raise InputError(error.message, line=end) from None


def write_olsak(puzzles: Sequence[Puzzle]) -> str:
    """The puzzle as `.g` text; colors are declared unless it is plain black on white."""
    if len(puzzles) != 1:
        raise InputError(f"a .g file holds one puzzle; there are {len(puzzles)}")
    puzzle = puzzles[0]
    background, colors = puzzle.palette[0], puzzle.palette[1:]
    plain = puzzle.is_black_and_white and background.rgb == WHITE.rgb and colors[0].rgb == BLACK.rgb
    out = []
    letters = ["", ""] if plain else [""]
    if not plain:
        out.append("#d")
        out.append(f"   0:.  {background.rgb}   {_word(background.name, 'background')}")
        for color in colors:
            letter = color.char
            if letter in letters or letter.isdigit() or letter in _UNSAFE_INCHARS:
                letter = next(c for c in string.ascii_letters if c not in letters)
            letters.append(letter)
            out.append(f"   {letter}:{letter}  {color.rgb}   {_word(color.name, letter)}")
    for title, clues in ((": rows", puzzle.rows), (": columns", puzzle.columns)):
        out.append(title)
        out += [" ".join(f"{b.length}{letters[b.color]}" for b in clue) for clue in clues]
    out.append(": end")
    return "\n".join(out) + "\n"


def _word(name: str, fallback: str) -> str:
    return "_".join(name.split()) or fallback


looks_like_olsak = _plain.sniffer(parse_olsak)
