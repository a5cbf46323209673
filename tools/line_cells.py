"""A second exact black-and-white line solver, bit-parallel over cells, kept to measure against
satnono's (tools/bench_lines.py): satnono does not use it (BENCHMARKS.md, "Archives at C speed").

The line's cells are bits of two integers, W (may be white) and B (may be black). For each
block in turn, the starts that some arrangement of the blocks before it reaches are found with
word operations: `fit` (every cell of the block may be black) by ANDing shifted copies of B,
and the white gaps by one addition whose carry runs along the white cells (x + seeds within a
run of ones). A second pass does the same on the reversed line; the two meet in one packed
integer reversed once. O(blocks * log(block length)) word operations per line, instead of
satnono's O(cells) steps: it pays only on long lines with few blocks (measured).
"""

from __future__ import annotations

_WHITE = bytes.maketrans(bytes([0, 1, 2, 3]), b"0101")
_BLACK = bytes.maketrans(bytes([0, 1, 2, 3]), b"0011")


def _fits(may_be_black: int, lengths: tuple[int, ...]) -> dict[int, int]:
    """For each block length L: the starts p with cells p..p+L-1 all possibly black."""
    fits = {}
    for length in set(lengths):
        x, span = may_be_black, 1
        while span < length:
            step = min(span, length - span)
            x &= x >> step
            span += step
        fits[length] = x
    return fits


def _forward(white: int, black: int, lengths: tuple[int, ...]) -> tuple[list[int], list[int]]:
    """Per block, the starts a consistent prefix reaches; per gap, the cells that can be white
    in it. `white` has the sentinel bit n set (past the line's end counts as white)."""
    fits = _fits(black, lengths)
    gap = ((white + 1) ^ white | 1) & white  # the leading white cells
    gaps, starts = [gap], []
    reach = (gap << 1) | 1
    for length in lengths:
        found = reach & fits[length] & (white >> length)
        starts.append(found)
        ends = found << length
        gap = ((white + ends) ^ white | ends) & white  # carry along each white run
        gaps.append(gap)
        reach = gap << 1
    return starts, gaps


def solve(lengths: tuple[int, ...], domains: tuple[int, ...]) -> tuple[int, ...]:
    """The narrowed domains (1 white, 2 black, 3 either) of a line, or () when none fits."""
    n = len(domains)
    raw = bytes(domains)
    text_white, text_black = raw.translate(_WHITE), raw.translate(_BLACK)
    white, black = int(text_white[::-1], 2), int(text_black[::-1], 2)
    top = 1 << n
    if not lengths:
        return (1,) * n if white == top - 1 else ()
    starts, gaps = _forward(white | top, black, lengths)
    if not gaps[-1] & top:
        return ()
    # The same pass on the reversed line, packed (n + 1 bits each) and reversed once.
    back_starts, back_gaps = _forward(int(text_white, 2) | top, int(text_black, 2), lengths[::-1])
    stride, k = n + 1, len(lengths)
    packed = back_gaps[0]
    for start, gap in zip(back_starts, back_gaps[1:], strict=True):
        packed = (packed << stride | start) << stride | gap
    mirrored = int(format(packed, f"0{stride * (2 * k + 1)}b")[::-1], 2)
    mask = (top << 1) - 1
    can_white = gaps[k] & ((mirrored & mask) >> 1)
    can_black = 0
    for block in range(k, 0, -1):
        mirrored >>= stride
        length = lengths[block - 1]
        placed = starts[block - 1] & ((mirrored & mask) >> length)
        span = 1
        while span < length:  # every cell the block covers
            step = min(span, length - span)
            placed |= placed << step
            span += step
        can_black |= placed
        mirrored >>= stride
        can_white |= gaps[block - 1] & ((mirrored & mask) >> 1)
    narrowed = list(domains)
    unknown = white & black
    for cells, color in ((unknown & ~can_black, 1), (unknown & ~can_white, 2)):
        while cells:
            low = cells & -cells
            narrowed[low.bit_length() - 1] = color
            cells ^= low
    return tuple(narrowed)
