"""The puzzle sites: downloading from webpbn.com (and nonograms.org, below) by id into the
user cache, for `satnono.fetch` and `webpbn:ID`.

Endpoint: --url, else $SATNONO_WEBPBN_URL, else WEBPBN_URL; cache: $SATNONO_CACHE_DIR, else
platformdirs.user_cache_dir("satnono"), holding webpbn/<id>.xml.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from satnono.errors import InputError, accepted
from satnono.version import __version__

#: The sites `fetch` downloads from.
SITES = ("webpbn", "nonograms")

if TYPE_CHECKING:
    from http.client import HTTPResponse

WEBPBN_URL = "https://webpbn.com/export.cgi"
#: Environment variable naming another export endpoint (a mirror, or a local test server).
URL_VARIABLE = "SATNONO_WEBPBN_URL"
#: Environment variable naming the cache directory, instead of the per-user one.
CACHE_VARIABLE = "SATNONO_CACHE_DIR"
#: Answers longer than this are refused; the largest webpbn puzzles export to tens of kilobytes.
MAX_DOWNLOAD_BYTES = 4 * 1024 * 1024

_PREFIX = "webpbn:"
_CHUNK = 64 * 1024
_DIGITS = re.compile(r"[0-9]+")
_XML_DECLARATION = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
_TEXT_DECLARATION = re.compile(r"""^(\s*<\?xml[^>]*?encoding\s*=\s*["'])([A-Za-z0-9._-]+)""")


def endpoint(url: str | None) -> str:
    """The export URL to use: the explicit one, else $SATNONO_WEBPBN_URL, else webpbn's."""
    return url or os.environ.get(URL_VARIABLE) or WEBPBN_URL


def cache_dir() -> Path:
    """The satnono cache directory ($SATNONO_CACHE_DIR overrides the per-user default)."""
    override = os.environ.get(CACHE_VARIABLE)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("satnono"))


def cache_path(puzzle_id: int) -> Path:
    """Where puzzle `puzzle_id` is (or would be) cached; the file may not exist."""
    return cache_dir() / "webpbn" / f"{_check_id(puzzle_id)}.xml"


def resolve_puzzle_source(argument: str | Path, url: str | None = None) -> Path:
    """The file behind a puzzle argument: `webpbn:ID` and `nonograms:ID` are fetched (or
    taken from the cache)."""
    text = str(argument)
    if text.startswith(NONOGRAMS_PREFIX):
        digits = text.removeprefix(NONOGRAMS_PREFIX).strip()
        if not _DIGITS.fullmatch(digits) or len(digits) > 12 or int(digits) == 0:
            raise InputError(
                f"{digits[:20]!r} is not a nonograms.org puzzle id (as in nonograms:1234)", text
            )
        return fetch_nonograms(int(digits), url)
    if not text.startswith(_PREFIX):
        return Path(argument)
    digits = text.removeprefix(_PREFIX).strip()
    if not _DIGITS.fullmatch(digits) or len(digits) > 12 or int(digits) == 0:
        raise InputError(
            f"{digits!r} is not a webpbn puzzle id (a positive integer, as in webpbn:1234)", text
        )
    return fetch_webpbn(int(digits), url)


def fetch_webpbn(
    puzzle_id: int, url: str | None = None, *, refresh: bool = False, timeout: float = 20.0
) -> Path:
    """The cached XML file of webpbn puzzle `puzzle_id`, downloaded first if not cached.

    `refresh` downloads again even if cached. Every failure (offline, HTTP error, no such
    puzzle, an answer that is not puzzle XML) is an InputError naming the URL; a failed
    download leaves any earlier cached copy in place.
    """
    path = cache_path(puzzle_id)
    if path.is_file() and not refresh and _cache_is_valid(path, puzzle_id):
        return path
    if not timeout > 0:
        raise InputError(f"the download timeout must be positive, not {timeout}", "timeout")
    address = endpoint(url)
    source = f"{_PREFIX}{puzzle_id}"
    body, charset = _download(puzzle_id, address, timeout, source)
    text = _validated_text(body, charset, puzzle_id, address, source)
    _write_atomically(path, text.encode("utf-8"))
    return path


def _cache_is_valid(path: Path, puzzle_id: int) -> bool:
    """Whether the cached file is still puzzle XML that satnono reads: a file damaged on disk
    or written by something else is downloaded again rather than served."""
    from satnono.formats import read_text

    return accepted(
        lambda: _validated_text(
            read_text(path).encode("utf-8"), "utf-8", puzzle_id, str(path), "cache"
        )
    )


