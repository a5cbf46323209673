"""What stored rows say: the summary lines of `satnono batch` and its plot.

Rows come from satnono.archive.store, of a run just made or of `satnono batch report DB`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from satnono.archive.store import ResultRow
from satnono.errors import InputError


def summary_lines(rows: Iterable[ResultRow], slowest: int = 5) -> list[str]:
    """Verdict counts, the slowest puzzles, the timeouts and the errors, one per line."""
    summary = summary_object(rows, slowest)
    verdicts = ", ".join(f"{count} {status}" for status, count in summary["verdicts"].items())
    lines = [f"{summary['puzzles']} puzzles: {verdicts}"]
    if summary["slowest"]:
        lines.append("slowest:")
        lines += [
            f"  {r['seconds']:8.2f} s  {r['status']:10} {_name(r)}" for r in summary["slowest"]
        ]
    errors = summary["errors"]
    lines += [f"error: {row['error']}" for row in errors[:10]]
    if len(errors) > 10:
        lines.append(f"... and {len(errors) - 10} more errors")
    timeouts = summary["timeouts"]
    if timeouts:
        lines.append(f"timeouts: {', '.join(_name(r) for r in timeouts[:10])}"
                     + (" ..." if len(timeouts) > 10 else ""))  # fmt: skip
    return lines


def summary_object(rows: Iterable[ResultRow], slowest: int = 5) -> dict[str, Any]:
    """The summary as `batch report --json` gives it: the verdict counts, the slowest, every
    timeout and every error (each puzzle as file and index)."""
    rows = list(rows)

    def named(row: ResultRow) -> dict[str, Any]:
        return {"file": row.file, "puzzle": row.puzzle_index, "status": row.status,
                "seconds": row.seconds}  # fmt: skip

    solved = sorted((r for r in rows if r.status != "error"), key=lambda r: -r.seconds)
    return {
        "puzzles": len(rows),
        "verdicts": dict(Counter(row.status for row in rows).most_common()),
        "slowest": [named(row) for row in solved[:slowest]],
        "timeouts": [named(row) for row in rows if row.status == "timeout"],
        "errors": [{**named(row), "error": row.error} for row in rows if row.status == "error"],
    }


def _name(row: dict[str, Any]) -> str:
    return str(row["file"]) if row["puzzle"] == 1 else f"{row['file']} #{row['puzzle']}"


def plot(rows: Sequence[ResultRow], path: Path) -> None:
    """Cumulative puzzles solved against time (log scale), and verdicts by size."""
    from satnono.core.extras import require

    require("matplotlib", "plot")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    finished = sorted(r.seconds for r in rows if r.status not in ("timeout", "error"))
    left.step(finished, range(1, len(finished) + 1), where="post")
    left.set_xscale("log")
    left.set_xlabel("seconds per puzzle")
    left.set_ylabel("puzzles solved within")
    left.set_title("cumulative solved")
    sizes = sorted({_size_bucket(r) for r in rows if r.width})
    statuses = sorted({r.status for r in rows if r.width})
    bottom = [0] * len(sizes)
    for status in statuses:
        heights = [sum(1 for r in rows if r.width and _size_bucket(r) == s and r.status == status)
                   for s in sizes]  # fmt: skip
        right.bar([str(s) for s in sizes], heights, bottom=bottom, label=status)
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    right.set_xlabel("larger side, rounded up to 10")
    right.set_ylabel("puzzles")
    right.set_title("verdicts by size")
    right.legend(fontsize="small")
    figure.tight_layout()
    try:
        figure.savefig(path)
    except OSError as error:
        raise InputError(f"cannot write the plot: {error.strerror or error}", path) from None
    finally:
        plt.close(figure)


def _size_bucket(row: ResultRow) -> int:
    side = max(row.width or 0, row.height or 0)
    return -(-side // 10) * 10
