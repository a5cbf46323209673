"""The work behind each API endpoint, run in a worker thread: the posted text and query in,
the CLI's JSON object (or a picture, or a file) out, within the request's deadline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import satnono
from satnono import InputError, Puzzle, Timeout
from satnono.output import contract

#: Longest timeout a request may ask for, and the one used when it asks for none.
MAX_TIMEOUT = 120.0
DEFAULT_TIMEOUT = 30.0
#: Largest puzzle drawn, in cells: a PNG of a 1000x1000 grid takes 17 s and 760 MB.
MAX_PICTURE_CELLS = {"svg": 250_000, "png": 40_000}
#: Largest puzzle whose certificate is made here, in cells: the whole puzzle's CNF is about
#: 2 KB a cell (2040-hot, 55x60: 6 MB), written twice (with and without the solution).
MAX_CERTIFICATE_CELLS = 10_000
#: Query values quoted back in an error are cut to this many characters.
QUOTED = 40


def parse(text: str, query: dict[str, str]) -> Puzzle:
    """The posted puzzle: format by `format=`, else the `name=`'s suffix, else the content."""
    from satnono.formats import parse_text

    name = Path(query.get("name") or "request").name  # only its suffix is used
    index: int = number(query, "puzzle", 1, int)
    puzzles = parse_text(text, name, query.get("format") or None)
    if not 1 <= index <= len(puzzles):
        raise InputError(f"puzzle {index} asked for, the file holds {len(puzzles)}", name)
    return puzzles[index - 1]


def number(query: dict[str, str], key: str, default: Any, kind: type) -> Any:
    value = query.get(key)
    if value in (None, ""):
        return default
    try:
        return kind(value)
    except ValueError:
        raise InputError(f"{value[:40]!r} is not a number", key) from None


def timeout_of(query: dict[str, str]) -> float:
    timeout = float(number(query, "timeout", DEFAULT_TIMEOUT, float))
    if not 0 <= timeout <= MAX_TIMEOUT:  # NaN too
        raise InputError(f"the timeout must be within 0..{MAX_TIMEOUT:g} s", "timeout")
    return timeout


def source_of(query: dict[str, str]) -> str:
    return query.get("name") or "request"


def solve(text: str, query: dict[str, str], deadline: satnono.Deadline) -> dict[str, Any]:
    puzzle = parse(text, query)
    limit = number(query, "max_solutions", 2, int)
    if not 1 <= limit <= 1000:
        raise InputError("max_solutions must be within 1..1000 here", "max_solutions")
    result = satnono.solve(puzzle, query.get("backend") or None, limit, deadline=deadline)
    return contract.solve_object(source_of(query), result, result.grids)


def safe_stem(name: str) -> str:
    """A file name's stem fit to name a download and its entries: letters, digits, '.', '_'
    and '-' only (a NUL, a slash or a control character would cut or misplace a zip entry's
    name), at most 64 characters; "puzzle" when nothing is left."""
    import re

    stem = Path(name.replace("\x00", "-")).stem
    return re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip(".-")[:64] or "puzzle"


def certificate(text: str, query: dict[str, str], deadline: satnono.Deadline) -> bytes:
    """The certificate of the puzzle's verdict (`solve --proof`) as a zip of its folder,
    checked by satnono's checker before it is handed out; InputError when the verdict has
    none (a timeout, a verdict that claims nothing) or the checker rejects it."""
    import io
    import tempfile
    import zipfile

    puzzle = parse(text, query)
    if puzzle.width * puzzle.height > MAX_CERTIFICATE_CELLS:
        raise InputError(f"a certificate is made here for puzzles of at most "
                         f"{MAX_CERTIFICATE_CELLS} cells: use satnono solve --proof",
                         "request")  # fmt: skip
    name = safe_stem(query.get("name") or "")
    with tempfile.TemporaryDirectory(prefix="satnono-certificate-") as folder:
        result = satnono.solve(puzzle, query.get("backend") or None, 2, deadline=deadline,
                               proof=folder)  # fmt: skip
        made = result.certificate
        if made is None:
            if deadline.expired():
                raise Timeout
            why = result.stats.get("certificate", "none was made")
            raise InputError(f"no certificate: {why}", "request")
        if not made.verified:
            raise InputError(f"no certificate: satnono's checker says {made.check_reason}",
                             "request")  # fmt: skip
        packed = io.BytesIO()
        with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as archive:
            for file in made.files:
                if file != made.README:  # its own, saying it was verified here
                    archive.write(Path(folder) / file, f"{name}-certificate/{file}")
            checked = f"VERIFIED by satnono's checker on the server in {made.check_seconds:.2f} s"
            archive.writestr(f"{name}-certificate/{made.README}", made.readme(checked))
        return packed.getvalue()


