"""Puzzles from pictures: an image scaled to a grid and reduced to K colors (Pillow), and the
fewest given cells satnono finds that make its solution unique.

Authors start from a picture; what they need to know next is whether the clues of that picture
have one solution, and if not, which cells to give away (or to change) so that they do.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from satnono.core.model import WHITE, Color, Grid, Puzzle, make_palette
from satnono.errors import InputError

#: Without --width/--height, a larger image is scaled down so that its longer side is this.
DEFAULT_SIDE = 30
#: Largest side a picture may be scaled to (puzzles beyond are not authored by hand).
MAX_PICTURE_SIDE = 200
#: Largest image read, in pixels (a 48-megapixel photo fits): checked from the header before
#: any pixel is decoded, so a small file that claims a huge image (a decompression bomb: a
#: 109 KB PNG of 30000 x 30000) costs nothing; Pillow's own limit is 178 megapixels, which
#: still takes seconds and gigabytes to decode.
MAX_IMAGE_PIXELS = 50_000_000


@dataclass(frozen=True)
class Picture:
    """The grid of palette indices and the palette (index 0, the background, is white)."""

    grid: Grid
    palette: tuple[Color, ...]


def picture_from_image(
    path: str | Path,
    width: int | None = None,
    height: int | None = None,
    colors: int = 2,
    threshold: int = 128,
) -> Picture:
    """Scale the image to width x height cells (keeping its proportions where only one is
    given) and reduce it to `colors` colors, the background included.

    Two colors: a cell is black when its luminance is below `threshold` (0-255). More: Pillow's
    median-cut quantization to `colors` colors, the lightest of which is the background.
    """
    import warnings

    from satnono.core.extras import require

    require("PIL", "image")
    from PIL import Image, UnidentifiedImageError

    from satnono.core.arguments import whole_number

    if not 2 <= whole_number(colors, "colors") <= 32:
        raise InputError(f"colors must be within 2..32, not {colors}", "colors")
    if not 0 <= whole_number(threshold, "threshold") <= 255:
        raise InputError(f"the threshold must be within 0..255, not {threshold}", "threshold")
    for name, side in (("width", width), ("height", height)):
        if side is not None and not 1 <= whole_number(side, name) <= MAX_PICTURE_SIDE:
            raise InputError(f"must be within 1..{MAX_PICTURE_SIDE}, not {side}", name)
    try:
        with warnings.catch_warnings():
            # Pillow warns (on stderr) of large images; satnono's own limit comes first.
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as opened:
                if opened.width * opened.height > MAX_IMAGE_PIXELS:
                    raise InputError(
                        f"a {opened.width} x {opened.height} image is too large to read "
                        f"(at most {MAX_IMAGE_PIXELS // 1_000_000} megapixels)",
                        path,
                    )
                opened.load()
                image = _reduced(opened).convert("RGBA")
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        limit = f"at most {MAX_IMAGE_PIXELS // 1_000_000} megapixels"
        raise InputError(f"the image is too large to read ({limit})", path) from None
    except (UnidentifiedImageError, OSError, ValueError) as error:
        raise InputError(f"not an image Pillow can read ({error})", path) from None
    # Transparent pixels count as background (white).
    flat = Image.new("RGBA", image.size, (255, 255, 255, 255))
    flat.alpha_composite(image)
    rgb = flat.convert("RGB")
    size = _grid_size(rgb.width, rgb.height, width, height)
    small = rgb.resize(size, Image.Resampling.BOX)
    if colors == 2:
        gray = small.convert("L")
        pixels = list(gray.tobytes())  # one byte per pixel in mode L
        cells = [1 if value < threshold else 0 for value in pixels]
        palette: tuple[Color, ...] = (WHITE, Color("black", "#", "#000000"))
    else:
        quantized = small.quantize(colors=colors, method=Image.Quantize.MEDIANCUT)
        raw = quantized.getpalette() or []
        values = list(quantized.tobytes())  # one palette index per pixel in mode P
        used = sorted(set(values))
        rgbs = {i: tuple(raw[3 * i : 3 * i + 3]) for i in used}
        # The lightest color is the background; the others keep their order of darkness.
        order = sorted(used, key=lambda i: -sum(rgbs[i]))
        index = {old: new for new, old in enumerate(order)}
        cells = [index[value] for value in values]
        palette = make_palette(
            WHITE,
            [Color(f"color {n}", chr(ord("a") + n - 1), "#{:02x}{:02x}{:02x}".format(*rgbs[old]))
             for n, old in enumerate(order[1:], start=1)],
        )  # fmt: skip
    columns = size[0]
    grid = tuple(tuple(cells[r * columns : (r + 1) * columns]) for r in range(size[1]))
    if not any(any(row) for row in grid):
        raise InputError("the picture is all background at this size and threshold", path)
    return Picture(grid, palette)


def _reduced(image: Any) -> Any:
    """`image` shrunk by an integer factor (averaging boxes of pixels, as the final resize
    does) while it stays at least 4 pixels a cell at the largest grid: a photo's later
    conversions then cost a fraction of the time and memory (7000 x 7000: 1.9 s, 645 MB)."""
    factor = min(image.width, image.height) // (4 * MAX_PICTURE_SIDE)
    if factor < 2 or image.mode not in ("L", "LA", "RGB", "RGBA"):
        return image
    return image.reduce(factor)


def _grid_size(
    image_width: int, image_height: int, width: int | None, height: int | None
) -> tuple[int, int]:
    if width and height:
        return width, height
    if width:
        return width, max(1, round(image_height * width / image_width))
    if height:
        return max(1, round(image_width * height / image_height)), height
    longer = max(image_width, image_height)
    if longer <= DEFAULT_SIDE:
        return image_width, image_height
    scale = DEFAULT_SIDE / longer
    return max(1, round(image_width * scale)), max(1, round(image_height * scale))


@dataclass(frozen=True)
class Givens:
    """Cells to give away with their color (flat indices), and whether that made it unique."""

    cells: tuple[tuple[int, int], ...]
    unique: bool


def givens_for_uniqueness(puzzle: Puzzle, goal: Grid, limit: int = 200) -> Givens:
    """Greedily give away cells of the goal picture until the puzzle has one solution.

    Each round computes the exact ambiguity map (satnono.pipeline.backbone) with the cells given so
    far fixed, and gives the ambiguous cell that shares its row and column with the most
    other ambiguous cells (it cuts the most alternatives at once). Not a proof of the fewest,
    but every given is necessary when it is chosen: its cell was still ambiguous.
    """
    from satnono.core.grids import initial_domains
    from satnono.pipeline.backbone import backbone
    from satnono.pipeline.prepare import prepare

    colors = [color for row in goal for color in row]
    width = puzzle.width
    given: list[tuple[int, int]] = []
    while len(given) <= limit:
        domains = initial_domains(puzzle)
        for cell, color in given:
            domains[cell] &= 1 << color
        prepared = prepare(puzzle, None, domains)
        if prepared.reason is not None:
            raise InputError(f"the picture's own clues have no solution: {prepared.reason}")
        settled = backbone(prepared)
        if settled is None:
            raise InputError("the picture's own clues have no solution")
        ambiguous = settled.ambiguous
        if not ambiguous:
            return Givens(tuple(given), True)
        rows: dict[int, int] = {}
        columns: dict[int, int] = {}
        for cell in ambiguous:
            rows[cell // width] = rows.get(cell // width, 0) + 1
            columns[cell % width] = columns.get(cell % width, 0) + 1
        best = max(ambiguous, key=lambda c: (rows[c // width] + columns[c % width], -c))
        given.append((best, colors[best]))
    return Givens(tuple(given), False)
