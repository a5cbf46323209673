"""Pictures: the SVG's structure (cells, clues, hatching, highlights, colors) and PNG basics."""

from __future__ import annotations

import struct
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path

import pytest

from satnono.core.grids import grid_to_domains, initial_domains
from satnono.core.model import Block, Color, Puzzle
from satnono.errors import InputError
from satnono.formats import read_puzzle
from satnono.output.picture import HIGHLIGHT, compute_layout, render_svg, write_picture
from satnono.output.picture.png import png_scale, render_png
from satnono.pipeline.solutions import solve
from satnono.reference.propagate import Propagator
from support import EXAMPLES

SVG = "{http://www.w3.org/2000/svg}"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@cache
def example(name: str) -> Puzzle:
    return read_puzzle(EXAMPLES / f"{name}.non")


@cache
def solved(name: str) -> tuple[int, ...]:
    return tuple(grid_to_domains(solve(example(name)).grids[0]))


@cache
def partial(name: str) -> tuple[int, ...]:
    puzzle = example(name)
    domains = initial_domains(puzzle)
    Propagator(puzzle).propagate(domains)
    return tuple(domains)


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg.encode("utf-8"))


def cells(root: ET.Element) -> list[ET.Element]:
    return [e for e in root.iter(f"{SVG}rect") if e.get("class") == "cell"]


def texts(root: ET.Element, kind: str = "clue") -> list[ET.Element]:
    return [e for e in root.iter(f"{SVG}text") if e.get("class") == kind]


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_SIGNATURE
    length, chunk = struct.unpack(">I4s", data[8:16])
    assert (length, chunk) == (13, b"IHDR")
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_solved_color_svg_has_one_cell_per_square_in_palette_colors() -> None:
    puzzle = example("heart-color")
    root = parse(render_svg(puzzle, solved("heart-color")))
    assert root.tag == f"{SVG}svg"
    assert root.findtext(f"{SVG}title") == "Heart"
    squares = cells(root)
    assert len(squares) == puzzle.width * puzzle.height
    grid = solve(puzzle).grids[0]
    expected = [puzzle.palette[value].rgb for row in grid for value in row]
    assert [square.get("fill") for square in squares] == expected
    assert {square.get("fill") for square in squares} == {"#ffffff", "#d01c2a", "#ff9bb0"}


def test_clue_numbers_appear_in_order_next_to_their_lines() -> None:
    puzzle = example("heart-color")
    layout = compute_layout(puzzle)
    numbers = texts(parse(render_svg(puzzle)))
    assert len(numbers) == sum(len(clue) for _, _, clue in puzzle.lines())
    # Row 2 (1r,2p,6r) reads left to right in the band of row 2, left of the grid.
    top = layout.grid_y + layout.cell
    row = [t for t in numbers if top < float(t.get("y", 0)) <= top + layout.cell]
    row = [t for t in row if float(t.get("x", 0)) < layout.grid_x]
    row.sort(key=lambda t: float(t.get("x", 0)))
    assert [t.text for t in row] == ["1", "2", "6"]
    # Column 2 (1r,2p,2r) reads top to bottom above the grid.
    left = layout.grid_x + layout.cell
    column = [t for t in numbers if left < float(t.get("x", 0)) < left + layout.cell]
    column = [t for t in column if float(t.get("y", 0)) < layout.grid_y]
    column.sort(key=lambda t: float(t.get("y", 0)))
    assert [t.text for t in column] == ["1", "2", "2"]


def test_color_clues_sit_on_boxes_of_their_color_with_readable_text() -> None:
    puzzle = example("heart-color")
    root = parse(render_svg(puzzle))
    boxes = [e for e in root.iter(f"{SVG}rect") if e.get("class") == "clue"]
    assert len(boxes) == sum(len(clue) for _, _, clue in puzzle.lines())
    assert {box.get("fill") for box in boxes} == {"#d01c2a", "#ff9bb0"}
    # White on the dark red, black on the light pink.
    ink = {t.get("fill") for t in texts(root)}
    assert ink == {"#ffffff", "#000000"}


def test_black_and_white_clues_are_plain_black_numbers_and_empty_lines_show_zero() -> None:
    puzzle = example("duck")
    root = parse(render_svg(puzzle, solved("duck")))
    assert not [e for e in root.iter(f"{SVG}rect") if e.get("class") == "clue"]
    numbers = texts(root)
    assert {t.get("fill") for t in numbers} == {"#000000"}
    assert sorted(int(t.text or "") for t in numbers) == sorted(
        block.length for _, _, clue in puzzle.lines() for block in clue
    )
    zeros = [t for t in root.iter(f"{SVG}text") if t.text == "0" and t.get("class") != "clue"]
    assert len(zeros) == sum(1 for _, _, clue in puzzle.lines() if not clue)
    assert {c.get("fill") for c in cells(root)} == {"#ffffff", "#000000"}


def test_unknown_cells_are_hatched_and_decided_ones_filled() -> None:
    puzzle = example("needs-search-25")
    domains = partial("needs-search-25")
    unknown = [i for i, d in enumerate(domains) if d & (d - 1)]
    assert 0 < len(unknown) < len(domains)
    root = parse(render_svg(puzzle, domains))
    assert root.find(f"{SVG}defs/{SVG}pattern[@id='hatch']") is not None
    fills = [square.get("fill") for square in cells(root)]
    assert [i for i, fill in enumerate(fills) if fill == "url(#hatch)"] == unknown
    assert {fills[i] for i in range(len(fills)) if i not in set(unknown)} <= {
        "#ffffff",
        "#000000",
    }


