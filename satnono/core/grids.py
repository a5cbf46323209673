"""A grid as the search sees it: each cell's domain (a bitmask of the palette colors it may
still take, cell = row * width + column), and the grids of decided domains and back.

Shared by the live path and the Python reference line logic (satnono.reference): neither
owns these, and the live path reaches line logic only through the engine.
"""

from __future__ import annotations

from collections.abc import Sequence

from satnono.core.model import UNDECIDED, Clue, Grid, Puzzle
from satnono.core.rows import RowCache

_colors_of_cache: dict[int, tuple[int, ...]] = {}


def colors_of(domain: int) -> tuple[int, ...]:
    """The palette indices in a domain bitmask, in increasing order."""
    found = _colors_of_cache.get(domain)
    if found is None:
        found = tuple(c for c in range(domain.bit_length()) if domain >> c & 1)
        _colors_of_cache[domain] = found
    return found


def full_domain(puzzle: Puzzle) -> int:
    return (1 << len(puzzle.palette)) - 1


def palette_domains(puzzle: Puzzle) -> list[int]:
    """Every cell may take any color of the palette: where native line logic starts (its first
    pass narrows each cell to the colors its lines allow, as `initial_domains` does)."""
    return [full_domain(puzzle)] * (puzzle.width * puzzle.height)


def initial_domains(puzzle: Puzzle) -> list[int]:
    """Every cell may take any color that both its row clue and its column clue use."""
    row_colors = [1 | _clue_colors(clue) for clue in puzzle.rows]
    column_colors = [1 | _clue_colors(clue) for clue in puzzle.columns]
    return [r & c for r in row_colors for c in column_colors]


def _clue_colors(clue: Clue) -> int:
    mask = 0
    for block in clue:
        mask |= 1 << block.color
    return mask


def unknown_cells(domains: list[int]) -> list[int]:
    """Cells with more than one color left."""
    return [cell for cell, domain in enumerate(domains) if domain & (domain - 1)]


#: Maps a domain's bit length to its (highest) color: bit_length - 1, 0 for an empty domain.
_COLOR_OF_LENGTH = bytes([0, *range(255)])
#: Maps a domain of at most 8 colors, as a byte, to its (highest) color.
_COLOR_OF_BYTE = bytes(max(0, domain.bit_length() - 1) for domain in range(256))


def decided_colors(domains: Sequence[int] | bytes) -> bytes:
    """Every cell's color, row by row, of a fully decided state (every domain one color), as
    bytes: maps and slices of bytes run in C (the engine sends domains as bytes up to 8
    colors, which map in one call)."""
    if isinstance(domains, bytes):
        return domains.translate(_COLOR_OF_BYTE)
    return bytes(map(int.bit_length, domains)).translate(_COLOR_OF_LENGTH)


def domains_to_grid(puzzle: Puzzle, domains: Sequence[int] | bytes) -> Grid:
    """The grid of a fully decided state (every domain a single color); through bytes (a third
    of an easy puzzle's solve, written as a comprehension)."""
    return colors_to_grid(puzzle.width, decided_colors(domains))


def colors_to_grid(
    width: int, colors: bytes, rows: RowCache[bytes, tuple[int, ...]] | None = None
) -> Grid:
    """The grid of every cell's color, row by row, as bytes. `rows`, kept by the caller
    across a stream's solutions, holds the rows made so far."""
    if rows is not None and rows.on:
        pieces = [colors[start : start + width] for start in range(0, len(colors), width)]
        return tuple(rows.rows(pieces, lambda new: list(map(tuple, new))))
    return tuple(tuple(colors[start : start + width]) for start in range(0, len(colors), width))


def domains_text(puzzle: Puzzle, domains: Sequence[int]) -> str:
    """Cells as text: each decided cell's palette character, '?' (UNDECIDED) for the others."""
    chars = [color.char for color in puzzle.palette]
    return "".join(
        chars[d.bit_length() - 1] if d and not d & (d - 1) else UNDECIDED for d in domains
    )


def grid_to_domains(grid: Grid) -> list[int]:
    return [1 << cell for row in grid for cell in row]
