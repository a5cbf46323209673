"""Certificates of a batch run (`batch run --proof DIR`): where each puzzle's goes, what a
row says of it, and DIR/certificates.csv, which lists them."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from satnono.archive.store import ResultRow
from satnono.errors import InputError


def certificate_folder(proof: str, file: str, index: int, puzzle_hash: str) -> str:
    """Where `batch run --proof DIR` (`proof`) writes the certificate of puzzle `index` of
    `file`: DIR/<file name>[-<puzzle number>]-<8 hex digits of the puzzle's hash> (a puzzle
    found under several names is solved once, its certificate under the first)."""
    stem = Path(file).name.split(".")[0] or "puzzle"
    number = f"-{index}" if index > 1 else ""
    return str(Path(proof) / f"{stem}{number}-{puzzle_hash[:8]}")


def said_of(result: Any) -> str:
    """A row's certificate in a word or a line: VERIFIED, REJECTED: why, NOT CHECKED: why
    (the deadline came first), or none: why there is none (a verdict that claims nothing,
    the deadline)."""
    made = result.certificate
    if made is None:
        return f"none: {result.stats.get('certificate', 'not made')}"
    if made.verified:
        return "VERIFIED"
    if made.verified is None:
        return f"NOT CHECKED: {made.check_reason}"
    return f"REJECTED: {made.check_reason}"


class Manifest:
    """`certificates.csv` in the --proof folder: a line per puzzle solved with --proof (file,
    puzzle number, verdict, its certificate's folder, what satnono's checker said), added
    as rows arrive, so that an interrupted run keeps what it wrote."""

    COLUMNS = ("file", "puzzle", "verdict", "folder", "checker")

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / "certificates.csv"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fresh = not self.path.exists()
            with self.path.open("a", encoding="utf-8", newline="") as file:
                if fresh:
                    csv.writer(file).writerow(self.COLUMNS)
        except OSError as error:
            raise InputError(f"cannot write certificates: {error.strerror or error}",
                             folder) from None  # fmt: skip

    def add(self, rows: list[ResultRow]) -> None:
        lines = []
        for row in rows:
            if row.certificate is None:
                continue
            made = not row.certificate.startswith("none")
            where = (str(self.folder), row.file, row.puzzle_index, row.puzzle_hash)
            folder = certificate_folder(*where) if made else ""
            lines.append((row.file, row.puzzle_index, row.status, folder, row.certificate))
        if lines:
            with self.path.open("a", encoding="utf-8", newline="") as file:
                csv.writer(file).writerows(lines)