#: webpbn's ids are below a million; twelve digits leave room and keep file names short.
MAX_ID = 10**12 - 1


def _check_id(puzzle_id: int, site: str = "webpbn", prefix: str = _PREFIX) -> int:
    """`puzzle_id` if it can be an id on `site`; else InputError naming that site."""
    if isinstance(puzzle_id, bool) or not isinstance(puzzle_id, int) or not 0 < puzzle_id <= MAX_ID:
        shown = str(puzzle_id) if len(str(puzzle_id)) <= 20 else f"{str(puzzle_id)[:17]}..."
        raise InputError(
            f"{shown} is not a {site} puzzle id (a positive integer of at most 12 digits)",
            f"{prefix}{shown}",
        )
    return puzzle_id


def _download(puzzle_id: int, url: str, timeout: float, source: str) -> tuple[bytes, str | None]:
    """The body and declared charset of webpbn's export form's answer for one puzzle."""
    form = {"id": str(puzzle_id), "fmt": "xml", "go": "1"}
    accept = "application/xml, text/xml;q=0.9, */*;q=0.1"
    return _request(url, form, accept, timeout, source)


def _request(
    url: str, form: dict[str, str] | None, accept: str, timeout: float, source: str
) -> tuple[bytes, str | None]:
    """The body and charset of the answer to a POST of `form` (a GET without one): every
    failure is an InputError naming the URL; HTTP errors keep their code in `.http_status`."""
    import http.client
    import urllib.error
    import urllib.parse
    import urllib.request

    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError as error:
        raise InputError(f"{url!r} is not a usable URL: {error}", source) from None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InputError(f"{url!r} is not an http or https URL", source)
    headers = {"User-Agent": f"satnono/{__version__}", "Accept": accept}
    data = None
    if form is not None:
        data = urllib.parse.urlencode(form).encode("ascii")
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    try:
        method = "GET" if data is None else "POST"
        request = urllib.request.Request(url, data, headers, method=method)
        opener = urllib.request.build_opener(_redirect_handler())
        with opener.open(request, timeout=timeout) as response:
            body = _read_body(response, url, timeout, source)
            return body, response.headers.get_content_charset()
    except urllib.error.HTTPError as error:
        error.close()
        failure = InputError(f"{url} answered HTTP {error.code} {error.reason}", source)
        failure.http_status = error.code  # type: ignore[attr-defined]
        raise failure from None
    except urllib.error.URLError as error:
        raise _unreachable(url, error.reason, timeout, source) from None
    except OSError as error:  # timeouts and resets after the request was sent
        raise _unreachable(url, error, timeout, source) from None
    except (ValueError, http.client.InvalidURL) as error:  # a bad port, a bad host name
        raise InputError(f"{url!r} is not a usable URL: {error}", source) from None
    except http.client.HTTPException as error:
        raise InputError(
            f"{url} did not answer in HTTP ({type(error).__name__}: {_one_line(error)})", source
        ) from None


def _one_line(reason: object) -> str:
    """A reason that may hold a server's raw bytes, as one short printable line."""
    text = " ".join(str(reason).split())
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= 120 else text[:117] + "..."


def _redirect_handler() -> type:
    import urllib.error
    import urllib.parse
    import urllib.request

    class HttpOnlyRedirects(urllib.request.HTTPRedirectHandler):
        """Follow redirects to http and https only (urllib would follow ftp:// too)."""

        def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
            scheme = urllib.parse.urlsplit(newurl).scheme.lower()
            if scheme not in ("http", "https"):
                raise urllib.error.HTTPError(
                    newurl, code, f"redirect to a {scheme or 'relative'}: URL refused", headers, fp
                )
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    return HttpOnlyRedirects


def _read_body(response: HTTPResponse, url: str, timeout: float, source: str) -> bytes:
    """The whole body, refusing big ones and slow ones (the timeout bounds the whole read)."""
    if response.status != 200:
        raise InputError(f"{url} answered HTTP {response.status} {response.reason}", source)
    too_big = f"{url} sent more than {MAX_DOWNLOAD_BYTES} bytes; refused"
    declared = response.headers.get("Content-Length", "")
    if declared.strip().isdigit() and int(declared) > MAX_DOWNLOAD_BYTES:
        raise InputError(too_big, source)
    deadline = time.monotonic() + timeout
    chunks: list[bytes] = []
    size = 0
    while chunk := response.read1(min(_CHUNK, MAX_DOWNLOAD_BYTES + 1 - size)):
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_DOWNLOAD_BYTES:
            raise InputError(too_big, source)
        if time.monotonic() > deadline:
            raise TimeoutError("the answer came too slowly")
    return b"".join(chunks)


