"""The JSON contract: the objects `--json` prints for solve, count, analyze and sample, and
the reading of a solve object back. Scripts depend on these fields: extend, never rename.

One module, so the CLI, the web API and the batch runner answer with exactly the same objects.
Cells are [row, column], both from 1; solutions are row strings of palette characters.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from satnono.core.model import Grid, Puzzle
from satnono.core.rows import RowCache
from satnono.errors import InputError

if TYPE_CHECKING:
    from satnono.core.progress import Progress
    from satnono.pipeline.analysis import Analysis
    from satnono.pipeline.counting import Factor
    from satnono.pipeline.hints import Hint, LineOnly
    from satnono.pipeline.sampling import ComponentSampling
    from satnono.pipeline.solutions import CountResult, SolveResult


@dataclass(frozen=True)
class Listed:
    """A listing's solutions already written as JSON, one array of row strings each
    (`solution_json`), made while the search found them, and put into an object as they are
    by `json_pieces`: `solve --json`'s deadline then covers
    that work too (at 223,000 30x30 solutions, encoding them all after the search took 3.8 s
    past `--timeout`), and one string a solution holds a third of the memory of its rows."""

    texts: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.texts)


def dumps(data: Any) -> str:
    """One object on one line (streams are read line by line)."""
    return "".join(json_pieces(data))


def json_pieces(data: Any) -> Iterator[str]:
    """`dumps(data)` in pieces, a top-level value already written as JSON (`Listed`: a
    listing's solutions) put in as it is where json.dumps leaves a mark for it: a listing of
    200 MB is written out a megabyte at a time, never copied whole (joined, then put into the
    object, then encoded: 1.2 s after the search at 200,000 30x30 solutions)."""
    import json  # here: a text-only run does not pay for it (start-up counts)

    if not isinstance(data, dict) or not any(isinstance(v, Listed) for v in data.values()):
        yield json.dumps(data)
        return
    arrays: list[tuple[str, tuple[str, ...]]] = []
    marked: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, Listed):
            mark = f"\x00satnono-array-{len(arrays)}\x00"
            arrays.append((json.dumps(mark), value.texts))
            value = mark
        marked[key] = value
    text = json.dumps(marked)
    if any(text.count(mark) != 1 for mark, _ in arrays):  # another string holds a mark too
        yield json.dumps({k: [json.loads(item) for item in v.texts] if isinstance(v, Listed)
                          else v for k, v in data.items()})  # fmt: skip
        return
    rest = text  # the marks come in the order of the keys
    for mark, items in arrays:
        head, _, rest = rest.partition(mark)
        yield head + "["
        for at in range(0, len(items), _ITEMS_A_PIECE):
            yield (", " if at else "") + ", ".join(items[at : at + _ITEMS_A_PIECE])
        yield "]"
    yield rest


_ITEMS_A_PIECE = 1000


def _plain_palette(puzzle: Puzzle) -> bool:
    """Whether every palette character stands in JSON as it is (no escape)."""
    return all(" " <= color.char <= "~" and color.char not in '"\\' for color in puzzle.palette)


def solution_json(
    puzzle: Puzzle, grid: Grid, texts: RowCache[tuple[int, ...], str] | None = None
) -> str:
    """`dumps(puzzle.grid_rows(grid))`, written directly when no palette character needs
    escaping (the stream writes tens of thousands a second); `texts` as `grid_rows` takes it."""
    rows = puzzle.grid_rows(grid, texts)
    if _plain_palette(puzzle):
        return '["' + '", "'.join(rows) + '"]'
    return dumps(rows)


def _rows_of(puzzle: Puzzle, grids: Sequence[Grid] | None) -> list[list[str]]:
    """Each grid as row strings, taken once (a search may still be adding to `grids`)."""
    return [puzzle.grid_rows(grid) for grid in list(grids or ())]


def cell(puzzle: Puzzle, flat: int) -> list[int]:
    """A flat cell index as [row, column], both from 1."""
    row, column = divmod(flat, puzzle.width)
    return [row + 1, column + 1]


def _about(source: str, puzzle: Puzzle) -> dict[str, Any]:
    """The fields every object about one puzzle starts with, in this order."""
    return {
        "file": source,
        "title": puzzle.title,
        "width": puzzle.width,
        "height": puzzle.height,
        "colors": len(puzzle.palette),
    }


def _palette(puzzle: Puzzle) -> list[dict[str, str]]:
    return [{"name": c.name, "char": c.char, "rgb": c.rgb} for c in puzzle.palette]


def solve_object(
    source: str,
    result: SolveResult,
    grids: Sequence[Grid] | None,
    listed: Listed | None = None,
) -> dict[str, Any]:
    """`satnono solve --json`: the solutions as `grids`, or already written as JSON
    (`listed`); both None leave "solutions" out (--json-lines streamed them)."""
    puzzle = result.puzzle
    data: dict[str, Any] = {
        **_about(source, puzzle),
        "palette": _palette(puzzle),
        "backend": result.backend,
        "solver": result.solver,
        "status": result.status,
        "complete": result.complete,
        "solutions_found": result.solutions_found,
        "solutions": listed if listed is not None else _rows_of(puzzle, grids),
        "seconds": result.seconds,
        "stats": result.stats,
    }
    if grids is None and listed is None:
        del data["solutions"]
    if result.reason:
        data["reason"] = result.reason
    if result.certificate is not None:
        made = result.certificate
        data["certificate"] = {
            "verdict": made.verdict, "folder": made.folder, "files": list(made.files),
            "encoding": made.encoding, "proof_steps": made.proof_steps, "prover": made.prover,
            "seconds": made.seconds,
            "checker": {"verified": made.verified, "reason": made.check_reason,
                        "seconds": made.check_seconds},
        }  # fmt: skip
    return data


def solution_object(puzzle: Puzzle, grid: Grid) -> dict[str, Any]:
    """One streamed solution of `--json-lines`."""
    return {"solution": puzzle.grid_rows(grid)}


def row_texts() -> RowCache[tuple[int, ...], str]:
    """The strings of rows a stream of one puzzle's solutions made so far (`solution_line`,
    `solution_json`), to be taken again."""
    return RowCache()


def solution_line(
    puzzle: Puzzle, grid: Grid, texts: RowCache[tuple[int, ...], str] | None = None
) -> str:
    """`dumps(solution_object(...))`, its rows written by `solution_json`."""
    return '{"solution": ' + solution_json(puzzle, grid, texts) + "}"


def interrupted_object(
    source: str,
    puzzle: Puzzle,
    grids: Sequence[Grid] | None,
    progress: Progress,
    seconds: float,
    listed: Listed | None = None,
) -> dict[str, Any]:
    """What a Ctrl-C leaves: the solutions so far and the grid as line logic left it (the
    solutions as `grids`, or already written as JSON, `listed`)."""
    from satnono.output.terminal import domain_rows

    # The search may still be running while this is read (Ctrl-C only starts its stop): the
    # list is taken once, and the count is at least its length (it read 21,886 found, then
    # listed 21,887).
    solutions: Listed | list[list[str]] | None = None
    if listed is not None:
        solutions, taken = listed, len(listed)
    elif grids is not None:
        rows = _rows_of(puzzle, grids)
        solutions, taken = rows, len(rows)
    found = max(progress.solutions, taken if solutions is not None else 0)
    data: dict[str, Any] = {
        "file": source, "width": puzzle.width, "height": puzzle.height,
        "status": "interrupted", "complete": False, "solutions_found": found,
        "seconds": round(seconds, 4),
    }  # fmt: skip
    if solutions is not None:
        data["solutions"] = solutions
    if progress.domains is not None:
        data["partial"] = domain_rows(puzzle, progress.domains)
    return data


def progress_object(puzzle: Puzzle, progress: Progress, seconds: float) -> dict[str, Any]:
    """A progress event of the web page's streams: the phase, cells left, solutions (a
    count's lower bound so far), a count's sweep or search, the backbone's cells settled, and
    the grid as far as it is decided ('?' for an undecided cell)."""
    from satnono.output.terminal import domain_rows

    event: dict[str, Any] = {
        "event": "progress", "phase": progress.phase, "cells_left": progress.cells_left,
        "solutions": progress.solutions, "seconds": round(seconds, 2),
    }  # fmt: skip
    if progress.components > 1:
        event["component"], event["components"] = progress.component, progress.components
    if progress.to_settle is not None:
        event["settled"], event["to_settle"] = progress.settled, progress.to_settle
    if progress.swept:  # a count's sweep under way: how far it got, and its states
        event["swept"], event["states"] = progress.swept, progress.states
        if progress.both_ways:  # raced from the other end on a second core
            event["both_ways"] = True
    elif progress.nodes:  # a count's search: the nodes visited so far
        event["nodes"] = progress.nodes
    if progress.domains is not None:
        event["partial"] = domain_rows(puzzle, progress.domains)
    return event


def count_object(source: str, counted: CountResult) -> dict[str, Any]:
    """`satnono count --json`: file, count, exact, seconds first; then how each factor was made."""
    data: dict[str, Any] = {
        "file": source,
        "count": counted.count,
        "exact": counted.exact,
        "seconds": counted.seconds,
        "method": [factor.method for factor in counted.factors],
        "factors": [_factor_object(factor) for factor in counted.factors],
    }
    if counted.stopped is not None:
        data["stopped"] = counted.stopped
    if counted.approximation is not None:
        guarantee = counted.approximation
        data["approximate"] = None
        if counted.estimate is not None:
            data["approximate"] = {
                "estimate": counted.estimate,
                "epsilon": guarantee.epsilon,
                "delta": guarantee.delta,
            }
    if counted.result.reason:
        data["reason"] = counted.result.reason
    if counted.hint is not None:
        data["hint"] = counted.hint
    backbone = counted.result.stats.get("backbone")
    if backbone is not None:  # the cells SAT proved backbone, fixed before the count went on
        data["backbone"] = backbone
    dropped = counted.result.stats.get("counter_errors")
    if dropped:  # why a counter in the race gave no answer (out of its memory, say)
        data["counter_errors"] = dropped
    return data


def _factor_object(factor: Factor) -> dict[str, Any]:
    data: dict[str, Any] = {
        "method": factor.method,
        "count": factor.count,
        "exact": factor.exact,
        "cells": factor.cells,
        "lines": len(factor.lines),
        "seconds": factor.seconds,
    }
    if factor.estimate is not None:
        data.update(estimate=factor.estimate, epsilon=factor.epsilon, delta=factor.delta)
    return data


def analysis_object(source: str, analysis: Analysis, picture: str | None = None) -> dict[str, Any]:
    """`satnono analyze --json`."""
    from satnono.pipeline.analysis import SEARCH_BACKEND

    puzzle = analysis.puzzle
    return {
        **_about(source, puzzle),
        "cells": analysis.cells,
        "line_solvable": analysis.line_solvable,
        "cells_fixed_by_lines": analysis.cells_fixed_by_lines,
        "probing_solves": analysis.probing_solves,
        "cells_fixed_by_probing": analysis.cells_fixed_by_probing,
        "search_backend": SEARCH_BACKEND,
        "search_max_depth": analysis.search_max_depth,
        "search_nodes": analysis.search_nodes,
        "solutions": analysis.solutions,
        "solutions_exact": analysis.solutions_exact,
        "difficulty": analysis.difficulty,
        "label": analysis.label,
        "ambiguous_cells": [cell(puzzle, c) for c in analysis.ambiguous_cells],
        "backbone_cells": analysis.backbone_cells,
        "backbone_exact": analysis.backbone_exact,
        "differing_cells": [cell(puzzle, c) for c in analysis.differing_cells],
        "solutions_compared": analysis.compared,
        "backend": analysis.backend,
        "reason": analysis.reason,
        "timed_out": analysis.timed_out,
        "picture": picture,
        "decided": _decided_rows(analysis),
        "seconds": analysis.seconds,
    }


def line_only_object(source: str, puzzle: Puzzle, result: LineOnly) -> dict[str, Any]:
    """`satnono solve --line-only --json`: the grade and how far line logic and probing got."""
    from satnono.output.terminal import domain_rows

    status = {"no solution": "unsolvable", "unknown": "timeout"}.get(result.grade, "unknown")
    return {
        **_about(source, puzzle),
        "palette": _palette(puzzle),
        "line_only": True,
        "grade": result.grade,
        "status": "unique" if result.solution is not None else status,
        "solutions": [] if result.solution is None else [puzzle.grid_rows(result.solution)],
        "grid": domain_rows(puzzle, result.domains),
        "cells": puzzle.width * puzzle.height,
        "cells_fixed_by_lines": result.by_lines,
        "cells_fixed_by_probing": result.by_probing,
        "reason": result.reason,
        "seconds": round(result.seconds, 4),
    }


def hint_object(source: str, puzzle: Puzzle, steps: Sequence[Hint]) -> dict[str, Any]:
    """`satnono hint --json`: each step in turn, and the grid after the last."""
    from satnono.output.terminal import domain_rows

    def step(each: Hint) -> dict[str, Any]:
        palette = puzzle.palette
        return {
            "kind": each.kind,
            "reason": each.reason,
            "text": each.text,
            "line": None if each.line is None else puzzle.line_name(each.line),
            "clue": each.clue,
            "cells": [
                {
                    "cell": cell(puzzle, c),
                    "colors": [palette[n].char for n in range(len(palette)) if d >> n & 1],
                }
                for c, d in each.cells
            ],
            "probe": None
            if each.probe is None
            else {
                "cell": cell(puzzle, each.probe[0]),
                # None: every color of the cell was tried (an "either way" step)
                "color": None if each.probe[1] < 0 else palette[each.probe[1]].char,
                "contradiction_in": None
                if each.conflict_line is None
                else puzzle.line_name(each.conflict_line),
            },
            "before": each.before,
            "after": each.after,
        }

    return {
        **_about(source, puzzle),
        "palette": _palette(puzzle),
        "steps": [step(each) for each in steps],
        "grid": domain_rows(puzzle, steps[-1].domains) if steps else None,
    }


def sample_summary(
    source: str,
    status: str,
    drawn: int,
    seed: int,
    sampler: str,
    components: Sequence[ComponentSampling],
    guarantee: str,
    seconds: float,
    reason: str | None,
) -> dict[str, Any]:
    """The last line of `satnono sample --json-lines`: "sampler" is the one asked for,
    "sampled_by" what drew (each component's method once: "exact" where the draws were exactly
    uniform, else the sampler's name)."""
    data: dict[str, Any] = {
        "file": source, "status": status, "samples": drawn, "seed": seed, "sampler": sampler,
        "sampled_by": sorted({m.method for m in components}),
        "components": [
            {"cells": m.cells, "solutions": m.solutions, "method": m.method} for m in components
        ],
        "guarantee": guarantee, "seconds": round(seconds, 4),
    }  # fmt: skip
    if reason:
        data["reason"] = reason
    return data


def error_object(source: str, message: str) -> dict[str, Any]:
    """What `solve --json` prints for a file it could not use, when several are solved: the
    one line of the error, so that every file named gets an object."""
    return {"file": source, "status": "error", "error": message}


def unread_object(command: str, source: str, seconds: float) -> dict[str, Any]:
    """What `--json` prints when --timeout passed before the puzzle was read: the command's
    own object with nothing found and "status" (or "stopped") saying timeout."""
    reason = "--timeout passed before the puzzle was read"
    data: dict[str, Any] = {"file": source}
    if command == "count":
        data.update(count=0, exact=False, seconds=round(seconds, 4), method=[], factors=[])
        data.update(stopped="timeout", reason=reason)
    elif command == "analyze":
        unknown = dict.fromkeys(
            ("title", "width", "height", "colors", "cells", "line_solvable",
             "cells_fixed_by_lines", "probing_solves", "cells_fixed_by_probing",
             "search_backend", "search_max_depth", "search_nodes", "backbone_cells",
             "backend", "picture"),
        )  # fmt: skip
        data.update(unknown, solutions=0, solutions_exact=False, difficulty="unknown")
        data.update(label="unknown (timeout)", ambiguous_cells=[], backbone_exact=False)
        data.update(differing_cells=[], solutions_compared=0, reason=reason, timed_out=True)
        data.update(seconds=round(seconds, 4))
    else:
        data.update(status="timeout", complete=False, solutions_found=0, solutions=[])
        data.update(seconds=round(seconds, 4), reason=reason)
    return data


def read_solve_object(text: str, where: str | Path) -> dict[str, Any]:
    """A `satnono solve --json` object with at least one solution; InputError otherwise."""
    import json

    try:
        data = json.loads(text)
        if not isinstance(data, dict) or not isinstance(data["file"], str):
            raise TypeError
        rows = data["solutions"][0]
    except (ValueError, KeyError, IndexError, TypeError):
        raise InputError(
            "not the JSON of `satnono solve --json` with at least one solution", where
        ) from None
    if not isinstance(rows, list) or not all(isinstance(row, str) for row in rows):
        raise InputError("a solution is not a list of row strings", where)
    return data


def grid_of_rows(puzzle: Puzzle, rows: Sequence[str], where: str | Path) -> Grid:
    """Row strings (as in "solutions") back to a grid of `puzzle`, shape and colors checked."""
    if len(rows) != puzzle.height:
        raise InputError(f"the solution is not {puzzle.height} rows of the puzzle", where)
    chars = {color.char for color in puzzle.palette}
    for row in rows:
        if len(row) != puzzle.width or set(row) - chars:
            raise InputError(f"a solution row does not fit the puzzle: {row!r}", where)
    return puzzle.grid_from_rows(rows)


def _decided_rows(analysis: Analysis) -> list[str] | None:
    """The grid as every solution has it: a cell's color where all solutions agree (or what
    logic decided), '?' where they differ or nothing is known; None without a grid."""
    from satnono.output.terminal import domain_rows

    if analysis.domains is None:
        return None
    return domain_rows(analysis.puzzle, analysis.domains)
