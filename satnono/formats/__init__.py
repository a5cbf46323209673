"""Reading and writing puzzle files: format detection by suffix, then by content.

Each format module parses text into Puzzles and writes Puzzles back to text; this module owns
the file handling (encoding, size limits, error attribution) so that the parsers stay pure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from satnono.errors import InputError
from satnono.formats.non import looks_like_non, parse_non, write_non
from satnono.formats.webpbn_xml import looks_like_xml, parse_xml, write_xml
from satnono.model import Puzzle

#: Files larger than this are refused before they are read (the largest real puzzle files are
#: a few hundred kilobytes).
MAX_FILE_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class Format:
    name: str
    suffixes: tuple[str, ...]
    parse: Callable[[str], list[Puzzle]]
    write: Callable[[Sequence[Puzzle]], str]
    sniff: Callable[[str], bool]
    summary: str


def _write_non_bundle(puzzles: Sequence[Puzzle]) -> str:
    return "====\n".join(write_non(puzzle) for puzzle in puzzles)


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("xml", (".xml", ".pbn"), parse_xml, write_xml, looks_like_xml,
               "webpbn XML (pbn 0.3), black-and-white and color, several puzzles per file"),
        Format("non", (".non", ".nonpack"), parse_non, _write_non_bundle, looks_like_non,
               "Simpson's .non with mikix/nonogram-db colors and goal; ==== bundles"),
    )
}  # fmt: skip


def format_names() -> list[str]:
    return list(FORMATS)


def format_of(path: str | Path, text: str | None = None, explicit: str | None = None) -> Format:
    """The format named explicitly, else the one the suffix names, else the one the text fits."""
    if explicit is not None:
        if explicit not in FORMATS:
            raise InputError(f"unknown format {explicit!r}; choose one of: {', '.join(FORMATS)}")
        return FORMATS[explicit]
    suffix = Path(path).suffix.lower()
    for fmt in FORMATS.values():
        if suffix in fmt.suffixes:
            return fmt
    if text is not None:
        for fmt in FORMATS.values():
            if fmt.sniff(text):
                return fmt
        raise InputError("cannot tell the puzzle format (use --format)", path)
    raise InputError(f"cannot tell the format from the suffix {suffix!r} (use --format)", path)


def read_text(path: str | Path) -> str:
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise InputError(f"file is {size} bytes; the limit is {MAX_FILE_BYTES}", path)
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a puzzle file", path) from None
    except OSError as error:
        raise InputError(error.strerror or str(error), path) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError("not UTF-8 text", path, line) from None


def read_puzzles(path: str | Path, fmt: str | None = None) -> list[Puzzle]:
    """Every puzzle in a file; errors name the file and line."""
    text = read_text(path)
    try:
        return format_of(path, text, fmt).parse(text)
    except InputError as error:
        raise error.at(path) from None
    except RecursionError:
        raise InputError("nesting too deep", path) from None


def read_puzzle(path: str | Path, fmt: str | None = None, index: int = 1) -> Puzzle:
    """Puzzle number `index` (1-based) of a file."""
    puzzles = read_puzzles(path, fmt)
    if not 1 <= index <= len(puzzles):
        raise InputError(f"puzzle {index} asked for, the file holds {len(puzzles)}", path)
    return puzzles[index - 1]


def write_puzzles(puzzles: Sequence[Puzzle], path: str | Path, fmt: str | None = None) -> None:
    chosen = format_of(path, None, fmt)
    text = chosen.write(puzzles)
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot write: {error.strerror or error}", path) from None
