"""The scene of a puzzle picture (clue bands, cells, hatching, highlights) from one layout,
and its SVG by string building; satnono.output.picture.png draws the same scene as PNG.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple
from xml.sax.saxutils import escape as _escape
from xml.sax.saxutils import quoteattr

from satnono.core.model import Block, Puzzle, clue_number, parse_rgb

if TYPE_CHECKING:
    pass

#: Scene units per cell; SVG user units, and PNG pixels at scale 1.
CELL = 24.0

PAPER = "#ffffff"
INK = "#000000"
HIGHLIGHT = "#e00000"
HATCH_INK = "#7a7a7a"
_CLUE_BAND = "#f2f2f2"
_THIN_LINE = "#a8a8a8"
_BAND_LINE = "#dadada"
_EMPTY_CLUE = "#8a8a8a"
_BOX_EDGE = "#606060"
_FALLBACK = "#808080"
_FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"
#: Hatch spacing matching matplotlib's '//' (12 lines per inch = per 72 units), perpendicular.
HATCH_STEP = 72 / 12 / math.sqrt(2)
HATCH = "//"


@dataclass(frozen=True)
class Layout:
    """Where everything goes, in scene units (y grows downwards); shared by SVG and PNG."""

    cell: float
    #: Font sizes of clue numbers (column clues shrink when they have two or more digits).
    row_font: float
    column_font: float
    #: Width of one row-clue slot (a cell, or wider for long numbers); column slots are cells.
    slot_width: float
    row_slots: int
    column_slots: int
    #: Space between the clue margins and the grid.
    gap: float
    grid_x: float
    grid_y: float
    width: float
    height: float
    #: Vertical center of the caption, when there is one.
    caption_y: float | None

    @property
    def row_clue_x(self) -> float:
        return self.grid_x - self.gap - self.row_slots * self.slot_width

    @property
    def column_clue_y(self) -> float:
        return self.grid_y - self.gap - self.column_slots * self.cell


def compute_layout(puzzle: Puzzle, caption: str | None = None) -> Layout:
    """Clue margins sized to the longest clues and widest numbers, the grid beside them."""
    cell = CELL
    font = 0.56 * cell
    digit = 0.636  # digit advance as a fraction of the font size (DejaVu Sans)
    row_digits = max((len(clue_number(b)) for clue in puzzle.rows for b in clue), default=1)
    column_digits = max((len(clue_number(b)) for clue in puzzle.columns for b in clue), default=1)
    slot_width = max(cell, round(digit * font * row_digits + 0.4 * cell, 1))
    # Numbers side by side need air between them: two-digit column clues get a smaller font.
    column_font = min(font, 0.66 * cell / (digit * column_digits))
    row_slots = max(1, max(len(clue) for clue in puzzle.rows))
    column_slots = max(1, max(len(clue) for clue in puzzle.columns))
    pad = 0.5 * cell
    gap = 0.25 * cell
    grid_x = pad + row_slots * slot_width + gap
    grid_y = pad + column_slots * cell + gap
    width = grid_x + puzzle.width * cell + pad
    height = grid_y + puzzle.height * cell + pad
    caption_y = None
    if caption:
        caption_y = height + 0.4 * cell
        height += 1.2 * cell
        # A long caption widens the picture rather than running off its edge.
        width = max(width, 2 * pad + 0.62 * font * len(caption))
    return Layout(
        cell, font, column_font, slot_width, row_slots, column_slots, gap, grid_x, grid_y,
        width, height, caption_y,
    )  # fmt: skip


# --- the scene: a flat list of primitives both outputs draw in order --------------------------


class Rect(NamedTuple):
    x: float
    y: float
    w: float
    h: float
    #: A color, "hatch" for an unknown cell, or None for no fill.
    fill: str | None
    stroke: str | None = None
    stroke_width: float = 0.0
    kind: str = ""


class Line(NamedTuple):
    x1: float
    y1: float
    x2: float
    y2: float
    color: str
    width: float


class Text(NamedTuple):
    x: float
    #: The vertical center of the digits (the baseline is placed from it).
    y: float
    text: str
    size: float
    color: str
    kind: str = ""


Item = Rect | Line | Text
HATCH_FILL = "hatch"


def escape(text: str) -> str:
    """Text for SVG: XML's own escapes, and control characters (which XML 1.0 forbids even
    as references) shown as their escapes, so that any title gives a well-formed picture."""
    from satnono.output.terminal import printable

    return _escape(printable(text))


def _css(rgb: str) -> str:
    """A safe '#rrggbb' for a palette color (anything unexpected draws gray)."""
    return parse_rgb(rgb) or _FALLBACK


def _luminance(rgb: str) -> float:
    """WCAG relative luminance of '#rrggbb'."""

    def channel(hex_pair: str) -> float:
        c = int(hex_pair, 16) / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(rgb[i : i + 2]) for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _text_on(rgb: str) -> str:
    """Black or white, whichever contrasts more with `rgb`."""
    lum = _luminance(rgb)
    return INK if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else PAPER


def check_cells(puzzle: Puzzle, domains: Sequence[int] | None, highlight: Collection[int]) -> None:
    cells = puzzle.width * puzzle.height
    if domains is not None and len(domains) != cells:
        raise ValueError(f"{len(domains)} domains for a {puzzle.width}x{puzzle.height} grid")
    bad = [cell for cell in highlight if not 0 <= cell < cells]
    if bad:
        raise ValueError(f"highlighted cell {bad[0]} is outside the {cells}-cell grid")


def scene(
    puzzle: Puzzle,
    layout: Layout,
    domains: Sequence[int] | None,
    highlight: Collection[int],
    caption: str | None,
) -> Iterator[Item]:
    """The picture as primitives in painting order; SVG and PNG only translate them."""
    c = layout.cell
    gx, gy = layout.grid_x, layout.grid_y
    grid_w, grid_h = puzzle.width * c, puzzle.height * c
    colors = [_css(color.rgb) for color in puzzle.palette]
    boxed = not puzzle.is_black_and_white

    # Clue bands, with the grid's row and column lines carried through them to guide the eye.
    rx, cy = layout.row_clue_x, layout.column_clue_y
    yield Rect(rx, gy, gx - rx, grid_h, _CLUE_BAND)
    yield Rect(gx, cy, grid_w, gy - cy, _CLUE_BAND)
    for r in range(1, puzzle.height):
        line = _THIN_LINE if r % 5 == 0 else _BAND_LINE
        yield Line(rx, gy + r * c, gx, gy + r * c, line, 1.0)
    for col in range(1, puzzle.width):
        line = _THIN_LINE if col % 5 == 0 else _BAND_LINE
        yield Line(gx + col * c, cy, gx + col * c, gy, line, 1.0)

    # Clue numbers: plain black, or on a box of their color; an empty line shows a gray 0.
    # All boxes come before all numbers, so that each kind is one batch for the PNG.
    sw, gap = layout.slot_width, layout.gap
    slots: list[tuple[float, float, float, float, Block]] = []  # x, y, width, font size, block
    texts: list[Text] = []
    for r, clue in enumerate(puzzle.rows):
        y = gy + r * c
        if not clue:
            texts.append(Text(gx - gap - sw / 2, y + c / 2, "0", layout.row_font, _EMPTY_CLUE))
        for i, block in enumerate(clue):
            slots.append((gx - gap - (len(clue) - i) * sw, y, sw, layout.row_font, block))
    for col, clue in enumerate(puzzle.columns):
        x = gx + col * c
        if not clue:
            texts.append(Text(x + c / 2, gy - gap - c / 2, "0", layout.column_font, _EMPTY_CLUE))
        for i, block in enumerate(clue):
            slots.append((x, gy - gap - (len(clue) - i) * c, c, layout.column_font, block))
    inset = 0.09 * c
    for x, y, w, size, block in slots:
        ink = INK
        if boxed:
            rgb = colors[block.color]
            yield Rect(x + inset, y + inset, w - 2 * inset, c - 2 * inset, rgb, _BOX_EDGE,
                        0.04 * c, "clue")  # fmt: skip
            ink = _text_on(rgb)
        texts.append(Text(x + w / 2, y + c / 2, clue_number(block), size, ink, "clue"))
    yield from texts

    # Cells: one rect each; decided cells in their color, the others (several colors left, or
    # none after a contradiction) hatched.
    for cell in range(puzzle.width * puzzle.height):
        r, col = divmod(cell, puzzle.width)
        if domains is None:
            fill = PAPER
        else:
            d = domains[cell]
            fill = colors[d.bit_length() - 1] if d and not d & (d - 1) else HATCH_FILL
        yield Rect(gx + col * c, gy + r * c, c, c, fill, kind="cell")

    # Grid lines: thin, a thick one every five cells, and a thick border.
    thin, thick = 0.04 * c, 0.09 * c
    for r in range(1, puzzle.height):
        if r % 5:
            yield Line(gx, gy + r * c, gx + grid_w, gy + r * c, _THIN_LINE, thin)
    for col in range(1, puzzle.width):
        if col % 5:
            yield Line(gx + col * c, gy, gx + col * c, gy + grid_h, _THIN_LINE, thin)
    for r in range(5, puzzle.height, 5):
        yield Line(gx, gy + r * c, gx + grid_w, gy + r * c, INK, thick)
    for col in range(5, puzzle.width, 5):
        yield Line(gx + col * c, gy, gx + col * c, gy + grid_h, INK, thick)
    yield Rect(gx, gy, grid_w, grid_h, None, INK, thick)

    # Highlighted cells: a strong outline drawn inside the cell, over the grid lines.
    stroke = 0.14 * c
    for cell in sorted(set(highlight)):
        r, col = divmod(cell, puzzle.width)
        x, y = gx + col * c + stroke / 2, gy + r * c + stroke / 2
        yield Rect(x, y, c - stroke, c - stroke, None, HIGHLIGHT, stroke, "highlight")

    if caption and layout.caption_y is not None:
        yield Text(layout.width / 2, layout.caption_y, caption, layout.row_font * 1.1, INK,
                    "caption")  # fmt: skip


#: Digit height as a fraction of the font size: the baseline sits this much below the center.
HALF_DIGIT = 0.36


# --- SVG ----------------------------------------------------------------------------------------


def _n(value: float) -> str:
    """A compact SVG number."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text if text != "-0" else "0"


