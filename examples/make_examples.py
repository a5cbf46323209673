"""Regenerate the bundled example puzzles (.non and webpbn .xml) from the pictures below.

All pictures are satnono's own pixel art or generated patterns.
Run: python examples/make_examples.py
(unsolvable-N.non, puzzles without a solution that line logic alone does not refute, come from
`python tools/bench_certify.py --unsolvable 5 --seed 34 --save examples`.)
"""

from __future__ import annotations

import math
import random
from pathlib import Path

from satnono.core.model import BLACK_AND_WHITE, WHITE, Color, Grid, Puzzle
from satnono.formats.generate import puzzle_from_grid, switch_board
from satnono.formats.non import write_non
from satnono.formats.webpbn_xml import write_xml

HERE = Path(__file__).resolve().parent
AUTHOR = (("author", "satnono"), ("copyright", "CC0: satnono example, no rights reserved"))

HEART = """
.rr...rr.
rpprrrrrr
rpprrrrrr
rrrrrrrrr
.rrrrrrr.
..rrrrr..
...rrr...
....r....
"""

DUCK = """
...............
.....####......
....######.....
....##.###.....
..#########....
....#######....
.....#####.....
.....#####...##
...##########.#
..############.
..#############
...###########.
....#########..
......#####....
...............
"""

SAILBOAT = """
..................yy
......w..........yyy
......ww..........yy
......www...........
......wwww..........
......wwwww.........
......wwwwww........
......wwwwwww.......
......wwwwwwww......
......wwwwwwwww.....
......k.............
......k.............
..nnnnnnnnnnnnnnn...
...nnnnnnnnnnnnn....
....nnnnnnnnnnn.....
bbbbbbbbbbbbbbbbbbbb
bbbb.bbbbbbbb.bbbbbb
bbbbbbbbbbbbbbbbbbbb
bb.bbbbbbb.bbbbbbb.b
bbbbbbbbbbbbbbbbbbbb
"""

#: 30x30, line-solvable: the subject of the start-up benchmark (BENCHMARKS.md).
ROCKET = """
..............##..............
.............####.............
............######............
...........##....##...........
..........##......##..........
..........#........#..........
.........##........##.........
.........#..######..#.........
.........#.##....##.#.........
.........#.#......#.#.........
.........#.#......#.#.........
.........#.##....##.#.........
.........#..######..#.........
.........#..........#.........
.........#..........#.........
.........#..######..#.........
.........#..#....#..#.........
.........#..######..#.........
........##..........##........
.......###..........###.......
......####..........####......
.....#####..........#####.....
....######..........######....
....#####.############.####...
....####..############..###...
....###.......####.......##...
..............####............
.............######...........
..............####............
...............##.............
"""

MUSHROOM = """
.....rrrrrr.....
...rrwwrrrrrr...
..rrwwwrrrwwrr..
.rrrwwrrrrwwwrr.
.rrrrrrrrrrwwrr.
rrwwrrrrrrrrrrrr
rwwwwrrrwwrrrrrr
rrwwrrrwwwwrrwrr
.rrrrrrrwwrrwwr.
...kkkkkkkkkk...
.....cccccc.....
.....ccckccc....
.....cccccc.....
.....cccccc.....
....cccccccc....
................
"""


def palette(*colors: str) -> tuple[Color, ...]:
    """The background, then each color written as "name char #rrggbb"."""
    return (WHITE, *(Color(*color.split()) for color in colors))


PALETTES = {
    "heart-color": palette("red r #d01c2a", "pink p #ff9bb0"),
    "sailboat-color": palette(
        "sail w #f0e6c8", "mast k #3b2a1a", "hull n #8b4513", "sea b #1f6fd0", "sun y #ffd21f"
    ),
    "mushroom-color": palette(
        "cap r #c81e1e", "spot w #f4f4f4", "gill k #5a3b24", "stem c #e8d7b0"
    ),
}


def from_art(art: str, palette: tuple[Color, ...]) -> Grid:
    index = {color.char: i for i, color in enumerate(palette)}
    index["."] = 0
    return tuple(tuple(index[ch] for ch in row) for row in art.strip().splitlines())


def spiral(size: int) -> Grid:
    """A square spiral with a one-cell corridor: line logic solves it."""
    grid = [[0] * size for _ in range(size)]
    top, left, bottom, right = 0, 0, size - 1, size - 1
    while top <= bottom and left <= right:
        for c in range(left, right + 1):
            grid[top][c] = 1
        for r in range(top, bottom + 1):
            grid[r][right] = 1
        if top + 2 <= bottom:
            for c in range(left, right + 1):
                grid[bottom][c] = 1
        if left + 2 <= right:
            for r in range(top + 2, bottom + 1):
                grid[r][left] = 1
        if top + 2 <= bottom and left + 2 <= right:
            grid[top + 2][left + 1] = 1
        top, left, bottom, right = top + 2, left + 2, bottom - 2, right - 2
    return tuple(tuple(row) for row in grid)