def test_empty_puzzle_draws_blank_cells() -> None:
    puzzle = example("mushroom-color")
    squares = cells(parse(render_svg(puzzle)))
    assert len(squares) == 16 * 16
    assert {square.get("fill") for square in squares} == {"#ffffff"}


def test_highlighted_cells_are_outlined_in_red() -> None:
    puzzle = example("heart-color")
    root = parse(render_svg(puzzle, solved("heart-color"), highlight={0, 10, 71}))
    marks = [e for e in root.iter(f"{SVG}rect") if e.get("class") == "highlight"]
    assert len(marks) == 3
    assert {m.get("stroke") for m in marks} == {HIGHLIGHT}
    assert {m.get("fill") for m in marks} == {"none"}
    layout = compute_layout(puzzle)
    last = marks[-1]  # cell 71: row 7, column 8 (0-based)
    x0, y0, c = layout.grid_x, layout.grid_y, layout.cell
    assert x0 + 8 * c < float(last.get("x", 0)) < x0 + 9 * c
    assert y0 + 7 * c < float(last.get("y", 0)) < y0 + 8 * c


def test_text_is_escaped_and_odd_colors_cannot_break_the_markup() -> None:
    palette = (Color("white", ".", "#ffffff"), Color("evil", "e", '"/><script>'))
    with pytest.raises(ValueError, match="is not '#rrggbb'"):  # the model refuses it now
        Puzzle(2, 1, ((Block(1, 1),),), ((Block(1, 1),), ()), palette)
    # The picture's own defence still holds, for a puzzle changed after its checks.
    puzzle = Puzzle(2, 1, ((Block(1, 1),),), ((Block(1, 1),), ()), title="Fish & <Chips>")
    object.__setattr__(puzzle, "palette", palette)
    svg = render_svg(puzzle, [2, 1], caption='"quoted" & <tagged>')
    root = parse(svg)
    assert root.findtext(f"{SVG}title") == "Fish & <Chips>"
    assert [t.text for t in texts(root, "caption")] == ['"quoted" & <tagged>']
    assert "<script>" not in svg
    assert cells(root)[0].get("fill") == "#808080"


def test_bad_arguments_are_refused() -> None:
    puzzle = example("heart-color")
    with pytest.raises(ValueError, match="domains"):
        render_svg(puzzle, [1, 2, 3])
    with pytest.raises(ValueError, match="outside"):
        render_svg(puzzle, None, highlight=[72])


def test_png_is_a_png_of_the_layout_size() -> None:
    puzzle = example("heart-color")
    data = render_png(puzzle, partial("heart-color"), highlight=[3], caption="Heart")
    layout = compute_layout(puzzle, "Heart")
    scale = png_scale(layout)
    assert png_size(data) == (round(layout.width * scale), round(layout.height * scale))
    assert 400 < png_size(data)[0] < 2000


def test_large_puzzles_stay_readable_and_capped() -> None:
    # A 100x100 puzzle with long clues: 1,1,1,... on every line (50 blocks).
    clue = tuple(Block(1) for _ in range(50))
    puzzle = Puzzle(100, 100, (clue,) * 100, (clue,) * 100)
    layout = compute_layout(puzzle)
    scale = png_scale(layout)
    assert layout.cell * scale >= 12  # pixels per cell
    assert layout.width * layout.height * scale * scale <= 12_500_000


@pytest.mark.parametrize("suffix", [".svg", ".png", ".PNG"])
def test_write_picture_picks_the_format_by_suffix(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"duck{suffix}"
    write_picture(example("duck"), solved("duck"), path)
    data = path.read_bytes()
    if suffix == ".svg":
        assert len(cells(parse(data.decode("utf-8")))) == 15 * 15
    else:
        assert data.startswith(PNG_SIGNATURE)


def test_write_picture_errors_name_the_path(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"\.svg or \.png") as error:
        write_picture(example("duck"), None, tmp_path / "duck.jpg")
    assert error.value.path == str(tmp_path / "duck.jpg")
    missing = tmp_path / "no-such-folder" / "duck.svg"
    with pytest.raises(InputError, match="cannot write") as error:
        write_picture(example("duck"), None, missing)
    assert error.value.path == str(missing)


def test_a_drawing_keeps_its_deadline() -> None:
    """A 200x200 PNG took seconds in one matplotlib call with timeout=1 (issue 32): with a
    deadline, it is drawn in a process that the deadline ends; within it, the same bytes."""
    import random
    import time

    from satnono.formats.generate import puzzle_from_grid, random_grid
    from satnono.output.picture import picture_bytes
    from satnono.runtime.deadline import Deadline, Timeout

    big = puzzle_from_grid(random_grid(200, 200, 2, 0.5, random.Random(1)))
    started = time.monotonic()
    with pytest.raises(Timeout):
        picture_bytes(big, kind="png", deadline=Deadline(0.3))
    assert time.monotonic() - started < 0.3 + 1
    duck = example("duck")
    assert picture_bytes(duck, deadline=Deadline(30)) == picture_bytes(duck)