def count(text: str, query: dict[str, str], deadline: satnono.Deadline) -> dict[str, Any]:
    counted = satnono.count(parse(text, query), deadline=deadline)
    return contract.count_object(source_of(query), counted)


def analyze(text: str, query: dict[str, str], deadline: satnono.Deadline) -> dict[str, Any]:
    analysis = satnono.analyze(parse(text, query), deadline=deadline)
    return contract.analysis_object(source_of(query), analysis)


def picture(text: str, query: dict[str, str], deadline: satnono.Deadline) -> bytes:
    """An SVG (or PNG with `type=png`): `text` is JSON {"puzzle", "solution", "highlight"} or
    {"puzzle", "partial", ...}, where partial rows mark undecided cells '?' (drawn hatched)."""
    from satnono.output.picture import picture_bytes

    shape = '{"puzzle": text, "solution": rows, "highlight": cells, "caption": text}'
    data = _json_object(text, shape)
    try:
        puzzle_text = data["puzzle"]
        solution, partial = _rows(data, "solution"), _rows(data, "partial")
        highlight = [(int(r), int(c)) for r, c in data.get("highlight") or []]
        caption = data.get("caption")
        if not isinstance(puzzle_text, str) or not isinstance(caption, str | None):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        raise InputError(f"expected {shape}", "request") from None
    puzzle = parse(puzzle_text, query)
    kind = "png" if query.get("type") == "png" else "svg"
    if puzzle.width * puzzle.height > MAX_PICTURE_CELLS[kind]:
        raise InputError(f"the picture would have over {MAX_PICTURE_CELLS[kind]} cells, "
                         f"the limit for {kind.upper()} here", "request")  # fmt: skip
    domains = None
    if solution:
        grid = contract.grid_of_rows(puzzle, solution, "solution")
        domains = [1 << color for row in grid for color in row]
    elif partial:
        domains = puzzle.domains_from_rows(partial, "partial")
    cells = [(r - 1) * puzzle.width + (c - 1) for r, c in highlight
             if 1 <= r <= puzzle.height and 1 <= c <= puzzle.width]  # fmt: skip
    return picture_bytes(puzzle, domains, cells, caption or puzzle.title or None, kind, deadline)


