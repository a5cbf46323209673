"""Downloading puzzles from webpbn.com by id into the user cache, for `fetch` and `webpbn:ID`.

Endpoint: --url, else $SATNONO_WEBPBN_URL, else WEBPBN_URL; cache: $SATNONO_CACHE_DIR, else
platformdirs.user_cache_dir("satnono"), holding webpbn/<id>.xml.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

from satnono import __version__
from satnono.errors import InputError

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
    """The file behind a puzzle argument: `webpbn:ID` is fetched (or taken from the cache)."""
    text = str(argument)
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
        raise InputError(f"the download timeout must be positive, not {timeout}", "--timeout")
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

    try:
        _validated_text(read_text(path).encode("utf-8"), "utf-8", puzzle_id, str(path), "cache")
    except InputError:
        return False
    return True


#: webpbn's ids are below a million; twelve digits leave room and keep file names short.
MAX_ID = 10**12 - 1


def _check_id(puzzle_id: int) -> int:
    if isinstance(puzzle_id, bool) or not isinstance(puzzle_id, int) or not 0 < puzzle_id <= MAX_ID:
        shown = str(puzzle_id) if len(str(puzzle_id)) <= 20 else f"{str(puzzle_id)[:17]}..."
        raise InputError(
            f"{shown} is not a webpbn puzzle id (a positive integer of at most 12 digits)",
            f"{_PREFIX}{shown}",
        )
    return puzzle_id


def _download(puzzle_id: int, url: str, timeout: float, source: str) -> tuple[bytes, str | None]:
    """The body and declared charset of the export endpoint's answer for one puzzle."""
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
    form = urllib.parse.urlencode({"id": str(puzzle_id), "fmt": "xml", "go": "1"})
    headers = {
        "User-Agent": f"satnono/{__version__}",
        "Accept": "application/xml, text/xml;q=0.9, */*;q=0.1",
        "Content-Type": "application/x-www-form-urlencoded",
    }
    try:
        request = urllib.request.Request(url, form.encode("ascii"), headers, method="POST")
        opener = urllib.request.build_opener(_redirect_handler())
        with opener.open(request, timeout=timeout) as response:
            body = _read_body(response, url, timeout, source)
            return body, response.headers.get_content_charset()
    except urllib.error.HTTPError as error:
        error.close()
        raise InputError(f"{url} answered HTTP {error.code} {error.reason}", source) from None
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
