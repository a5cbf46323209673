"""Steve Simpson's `.non` format as extended by mikix/nonogram-db (colors, goal, bundles).

Spec: mikix/nonogram-db FORMAT.md. Keys come one per line; `rows` and `columns` are followed by
exactly `height` / `width` clue lines (a blank line or `0` is an empty line); unknown keys are
ignored; a bundle (`.nonpack`) separates puzzles with a line of `====`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from satnono.core.model import (
    BLACK,
    BLACK_AND_WHITE,
    BLOTTED,
    MAX_SIDE,
    WHITE,
    Block,
    Clue,
    Color,
    Grid,
    Puzzle,
    default_rgb,
    make_palette,
    parse_rgb,
)
from satnono.errors import InputError
from satnono.formats import _plain
from satnono.formats.limits import (
    MAX_DIGITS,
    MAX_LINES,
    check_blocks,
    check_colors,
    check_puzzles,
    color_char,
    shown,
)

_STRING_KEYS = {"catalogue": "source", "title": "title", "by": "author", "copyright": "copyright"}
_KEYS = {"width", "height", "rows", "columns", "goal", "color", "license", *_STRING_KEYS}
#: A block: its length (or `?`, blotted), then maybe a color character (never a digit or `?`).
_BLOCK = re.compile(r"([0-9]+|\?)([^0-9?]?)")
_SEPARATORS = re.compile(r"[,\s]+")
#: A clue of plain numbers (black and white), read without looking at each token's parts.
_PLAIN_CLUE = re.compile(r"[0-9]+(?:[,\s]+[0-9]+)*")
_NUMBER = re.compile(r"[0-9]+")


def looks_like_non(text: str) -> bool:
    """Content sniffing for files without a telling suffix."""
    lines = _plain.split_lines(text[:100_000])[:400]
    keys = {line.split(maxsplit=1)[0] for line in lines if line.strip()}
    return {"width", "height", "rows", "columns"} <= keys


def parse_non(text: str) -> list[Puzzle]:
    """Every puzzle in a `.non` file or `====`-separated bundle."""
    puzzles: list[Puzzle] = []
    chunk: list[tuple[int, str]] = []
    for number, line in _plain.iter_lines(text):
        if line.strip() == "====":
            if any(content.strip() for _, content in chunk):
                check_puzzles(len(puzzles) + 1, number)
                puzzles.append(_parse_one(chunk))
            chunk = []
        else:
            chunk.append((number, line))
            if len(chunk) > MAX_LINES:
                raise InputError(f"a puzzle of more than {MAX_LINES} lines", line=number)
    if any(content.strip() for _, content in chunk) or not puzzles:
        check_puzzles(len(puzzles) + 1, chunk[0][0] if chunk else 1)
        puzzles.append(_parse_one(chunk))
    return puzzles


def _unquote(value: str, number: int) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1]
    elif value.startswith('"'):
        raise InputError("unterminated string", line=number)
    if "&" not in value:
        return value  # html (2 ms to import) only for the rare escaped string
    import html

    return html.unescape(value)


def _parse_size(key: str, value: str, number: int) -> int:
    digits = value.strip()
    if not _NUMBER.fullmatch(digits):
        raise InputError(f"{key}: expected a whole number, got {shown(value)}", line=number)
    if len(digits) > MAX_DIGITS:
        raise InputError(f"{key} {shown(digits)} is outside 1..{MAX_SIDE}", line=number)
    size = int(digits)
    if not 1 <= size <= MAX_SIDE:
        raise InputError(f"{key} {size} is outside 1..{MAX_SIDE}", line=number)
    return size


def _parse_clue(text: str, number: int) -> list[tuple[int, str]]:
    """(length, color character or '') pairs of one clue line."""
    stripped = text.strip()
    tokens = [t for t in _SEPARATORS.split(stripped) if t]
    if tokens == ["0"]:
        return []
    check_blocks(len(tokens), number)
    if _PLAIN_CLUE.fullmatch(stripped) and max(map(len, tokens)) <= MAX_DIGITS:
        lengths = [int(token) for token in tokens]
        if min(lengths) > 0 and max(lengths) <= MAX_SIDE:
            return [(length, "") for length in lengths]
        # otherwise the loop below finds the bad block and says which
    blocks = []
    for token in tokens:
        match = _BLOCK.fullmatch(token)
        if match is None:
            raise InputError(f"bad clue {shown(text)}: cannot read {shown(token)}", line=number)
        digits = match.group(1)
        if digits == "?":  # a blotted number: a run of unknown length
            blocks.append((BLOTTED, color_char(match.group(2), number) if match.group(2) else ""))
            continue
        length = int(digits) if len(digits) <= MAX_DIGITS else MAX_SIDE + 1
        if length == 0:
            raise InputError(f"bad clue {shown(text)}: a block of length 0", line=number)
        if length > MAX_SIDE:
            raise InputError(f"bad clue {shown(text)}: block longer than {MAX_SIDE}", line=number)
        blocks.append((length, color_char(match.group(2), number) if match.group(2) else ""))
    return blocks


def _parse_one(lines: list[tuple[int, str]]) -> Puzzle:
    sizes: dict[str, int] = {}
    sections: dict[str, list[tuple[int, list[tuple[int, str]]]]] = {}
    declared: dict[str, str] = {}  # color char -> rgb
    goal: tuple[int, str] | None = None
    title = ""
    info: list[tuple[str, str]] = []
    i = 0
    while i < len(lines):
        number, raw = lines[i]
        i += 1
        line = raw.strip()
        if not line:
            continue
        key, *rest = line.split(maxsplit=1)  # a keyword, then spaces or tabs
        value = rest[0] if rest else ""
        if key in ("width", "height"):
            sizes[key] = _parse_size(key, value, number)
        elif key in ("rows", "columns"):
            side = "height" if key == "rows" else "width"
            if side not in sizes:
                raise InputError(f"'{key}' comes before '{side}'", line=number)
            if key in sections:
                raise InputError(f"'{key}' given twice", line=number)
            clues: list[tuple[int, list[tuple[int, str]]]] = []
            while len(clues) < sizes[side]:
                if i >= len(lines):
                    raise InputError(
                        f"{key}: expected {sizes[side]} clue lines, the file ends after "
                        f"{len(clues)}",
                        line=number,
                    )
                clue_number, clue_line = lines[i]
                first = clue_line.split(maxsplit=1)[0] if clue_line.strip() else ""
                if first in _KEYS:
                    raise InputError(
                        f"{key}: expected {sizes[side]} clue lines, found {len(clues)} "
                        f"before '{first}'",
                        line=clue_number,
                    )
                clues.append((clue_number, _parse_clue(clue_line, clue_number)))
                i += 1
            sections[key] = clues
        elif key == "color":
            parts = value.split()
            rgb = parse_rgb(parts[1]) if len(parts) == 2 else None
            if rgb is None or len(parts[0]) != 1:
                raise InputError(
                    f"color: expected 'color <char> #rrggbb', got {shown(line)}", line=number
                )
            char = color_char(parts[0], number)
            if char.isdigit() or char == "?":
                raise InputError(
                    f"color {shown(char)}: digits and '?' are clue numbers, not colors", line=number
                )
            if char in declared:
                raise InputError(f"color {shown(char)} is declared twice", line=number)
            declared[char] = rgb
            check_colors(len(declared), number)
        elif key == "goal":
            goal = (number, _unquote(value, number))
        elif key in _STRING_KEYS:
            text = _unquote(value, number)
            if key == "title":
                title = text
            else:
                info.append((_STRING_KEYS[key], text))
        elif key == "license":
            info.append(("license", _unquote(value, number)))
        elif key[0].isdigit():
            raise InputError(
                f"clue line {shown(line)} outside the rows and columns sections", line=number
            )
        # Any other line is an unknown key, which the format says to ignore.
    end = lines[-1][0] if lines else 1
    for key in ("width", "height", "rows", "columns"):
        if key not in sizes and key not in sections:
            raise InputError(f"missing '{key}'", line=end)
    return _build(sizes, sections, declared, goal, title, info)


def _build(
    sizes: dict[str, int],
    sections: dict[str, list[tuple[int, list[tuple[int, str]]]]],
    declared: dict[str, str],
    goal: tuple[int, str] | None,
    title: str,
    info: list[tuple[str, str]],
) -> Puzzle:
    used = [
        char for key in ("rows", "columns") for _, clue in sections[key] for _, char in clue if char
    ]
    if used:
        all_blocks = [
            (number, block)
            for key in ("rows", "columns")
            for number, clue in sections[key]
            for block in clue
        ]
        chars = list(declared)
        chars += [c for c in dict.fromkeys(used) if c not in declared]
        check_colors(len(chars), all_blocks[0][0])
        for number, (length, char) in all_blocks:
            if not char:
                raise InputError(
                    f"block {length} has no color letter, but this puzzle's clues use colors",
                    line=number,
                )
            # Without any `color` line the letters alone name the colors (the corpus's
            # convention); once the file declares colors, a letter it does not declare is a
            # typo, as the .g format treats it.
            if declared and char not in declared:
                raise InputError(
                    f"block {length}{char}: color {shown(char)} is not declared (declared: "
                    f"{', '.join(declared)})",
                    line=number,
                )
        colors = [
            Color(char, char, declared.get(char) or default_rgb(char, i))
            for i, char in enumerate(chars)
        ]
        palette = make_palette(WHITE, colors)
    else:
        chars = [""]
        palette = (
            make_palette(WHITE, [Color("black", "#", next(iter(declared.values())))])
            if len(declared) == 1
            else BLACK_AND_WHITE
        )
    index = {char: i + 1 for i, char in enumerate(chars)}

    # Equal blocks are one object: a 1000 x 1000 puzzle has 260,000 blocks, and making each
    # anew was half the reading time.
    made: dict[tuple[int, str], Block] = {}

    def make(pair: tuple[int, str]) -> Block:
        block = made[pair] = Block(pair[0], index[pair[1]])
        return block

    def clues(key: str) -> tuple[Clue, ...]:
        return tuple(
            tuple([made.get(pair) or make(pair) for pair in clue]) for _, clue in sections[key]
        )

    width, height = sizes["width"], sizes["height"]
    grid = _parse_goal(goal, width, height, index, bool(used)) if goal else None
    return Puzzle(width, height, clues("rows"), clues("columns"), palette, title, tuple(info), grid)


def _parse_goal(
    goal: tuple[int, str], width: int, height: int, index: dict[str, int], color: bool
) -> Grid:
    number, text = goal
    if len(text) != width * height:
        raise InputError(
            f"goal has {len(text)} cells, a {width}x{height} grid has {width * height}", line=number
        )
    cells = []
    for char in text:
        if char in "0.":
            cells.append(0)
        elif not color:
            cells.append(1)
        elif char in index:
            cells.append(index[char])
        else:
            raise InputError(f"goal uses {char!r}, which no clue uses", line=number)
    return tuple(tuple(cells[r * width : (r + 1) * width]) for r in range(height))


def write_non_bundle(puzzles: Sequence[Puzzle]) -> str:
    """Several puzzles in one file, separated by `====` lines (nonogram-db bundles)."""
    return "====\n".join(write_non(puzzle) for puzzle in puzzles)


def write_non(puzzle: Puzzle) -> str:
    """The puzzle as `.non` text; reading it back gives an equal Puzzle."""
    out = []
    if puzzle.title:
        out.append(f"title {_quote(puzzle.title)}")
    names = {value: key for key, value in _STRING_KEYS.items()}
    for key, value in puzzle.info:
        if key in names:
            out.append(f"{names[key]} {_quote(value)}")
        elif key == "license":
            out.append(f"license {_quote(value)}")
    out += [f"width {puzzle.width}", f"height {puzzle.height}", ""]
    color = not puzzle.is_black_and_white
    if color or puzzle.palette[1].rgb != BLACK.rgb:  # one color that is not black is kept too
        out += [f"color {c.char} {c.rgb}" for c in puzzle.palette[1:]]
        out.append("")
    for key, clues in (("rows", puzzle.rows), ("columns", puzzle.columns)):
        out.append(key)
        out += [puzzle.clue_text(clue) for clue in clues]
        out.append("")
    if puzzle.goal is not None:
        chars = ["0"] + ([c.char for c in puzzle.palette[1:]] if color else ["1"])
        out.append(f"goal {_quote(''.join(chars[cell] for row in puzzle.goal for cell in row))}")
    return "\n".join(out).rstrip("\n") + "\n"


def _quote(text: str) -> str:
    import html

    return '"' + " ".join(_plain.split_lines(html.escape(text, quote=True))) + '"'
