"""`satnono serve`: a local web app (Starlette on uvicorn) over the library API.

One page (satnono/web/, no build step) to open, solve, watch and author puzzles, and a JSON API
whose answers are exactly the CLI's `--json` objects (satnono.contract). The API takes puzzle
text, never a path: it gives no access to the server's files.
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

from satnono import InputError, Puzzle, contract

WEB = Path(__file__).parent / "web"
#: Largest request body (puzzle text) accepted; real puzzle files are a few hundred KB at most.
MAX_BODY = 4 * 1024 * 1024
#: Longest --timeout a request may ask for, and the one used when it asks for none.
MAX_TIMEOUT = 120.0
DEFAULT_TIMEOUT = 30.0
#: Solves, counts and analyses running at once; more requests wait up to QUEUE_WAIT seconds,
#: then get HTTP 503 (each run may use every core for its race).
CONCURRENCY = 2
QUEUE_WAIT = 10.0


class RequestError(Exception):
    """A request the API refuses: HTTP `status` with {"error": message}."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def create_app() -> Any:
    """The Starlette application (routes below); uvicorn serves it."""
    from starlette.applications import Starlette
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    slots = asyncio.Semaphore(CONCURRENCY)

    def json_error(error: Exception) -> Any:
        status = error.status if isinstance(error, RequestError) else 400
        return JSONResponse({"error": str(error)}, status_code=status)

    def endpoint(work: Any) -> Any:
        async def handle(request: Any) -> Any:
            try:
                text = await _body(request)
                try:
                    await asyncio.wait_for(slots.acquire(), QUEUE_WAIT)
                except TimeoutError:
                    raise RequestError("the server is busy: try again", 503) from None
                try:
                    data = await asyncio.to_thread(work, text, dict(request.query_params))
                finally:
                    slots.release()
            except (InputError, RequestError) as error:
                return json_error(error)
            if isinstance(data, str | bytes):
                return Response(data, media_type=_media_type(request.query_params))
            # The CLI's own serialization, so that the bytes are those of `--json` too.
            return Response(contract.dumps(data), media_type="application/json")

        return handle

    async def index(_: Any) -> Any:
        return FileResponse(WEB / "index.html")

    async def webpbn(request: Any) -> Any:
        import satnono
        from satnono.formats import read_text

        try:
            digits = request.path_params["puzzle_id"]
            path = await asyncio.to_thread(satnono.fetch, "webpbn", int(digits))
            return JSONResponse({"text": read_text(path), "name": f"webpbn-{digits}.xml"})
        except InputError as error:
            return json_error(error)

    routes = [
        Route("/", index),
        Route("/api/solve", endpoint(_solve), methods=["POST"]),
        Route("/api/count", endpoint(_count), methods=["POST"]),
        Route("/api/analyze", endpoint(_analyze), methods=["POST"]),
        Route("/api/picture", endpoint(_picture), methods=["POST"]),
        Route("/api/convert", endpoint(_convert), methods=["POST"]),
        Route("/api/author", endpoint(_author), methods=["POST"]),
        Route("/api/solve/stream", _stream(slots), methods=["POST"]),
        Route("/api/webpbn/{puzzle_id:int}", webpbn),
        Mount("/static", StaticFiles(directory=WEB), name="static"),
    ]
    return Starlette(routes=routes)


async def _body(request: Any) -> str:
    """The request's text, refused past MAX_BODY (before it is all read) or if not UTF-8."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        raise RequestError(f"the request is over {MAX_BODY} bytes, the limit", 413)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise RequestError(f"the request is over {MAX_BODY} bytes, the limit", 413)
        chunks.append(chunk)
    try:
        return b"".join(chunks).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", "request") from None


def _media_type(query: Any) -> str:
    kind = query.get("type", "svg")
    return {"svg": "image/svg+xml", "png": "image/png"}.get(kind, "text/plain; charset=utf-8")


# --- the work, in a worker thread ---------------------------------------------------------------


def _puzzle(text: str, query: dict[str, str]) -> Puzzle:
    """The posted puzzle: format by `format=`, else the `name=`'s suffix, else the content."""
    from satnono.formats import parse_text

    name = Path(query.get("name") or "request").name  # only its suffix is used
    index: int = _number(query, "puzzle", 1, int)
    puzzles = parse_text(text, name, query.get("format") or None)
    if not 1 <= index <= len(puzzles):
        raise InputError(f"puzzle {index} asked for, the file holds {len(puzzles)}", name)
    return puzzles[index - 1]


