"""`make bench`: time the whole `satnono solve` process on every puzzle of a folder.

Each puzzle runs as a fresh CLI process (imports included, as a user sees it), once per backend,
and the table goes into one marked section of BENCHMARKS.md so other sections stay untouched.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from satnono.errors import InputError
from satnono.formats import format_of


@dataclass(frozen=True)
class Run:
    puzzle: str
    backend: str
    seconds: float
    verdict: str
    cells_left: int | None
    variables: int | None
    clauses: int | None


def run_one(path: Path, backend: str, limit: int, timeout: float) -> Run:
    """One CLI process; its wall time includes start-up and imports."""
    command = [
        sys.executable, "-m", "satnono", "solve", str(path), "--json",
        "--max-solutions", str(limit), "--backend", backend, "--timeout", str(timeout),
    ]  # fmt: skip
    started = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout + 30)
    except subprocess.TimeoutExpired:
        return Run(path.stem, backend, time.perf_counter() - started, "killed", None, None, None)
    seconds = time.perf_counter() - started
    try:
        data: dict[str, Any] = json.loads(done.stdout)
    except json.JSONDecodeError:
        error = done.stderr.strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        return Run(path.stem, backend, seconds, f"error: {error[0]}", None, None, None)
    stats = data.get("stats", {})
    return Run(
        path.stem, backend, seconds, data["status"], stats.get("cells_left"),
        stats.get("cnf_variables"), stats.get("cnf_clauses"),
    )  # fmt: skip


def expected_verdicts(folder: Path) -> dict[str, str]:
    """Verdicts from the folder's README when it lists them (webpbn survey convention)."""
    readme = folder.parent / "README.md"
    if not readme.is_file():
        return {}
    text = readme.read_text(encoding="utf-8")
    match = re.search(r"at least\s+two solutions:(.*?)\.\n", text, re.S)
    if match is None:
        return {}
    multiple = {int(n) for n in re.findall(r"(\d+) [a-z_]+", match.group(1))}
    verdicts = {}
    for path in folder.glob("*.non"):
        webpbn_id = int(path.stem.split("-")[0]) if path.stem.split("-")[0].isdigit() else None
        if webpbn_id is not None:
            verdicts[path.stem] = "multiple" if webpbn_id in multiple else "unique"
    return verdicts


def table(runs: list[Run], backends: list[str], expected: dict[str, str]) -> list[str]:
    first = backends[0]
    head = ["puzzle", "cells left", "CNF vars", "CNF clauses"]
    head += [f"{b} s" for b in backends] + ["verdict"]
    if len(backends) > 1:
        head += [f"{b} / {first}" for b in backends[1:]]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    by_key = {(r.puzzle, r.backend): r for r in runs}
    for name in sorted({r.puzzle for r in runs}, key=_puzzle_order):
        main = by_key[(name, first)]
        verdict = main.verdict
        if name in expected:
            verdict += " ✓" if main.verdict == expected[name] else f" ✗ (expected {expected[name]})"
        row = [name, _text(main.cells_left), _text(main.variables), _text(main.clauses)]
        row += [f"{by_key[(name, b)].seconds:.2f}" for b in backends] + [verdict]
        row += [f"{by_key[(name, b)].seconds / main.seconds:.1f}x" for b in backends[1:]]
        lines.append("| " + " | ".join(row) + " |")
    totals = ["**total**", "", "", ""]
    sums = {b: sum(r.seconds for r in runs if r.backend == b) for b in backends}
    totals += [f"**{sums[b]:.2f}**" for b in backends]
    right = sum(1 for r in runs if r.backend == first and expected.get(r.puzzle) == r.verdict)
    totals.append(f"{right}/{len(expected)} right" if expected else "")
    totals += [f"{sums[b] / sums[first]:.1f}x" for b in backends[1:]]
    lines.append("| " + " | ".join(totals) + " |")
    slowest = max((r for r in runs if r.backend == first), key=lambda r: r.seconds)
    lines.append("")
    lines.append(f"Slowest with {first}: {slowest.puzzle}, {slowest.seconds:.2f} s.")
    return lines


def _puzzle_order(name: str) -> tuple[int, str]:
    head = name.split("-")[0]
    return (int(head) if head.isdigit() else 0, name)


def _text(value: int | None) -> str:
    return "" if value is None else str(value)


def replace_section(document: str, section: str, body: str) -> str:
    """Put `body` between this section's markers, appending the section if it is new."""
    start, end = f"<!-- bench:{section} -->", f"<!-- /bench:{section} -->"
    block = f"{start}\n{body.rstrip()}\n{end}"
    pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.S)
    if pattern.search(document):
        return pattern.sub(lambda _: block, document)
    if not document:
        document = (
            "# Benchmarks\n\nMeasured with `make bench` and the commands given per section.\n"
        )
    return document.rstrip() + "\n\n" + block + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m satnono.bench", description=__doc__)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--output", type=Path, help="Markdown file to update (default: print)")
    parser.add_argument("--backends", default="sat", help="comma-separated; first is the subject")
    parser.add_argument("--max-solutions", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--section", default="survey")
    args = parser.parse_args(argv)
    backends = [b for b in args.backends.split(",") if b]
    files = sorted(
        (p for p in args.folder.iterdir() if p.is_file() and _is_puzzle(p)),
        key=lambda p: _puzzle_order(p.stem),
    )
    if not files:
        print(f"no puzzles in {args.folder}", file=sys.stderr)
        return 2
    runs = []
    for path in files:
        for backend in backends:
            run = run_one(path, backend, args.max_solutions, args.timeout)
            print(f"{path.stem:28} {backend:10} {run.seconds:7.2f} s  {run.verdict}", flush=True)
            runs.append(run)
    expected = expected_verdicts(args.folder)
    command = " ".join(["python -m satnono.bench", *(argv if argv is not None else sys.argv[1:])])
    today = datetime.date.today().isoformat()
    body = [
        f"## `satnono solve --max-solutions {args.max_solutions}` on `{args.folder}`",
        "",
        f"Measured {today} with `{command}` (`make bench`): one fresh `satnono solve --json` "
        f"process per puzzle and backend (timeout {args.timeout:g} s), wall seconds including "
        f"start-up, on {platform.machine()} / Python {platform.python_version()} "
        "(2 cores, shared and noisy: compare the ratios, measured in the same run).",
        "",
        *table(runs, backends, expected),
    ]
    text = "\n".join(body)
    if args.output is None:
        print(text)
    else:
        old = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        args.output.write_text(replace_section(old, args.section, text), encoding="utf-8")
        print(f"updated {args.output}", file=sys.stderr)
    subject = [r for r in runs if r.backend == backends[0]]
    wrong = [r for r in subject if expected.get(r.puzzle, r.verdict) != r.verdict]
    return 1 if wrong else 0


def _is_puzzle(path: Path) -> bool:
    try:
        format_of(path)
    except InputError:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
