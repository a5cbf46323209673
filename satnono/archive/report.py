"""What stored rows say: the summary lines of `satnono batch` and its plot.

Rows come from satnono.archive.store, of a run just made or of `satnono batch report DB`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from satnono.archive.store import ResultRow
from satnono.errors import InputError


def summary_lines(rows: Iterable[ResultRow], slowest: int = 5) -> list[str]:
    """Verdict counts, the slowest puzzles, the timeouts and the errors, one per line."""
    rows = list(rows)
    verdicts = Counter(row.status for row in rows)
    lines = [
        f"{len(rows)} puzzles: "
        + ", ".join(f"{count} {status}" for status, count in verdicts.most_common())
    ]
    solved = sorted((r for r in rows if r.status not in ("error",)), key=lambda r: -r.seconds)
    if solved:
        lines.append("slowest:")
        lines += [f"  {r.seconds:8.2f} s  {r.status:10} {_name(r)}" for r in solved[:slowest]]
    errors = [r for r in rows if r.status == "error"]
    for row in errors[:10]:
        lines.append(f"error: {row.error}")
    if len(errors) > 10:
        lines.append(f"... and {len(errors) - 10} more errors")
    timeouts = [r for r in rows if r.status == "timeout"]
    if timeouts:
        lines.append(f"timeouts: {', '.join(_name(r) for r in timeouts[:10])}"
                     + (" ..." if len(timeouts) > 10 else ""))  # fmt: skip
    return lines


def _name(row: ResultRow) -> str:
    return row.file if row.puzzle_index == 1 else f"{row.file} #{row.puzzle_index}"


def plot(rows: Sequence[ResultRow], path: Path) -> None:
    """Cumulative puzzles solved against time (log scale), and verdicts by size."""
    from satnono.extras import require

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
