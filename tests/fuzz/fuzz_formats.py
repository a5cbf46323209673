"""Coverage-guided fuzzing of satnono's parsers with atheris (libFuzzer); not a pytest module.

Why: the hypothesis tests in tests/test_fuzz.py mutate real files in ways chosen by hand; this
harness lets libFuzzer's coverage feedback find the paths nobody thought of. RELIABILITY.md
records the runs. One format per run, chosen by FUZZ_FORMAT (default: all, picked by the first
byte of each input); the corpus directory is seeded with the examples in that format.

    pip install atheris
    FUZZ_FORMAT=xml python tests/fuzz/fuzz_formats.py /tmp/corpus-xml -max_total_time=60

Every input is decoded as satnono decodes a file (UTF-8, BOM dropped; anything else is the file
layer's InputError and is skipped), then read by detection and by the chosen parser. A finding
is any exception other than InputError, an InputError whose text is not one line, or a puzzle
that does not survive a write and read through .non and webpbn XML.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from satnono.core.model import Puzzle
    from satnono.errors import InputError
    from satnono.formats import FORMATS, format_of
    from satnono.formats.non import parse_non, write_non
    from satnono.formats.webpbn_xml import parse_xml, write_xml

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NAMES = sorted(FORMATS)
CHOSEN = os.environ.get("FUZZ_FORMAT")


def _seed(corpus: Path) -> None:
    """Write every small example in the chosen format(s) into an empty corpus directory."""
    corpus.mkdir(parents=True, exist_ok=True)
    if any(corpus.iterdir()):
        return
    for example in sorted(EXAMPLES.glob("*.non")):
        if example.stat().st_size > 2000:
            continue
        puzzles = FORMATS["non"].parse(example.read_text())
        for index, name in enumerate(NAMES):
            if CHOSEN not in (None, name):
                continue
            try:
                text = FORMATS[name].write(puzzles)
            except InputError:  # a color puzzle for a black-and-white format
                continue
            prefix = b"" if CHOSEN else bytes([index])
            (corpus / f"{example.stem}-{name}").write_bytes(prefix + text.encode())


def _check_error(error: InputError) -> None:
    if len(str(error).splitlines()) != 1:
        raise AssertionError(f"an error message of several lines: {str(error)!r}")


def _check_puzzles(puzzles: list[Puzzle]) -> None:
    for puzzle in puzzles:
        for text, parse in ((write_non(puzzle), parse_non), (write_xml([puzzle]), parse_xml)):
            (again,) = parse(text)
            if (again.width, again.height) != (puzzle.width, puzzle.height):
                raise AssertionError("a round trip changed the size")


def test_one_input(data: bytes) -> None:
    if CHOSEN:
        name = CHOSEN
    else:
        if not data:
            return
        name, data = NAMES[data[0] % len(NAMES)], data[1:]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return
    for choose in (lambda: FORMATS[name], lambda: format_of("input.txt", text)):
        try:
            puzzles = choose().parse(text)
        except InputError as error:
            _check_error(error)
            continue
        _check_puzzles(puzzles)


def main() -> None:
    corpora = [arg for arg in sys.argv[1:] if not arg.startswith("-")]
    if corpora:
        _seed(Path(corpora[0]))
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