def rings(size: int) -> Grid:
    """Concentric colored rings around the center: a 50x50 color puzzle."""
    center = (size - 1) / 2
    return tuple(
        tuple(
            0 if (d := math.hypot(r - center, c - center)) > center else 1 + int(d // 4) % 3
            for c in range(size)
        )
        for r in range(size)
    )


def permutations(blocks: int, size: int) -> Grid:
    """`blocks` size x size squares on the diagonal, square k in color k + 1; every row and
    column of a square holds one cell of its color.

    A cell outside the squares sees two different colors in its row and column clues, so it
    is background, and the squares share no undecided line. Each square's solutions are its
    permutation matrices (size! of them), so the puzzle has exactly (size!) ** blocks.
    """
    side = blocks * size
    return tuple(tuple(1 + r // size if r == c else 0 for c in range(side)) for r in range(side))


def hue_palette(count: int) -> tuple[Color, ...]:
    """`count` colors around the color wheel, named and lettered a, b, c, ..."""
    import colorsys

    colors = [WHITE]
    for k in range(count):
        red, green, blue = colorsys.hsv_to_rgb(k / count, 0.75, 0.85)
        rgb = f"#{int(red * 255):02x}{int(green * 255):02x}{int(blue * 255):02x}"
        colors.append(Color(f"hue{k + 1}", chr(ord("a") + k), rgb))
    return tuple(colors)


def needs_search(size: int, seed: int) -> Grid:
    """A random picture that is unique but that line logic alone cannot finish.

    The seed was chosen by trying seeds until satnono reported exactly that (checked in tests).
    """
    rng = random.Random(seed)
    return tuple(tuple(int(rng.random() < 0.5) for _ in range(size)) for _ in range(size))


def examples() -> list[tuple[str, Puzzle]]:
    def make(name: str, title: str, grid: Grid, palette: tuple[Color, ...] = BLACK_AND_WHITE,
             keep_goal: bool = True) -> tuple[str, Puzzle]:  # fmt: skip
        puzzle = puzzle_from_grid(grid, palette, title, keep_goal)
        return name, Puzzle(
            puzzle.width, puzzle.height, puzzle.rows, puzzle.columns, puzzle.palette,
            puzzle.title, AUTHOR, puzzle.goal,
        )  # fmt: skip

    rings_palette = (
        WHITE, Color("teal", "t", "#138086"), Color("orange", "o", "#f28c28"),
        Color("plum", "p", "#7b3f8c"),
    )  # fmt: skip

    def art(name: str, title: str, picture: str) -> tuple[str, Puzzle]:
        return make(name, title, from_art(picture, PALETTES[name]), PALETTES[name])

    return [
        art("heart-color", "Heart", HEART),
        make("duck", "Duck", from_art(DUCK, BLACK_AND_WHITE)),
        art("sailboat-color", "Sailboat", SAILBOAT),
        art("mushroom-color", "Mushroom", MUSHROOM),
        make("rocket-30", "Rocket", from_art(ROCKET, BLACK_AND_WHITE)),
        make("spiral-50", "Spiral 50x50", spiral(50)),
        make("rings-50-color", "Rings 50x50", rings(50), rings_palette),
        make("switches-8", "Eight switches (256 solutions)", switch_board(1, 8), keep_goal=False),
        make(
            "switchboard-10",
            "A connected 10x10 board of switches (2**100 solutions)",
            switch_board(10, 10),
            keep_goal=False,
        ),
        make(
            "permutations-11x6-color",
            "11 independent 6x6 permutation squares (720**11 solutions)",
            permutations(11, 6),
            hue_palette(11),
            keep_goal=False,
        ),
        make(
            "permutation-9",
            "One 9x9 permutation square (9! = 362880 solutions)",
            permutations(1, 9),
            keep_goal=False,
        ),
        make("needs-search-25", "Random 25x25 that needs search", needs_search(25, SEARCH_SEED)),
    ]


SEARCH_SEED = 40


#: The seed of the tournament example's random pictures.
TOURNAMENT_SEED = 31


def tournament() -> str:
    """A small question file in the computer-olympiad tournaments' format: four random 15x15
    pictures whose black share falls from one half to two fifths, as a tournament set's does
    from its first puzzles to its last (harder) ones."""
    from satnono.formats.tournament import write_tournament

    rng = random.Random(TOURNAMENT_SEED)
    puzzles = []
    for number, density in enumerate((0.5, 0.47, 0.43, 0.4), start=1):
        grid = tuple(tuple(int(rng.random() < density) for _ in range(15)) for _ in range(15))
        puzzles.append(puzzle_from_grid(grid, title=str(number), keep_goal=False))
    return write_tournament(puzzles)


def pictures() -> None:
    """The pictures of the README's `satnono from-image` examples: a 5x5 black cross on white
    (10 pixels a cell) and a 2x2 diagonal, whose clues fit both diagonals."""
    from PIL import Image, ImageDraw

    cross = Image.new("RGB", (50, 50), "white")
    draw = ImageDraw.Draw(cross)
    draw.rectangle([20, 0, 29, 49], fill="black")
    draw.rectangle([0, 20, 49, 29], fill="black")
    cross.save(HERE / "cross.png")
    diagonal = Image.new("RGB", (2, 2), "white")
    diagonal.putpixel((0, 0), (0, 0, 0))
    diagonal.putpixel((1, 1), (0, 0, 0))
    diagonal.save(HERE / "diagonal.png")


def main() -> None:
    for name, puzzle in examples():
        (HERE / f"{name}.non").write_text(write_non(puzzle), encoding="utf-8")
        (HERE / f"{name}.xml").write_text(write_xml([puzzle]), encoding="utf-8")
        print(f"wrote {name}: {puzzle.width}x{puzzle.height}, {len(puzzle.palette) - 1} colors")
    pictures()
    print("wrote cross.png, diagonal.png")
    (HERE / "tournament-4.txt").write_text(tournament(), encoding="utf-8")
    print("wrote tournament-4.txt")


if __name__ == "__main__":
    main()
