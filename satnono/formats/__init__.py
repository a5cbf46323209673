"""Reading and writing puzzle files: format detection by suffix, then by content.

Each format module parses text into Puzzles and writes Puzzles back to text; this module owns
the file handling (encoding, size limits, error attribution) so that the parsers stay pure.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from satnono.core import model
from satnono.core.model import Puzzle
from satnono.errors import InputError

#: Files larger than this are refused before they are read (the largest real puzzle files are
#: a few hundred kilobytes).
MAX_FILE_BYTES = 16 * 1024 * 1024
#: Colors besides the background that a puzzle may have (every reader's limit).
MAX_COLORS = model.MAX_COLORS


#: Formats that can write a blotted (hidden) clue number: `?` in .non, 0 in webpbn XML.
BLOTTED_FORMATS = frozenset({"non", "xml"})


@dataclass(frozen=True)
class Format:
    """A file format; its module is imported on first use, so start-up pays only for one."""

    name: str
    suffixes: tuple[str, ...]
    module: str
    functions: tuple[str, str, str]  # names of the parse, write and sniff functions
    summary: str

    def _function(self, index: int) -> Callable[..., Any]:
        function: Callable[..., Any] = getattr(
            importlib.import_module(self.module), self.functions[index]
        )
        return function

    def parse(self, text: str) -> list[Puzzle]:
        puzzles: list[Puzzle] = self._function(0)(text)
        return puzzles

    def write(self, puzzles: Sequence[Puzzle]) -> str:
        if self.name not in BLOTTED_FORMATS and any(puzzle.has_blotted for puzzle in puzzles):
            raise InputError(
                f"the {self.name} format cannot hold a blotted (unknown) clue number: "
                "write .non or webpbn XML"
            )
        text: str = self._function(1)(puzzles)
        return text

    def sniff(self, text: str) -> bool:
        return bool(self._function(2)(text))


def _format(
    name: str, suffixes: tuple[str, ...], module: str, summary: str, writer: str | None = None
) -> Format:
    """Format `name` whose module defines parse_<short>, write_<short> and looks_like_<short>."""
    short = module.removeprefix("webpbn_")
    functions = (f"parse_{short}", writer or f"write_{short}", f"looks_like_{short}")
    return Format(name, suffixes, f"satnono.formats.{module}", functions, summary)


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        _format("xml", (".xml", ".pbn"), "webpbn_xml",
                "webpbn XML (pbn 0.3), black-and-white and color, several puzzles per file"),
        _format("non", (".non", ".nonpack"), "non",
                "Simpson's .non with mikix/nonogram-db colors and goal; ==== bundles",
                writer="write_non_bundle"),
        _format("tournament", (), "tournament",
                "TAAI/TCGA/ICGA tournament question files: '$k', column clues, row clues; many "
                "square black-and-white puzzles; no suffix of its own (read by content)"),
        _format("toml", (".toml",), "toml_clues",
                "pynogram and nonogrid TOML boards: [clues] rows and columns, [colors] names"),
        # The formats below have no magic words; each sniffer is a trial parse, and their
        # structures are disjoint (header shape, '#', '&' or ':' separators), so order is free.
        _format("g", (".g",), "olsak",
                "Olsak .g (grid solver; webpbn 'olsak' export), black-and-white and color"),
        _format("mk", (".mk",), "mk",
                "Olsak .mk: 'height width', rows, '#', columns; black-and-white"),
        _format("nin", (".nin",), "nin",
                "Wilk's .nin: 'width height', rows, columns; black-and-white"),
        _format("cwd", (".cwd",), "cwd",
                "Meshcheryakov/Sukhoy .cwd: height, width, rows, blank, columns; black-and-white"),
        _format("syro", (".syr", ".syro"), "syro",
                "Syromolotov JSolver: rows ending in 0, '#', columns, '#'; black-and-white"),
        _format("makhorin", (), "makhorin",
                "Makhorin pbnsol (webpbn export): '*' comments, rows, '&', columns; no suffix"),
    )
}  # fmt: skip


def format_names() -> list[str]:
    return list(FORMATS)


def format_of(
    path: str | Path,
    text: str | None = None,
    explicit: str | None = None,
    parameter: str = "format",
) -> Format:
    """The format named explicitly, else the one the suffix names, else the one the text fits.

    `parameter` names where the caller gives a format (write_puzzles: format; the CLI maps
    it to its flag: --format, and --from and --to for convert).
    """
    if explicit is not None:
        if not isinstance(explicit, str) or explicit not in FORMATS:
            raise InputError(
                f"unknown format {explicit!r}; choose one of: {', '.join(FORMATS)}", parameter
            )
        return FORMATS[explicit]
    suffix = Path(path).suffix.lower()
    for fmt in FORMATS.values():
        if suffix in fmt.suffixes:
            return fmt
    if text is not None:
        for fmt in FORMATS.values():
            if fmt.sniff(text):
                return fmt
        raise InputError("cannot tell the puzzle format", path, hint=parameter)
    raise InputError(f"cannot tell the format from the suffix {suffix!r}", path, hint=parameter)


#: The path that stands for standard input (and standard output where a file is written).
STDIO = "-"


def read_text(path: str | Path) -> str:
    """A file's text (`-`: standard input), size-limited, as UTF-8; InputError otherwise."""
    if str(path) == STDIO:
        return _decode(_read_limited(sys.stdin.buffer, "<stdin>"), "<stdin>")
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise InputError(f"file is {size} bytes; the limit is {MAX_FILE_BYTES}", path)
        # Devices and pipes report no size (/dev/zero never ends): count while reading.
        with path.open("rb") as file:
            data = _read_limited(file, path)
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a puzzle file", path) from None
    except OSError as error:
        raise InputError(error.strerror or str(error), path) from None
    return _decode(data, path)


