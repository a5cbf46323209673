"""Commands on several puzzles: the files and folders named, expanded once (a folder gives its
puzzle files, sorted, as batch walks it), each read and handled in turn. One loop for every
command that takes puzzles (solve, count, sample, analyze, cnf, render), so that they all name
their files the same way and report an unreadable one the same way: one line on stderr and,
with JSON, an error object in its place; the others go on, and the exit code is the highest.
The options every search command shares (SearchArgs: solve's and count's) are checked here
once, before the first file is read.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path

import satnono
from satnono.cli.process import (
    EXIT_BAD_INPUT,
    EXIT_SOLVED,
    deadline,
    flagged,
    load_puzzles,
    print_json,
    say,
)
from satnono.output import contract
from satnono.output.terminal import printable

#: What a command does with one puzzle: (puzzle, its source as named, its deadline, the label
#: that starts its text output when there are several, else None) -> exit code.
OnePuzzle = Callable[[satnono.Puzzle, str, satnono.Deadline, str | None], int]


def expand(paths: Sequence[Path]) -> list[tuple[Path, str | None]]:
    """Each puzzle named, with why it cannot be read (None when it may be): a folder gives its
    puzzle files, and the entries in it that are not regular files (never opened: a FIFO
    would block) with their reason. Other names (files, '-', webpbn:ID) are left to the
    reader, which says what is wrong with them."""
    from satnono.archive.files import find_entries

    named: list[tuple[Path, str | None]] = []
    for path in paths:
        if not path.is_dir():
            named.append((path, None))
            continue
        found = find_entries([path])
        entries = [(file, None) for file in found.files] + list(found.unreadable)
        if not entries:
            named.append((path, "a folder without puzzle files"))
        named.extend(sorted(entries, key=lambda entry: entry[0]))
    return named


def several(paths: Sequence[Path]) -> bool:
    """Whether `paths` name more than one puzzle (a folder counts as several)."""
    return len(paths) > 1 or any(path.is_dir() for path in paths)


def each_puzzle(
    paths: Sequence[Path],
    fmt: str | None,
    index: int | None,
    timeout: float | None,
    json_for: str | None,
    one: OnePuzzle,
) -> int:
    """`one` on each puzzle named, each within its own `timeout` (the first's counted from the
    start of the process, so that start-up is inside it); the highest exit code. `json_for`
    names the command when it prints JSON: an unreadable puzzle gets an error object then.
    `index` None: every puzzle of a file of several (a tournament file, an XML puzzle set),
    each labelled with its number; else that one puzzle of each file."""
    satnono.check_options(timeout=timeout)  # once, before any file: a bad one is no file's error
    named = expand(paths)
    labelled = len(named) > 1
    worst = EXIT_SOLVED
    first = True
    for path, problem in named:
        source = str(path)
        try:
            if problem is not None:
                raise satnono.InputError(problem, path)
            within = deadline(timeout, first=first)
            loaded = load_puzzles(path, fmt, index, within, json_for)
        except satnono.InputError as error:
            worst = max(worst, _refused(error, source, json_for))
            continue
        finally:
            first = False
        for number, puzzle in enumerate(loaded, start=1):
            label = source if labelled else None
            if len(loaded) > 1:
                label = f"{source}, puzzle {number} of {len(loaded)}"
                within = within if number == 1 else deadline(timeout, first=False)
            try:
                worst = max(worst, one(puzzle, source, within, label))
            except satnono.InputError as error:
                worst = max(worst, _refused(error, source, json_for))
    return worst


def _refused(error: satnono.InputError, source: str, json_for: str | None) -> int:
    """Say why a puzzle was refused (one line; an error object with JSON): exit 2."""
    say(printable(f"satnono: error: {flagged(error)}"))
    if json_for is not None:
        print_json(contract.error_object(source, str(error)))
    return EXIT_BAD_INPUT


class OutputFolder:
    """Where a command that writes a file per puzzle (cnf, render) puts each: `output` itself
    for one puzzle (None: the command's default), or, for several (or when `output` is an
    existing folder), `output/<file name><suffix>` in a folder made if needed."""

    def __init__(self, output: Path | None, paths: Sequence[Path], flag: str) -> None:
        self.output = output
        self.folder = output is not None and (several(paths) or output.is_dir())
        if several(paths) and (output is None or str(output) == "-"):
            raise satnono.InputError("several puzzles: name a folder to write them in", flag)
        self.written: set[Path] = set()

    def path_for(self, source: str, suffix: str) -> Path | None:
        """The file to write for the puzzle read from `source`; InputError when an earlier
        puzzle of this run was written there (two files of the same name)."""
        if not self.folder or self.output is None:
            return self.output
        name = "stdin" if source == "-" else Path(source).name.replace(":", "-")
        try:
            self.output.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            reason = error.strerror or error
            raise satnono.InputError(f"cannot make the folder: {reason}", self.output) from None
        target = self.output / f"{name}{suffix}"
        if target in self.written:
            raise satnono.InputError(f"{target} was written for an earlier puzzle of the same "
                                     "name: not overwritten", source)  # fmt: skip
        self.written.add(target)
        return target


@dataclasses.dataclass(frozen=True)
class SearchArgs:
    """The options every search command takes (solve's and count's Args extend them), with
    their defaults."""

    backend: str = satnono.DEFAULT_BACKEND
    solver: str | None = None
    encoding: str | None = None
    threads: int = 1
    seed: int = satnono.DEFAULT_SEED
    workers: int | None = None
    scheduler: str = "local"
    cubes: int | None = None
    timeout: float | None = None


def check_search_options(args: SearchArgs) -> None:
    """A search's options, checked once, before any file is read (the API checks them
    again, at no cost)."""
    satnono.check_options(
        args.backend,
        args.solver,
        args.threads,
        args.seed,
        args.encoding,
        args.timeout,
        args.workers,
        args.scheduler,
        args.cubes,
    )