def _number(query: dict[str, str], key: str, default: Any, kind: type) -> Any:
    value = query.get(key)
    if value in (None, ""):
        return default
    try:
        return kind(value)
    except ValueError:
        raise InputError(f"{value[:40]!r} is not a number", key) from None


def _timeout(query: dict[str, str]) -> float:
    timeout = float(_number(query, "timeout", DEFAULT_TIMEOUT, float))
    if not 0 <= timeout <= MAX_TIMEOUT:  # NaN too
        raise InputError(f"the timeout must be within 0..{MAX_TIMEOUT:g} s", "timeout")
    return timeout


def _source(query: dict[str, str]) -> str:
    return query.get("name") or "request"


def _solve(text: str, query: dict[str, str]) -> dict[str, Any]:
    import satnono

    puzzle = _puzzle(text, query)
    limit = _number(query, "max_solutions", 2, int)
    if not 1 <= limit <= 1000:
        raise InputError("max_solutions must be within 1..1000 here", "max_solutions")
    result = satnono.solve(puzzle, query.get("backend") or None, limit, _timeout(query))
    return contract.solve_object(_source(query), result, result.grids)


def _count(text: str, query: dict[str, str]) -> dict[str, Any]:
    import satnono

    counted = satnono.count(_puzzle(text, query), _timeout(query))
    return contract.count_object(_source(query), counted)


def _analyze(text: str, query: dict[str, str]) -> dict[str, Any]:
    import satnono

    analysis = satnono.analyze(_puzzle(text, query), _timeout(query))
    return contract.analysis_object(_source(query), analysis)


def _picture(text: str, query: dict[str, str]) -> Any:
    """An SVG (or PNG with `type=png`): `text` is JSON {"puzzle", "solution", "highlight"}."""
    from satnono.picture import picture_bytes

    try:
        data = json.loads(text)
        puzzle_text = str(data["puzzle"])
        solution = data.get("solution")
        highlight = [(int(r), int(c)) for r, c in data.get("highlight") or []]
    except (ValueError, KeyError, TypeError):
        raise InputError('expected {"puzzle": text, "solution": rows, "highlight": cells}',
                          "request") from None  # fmt: skip
    puzzle = _puzzle(puzzle_text, query)
    domains = None
    if solution:
        grid = contract.grid_of_rows(puzzle, [str(row) for row in solution], "solution")
        domains = [1 << color for row in grid for color in row]
    cells = [(r - 1) * puzzle.width + (c - 1) for r, c in highlight
             if 1 <= r <= puzzle.height and 1 <= c <= puzzle.width]  # fmt: skip
    caption = data.get("caption") or puzzle.title or None
    kind = "png" if query.get("type") == "png" else "svg"
    return picture_bytes(puzzle, domains, cells, caption, kind)


def _convert(text: str, query: dict[str, str]) -> str:
    """The puzzle in another format (`to=`): a download."""
    from satnono.formats import FORMATS

    target = query.get("to", "")
    if target not in FORMATS:
        raise InputError(f"unknown format {target!r}; choose one of: {', '.join(FORMATS)}", "to")
    return FORMATS[target].write([_puzzle(text, query)])


