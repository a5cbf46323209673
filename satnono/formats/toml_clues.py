"""pynogram's and nonogrid's TOML boards (`.toml`): a `[clues]` table with `rows` and `columns`,
and for color an optional `[colors]` table.

The format as their example files describe it (nonogrid's examples/hello.toml and UK.toml):
each of `rows` and `columns` is a string, usually triple-quoted over several lines, of clues
separated by commas and/or line ends; a clue is block lengths separated by spaces (`0` an
empty line), optionally quoted ('1 1'); `#` or `;` starts a comment, even inside the string;
blank lines are ignored. A block's length may carry a color's name (`2g 1r 2`: 2 of g, 1 of r,
2 of the default black). `[colors]` defines each name as `NAME = (DESCRIPTION) CHAR`, where
DESCRIPTION is a color name, an RGB triple `0, 255, 0` or hex `FF0000`; either as lines of
the table or as the strings of an array `defs = ['b = (blue) *', ...]`.

Not every such file is strict TOML (a definitions line `p = (pink) %` is not), so this is a
line reader of the subset they use, which names the line of every problem.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from satnono.core.model import (
    BLACK,
    BLACK_AND_WHITE,
    WHITE,
    Block,
    Color,
    Puzzle,
    default_rgb,
    make_palette,
    rgb_of,
)
from satnono.errors import InputError
from satnono.formats._plain import numbered_lines
from satnono.formats.limits import check_colors, shown

_SECTION = re.compile(r"\[\s*([A-Za-z_][\w-]*)\s*\]")
_KEY = re.compile(r"([A-Za-z_][\w-]*)\s*=\s*(.*)")
_BLOCK = re.compile(r"([0-9]{1,7})([A-Za-z_][\w-]*)?")
_DEFINITION = re.compile(r"([A-Za-z_][\w-]*)\s*=\s*\(([^)]*)\)\s*(\S)?")
_QUOTED = re.compile(r"'([^']*)'|\"([^\"]*)\"")
_TRIPLE = ('"""', "'''")

#: (line number, text) of a value: each line of a multi-line string or array.
Value = list[tuple[int, str]]


def _tables(text: str) -> dict[str, dict[str, Value]]:
    """Every table's keys and their values' lines."""
    tables: dict[str, dict[str, Value]] = {}
    table: dict[str, Value] | None = None
    open_value: Value | None = None  # the value whose closing quotes or bracket are due
    closing = ""
    for number, line in numbered_lines(text):
        if open_value is not None:
            end = line.find(closing)
            open_value.append((number, line if end < 0 else line[:end]))
            if end >= 0:
                open_value = None
            continue
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        section = _SECTION.fullmatch(stripped.split("#")[0].strip())
        if section is not None:
            table = tables.setdefault(section.group(1).lower(), {})
            continue
        key = _KEY.fullmatch(stripped)
        if table is None:  # keys before any table: the file's own (a title)
            table = tables.setdefault("", {})
        if key is None:  # the verbose form: a key's clues on the lines under it
            if not table:
                raise InputError(f"expected KEY = VALUE, got {shown(stripped)}", line=number)
            table[next(reversed(table))].append((number, stripped))
            continue
        name, rest = key.group(1).lower(), key.group(2).strip()
        value = table[name] = []
        for quotes in (*_TRIPLE, "["):
            if rest.startswith(quotes):
                closing = "]" if quotes == "[" else quotes
                rest = rest[len(quotes) :]
                end = rest.find(closing)
                value.append((number, rest if end < 0 else rest[:end]))
                open_value = value if end < 0 else None
                break
        else:
            value.append((number, rest))
    if open_value is not None:
        raise InputError(f"{closing} never closed", line=open_value[0][0])
    return tables


def _colors(table: dict[str, Value]) -> dict[str, Color]:
    """The colors `[colors]` defines, by the name clues give them."""
    definitions: list[tuple[int, str]] = []
    for key, value in table.items():
        if key == "defs":
            for number, line in value:
                definitions += [(number, a or b) for a, b in _QUOTED.findall(line)]
        else:
            text = value[0][1].strip().strip("'\"") if value else ""
            definitions += [(value[0][0], f"{key} = {text}")] if value else []
    colors: dict[str, Color] = {}
    for number, text in definitions:
        found = _DEFINITION.match(text.strip())
        if found is None:
            raise InputError(f"expected NAME = (COLOR) CHAR, got {shown(text)}", line=number)
        name, description, char = found.group(1), found.group(2).strip(), found.group(3)
        rgb = rgb_of(description) or _triple(description, number)
        label = description if re.fullmatch(r"[A-Za-z ]+", description) else name
        colors[name] = Color(label, name if len(name) == 1 else (char or name[0]), rgb)
    check_colors(len(colors), None)
    return colors