def _unreachable(url: str, reason: object, timeout: float, source: str) -> InputError:
    if isinstance(reason, TimeoutError):
        return InputError(f"no answer from {url} within {timeout:g} s (offline?)", source)
    if isinstance(reason, OSError) and reason.strerror:
        reason = reason.strerror
    hint = "" if "SSL" in type(reason).__name__ else " (offline?)"
    return InputError(f"cannot reach {url}: {_one_line(reason)}{hint}", source)


def _validated_text(body: bytes, charset: str | None, puzzle_id: int, url: str, source: str) -> str:
    """The answer as text, checked to be webpbn XML that satnono reads; else why not."""
    from satnono.formats.webpbn_xml import looks_like_xml, parse_xml

    if not body.strip():
        raise InputError(f"{url} sent an empty answer for puzzle {puzzle_id}", source)
    text = _decode(body, charset)
    if not looks_like_xml(text):  # webpbn says "Puzzle N does not exist" (or not published)
        raise InputError(
            f"webpbn has no public puzzle {puzzle_id} ({url} answered {_gist(text)!r})", source
        )
    try:
        parse_xml(text)
    except InputError as error:
        if error.message == "no <puzzle> element":
            raise InputError(
                f"webpbn has no public puzzle {puzzle_id} (at {url})", source
            ) from None
        where = f" (line {error.line})" if error.line is not None else ""
        raise InputError(
            f"{url} sent puzzle {puzzle_id} as XML that satnono cannot read{where}: "
            f"{error.message}",
            source,
        ) from None
    except RecursionError:
        raise InputError(f"{url} sent puzzle {puzzle_id} nested too deep", source) from None
    return text


def _decode(body: bytes, charset: str | None) -> str:
    """UTF-8 if it is, else the declared encoding (relabelled UTF-8, as it will be stored)."""
    try:
        return body.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    declaration = _XML_DECLARATION.match(body)
    for encoding in (declaration and declaration.group(1).decode("ascii"), charset, "cp1252"):
        if encoding:
            try:
                text = body.decode(encoding)
            except (LookupError, UnicodeDecodeError):
                continue
            return _TEXT_DECLARATION.sub(r"\g<1>UTF-8", text, count=1)
    return _TEXT_DECLARATION.sub(r"\g<1>UTF-8", body.decode("latin-1"), count=1)


def _gist(text: str) -> str:
    """The first words of an error page, as one short line without markup."""
    words = re.sub(r"<[^>]*>", " ", text[:2000]).split()
    line = "".join(c if c.isprintable() else "?" for c in " ".join(words))
    return line if len(line) <= 80 else line[:77] + "..."


def _write_atomically(path: Path, data: bytes) -> None:
    """Write through a temporary file and rename, so readers never see half a file."""
    import tempfile

    temporary: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(
            prefix=f".{path.name}.", suffix=".tmp", dir=path.parent
        )
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
        temporary = None
    except OSError as error:
        raise InputError(f"cannot write the cache: {error.strerror or error}", path) from None
    finally:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)


# --- nonograms.org ------------------------------------------------------------------------------

NONOGRAMS_URL = "https://www.nonograms.org"
#: Environment variable naming another nonograms.org address (a mirror, or a test server).
NONOGRAMS_URL_VARIABLE = "SATNONO_NONOGRAMS_URL"
NONOGRAMS_PREFIX = "nonograms:"
#: Where the site keeps black-and-white and color puzzles: /nonograms/i/ID, /nonograms2/i/ID.
_NONOGRAMS_PATHS = ("nonograms", "nonograms2")
_DATA = re.compile(r"var\s+d\s*=\s*(\[\[[-0-9,\s\[\]]*\]\])")
_TITLE = re.compile(r"\u00ab([^\u00bb<]{1,200})\u00bb")


