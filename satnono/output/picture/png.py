"""PNG pictures: the scene of satnono.output.picture.scene drawn with matplotlib's Agg
canvas, so a PNG shows exactly what the SVG of the same grid shows."""

from __future__ import annotations

import io
import math
from collections.abc import Collection, Sequence
from itertools import groupby
from typing import TYPE_CHECKING

from satnono.core.model import Puzzle
from satnono.output.picture.scene import (
    HALF_DIGIT,
    HATCH,
    HATCH_FILL,
    HATCH_INK,
    PAPER,
    Item,
    Layout,
    Line,
    Rect,
    Text,
    check_cells,
    compute_layout,
    scene,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: PNG limits: the longest side is scaled towards this, never past the pixel cap (~10 MB RGBA).
_PNG_TARGET_SIDE = 900.0
_PNG_MAX_SCALE = 2.0
_PNG_MAX_PIXELS = 12_000_000


def png_scale(layout: Layout) -> float:
    """Pixels per scene unit: small puzzles enlarged, large ones capped near 10 MB of pixels."""
    longest = max(layout.width, layout.height)
    scale = min(_PNG_MAX_SCALE, max(1.0, _PNG_TARGET_SIDE / longest))
    return min(scale, math.sqrt(_PNG_MAX_PIXELS / (layout.width * layout.height)))


def render_png(
    puzzle: Puzzle,
    domains: Sequence[int] | None = None,
    highlight: Collection[int] = (),
    caption: str | None = None,
) -> bytes:
    """The same picture as `render_svg`, as PNG bytes (drawn with matplotlib's Agg canvas)."""
    check_cells(puzzle, domains, highlight)
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.collections import LineCollection, PolyCollection
    from matplotlib.figure import Figure

    layout = compute_layout(puzzle, caption)
    scale = png_scale(layout)
    # One scene unit is one point at dpi 72 * scale: font sizes and line widths carry over.
    dpi = 72 * scale
    pixels_w, pixels_h = round(layout.width * scale), round(layout.height * scale)
    figure = Figure(figsize=(pixels_w / dpi, pixels_h / dpi), dpi=dpi, facecolor=PAPER)
    FigureCanvasAgg(figure)
    axes = figure.add_axes((0.0, 0.0, 1.0, 1.0))
    axes.set_axis_off()
    axes.set_xlim(0, layout.width)
    axes.set_ylim(layout.height, 0)

    def key(item: Item) -> tuple[object, ...]:
        if isinstance(item, Rect):
            return ("rect", item.fill == HATCH_FILL, item.stroke, item.stroke_width)
        if isinstance(item, Line):
            return ("line",)
        return ("text",)

    # Consecutive primitives of one style become one collection, so the drawing order holds
    # and a 100x100 grid stays fast.
    items = scene(puzzle, layout, domains, highlight, caption)
    for z, ((kind, *_), group) in enumerate(groupby(items, key), start=1):
        batch = list(group)
        if kind == "rect":
            rects = [item for item in batch if isinstance(item, Rect)]
            first = rects[0]
            hatched = first.fill == HATCH_FILL
            verts = [
                ((r.x, r.y), (r.x + r.w, r.y), (r.x + r.w, r.y + r.h), (r.x, r.y + r.h))
                for r in rects
            ]
            faces = [PAPER if hatched else (r.fill or "none") for r in rects]
            polys = PolyCollection(
                verts,
                facecolors=faces,
                edgecolors=HATCH_INK if hatched else (first.stroke or "none"),
                linewidths=0.0 if hatched else first.stroke_width,
                hatch=HATCH if hatched else None,
                antialiased=not hatched and first.stroke is not None,
                zorder=z,
            )
            axes.add_collection(polys, autolim=False)
        elif kind == "line":
            lines = [item for item in batch if isinstance(item, Line)]
            axes.add_collection(
                LineCollection(
                    [((li.x1, li.y1), (li.x2, li.y2)) for li in lines],
                    colors=[li.color for li in lines],
                    linewidths=[li.width for li in lines],
                    capstyle="projecting",
                    zorder=z,
                ),
                autolim=False,
            )
        else:
            _add_texts(axes, [item for item in batch if isinstance(item, Text)], dpi, z)
    buffer = io.BytesIO()
    title = puzzle.title or f"{puzzle.width}x{puzzle.height} nonogram"
    with matplotlib.rc_context({"hatch.linewidth": 1.0, "hatch.color": HATCH_INK}):
        figure.savefig(buffer, format="png", dpi=dpi, metadata={"Title": title})
    return buffer.getvalue()


def _add_texts(axes: Axes, texts: list[Text], dpi: float, zorder: int) -> None:
    """Draw texts as glyph outlines, one collection per distinct (text, size, color).

    Thousands of clue numbers as matplotlib Text artists take seconds; stamping each distinct
    number's outline at many offsets takes milliseconds and looks the same.
    """
    from matplotlib.collections import PathCollection
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextPath
    from matplotlib.transforms import Affine2D

    font = FontProperties(family="DejaVu Sans")
    points_to_pixels = Affine2D().scale(dpi / 72)
    groups: dict[tuple[str, float, str], list[tuple[float, float]]] = {}
    for text in texts:
        baseline = text.y + HALF_DIGIT * text.size
        groups.setdefault((text.text, text.size, text.color), []).append((text.x, baseline))
    for (string, size, color), offsets in groups.items():
        path = TextPath((0, 0), string, size=size, prop=font)
        extents = path.get_extents()
        # Centered horizontally on its ink; the path's own y = 0 is the baseline.
        centered = Affine2D().translate(-(extents.x0 + extents.x1) / 2, 0).transform_path(path)
        axes.add_collection(
            PathCollection(
                [centered],
                offsets=offsets,
                offset_transform=axes.transData,
                transform=points_to_pixels,
                facecolors=color,
                edgecolors="none",
                linewidths=0.0,
                zorder=zorder,
            ),
            autolim=False,
        )
