"""satnono: a nonogram solver built on exact line propagation, SAT and constraint programming.

The public API (docs/api.md): read a puzzle, solve, stream, count, analyze, sample, hint,
render.

    >>> import satnono
    >>> puzzle = satnono.Puzzle.from_clues(rows=[[1], [1, 1], [1]], columns=[[1], [1, 1], [1]])
    >>> result = satnono.solve(puzzle)
    >>> result.status, result.solutions
    ('unique', [['.#.', '#.#', '.#.']])

Every function checks its arguments before any work and raises `InputError` (a ValueError)
with the one-line message the CLI prints; every solution it returns has been verified against
the clues; no thread or process it starts outlives the call. Heavy modules (the backends,
OR-tools, the model counters) are imported by the calls that need them, so `import satnono`
costs no more than the CLI's start-up.

How the code is laid out: one subpackage per group, in layers from the bottom up; a module
imports its own layer and those below it, never one above, lazy imports included
(tests/test_layout.py holds the code to this list, its LAYERS). The top level keeps only the
faces: this API, `calls` and `puzzles` (the public calls), `errors`, `version`, `__main__`.

    errors, version, core/
                         the two errors; the version; core/: model (a puzzle: clues, palette,
                         goal), grids (cells' domains and decided grids), geometry (the
                         lines' cells), status (the verdict enum), progress, extras (the
                         optional parts), arguments (every argument checked once), verify
                         (the independent checker)
    runtime/             deadlines, forked children, races, stoppable PySAT solvers,
                         background calls, Dask clusters: how work is run and stopped
    formats/             reading and writing the file formats; sites (webpbn,
                         nonograms.org); generate (puzzles from grids, seeded random sets)
    logic/               native (the engine in engine/: line logic, probing, search,
                         counting, the cubes lookahead), counted (a count's knobs and answer),
                         components (independent regions)
    encode/              automaton (a clue's automaton and live states), formula, lines and
                         cnf: the encodings of the residual (see encodings/)
    reference/           the Python line solver, propagation and counting search: the
                         reference the tests hold the engine to, imported by nothing else
    backends/            one small search interface, one module per backend
    proof/certify        certificates of verdicts (a DRUP proof of the whole puzzle's CNF)
    pipeline/            prepare, solutions, counting/, sampling, backbone, analysis,
                         streaming, hints: solve, count, sample, the ambiguity map, analyze,
                         a solve watched as it runs, hints and the line-only grade; above
                         them from_image (puzzles from pictures)
    output/              picture/ (SVG/PNG), terminal (text grids), contract (the JSON objects)
    proof/check          the certificates' checker, which trusts none of the solvers
    calls, puzzles       the public calls, re-exported here
    archive/             whole archives on Dask into SQLite (batch, its certificates, compare)
    cli/, serve/         the front ends: thin shells over this API
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from satnono.calls import (
    analyze,
    available_backends,
    backend_summaries,
    check_options,
    check_proof,
    choices,
    count,
    hint,
    iter_samples,
    iter_solutions,
    line_only,
    residual_cnf,
    sample,
    solve,
    start_solve,
)
from satnono.core.model import Block, Color, Grid, Puzzle
from satnono.core.status import Status
from satnono.errors import Contradiction, InputError
from satnono.puzzles import (
    fetch,
    format_names,
    givens_for_uniqueness,
    puzzle_from_grid,
    puzzle_from_image,
    read_puzzle,
    read_puzzles,
    read_recorded_solution,
    render,
    write_puzzles,
)
from satnono.runtime.deadline import Deadline, Timeout
from satnono.version import __version__ as __version__

if TYPE_CHECKING:
    from satnono.backends import DEFAULT_BACKEND, DEFAULT_SEED
    from satnono.core.progress import Progress
    from satnono.pipeline.analysis import Analysis
    from satnono.pipeline.hints import Hint, LineOnly
    from satnono.pipeline.sampling import SampleRun, Samples
    from satnono.pipeline.solutions import CountResult, SolveResult
    from satnono.pipeline.streaming import SolveHandle
    from satnono.proof.certify import Certificate
    from satnono.proof.check import Checked

__all__ = [
    "DEFAULT_BACKEND",
    "DEFAULT_SEED",
    "Analysis",
    "Block",
    "Certificate",
    "Checked",
    "Color",
    "Contradiction",
    "CountResult",
    "Deadline",
    "Grid",
    "Hint",
    "InputError",
    "LineOnly",
    "Progress",
    "Puzzle",
    "SampleRun",
    "Samples",
    "SolveHandle",
    "SolveResult",
    "Status",
    "Timeout",
    "analyze",
    "available_backends",
    "backend_summaries",
    "check_options",
    "check_proof",
    "choices",
    "count",
    "fetch",
    "format_names",
    "givens_for_uniqueness",
    "hint",
    "iter_samples",
    "iter_solutions",
    "line_only",
    "puzzle_from_grid",
    "puzzle_from_image",
    "read_puzzle",
    "read_puzzles",
    "read_recorded_solution",
    "render",
    "residual_cnf",
    "sample",
    "solve",
    "start_solve",
    "write_puzzles",
]

#: Result types, importable from here at run time but loaded only on first use: their modules
#: pull in the pipeline, which `import satnono` alone should not pay for.
_LAZY_NAMES = {
    "DEFAULT_BACKEND": "satnono.backends",
    "DEFAULT_SEED": "satnono.backends",
    "Analysis": "satnono.pipeline.analysis",
    "Certificate": "satnono.proof.certify",
    "Checked": "satnono.proof.check",
    "Hint": "satnono.pipeline.hints",
    "LineOnly": "satnono.pipeline.hints",
    "CountResult": "satnono.pipeline.solutions",
    "Progress": "satnono.core.progress",
    "SolveResult": "satnono.pipeline.solutions",
    "SolveHandle": "satnono.pipeline.streaming",
    "SampleRun": "satnono.pipeline.sampling",
    "Samples": "satnono.pipeline.sampling",
}


def __getattr__(name: str) -> Any:
    module = _LAZY_NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'satnono' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY_NAMES})