def fetch_nonograms(
    puzzle_id: int, url: str | None = None, *, refresh: bool = False, timeout: float = 20.0
) -> Path:
    """The cached `.non` file of nonograms.org puzzle `puzzle_id`, downloaded first if needed.

    The site has no export: its puzzle page carries the picture, obfuscated, in a script
    (`var d=[[...]]`) that its JavaScript decodes; satnono decodes it the same way
    (`decode_nonograms_page`), builds the clues from the picture and stores them as `.non`.
    Every failure is an InputError naming the URL, as for webpbn.
    """
    from satnono.formats import FORMATS

    _check_id(puzzle_id, "nonograms.org", NONOGRAMS_PREFIX)
    path = cache_dir() / "nonograms" / f"{puzzle_id}.non"
    source = f"{NONOGRAMS_PREFIX}{puzzle_id}"
    if path.is_file() and not refresh and _cached_non_is_valid(path):
        return path
    base = (url or os.environ.get(NONOGRAMS_URL_VARIABLE) or NONOGRAMS_URL).rstrip("/")
    page = None
    for kind in _NONOGRAMS_PATHS:  # black and white first, then color
        address = f"{base}/{kind}/i/{puzzle_id}"
        try:
            body, charset = _request(address, None, "text/html", timeout, source)
        except InputError as error:
            if getattr(error, "http_status", None) == 404:
                continue
            raise
        page = (_decode(body, charset), address)
        break
    if page is None:
        raise InputError(f"nonograms.org has no puzzle {puzzle_id} (at {base})", source)
    puzzle = decode_nonograms_page(page[0], page[1], source)
    _write_atomically(path, FORMATS["non"].write([puzzle]).encode("utf-8"))
    return path


def _cached_non_is_valid(path: Path) -> bool:
    from satnono.formats import read_puzzles

    return accepted(lambda: read_puzzles(path, "non"))


def decode_nonograms_page(html: str, url: str, source: str) -> Any:
    """The puzzle on a nonograms.org page: size, colors and picture from its `var d` array.

    The array hides each number as a difference or remainder of others: row 1 gives the
    width, row 2 the height, row 3 the number of colors (each as a % c + b % c - c % c
    for row [a, b, c, c']); row 4 is the key of the color rows that follow (red, green, blue
    offset by key entries); after them, a count row and a key row, then one row per run of
    cells: [start + 1, length, color, row + 1], each offset by the key.
    """
    from satnono.core.model import MAX_SIDE, WHITE, Color, make_palette
    from satnono.formats.generate import puzzle_from_grid

    match = _DATA.search(html)
    if match is None:
        raise InputError(f"{url} is not a nonograms.org puzzle page (no puzzle data)", source)
    try:
        import json

        d = json.loads(match.group(1))
        width, height, colors = (_hidden(d[i]) for i in (1, 2, 3))
        if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE and 1 <= colors <= 64):
            raise ValueError(f"size {width}x{height} with {colors} colors")
        key = d[4]
        palette = []
        for number, row in enumerate(d[5 : 5 + colors], start=1):
            red, green, blue = row[0] - key[1], row[1] - key[0], row[2] - key[3]
            if not all(0 <= value <= 255 for value in (red, green, blue)):
                raise ValueError(f"color {number} is not RGB")
            rgb = f"#{red:02x}{green:02x}{blue:02x}"
            palette.append(Color(f"color {number}", "#" if colors == 1 else "", rgb))
        first = 5 + colors
        runs, run_key = _runs(d[first]), d[first + 1]
        grid = [[0] * width for _ in range(height)]
        for row in d[first + 2 : first + 2 + runs]:
            start = row[0] - run_key[0] - 1
            length = row[1] - run_key[1]
            color = row[2] - run_key[2]
            line = row[3] - run_key[3] - 1
            if not (0 <= line < height and start >= 0 and start + length <= width
                    and length >= 1 and 1 <= color <= colors):  # fmt: skip
                raise ValueError(f"a run outside the {width}x{height} grid")
            grid[line][start : start + length] = [color] * length
        if len(d) < first + 2 + runs:
            raise ValueError("fewer runs than announced")
    except (ValueError, IndexError, TypeError, KeyError) as error:
        raise InputError(f"{url}: the puzzle data cannot be decoded ({error})", source) from None
    if not any(any(row) for row in grid):
        raise InputError(f"{url}: the puzzle's picture is empty", source)
    title = _TITLE.search(html)
    name = title.group(1).strip() if title else f"nonograms.org #{source.split(':')[-1]}"
    return puzzle_from_grid(tuple(tuple(row) for row in grid), make_palette(WHITE, palette), name)


def _hidden(row: list[int]) -> int:
    """One hidden number: a % m + b % m - c % m for a row [a, b, c, m]."""
    a, b, c, m = row[:4]
    return int(a % m + b % m - c % m)


def _runs(row: list[int]) -> int:
    """The number of runs: (a % m)^2 + 2 (b % m) + c % m for a row [a, b, c, m]."""
    a, b, c, m = row[:4]
    return int((a % m) * (a % m) + (b % m) * 2 + c % m)
