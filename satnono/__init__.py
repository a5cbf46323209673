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

How the code is laid out (data flows down this list, never up):

    model, errors        a puzzle (clues, palette, goal) and the two error types
    progress, extras     how far a long call got; the optional parts and their pip extras
    formats/, sites      reading and writing the file formats; downloading from the sites
    generate, from_image making puzzles (seeded random sets; from a picture)
    linesolver, propagate, components
                         exact line solving, propagation to a fixpoint, independent regions
    automaton, cnf       the encodings of the residual (see encodings/)
    status               the verdict of a search (unique, multiple, ...), one enum
    runtime/             deadlines, forked children, races, stoppable PySAT solvers,
                         background calls, Dask clusters: how work is run and stopped
    backends/            one small search interface, one module per backend
    solutions, counting/, sampling, backbone, analysis, streaming, hints
                         the pipeline: solve, count, sample, the ambiguity map, analyze,
                         a solve watched as it runs, hints and the line-only grade;
                         verify checks every grid
    certify, proofcheck  certificates of verdicts (a DRUP proof of the whole puzzle's CNF)
                         and their checker, which trusts none of the solvers
    picture, terminal, contract
                         output: SVG/PNG pictures, text grids, the JSON objects
    arguments, puzzles, calls
                         the public calls, re-exported here; every argument checked once
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
from satnono.errors import Contradiction, InputError
from satnono.model import Block, Color, Grid, Puzzle
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
from satnono.status import Status
from satnono.version import __version__ as __version__

if TYPE_CHECKING:
    from satnono.analysis import Analysis
    from satnono.backends import DEFAULT_BACKEND, DEFAULT_SEED
    from satnono.certify import Certificate
    from satnono.hints import Hint, LineOnly
    from satnono.progress import Progress
    from satnono.proofcheck import Checked
    from satnono.sampling import SampleRun, Samples
    from satnono.solutions import CountResult, SolveResult
    from satnono.streaming import SolveHandle

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
    "Analysis": "satnono.analysis",
    "Certificate": "satnono.certify",
    "Checked": "satnono.proofcheck",
    "Hint": "satnono.hints",
    "LineOnly": "satnono.hints",
    "CountResult": "satnono.solutions",
    "Progress": "satnono.progress",
    "SolveResult": "satnono.solutions",
    "SolveHandle": "satnono.streaming",
    "SampleRun": "satnono.sampling",
    "Samples": "satnono.sampling",
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