def render_svg(
    puzzle: Puzzle,
    domains: Sequence[int] | None = None,
    highlight: Collection[int] = (),
    caption: str | None = None,
) -> str:
    """A standalone SVG of the puzzle: clues on the margins and the grid.

    `domains` (color bitmasks, cell = row * width + column) colors decided cells and hatches
    undecided ones; None draws the empty puzzle. `highlight` cells get a red outline.
    """
    check_cells(puzzle, domains, highlight)
    layout = compute_layout(puzzle, caption)
    w, h = _n(layout.width), _n(layout.height)
    title = puzzle.title or f"{puzzle.width}x{puzzle.height} nonogram"
    step = _n(HATCH_STEP)
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'viewBox="0 0 {w} {h}" font-family={quoteattr(_FONT)}>',
        f"<title>{escape(title)}</title>",
        "<defs>",
        f'<pattern id="hatch" patternUnits="userSpaceOnUse" width="{step}" height="{step}" '
        'patternTransform="rotate(45)">',
        f'<rect width="{step}" height="{step}" fill="{PAPER}"/>',
        f'<line x1="0" y1="0" x2="0" y2="{step}" stroke="{HATCH_INK}" stroke-width="1"/>',
        "</pattern>",
        "</defs>",
        f'<rect width="{w}" height="{h}" fill="{PAPER}"/>',
    ]
    for item in scene(puzzle, layout, domains, highlight, caption):
        if isinstance(item, Rect):
            attrs = f'x="{_n(item.x)}" y="{_n(item.y)}" width="{_n(item.w)}" height="{_n(item.h)}"'
            if item.kind:
                attrs = f'class="{item.kind}" {attrs}'
            fill = "none" if item.fill is None else item.fill
            if item.fill == HATCH_FILL:
                fill = "url(#hatch)"
            attrs += f' fill="{fill}"'
            if item.stroke:
                attrs += f' stroke="{item.stroke}" stroke-width="{_n(item.stroke_width)}"'
            out.append(f"<rect {attrs}/>")
        elif isinstance(item, Line):
            out.append(
                f'<line x1="{_n(item.x1)}" y1="{_n(item.y1)}" x2="{_n(item.x2)}" '
                f'y2="{_n(item.y2)}" stroke="{item.color}" stroke-width="{_n(item.width)}"/>'
            )
        else:
            kind = f'class="{item.kind}" ' if item.kind else ""
            baseline = item.y + HALF_DIGIT * item.size
            out.append(
                f'<text {kind}x="{_n(item.x)}" y="{_n(baseline)}" font-size="{_n(item.size)}" '
                f'fill="{item.color}" text-anchor="middle">{escape(item.text)}</text>'
            )
    out.append("</svg>")
    return "\n".join(out) + "\n"


# --- PNG ----------------------------------------------------------------------------------------