def _json_object(text: str, shape: str) -> dict[str, Any]:
    """The posted JSON object, or InputError saying `shape` (also for JSON nested too deep
    to read, which Python's reader meets as a RecursionError)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict):
        raise InputError(f"expected a JSON object {shape}", "request")
    return data


def _rows(data: dict[str, Any], key: str) -> list[str] | None:
    """`data[key]` as rows of text (None when absent); TypeError when it is not a list of
    strings."""
    rows = data.get(key)
    if rows is None:
        return None
    if not isinstance(rows, list) or not all(isinstance(row, str) for row in rows):
        raise TypeError(key)
    return rows


def convert(text: str, query: dict[str, str], deadline: satnono.Deadline) -> str:
    """The puzzle in another format (`to=`): a download."""
    from satnono.formats import FORMATS

    target = query.get("to", "")
    if target not in FORMATS:
        raise InputError(f"unknown format {target[:QUOTED]!r}; choose one of: "
                         f"{', '.join(FORMATS)}", "to")  # fmt: skip
    puzzle = parse(text, query)
    if deadline.expired():  # reading and writing are linear in the body: bounded, checked once
        raise Timeout
    return FORMATS[target].write([puzzle])


def author(text: str, query: dict[str, str], deadline: satnono.Deadline) -> dict[str, Any]:
    """The author's mode: a painted grid (JSON {"rows": [...], "palette": [{char, rgb}]}) ->
    its puzzle as .non text, and the analysis (unique? line-solvable? ambiguous cells)."""
    from satnono.core.model import WHITE, Color, make_palette
    from satnono.formats import FORMATS, MAX_COLORS

    data = _json_object(text, '{"rows": [...], "palette": [{"char", "rgb"}]}')
    try:
        rows = [str(row) for row in data["rows"]]
        colors = [Color(str(c.get("name") or c["char"]), str(c["char"]), str(c["rgb"]))
                  for c in data.get("palette") or [{"char": "#", "rgb": "#000000"}]]  # fmt: skip
    except (ValueError, KeyError, TypeError, AttributeError):
        raise InputError('expected {"rows": [...], "palette": [{"char", "rgb"}]}',
                         "request") from None  # fmt: skip
    if not rows or not rows[0] or len({len(row) for row in rows}) != 1:
        raise InputError("the grid must be a non-empty rectangle of rows", "request")
    _check_palette(colors, MAX_COLORS)
    palette = make_palette(WHITE, colors)
    index = {".": 0} | {color.char: i + 1 for i, color in enumerate(colors)}
    try:
        grid = tuple(tuple(index[char] for char in row) for row in rows)
    except KeyError as error:
        raise InputError(f"unknown color {error.args[0]!r} in the grid", "request") from None
    if not any(any(row) for row in grid):
        raise InputError("paint at least one cell", "request")
    puzzle = satnono.puzzle_from_grid(grid, palette, str(data.get("title") or "my puzzle"))
    # analyze=0: the puzzle alone, for an export of the grid as it is now (no search).
    analysis = satnono.analyze(puzzle, deadline=deadline) if query.get("analyze") != "0" else None
    exported = FORMATS["non"].write([puzzle])
    FORMATS["non"].parse(exported)  # what is handed out must read back
    return {
        "non": exported,
        "rows": [puzzle.clue_text(clue) for clue in puzzle.rows],
        "columns": [puzzle.clue_text(clue) for clue in puzzle.columns],
        "analysis": None if analysis is None else contract.analysis_object("author", analysis),
    }


def hint(text: str, query: dict[str, str], deadline: satnono.Deadline) -> dict[str, Any]:
    """The next step a person can take (`satnono hint --json`): `text` is JSON {"puzzle":
    text, "grid": rows or null}, rows of palette characters with '?' for open cells."""
    shape = '{"puzzle": text, "grid": rows or null}'
    data = _json_object(text, shape)
    puzzle_text, grid = data.get("puzzle"), data.get("grid")
    if not isinstance(puzzle_text, str) or not (
        grid is None or (isinstance(grid, list) and all(isinstance(row, str) for row in grid))
    ):
        raise InputError(f"expected {shape}", "request")
    puzzle = parse(puzzle_text, query)
    step = satnono.hint(puzzle, grid, deadline.remaining())
    return contract.hint_object(source_of(query), puzzle, [step])


def media_type(endpoint: str, query: dict[str, str]) -> str:
    """What an endpoint's answer is, when it is not JSON."""
    if endpoint == "picture":
        return "image/png" if query.get("type") == "png" else "image/svg+xml"
    if endpoint == "certificate":
        return "application/zip"
    return "text/plain; charset=utf-8"


def _check_palette(colors: list[Any], limit: int) -> None:
    """The author's palette: within the reader's color limit, '#rrggbb' values, one
    character per color (the .non export must read back as the same puzzle)."""
    import re

    if len(colors) > limit:
        raise InputError(f"{len(colors)} colors: a puzzle may have at most {limit}", "request")
    chars = [color.char for color in colors]
    for color in colors:
        if not re.fullmatch(r"#[0-9a-fA-F]{6}", color.rgb):
            raise InputError(f"color {color.rgb[:QUOTED]!r} is not #rrggbb", "request")
        if len(color.char) != 1 or color.char in ".?" or color.char.isspace():
            raise InputError(f"{color.char[:QUOTED]!r} cannot mark a color", "request")
        if chars.count(color.char) > 1:
            raise InputError(f"two colors use the character {color.char!r}", "request")
