"""Pictures of puzzles and (partial) solutions, as SVG or PNG: one scene (scene.py) from one
layout, so an SVG and a PNG of a grid always agree; PNG through matplotlib (png.py, imported
only for a PNG).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from pathlib import Path

from satnono.core.extras import require
from satnono.core.model import Puzzle
from satnono.errors import InputError
from satnono.output.picture.scene import HIGHLIGHT, compute_layout, render_svg
from satnono.runtime.deadline import Deadline

__all__ = [
    "HIGHLIGHT",
    "PICTURE_SUFFIXES",
    "compute_layout",
    "line_logic_picture",
    "picture_bytes",
    "render_svg",
    "write_picture",
]

#: File suffixes `write_picture` understands.
PICTURE_SUFFIXES = (".svg", ".png")


def picture_bytes(
    puzzle: Puzzle,
    domains: Sequence[int] | None = None,
    highlight: Collection[int] = (),
    caption: str | None = None,
    kind: str = "svg",
    deadline: Deadline | None = None,
) -> bytes:
    """The picture as SVG or PNG bytes (`kind`); PNG through matplotlib (png.py).

    With a bounded `deadline`, it is drawn in a forked process that the deadline kills
    (raising runtime.deadline.Timeout): matplotlib draws in one long call that nothing else
    can stop (a 200x200 PNG takes seconds), and a large SVG takes seconds too.
    """
    if kind == "png":
        require("matplotlib", "png")
    if deadline is not None and deadline.bounded:
        from satnono.runtime.child import can_fork, stream_from_child

        if can_fork():
            if kind == "png":  # imported here once, not again in every drawing process
                import matplotlib.backends.backend_agg  # noqa: F401

            def draw(send: Callable[[bytes], None]) -> None:
                send(picture_bytes(puzzle, domains, highlight, caption, kind))

            for drawn in stream_from_child(draw, deadline, "drawing"):
                return bytes(drawn)
            raise RuntimeError("the drawing process ended without a picture")
    if kind == "svg":
        return render_svg(puzzle, domains, highlight, caption).encode("utf-8")
    from satnono.output.picture.png import render_png

    return render_png(puzzle, domains, highlight, caption)


def write_picture(
    puzzle: Puzzle,
    domains: Sequence[int] | None,
    path: str | Path,
    highlight: Collection[int] = (),
    caption: str | None = None,
    deadline: Deadline | None = None,
) -> None:
    """Write an SVG or a PNG picture, chosen by the suffix of `path`, drawn within `deadline`
    (see `picture_bytes`: Timeout when it passes first, and nothing is written).

    Raises InputError for another suffix or when the file cannot be written.
    """
    suffix = Path(path).suffix.lower()
    if suffix not in PICTURE_SUFFIXES:
        raise InputError(
            f"cannot tell the picture format from {suffix or 'no suffix'!r}: use .svg or .png",
            path,
        )
    data = picture_bytes(puzzle, domains, highlight, caption, suffix[1:], deadline)
    try:
        Path(path).write_bytes(data)
    except OSError as error:
        raise InputError(f"cannot write the picture: {error.strerror or error}", path) from None


def line_logic_picture(puzzle: Puzzle) -> tuple[list[int] | None, str]:
    """What line logic alone decides (the rest undecided, drawn hatched), and a caption."""
    from satnono.pipeline.prepare import prepare

    name = puzzle.title or "puzzle"
    prepared = prepare(puzzle)
    if prepared.reason is not None:
        return None, f"{name}: no solution: {prepared.reason}"
    cells = len(prepared.domains)
    return prepared.domains, f"{name}: line logic leaves {prepared.cells_left} of {cells} cells"
