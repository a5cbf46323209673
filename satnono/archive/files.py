"""Finding an archive's puzzle files: every entry under the paths named is accounted for, as a
file to read, an entry that cannot be read (and why), or one skipped (and why).

Why: an archive run that silently passes over entries cannot be trusted to have checked the
archive; a FIFO or a device must never be opened (reading one blocks or never ends), and a
link loop must not be followed.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from satnono.errors import InputError, accepted


@dataclass(frozen=True)
class Entries:
    """What was found under the paths named, in a stable (sorted) order."""

    #: Regular files to read: every file named, and those in folders with a puzzle suffix.
    files: list[Path] = field(default_factory=list)
    #: Entries that are not regular files (FIFOs, devices, sockets, broken links, link
    #: loops), never opened: each becomes an error row, with the reason.
    unreadable: list[tuple[Path, str]] = field(default_factory=list)
    #: Entries in folders that are not puzzle files (no puzzle suffix, a linked folder):
    #: reported, not read.
    skipped: list[tuple[Path, str]] = field(default_factory=list)


def find_entries(paths: Iterable[Path]) -> Entries:
    """Every entry under `paths`: a named file is read whatever its suffix (its content
    says the format), a folder is walked (links to folders are not followed). A path that
    does not exist is an InputError: a typo should stop the run before any work."""
    found = Entries()
    for path in paths:
        problem = _not_readable(path)
        if problem is None and path.is_dir():  # a link to a folder, named, is followed
            _walk(path, found)
        elif problem is None:
            found.files.append(path)
        elif problem == _MISSING:
            raise InputError("no such file or folder", path)
        else:
            found.unreadable.append((path, problem))
    return found


def puzzle_files(paths: Iterable[Path]) -> list[Path]:
    """The readable puzzle files under `paths` (as find_entries), or InputError if none."""
    paths = list(paths)
    files = find_entries(paths).files
    if not files:
        raise InputError("no puzzle files found", ", ".join(map(str, paths)))
    return files


_MISSING = "no such file"


def stored_name(path: Path | str) -> str:
    """`path` as text that a UTF-8 store and a terminal take: a byte of a file name that is
    not UTF-8 shows as an escape (\\xff) instead of failing the run."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _walk(folder: Path, found: Entries) -> None:
    def unreadable_folder(error: OSError) -> None:  # os.walk passes over it otherwise
        place = Path(error.filename) if error.filename else folder
        found.unreadable.append((place, f"a folder that cannot be read ({error.strerror})"))

    for path in sorted(_below(folder, unreadable_folder)):
        if path.is_symlink() and path.is_dir():
            found.skipped.append((path, "a link to a folder (not followed)"))
            continue
        problem = _not_readable(path)
        if problem is not None:
            found.unreadable.append((path, problem))
        elif _has_puzzle_suffix(path):
            found.files.append(path)
        else:
            found.skipped.append((path, f"not a puzzle file suffix ({path.suffix or 'none'})"))


def _below(folder: Path, on_error: Callable[[OSError], None]) -> Iterator[Path]:
    """Every entry below `folder` but its sub-folders, which are walked in turn; a folder
    that cannot be listed goes to `on_error`."""
    for root, folders, names in os.walk(folder, onerror=on_error, followlinks=False):
        base = Path(root)
        for name in names:
            yield base / name
        for name in folders:
            if (base / name).is_symlink():
                yield base / name


def _not_readable(path: Path) -> str | None:
    """Why `path` is not a regular file to read, or None if it is one."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "a broken symbolic link" if path.is_symlink() else _MISSING
    except OSError as error:  # ELOOP: a link loop; EACCES: a folder we may not enter
        if error.errno == errno.ELOOP:
            return "a symbolic link loop"
        return error.strerror or str(error)
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    for test, kind in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"),
                       (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket")):  # fmt: skip
        if test(mode):
            return f"not a regular file ({kind})"
    return "not a regular file"


def _has_puzzle_suffix(path: Path) -> bool:
    from satnono.formats import format_of

    return accepted(lambda: format_of(path))
