"""`satnono from-image`: pictures made here with Pillow become puzzles whose goal is the
picture (two colors by threshold, more by quantization), and --make-unique gives cells away
until the solution is unique."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from satnono.core.verify import problems
from satnono.formats import read_puzzle
from satnono.formats.generate import puzzle_from_grid
from satnono.pipeline.from_image import givens_for_uniqueness, picture_from_image
from support import run_satnono


def cross_image(path: Path, scale: int = 10) -> None:
    """A 5x5 black cross on white, each cell `scale` pixels wide."""
    image = Image.new("RGB", (5 * scale, 5 * scale), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle([2 * scale, 0, 3 * scale - 1, 5 * scale - 1], fill="black")
    draw.rectangle([0, 2 * scale, 5 * scale - 1, 3 * scale - 1], fill="black")
    image.save(path)


def test_two_colors_by_threshold(tmp_path: Path) -> None:
    cross_image(tmp_path / "cross.png")
    picture = picture_from_image(tmp_path / "cross.png", width=5, height=5)
    assert picture.grid == tuple(
        tuple(1 if r == 2 or c == 2 else 0 for c in range(5)) for r in range(5)
    )


def test_colors_by_quantization(tmp_path: Path) -> None:
    image = Image.new("RGB", (40, 20), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle([0, 0, 19, 9], fill=(200, 20, 20))
    draw.rectangle([20, 10, 39, 19], fill=(20, 20, 200))
    image.save(tmp_path / "two.png")
    picture = picture_from_image(tmp_path / "two.png", width=4, height=2, colors=3)
    assert picture.palette[0].rgb == "#ffffff" and len(picture.palette) == 3
    (a, b) = picture.grid
    assert a[0] == a[1] != 0 and b[2] == b[3] != 0 and a[0] != b[3] and a[2:] == (0, 0)
    reds = [c.rgb for c in picture.palette if c.rgb.startswith("#c")]
    assert reds, picture.palette


def test_make_unique_gives_cells_until_one_solution() -> None:
    # Every row and column of the 4x4 around the blank cross holds one cell: 4! solutions,
    # and 3 givens are the fewest that fix a permutation (2 leave a 2x2 that flips).
    goal = ((1, 0, 0, 0, 0), (0, 1, 0, 0, 0), (0, 0, 0, 0, 0), (0, 0, 0, 1, 0), (0, 0, 0, 0, 1))
    puzzle = puzzle_from_grid(goal)
    givens = givens_for_uniqueness(puzzle, goal)
    assert givens.unique and len(givens.cells) == 3
    for cell, color in givens.cells:
        assert goal[cell // 5][cell % 5] == color


def test_the_cli_writes_reports_and_lists_givens(tmp_path: Path) -> None:
    cross_image(tmp_path / "cross.png")
    out = tmp_path / "cross.xml"
    done = run_satnono("from-image", str(tmp_path / "cross.png"), "-o", str(out), "--width", "5")
    assert done.returncode == 0, done.stderr
    puzzle = read_puzzle(out)
    assert puzzle.width == 5 and puzzle.goal is not None and not problems(puzzle, puzzle.goal)
    assert "unique" in done.stdout and "line-solvable" in done.stdout
    image = Image.new("RGB", (2, 2), "white")
    image.putpixel((0, 0), (0, 0, 0))
    image.putpixel((1, 1), (0, 0, 0))
    image.save(tmp_path / "diagonal.png")
    done = run_satnono("from-image", str(tmp_path / "diagonal.png"), "-o",
                       str(tmp_path / "d.non"), "--make-unique")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "4 ambiguous cells" in done.stdout and "give 1 cell" in done.stdout


@pytest.mark.parametrize("content", [b"", b"not an image at all"])
def test_unreadable_images_are_one_line_and_exit_2(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "bad.png").write_bytes(content)
    done = run_satnono("from-image", str(tmp_path / "bad.png"), "-o", str(tmp_path / "x.non"))
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert "not an image" in done.stderr


def _claimed_png(path: Path, width: int, height: int) -> None:
    """A gray PNG of width x height pixels, all zero: compressed to a small file. The rows
    are compressed a block at a time, each block ending in a full flush, after which the
    compressor starts afresh: every block after the first compresses to the same bytes, so
    those are repeated rather than compressed again (0.6 s for 30000 x 30000, not 5 s), and
    the stream's checksum is computed over what it holds."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        checksum = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", checksum)

    rows_per_block = min(500, height)
    blocks, rest = divmod(height, rows_per_block)
    block, tail = bytes(width + 1) * rows_per_block, bytes(width + 1) * rest
    packer = zlib.compressobj(9)
    first = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    repeated = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    last = packer.compress(tail) + packer.flush()
    adler = 1
    for piece in [block] * blocks + [tail]:
        adler = zlib.adler32(piece, adler)
    data = first + repeated * (blocks - 1) + last[:-4] + struct.pack(">I", adler)
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")
    )


def test_the_claimed_png_is_a_valid_png_of_its_size(tmp_path: Path) -> None:
    """The bomb below must be a real PNG, or refusing it proves nothing."""
    import zlib

    _claimed_png(tmp_path / "small.png", 300, 1234)
    with Image.open(tmp_path / "small.png") as image:
        assert image.size == (300, 1234) and image.getextrema() == (0, 0)
    content = (tmp_path / "small.png").read_bytes()  # Pillow skips the stream's checksum
    start = content.index(b"IDAT") + 4
    length = int.from_bytes(content[start - 8 : start - 4], "big")
    assert zlib.decompress(content[start : start + length]) == bytes(301 * 1234)


@pytest.mark.parametrize("side", [13_000, 30_000])
def test_a_decompression_bomb_is_refused_at_once(tmp_path: Path, side: int) -> None:
    # A 30000 x 30000 PNG of 0.9 MB was exit 4 (DecompressionBombError); 13000 x 13000 took
    # 5-10 s and 2.7 GB with --timeout 1, and Pillow's warning leaked to stderr (issue 23).
    _claimed_png(tmp_path / "bomb.png", side, side)
    done = run_satnono(
        "from-image", str(tmp_path / "bomb.png"), "-o", str(tmp_path / "x.non"), timeout=20
    )
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert "too large to read" in done.stderr and "Warning" not in done.stderr
    assert not (tmp_path / "x.non").exists()


def test_a_large_photo_is_reduced_before_it_is_converted(tmp_path: Path) -> None:
    image = Image.new("RGB", (4000, 3000), "white")
    ImageDraw.Draw(image).rectangle([1000, 1000, 2999, 1999], fill="black")
    image.save(tmp_path / "photo.png")
    picture = picture_from_image(tmp_path / "photo.png", width=4, height=3)
    assert picture.grid == ((0, 0, 0, 0), (0, 1, 1, 0), (0, 0, 0, 0))