def _triple(description: str, number: int) -> str:
    parts = [part.strip() for part in description.split(",")]
    if len(parts) == 3 and all(part.isdigit() and int(part) < 256 for part in parts):
        return "#" + "".join(f"{int(part):02x}" for part in parts)
    if re.fullmatch(r"[A-Za-z]+", description):
        return default_rgb(description, 0)  # a color name outside satnono's short table
    raise InputError(f"cannot read the color {shown(description)}", line=number)


def _clues(value: Value, kind: str) -> list[tuple[int, list[tuple[int, str | None]]]]:
    """Each clue of a `rows` or `columns` value: its line, and (length, color name) blocks."""
    clues = []
    for number, line in value:
        line = re.split(r"[#;]", line, maxsplit=1)[0]
        for piece in line.split(","):
            piece = piece.strip().strip("'\"").strip()
            if not piece:
                continue
            blocks: list[tuple[int, str | None]] = []
            for token in piece.split():
                found = _BLOCK.fullmatch(token)
                if found is None:
                    raise InputError(f"{kind} clue: {shown(token)} is not a block", line=number)
                blocks.append((int(found.group(1)), found.group(2)))
            if blocks == [(0, None)]:
                blocks = []
            elif any(length == 0 for length, _ in blocks):
                raise InputError(f"{kind} clue {shown(piece)}: a block of 0", line=number)
            clues.append((number, blocks))
    return clues


def parse_toml_clues(text: str) -> list[Puzzle]:
    tables = _tables(text)
    clues = tables.get("clues")
    if clues is None or "rows" not in clues or "columns" not in clues:
        raise InputError("no [clues] table with rows and columns", line=1)
    colors = _colors(tables.get("colors", {}))
    rows, columns = _clues(clues["rows"], "row"), _clues(clues["columns"], "column")
    for kind, found, value in (("row", rows, clues["rows"]), ("column", columns, clues["columns"])):
        if not found:
            raise InputError(f"no {kind} clues", line=value[0][0] if value else 1)
    used = {name for _, clue in (*rows, *columns) for _, name in clue}
    default = None in used and bool(colors)
    named = ([BLACK] if default else []) + list(colors.values())
    index = {name: number for number, name in enumerate(colors, start=1 + default)}
    palette = make_palette(WHITE, named) if colors else BLACK_AND_WHITE

    def blocks(number: int, clue: list[tuple[int, str | None]]) -> tuple[Block, ...]:
        made = []
        for length, name in clue:
            if name is not None and name not in index:
                raise InputError(f"the color {shown(name)} is not in [colors]", line=number)
            made.append(Block(length, 1 if name is None else index[name]))
        return tuple(made)

    title = next((line.strip("'\" ") for _, line in tables.get("", {}).get("title", [])), "")
    try:
        return [Puzzle(len(columns), len(rows), tuple(blocks(n, c) for n, c in rows),
                       tuple(blocks(n, c) for n, c in columns), palette, title)]  # fmt: skip
    except InputError as error:
        raise InputError(error.message, line=(rows or columns)[0][0]) from None


def write_toml_clues(puzzles: Sequence[Puzzle]) -> str:
    if len(puzzles) != 1:
        raise InputError(f"a TOML board holds one puzzle; there are {len(puzzles)}")
    puzzle = puzzles[0]
    title = puzzle.title.replace("\\", "").replace('"', "'").replace("\n", " ")
    out = [f'title = "{title}"', ""] if title else []
    colored = not puzzle.is_black_and_white
    # A color's name in the clues: none for black (the format's default), its character when
    # a letter, else c1, c2, ...
    names = [
        "" if c.name == "black" else c.char if c.char.isalpha() else f"c{n}"
        for n, c in enumerate(puzzle.palette)
    ]
    if colored:
        out += ["[colors]", "defs = ["]
        out += [
            f"    '{names[n]} = ({color.rgb[1:]}) {color.char}',"
            for n, color in enumerate(puzzle.palette[1:], start=1)
            if names[n]
        ]
        out += ["]", ""]

    def clue(blocks: tuple[Block, ...]) -> str:
        tail = [name if colored else "" for name in names]
        return " ".join(f"{block.length}{tail[block.color]}" for block in blocks) or "0"

    out.append("[clues]")
    for key, lines in (("columns", puzzle.columns), ("rows", puzzle.rows)):
        out += [f'{key} = """', *(f"    {clue(blocks)}" for blocks in lines), '"""', ""]
    return "\n".join(out)


#: A `[clues]` table's header at the start of a line. Blanks, not \s: \s would run over line
#: ends and back at every line of a file of blank lines (18 s on 10 million of them).
_CLUES_TABLE = re.compile(r"^[ \t]*\[[ \t]*clues[ \t]*\]", re.MULTILINE)


def looks_like_toml_clues(text: str) -> bool:
    return _CLUES_TABLE.search(text) is not None
