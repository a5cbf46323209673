"""Certificates measured (issue 34): for every puzzle of a folder whose verdict is unique or
unsolvable, the plain solve and the solve with `--proof` as whole processes (CPU seconds,
start-up included), the proof's steps and size, and the two checkers on it: satnono's
(`satnono check-proof`) and drat-trim when given. All in one run.

`python tools/bench_certify.py FOLDER_OR_FILE... [--drat-trim PATH] [--output BENCHMARKS.md
--section certify]`; `--unsolvable N --seed S --save DIR` first makes N puzzles without a
solution whose contradiction line logic alone does not find (a random puzzle with one column
clue changed so that its cell count still agrees), and keeps them in DIR.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from bench import replace_section
from bench_tournament import children_cpu

SATNONO = [sys.executable, "-m", "satnono"]


@dataclass(frozen=True)
class Row:
    """One puzzle: its verdict, the CPU seconds of each process, the proof's size."""

    name: str
    verdict: str
    plain: float
    certified: float
    steps: int
    kilobytes: float
    checked: float
    satnono_says: str
    drat_trim: float | None
    drat_trim_says: str


def _cpu(command: Sequence[str]) -> tuple[float, str]:
    """CPU seconds of `command` and what it printed on stdout."""
    before = children_cpu()
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    return children_cpu() - before, done.stdout


def measure(path: Path, drat_trim: Path | None, scratch: Path) -> Row | None:
    plain, out = _cpu([*SATNONO, "solve", str(path), "--json", "--quiet"])
    verdict = json.loads(out)["status"]
    if verdict not in ("unique", "unsolvable"):
        return None
    folder = scratch / path.stem
    certified, out = _cpu([*SATNONO, "solve", str(path), "--json", "--proof", str(folder)])
    certificate = json.loads(out)["certificate"]
    checked, said = _cpu([*SATNONO, "check-proof", str(folder)])
    proof = folder / "proof.drup"
    formula = folder / ("excluded.cnf" if verdict == "unique" else "puzzle.cnf")
    seconds, drat_said = None, "-"
    if drat_trim is not None:
        seconds, drat_out = _cpu([str(drat_trim), str(formula), str(proof)])
        drat_said = "VERIFIED" if "s VERIFIED" in drat_out else "not verified"
    return Row(
        path.stem, verdict, plain, certified, certificate["proof_steps"],
        proof.stat().st_size / 1024, checked, said.split(":")[0], seconds, drat_said,
    )  # fmt: skip


def unsolvable(count: int, seed: int, folder: Path) -> list[Path]:
    """`count` puzzles without a solution that line logic alone does not refute."""
    import satnono
    from satnono.core.model import Block
    from satnono.formats import FORMATS
    from satnono.formats.generate import puzzle_from_grid, random_grid
    from satnono.pipeline.prepare import prepare

    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    made: list[Path] = []
    while len(made) < count:
        size = rng.choice((15, 20, 25))
        puzzle = puzzle_from_grid(random_grid(size, size, 2, 0.55, rng))
        columns = list(puzzle.columns)
        at = rng.randrange(len(columns))
        blocks = list(columns[at])
        if len(blocks) < 2:
            continue
        # One number up, the next down: the column still fills as many cells.
        i = rng.randrange(len(blocks) - 1)
        if blocks[i + 1].length < 2:
            continue
        blocks[i] = Block(blocks[i].length + 1)
        blocks[i + 1] = Block(blocks[i + 1].length - 1)
        columns[at] = tuple(blocks)
        title = f"unsolvable {len(made) + 1} (seed {seed})"
        changed = replace(puzzle, columns=tuple(columns), title=title, goal=None)
        if prepare(changed).reason is not None:
            continue  # line logic finds it: not what is wanted
        if satnono.solve(changed, max_solutions=1, timeout=30).status != "unsolvable":
            continue
        path = folder / f"unsolvable-{len(made) + 1}.non"
        path.write_text(FORMATS["non"].write([changed]))
        made.append(path)
    return made


def table(rows: list[Row], drat_trim: bool) -> list[str]:
    head = ("| puzzle | verdict | solve CPU s | solve --proof CPU s | ratio | proof steps "
            "| proof KB | check-proof CPU s |")  # fmt: skip
    rule = "|---|---|---|---|---|---|---|---|"
    if drat_trim:
        head += " drat-trim CPU s | check-proof / drat-trim |"
        rule += "---|---|"
    lines = [head, rule]
    for row in rows:
        line = (f"| {row.name} | {row.verdict} | {row.plain:.2f} | {row.certified:.2f} | "
                f"{row.certified / row.plain:.1f}x | {row.steps} | {row.kilobytes:.0f} | "
                f"{row.checked:.2f} {row.satnono_says} |")  # fmt: skip
        if drat_trim and row.drat_trim is not None:
            ratio = row.checked / max(row.drat_trim, 1e-3)
            line += f" {row.drat_trim:.2f} {row.drat_trim_says} | {ratio:.1f}x |"
        lines.append(line)
    plain = sum(row.plain for row in rows)
    certified = sum(row.certified for row in rows)
    checked = sum(row.checked for row in rows)
    total = (f"| **total** | {len(rows)} | **{plain:.2f}** | **{certified:.2f}** | "
             f"**{certified / plain:.1f}x** | | | **{checked:.2f}** |")  # fmt: skip
    if drat_trim:
        drat = sum(row.drat_trim or 0.0 for row in rows)
        total += f" **{drat:.2f}** | **{checked / max(drat, 1e-3):.1f}x** |"
    lines.append(total)
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/bench_certify.py", description=__doc__)
    parser.add_argument("folders", type=Path, nargs="*", help="folders of .non files, or files")
    parser.add_argument("--drat-trim", type=Path)
    parser.add_argument("--unsolvable", type=int, default=0)
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--save", type=Path)
    parser.add_argument("--output", type=Path)
    parser.add_argument("--section", default="certify")
    args = parser.parse_args(argv)
    files = sorted(
        path for each in args.folders for path in (each.rglob("*.non") if each.is_dir() else [each])
    )
    if args.unsolvable:
        files += unsolvable(args.unsolvable, args.seed, args.save or Path(tempfile.mkdtemp()))
    with tempfile.TemporaryDirectory() as scratch:
        rows = [row for path in files if (row := measure(path, args.drat_trim, Path(scratch)))]
    command = "python tools/bench_certify.py " + " ".join(argv or sys.argv[1:])
    text = [
        f"## Certificates: {len(rows)} unique or unsolvable puzzles",
        "",
        f"Measured {time.strftime('%Y-%m-%d')} with `{command}`: whole processes, CPU "
        "seconds; the plain solve and the solve with `--proof` in the same run; the proof "
        "checked by `satnono check-proof` and by drat-trim.",
        "",
        *table(rows, args.drat_trim is not None),
    ]
    if args.output:
        document = args.output.read_text(encoding="utf-8")
        updated = replace_section(document, args.section, "\n".join(text))
        args.output.write_text(updated, encoding="utf-8")
    print("\n".join(text))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