def _read_limited(file: BinaryIO, where: str | Path) -> bytes:
    chunks: list[bytes] = []
    total = 0
    try:
        while chunk := file.read(1 << 20):
            chunks.append(chunk)
            total += len(chunk)
            if total > MAX_FILE_BYTES:
                raise InputError(f"file is over {MAX_FILE_BYTES} bytes, the limit", where)
    except (OSError, ValueError) as error:  # ValueError: a closed stream
        raise InputError(
            f"cannot read: {getattr(error, 'strerror', None) or error}", where
        ) from None
    return b"".join(chunks)


def _decode(data: bytes, where: str | Path) -> str:
    """UTF-8 (with or without its byte-order mark), or UTF-16 with its byte-order mark (as
    Windows editors save "Unicode" text, tournament files among them)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as error:
            line = data[: error.start].decode("utf-16", "replace").count("\n") + 1
            raise InputError(
                "not UTF-16 text, though it starts with its mark", where, line
            ) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError("not UTF-8 text", where, line) from None


def parse_text(
    text: str, where: str | Path, fmt: str | None = None, parameter: str = "format"
) -> list[Puzzle]:
    """Every puzzle in `text`; the format by name, else by `where`'s suffix, else by content."""
    text = text.removeprefix("\ufeff")  # a byte-order mark left on text given as it is
    try:
        return format_of(where, text, fmt, parameter).parse(text)
    except InputError as error:
        raise error.at(where) from None
    except RecursionError:
        raise InputError("nesting too deep", where) from None


def read_puzzles(
    path: str | Path, fmt: str | None = None, parameter: str = "format"
) -> list[Puzzle]:
    """Every puzzle in a file (`-`: standard input); errors name the file and line."""
    text = read_text(path)
    return parse_text(text, "<stdin>" if str(path) == STDIO else path, fmt, parameter)


def read_puzzle(path: str | Path, fmt: str | None = None, index: int = 1) -> Puzzle:
    """Puzzle number `index` (1-based) of a file."""
    puzzles = read_puzzles(path, fmt)
    if not 1 <= index <= len(puzzles):
        raise InputError(f"puzzle {index} asked for, the file holds {len(puzzles)}", path)
    return puzzles[index - 1]


def write_puzzles(
    puzzles: Sequence[Puzzle], path: str | Path, fmt: str | None = None, parameter: str = "format"
) -> None:
    """Write puzzles in the format `fmt` names or the suffix of `path` (`-`: standard output,
    which needs `fmt`)."""
    if str(path) == STDIO and fmt is None:
        raise InputError("writing to standard output needs the format", path, hint=parameter)
    chosen = format_of(path, None, fmt, parameter)
    try:
        text = chosen.write(puzzles)
    except InputError as error:
        raise error.at(path) from None
    try:
        if str(path) == STDIO:
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            Path(path).write_text(text, encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot write: {error.strerror or error}", path) from None