def _author(text: str, query: dict[str, str]) -> dict[str, Any]:
    """The author's mode: a painted grid (JSON {"rows": [...], "palette": [{char, rgb}]}) ->
    its puzzle as .non text, and the analysis (unique? line-solvable? ambiguous cells)."""
    import satnono
    from satnono.formats import FORMATS
    from satnono.model import WHITE, Color, make_palette

    try:
        data = json.loads(text)
        rows = [str(row) for row in data["rows"]]
        colors = [Color(str(c.get("name") or c["char"]), str(c["char"]), str(c["rgb"]))
                  for c in data.get("palette") or [{"char": "#", "rgb": "#000000"}]]  # fmt: skip
    except (ValueError, KeyError, TypeError, AttributeError):
        raise InputError('expected {"rows": [...], "palette": [{"char", "rgb"}]}',
                         "request") from None  # fmt: skip
    if not rows or not rows[0] or len({len(row) for row in rows}) != 1:
        raise InputError("the grid must be a non-empty rectangle of rows", "request")
    palette = make_palette(WHITE, colors)
    index = {".": 0} | {color.char: i + 1 for i, color in enumerate(colors)}
    try:
        grid = tuple(tuple(index[char] for char in row) for row in rows)
    except KeyError as error:
        raise InputError(f"unknown color {error.args[0]!r} in the grid", "request") from None
    if not any(any(row) for row in grid):
        raise InputError("paint at least one cell", "request")
    puzzle = satnono.puzzle_from_grid(grid, palette, str(data.get("title") or "my puzzle"))
    analysis = satnono.analyze(puzzle, _timeout(query))
    return {
        "non": FORMATS["non"].write([puzzle]),
        "rows": [puzzle.clue_text(clue) for clue in puzzle.rows],
        "columns": [puzzle.clue_text(clue) for clue in puzzle.columns],
        "analysis": contract.analysis_object("author", analysis),
    }


# --- the live solve -----------------------------------------------------------------------------


def _stream(slots: asyncio.Semaphore) -> Any:
    """POST /api/solve/stream: JSON lines as the solve goes (phase, the grid after line logic,
    each verified solution), then {"event": "done", "result": <solve object>}. Closing the
    connection cancels the solve on the server."""

    async def handle(request: Any) -> Any:
        from starlette.responses import JSONResponse, StreamingResponse

        try:
            text = await _body(request)
            query = dict(request.query_params)
            puzzle = await asyncio.to_thread(_puzzle, text, query)
            limit = _number(query, "max_solutions", 2, int)
            timeout = _timeout(query)
            import satnono

            backend = query.get("backend") or satnono.DEFAULT_BACKEND
            satnono.check_options(backend)
            if not 0 <= limit <= 10_000:
                raise InputError("max_solutions must be within 0..10000 here", "max_solutions")
        except (InputError, RequestError) as error:
            status = error.status if isinstance(error, RequestError) else 400
            return JSONResponse({"error": str(error)}, status_code=status)
        return StreamingResponse(
            _events(request, puzzle, backend, limit, timeout, _source(query), slots),
            media_type="application/x-ndjson",
        )

    return handle


async def _events(
    request: Any,
    puzzle: Puzzle,
    backend: str,
    limit: int,
    timeout: float,
    source: str,
    slots: asyncio.Semaphore,
) -> Any:
    import satnono
    from satnono.terminal import domain_rows

    await slots.acquire()
    try:
        handle = satnono.start_solve(puzzle, backend, limit, timeout, keep=0)
    except BaseException:
        slots.release()
        raise
    progress = handle.progress
    shown: tuple[str, tuple[int, ...] | None] | None = None
    try:
        while True:
            seen = (progress.phase, progress.domains)
            if seen != shown and progress.domains is not None:
                shown = seen
                yield _line({"event": "progress", "phase": progress.phase,
                             "cells_left": progress.cells_left,
                             "partial": domain_rows(puzzle, progress.domains)})  # fmt: skip
            ended, grid = await asyncio.to_thread(handle.next_solution, 0.1)
            if grid is not None:
                yield _line({"event": "solution", "solution": puzzle.grid_rows(grid)})
            elif ended:
                try:
                    result = handle.result()
                except Exception as error:  # reported to the page, never a traceback
                    yield _line({"event": "error", "error": str(error)})
                else:
                    answer = contract.solve_object(source, result, None)
                    yield _line({"event": "done", "result": answer})
                return
            elif await request.is_disconnected():
                return
    finally:
        handle.cancel()  # a cancel, a closed page or the end: the solve stops now
        slots.release()


def _line(event: dict[str, Any]) -> bytes:
    return (json.dumps(event) + "\n").encode()


def serve(host: str = "127.0.0.1", port: int = 8000, open_browser: bool = False) -> None:
    """Run the app until Ctrl-C."""
    import uvicorn

    if open_browser:
        import webbrowser

        threading.Timer(1.0, webbrowser.open, [f"http://{host}:{port}/"]).start()
    uvicorn.run(create_app(), host=host, port=port, log_level="warning")
