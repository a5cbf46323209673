"""The puzzle model: palette, clues and grids, shared by every format, solver and renderer.

Color is built in from the start: a black-and-white puzzle is simply a palette of two colors,
so no layer needs a special case for it. Color index 0 is always the background.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING

from satnono.errors import Contradiction, InputError, shown

if TYPE_CHECKING:
    from satnono.core.rows import RowCache

#: Largest width or height accepted from any file, checked before anything is allocated.
#: webpbn's largest puzzles are 99 x 99; 1000 leaves room for generated puzzles while refusing
#: a declared size that would only exhaust memory.
MAX_SIDE = 1000
#: Colors besides the background in one puzzle: webpbn allows 32; satnono's text output needs a
#: distinct character per color, and 64 leave every color a spare letter when its own is unusable.
MAX_COLORS = 64
#: Blocks in one clue (a line of MAX_SIDE cells holds no more): every reader, maker and
#: checker refuses more, before any work.
MAX_BLOCKS = MAX_SIDE

BACKGROUND = 0
#: The character of an undecided cell in a partial grid's text.
UNDECIDED = "?"


@dataclass(frozen=True)
class Color:
    """One palette entry: its name, the character that stands for it in text, its RGB hex."""

    name: str
    char: str
    rgb: str  # "#rrggbb"


WHITE = Color("white", ".", "#ffffff")
BLACK = Color("black", "#", "#000000")
BLACK_AND_WHITE: tuple[Color, ...] = (WHITE, BLACK)


_FALLBACK_RGB = ("#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#46f0f0", "#f032e6")
_RGB_BY_NAME = {
    "black": "#000000", "white": "#ffffff", "red": "#ff0000", "green": "#00b000",
    "blue": "#4040ff", "yellow": "#ffff00", "orange": "#ff8000", "brown": "#804000",
    "gray": "#808080", "grey": "#808080", "pink": "#ff80c0", "purple": "#8000ff",
}  # fmt: skip
_NAME_BY_LETTER = {
    "k": "black", "r": "red", "g": "green", "b": "blue", "y": "yellow", "o": "orange",
    "w": "white", "p": "purple",
}  # fmt: skip
#: Never a digit or '?': in clue text those are numbers ('?' a blotted one).
_SPARE_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ@$%&*+=!~^<>/|"
_HEX_RGB = re.compile(r"#?([0-9a-fA-F]{6}|[0-9a-fA-F]{3})")


def parse_rgb(text: str) -> str | None:
    """'#rrggbb' for a hex color as files write it ('#rgb', 'rrggbb', ...); None otherwise."""
    found = _HEX_RGB.fullmatch(text.strip())
    if found is None:
        return None
    digits = found.group(1).lower()
    return "#" + (digits if len(digits) == 6 else "".join(d * 2 for d in digits))


def rgb_of(value: object) -> str | None:
    """'#rrggbb' for a hex color or a plain color name (red, blue, ...); None otherwise."""
    if not isinstance(value, str):
        return None
    return parse_rgb(value) or _RGB_BY_NAME.get(value.strip().lower())


def default_rgb(name: str, position: int) -> str:
    """A display color for a color the file names but does not define."""
    name = _NAME_BY_LETTER.get(name, name).lower()
    return _RGB_BY_NAME.get(name, _FALLBACK_RGB[position % len(_FALLBACK_RGB)])


def make_palette(background: Color, colors: Sequence[Color]) -> tuple[Color, ...]:
    """A palette with satnono's text conventions: '.' background, '#' for a lone color.

    Other color characters are kept as the file gave them unless they collide or are unusable
    in clue text (digits, '?', separators), in which case a spare letter stands in.
    """
    palette = [Color(background.name, ".", background.rgb)]
    if len(colors) == 1:
        return (*palette, Color(colors[0].name, "#", colors[0].rgb))
    if len(colors) > MAX_COLORS:
        raise InputError(f"{len(colors)} colors; satnono takes at most {MAX_COLORS}")
    used = {"."}
    for color in colors:
        char = color.char
        if len(char) != 1 or char in used or char.isdigit() or char.isspace() or char in ",.?":
            char = next(c for c in _SPARE_CHARS if c not in used)
        used.add(char)
        palette.append(Color(color.name, char, color.rgb))
    return tuple(palette)


#: The length of a blotted clue number: a run of unknown length (at least one cell), as in
#: webpbn's blotted puzzles and `?` in `.non`. Negative, so that no parser reading digits can
#: produce it and a 0 stays an error.
BLOTTED = -1


@dataclass(frozen=True)
class Block:
    """A clue number: a run of `length` cells of palette color `color` (never the background);
    `length` BLOTTED (-1) when the number is hidden: any run of one cell or more."""

    length: int
    color: int = 1

    @property
    def blotted(self) -> bool:
        return self.length == BLOTTED


Clue = tuple[Block, ...]
#: A clue number as Puzzle.from_clues takes it: a length or "?", alone or with its color.
ClueEntry = int | str | tuple[int | str, str | int]
#: A solved grid: one tuple of palette indices per row.
Grid = tuple[tuple[int, ...], ...]


def min_clue_length(clue: Sequence[Block]) -> int:
    """Cells a clue needs: its blocks plus one gap between neighbours of the same color only."""
    gaps = sum(1 for a, b in pairwise(clue) if a.color == b.color)
    return sum(max(1, block.length) for block in clue) + gaps


@dataclass(frozen=True)
class Puzzle:
    """A rectangular nonogram. Construction checks the structure, not solvability."""

    width: int
    height: int
    rows: tuple[Clue, ...]
    columns: tuple[Clue, ...]
    palette: tuple[Color, ...] = BLACK_AND_WHITE
    title: str = ""
    #: Free-form metadata in file order (author, copyright, catalogue, license, ...).
    info: tuple[tuple[str, str], ...] = ()
    #: The intended picture, when the file carries one; it is not trusted, only compared.
    goal: Grid | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        for side, value in (("width", self.width), ("height", self.height)):
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_SIDE:
                raise InputError(f"{side} {value} is outside 1..{MAX_SIDE}")
        if len(self.rows) != self.height:
            raise InputError(f"{len(self.rows)} row clues for height {self.height}")
        if len(self.columns) != self.width:
            raise InputError(f"{len(self.columns)} column clues for width {self.width}")
        if len(self.palette) < 2:
            raise InputError("the palette needs a background and at least one color")
        if len(self.palette) > MAX_COLORS + 1:
            raise InputError(f"{len(self.palette) - 1} colors; satnono takes at most {MAX_COLORS}")
        for color in self.palette:
            if parse_rgb(color.rgb) != color.rgb:
                raise InputError(f"color {color.name!r}: {color.rgb!r} is not '#rrggbb'")
        chars = [color.char for color in self.palette]
        if len(set(chars)) != len(chars) or any(len(c) != 1 for c in chars):
            raise InputError(f"color characters must be single and distinct, got {chars}")
        if chars[0] != "." or "." in chars[1:]:
            raise InputError("'.' is the background's character and only the background's")
        for kind, index, clue in self.lines():
            if len(clue) > MAX_BLOCKS:  # refused before its blocks are looked at, one by one
                raise InputError(
                    f"{kind} {index + 1}: {len(clue)} blocks; a clue has at most {MAX_BLOCKS} "
                    f"(a line has at most {MAX_SIDE} cells)"
                )
            for block in clue:
                if not isinstance(block, Block) or not isinstance(block.length, int):
                    raise InputError(f"{kind} {index + 1}: {block!r} is not a Block")
                if block.length < 1 and not block.blotted:
                    raise InputError(f"{kind} {index + 1}: block length {block.length} < 1")
                if block.length > MAX_SIDE:
                    raise InputError(
                        f"{kind} {index + 1}: a block of {shown(block.length, 12)} cells is longer "
                        f"than any line (at most {MAX_SIDE} cells)"
                    )
                if not 1 <= block.color < len(self.palette):
                    raise InputError(f"{kind} {index + 1}: unknown color index {block.color}")
        if self.goal is not None and (
            len(self.goal) != self.height or any(len(row) != self.width for row in self.goal)
        ):
            raise InputError(f"goal is not a {self.width}x{self.height} grid")

    @classmethod
    def from_clues(
        cls,
        rows: Sequence[Sequence[ClueEntry]],
        columns: Sequence[Sequence[ClueEntry]],
        colors: Mapping[str, str] | None = None,
        title: str = "",
    ) -> Puzzle:
        """A puzzle from plain clues: `[[3, 1], [2], []]` in black and white, or in color
        `[[(3, "red"), (1, "blue")], ...]` with `colors={"red": "#ff0000", "blue": "#0000ff"}`.
        A hidden (blotted) number is `"?"`, or `("?", color)` in color.

        A color is named by a key of `colors` (whose order is the palette's), or, without
        `colors`, by any name (given a display color by name, in order of first use). Bad
        clues raise InputError (a ValueError) naming the line.
        """
        rows, columns = _clue_lists(rows, "rows"), _clue_lists(columns, "columns")
        if not isinstance(title, str):
            raise InputError(f"expected a string, got {type(title).__name__}", "title")
        names = _named_colors(colors)
        pairs = any(
            not isinstance(entry, int | str) for clue in (*rows, *columns) for entry in clue
        )
        if colors is None and pairs:
            for clue in (*rows, *columns):
                for entry in clue:
                    if isinstance(entry, tuple | list) and len(entry) == 2:
                        name = str(entry[1])
                        names.setdefault(name, default_rgb(name, len(names)))
        if not names:
            names = {"black": BLACK.rgb}
        index = {name: number for number, name in enumerate(names, start=1)}

        def length_of(kind: str, number: int, value: object) -> int:
            if value == "?":
                return BLOTTED
            if isinstance(value, bool) or not isinstance(value, int):
                raise InputError(f"{kind} {number}: {shown(value)} is not a clue number")
            if value < 1:
                raise InputError(f"{kind} {number}: block length {value} < 1")
            return value

        def clue_of(kind: str, number: int, clue: Sequence[ClueEntry]) -> Clue:
            blocks = []
            for entry in clue:
                if not isinstance(entry, tuple | list):
                    length, color = length_of(kind, number, entry), 1
                    if len(names) > 1:
                        raise InputError(f"{kind} {number}: {shown(entry)} needs a color")
                else:
                    if len(entry) != 2 or isinstance(entry[0], tuple | list):
                        raise InputError(f"{kind} {number}: {shown(entry)} is not (length, color)")
                    length, named = length_of(kind, number, entry[0]), entry[1]
                    if isinstance(named, int) and not isinstance(named, bool):
                        color = named
                    elif str(named) in index:
                        color = index[str(named)]
                    else:
                        raise InputError(f"{kind} {number}: unknown color {shown(named)}")
                blocks.append(Block(length, color))
            return tuple(blocks)

        palette = make_palette(
            WHITE, [Color(name, name[:1] or "?", rgb) for name, rgb in names.items()]
        )
        return cls(
            width=len(columns),
            height=len(rows),
            rows=tuple(clue_of("row", n, clue) for n, clue in enumerate(rows, start=1)),
            columns=tuple(clue_of("column", n, clue) for n, clue in enumerate(columns, start=1)),
            palette=palette,
            title=title,
        )

    def __repr__(self) -> str:
        # Short: the clues of a large puzzle run to thousands of characters (see .rows).
        colors = len(self.palette) - 1
        named = f"{self.title!r}, " if self.title else ""
        return f"Puzzle({named}{self.width}x{self.height}, {colors} color{'s' * (colors > 1)})"

    @property
    def is_black_and_white(self) -> bool:
        return len(self.palette) == 2

    @property
    def line_count(self) -> int:
        return self.height + self.width

    def lines(self) -> Iterator[tuple[str, int, Clue]]:
        """Every line as (kind, index, clue): rows first, then columns."""
        for index, clue in enumerate(self.rows):
            yield "row", index, clue
        for index, clue in enumerate(self.columns):
            yield "column", index, clue

    def line_cells(self, line: int) -> range:
        """Flat cell indices (row * width + column) of line `line`: rows, then columns."""
        if line < self.height:
            start = line * self.width
            return range(start, start + self.width)
        column = line - self.height
        return range(column, self.width * self.height, self.width)

    def line_clue(self, line: int) -> Clue:
        return self.rows[line] if line < self.height else self.columns[line - self.height]

    def line_name(self, line: int) -> str:
        if line < self.height:
            return f"row {line + 1}"
        return f"column {line - self.height + 1}"

    def clue_text(self, clue: Clue) -> str:
        """A clue as people write it: `3,1` in black and white, `3a,1b` in color."""
        if not clue:
            return "0"
        if self.is_black_and_white:
            return ",".join(clue_number(block) for block in clue)
        return ",".join(f"{clue_number(block)}{self.palette[block.color].char}" for block in clue)

    @property
    def has_blotted(self) -> bool:
        """Whether some clue number is hidden (blotted)."""
        return any(block.blotted for _, _, clue in self.lines() for block in clue)

    def grid_rows(
        self, grid: Grid, texts: RowCache[tuple[int, ...], str] | None = None
    ) -> list[str]:
        """A grid as row strings of palette characters ('.' is the background): each row's
        bytes translated in C (the solution stream writes tens of thousands a second).
        `texts`, kept by the caller across a stream of this puzzle's solutions, holds the
        strings of the rows made so far."""
        if texts is not None and texts.on:
            return texts.rows(grid, lambda new: self.grid_rows(tuple(new)))
        try:  # past the palette: 0xff, which no ASCII decode takes
            table = bytes(ord(color.char) for color in self.palette).ljust(256, b"\xff")
            return [bytes(row).translate(table).decode("ascii") for row in grid]
        except (ValueError, TypeError):  # not palette indices, or characters past ASCII
            chars = [color.char for color in self.palette].__getitem__
            return ["".join(map(chars, row)) for row in grid]

    def domains_from_rows(self, rows: Sequence[str], where: str = "grid") -> list[int]:
        """Every cell's colors (bitmasks) from a partial grid's rows: a palette character
        decides a cell, '?' leaves it open; InputError names the row (`where`:N) and the
        problem."""
        return _domains_from_rows(self, rows, where)

    def grid_from_rows(self, rows: Sequence[str]) -> Grid:
        """The inverse of `grid_rows`; raises InputError on an unknown character."""
        index = {color.char: i for i, color in enumerate(self.palette)}
        try:
            return tuple(tuple(index[char] for char in row) for row in rows)
        except KeyError as error:
            raise InputError(f"unknown color character {error.args[0]!r} in grid") from None


def _domains_from_rows(puzzle: Puzzle, rows: Sequence[str], where: str) -> list[int]:
    index = {color.char: 1 << number for number, color in enumerate(puzzle.palette)}
    index[UNDECIDED] = (1 << len(puzzle.palette)) - 1
    if len(rows) != puzzle.height:
        raise InputError(f"has {len(rows)} rows, the puzzle {puzzle.height}", where)
    domains: list[int] = []
    for number, row in enumerate(rows, start=1):
        if len(row) != puzzle.width:
            raise InputError(
                f"row {number} has {len(row)} cells, the puzzle {puzzle.width}", f"{where}:{number}"
            )
        for column, char in enumerate(row, start=1):
            if char not in index:
                known = "".join(color.char for color in puzzle.palette)
                raise InputError(
                    f"column {column}: {char[:40]!r} is neither a palette color ({known}) nor "
                    f"'{UNDECIDED}'",
                    f"{where}:{number}",
                )
            domains.append(index[char])
    return domains


class LineContradiction(Contradiction):
    """No arrangement of one line's clue fits its current cells."""

    def __init__(self, puzzle: Puzzle, line: int) -> None:
        self.line = line
        clue = puzzle.clue_text(puzzle.line_clue(line))
        super().__init__(f"line logic: {puzzle.line_name(line)} (clue {clue}) cannot be completed")


def clue_number(block: Block) -> str:
    """A clue number as people write it: '?' where it is blotted."""
    return "?" if block.blotted else str(block.length)


def find_contradiction(puzzle: Puzzle) -> str | None:
    """A reason the clues cannot be satisfied that needs no search, or None.

    Checked before solving so that the commonest authoring mistakes get a precise message
    ("row 7: clue needs 31 cells, width is 30") instead of a bare "no solution". One pass over
    the blocks: it runs before every solve, a tenth of an easy puzzle's.
    """
    colors = len(puzzle.palette)
    painted = [[0] * colors, [0] * colors]  # cells of each color, by the rows and the columns
    blotted = [False] * colors
    for kind, index, clue in puzzle.lines():
        by_kind = painted[kind == "column"]
        needed = previous = 0
        for block in clue:
            color, size = block.color, block.length
            if size > 0:
                by_kind[color] += size
                needed += size + (color == previous)
            else:  # blotted: at least one cell
                blotted[color] = True
                needed += 1 + (color == previous)
            previous = color
        length = puzzle.width if kind == "row" else puzzle.height
        if needed > length:
            side = "width" if kind == "row" else "height"
            return (
                f"{kind} {index + 1}: clue {puzzle.clue_text(clue)} needs {needed} cells, "
                f"{side} is {length}"
            )
    for color in range(1, colors):
        by_rows, by_columns = painted[0][color], painted[1][color]
        if by_rows != by_columns and not blotted[color]:  # a hidden number may make up for it
            name = "black" if puzzle.is_black_and_white else puzzle.palette[color].name
            return (
                f"the row clues paint {by_rows} {name} cells but the column clues paint "
                f"{by_columns}"
            )
    return None


def _clue_lists(clues: object, name: str) -> list[Sequence[ClueEntry]]:
    """Puzzle.from_clues' rows or columns as a list of clues (any iterable of iterables; a
    generator is read once), or InputError naming the parameter."""
    if isinstance(clues, str | bytes | Mapping) or not isinstance(clues, Iterable):
        raise InputError(f"expected a list of clues, got {type(clues).__name__}", name)
    listed: list[Sequence[ClueEntry]] = []
    for number, clue in enumerate(clues, start=1):
        if isinstance(clue, str | bytes | Mapping) or not isinstance(clue, Iterable):
            kind = name[:-1]
            raise InputError(f"{kind} {number}: expected a list of numbers, got {clue!r}", name)
        listed.append(list(clue))
    return listed


def _named_colors(colors: object) -> dict[str, str]:
    """Puzzle.from_clues' `colors` as {name: '#rrggbb'}, or InputError naming the color."""
    if colors is None:
        return {}
    if not isinstance(colors, Mapping):
        raise InputError(f"expected a dict of color names to RGB, got {type(colors).__name__}",
                         "colors")  # fmt: skip
    named: dict[str, str] = {}
    for name, value in colors.items():
        rgb = rgb_of(value)
        if not isinstance(name, str) or not name or rgb is None:
            raise InputError(
                f"{shown(name)}: {shown(value)} is not a color ('#rrggbb' or a name such as red)",
                "colors",
            )
        named[name] = rgb
    return named
