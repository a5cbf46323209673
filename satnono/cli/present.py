"""Every line of human-readable text the CLI prints beside the JSON of satnono.output.contract:
verdicts, counts, samples, analysis reports, batch summaries and the comparison table."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from satnono.output.terminal import print_domains, printable

if TYPE_CHECKING:
    from satnono import Analysis, CountResult, LineOnly, SampleRun, SolveResult


def verdict_line(result: SolveResult, quiet: bool) -> str:
    """The verdict after a solve, with its time, the cells left and the solver."""
    details = [f"{result.seconds:.2f} s"]
    if not quiet and "cells_left" in result.stats:
        details.append(
            f"{result.stats['cells_left']} of {result.stats['cells']} cells left after line logic"
        )
    if not quiet and result.solver:
        same = result.solver == result.backend
        details.append(result.backend if same else f"{result.backend}/{result.solver}")
    return f"{result.verdict} ({', '.join(details)})"


def grade_line(puzzle: Any, result: LineOnly) -> str:
    """`solve --line-only`'s last line: the grade and what line logic and probing decided."""
    cells = puzzle.width * puzzle.height
    seconds = f"{result.seconds:.2f} s"
    if result.grade == "no solution":
        return f"no solution: {result.reason} ({seconds})"
    decided = result.by_lines + result.by_probing
    how = f"line logic {result.by_lines} of {cells} cells, probing {result.by_probing} more"
    if result.grade == "line-solvable":
        return f"line-solvable: unique, line logic alone decides all {cells} cells ({seconds})"
    if result.grade == "needs probing":
        return f"needs probing: unique; {how} ({seconds})"
    if result.grade == "unknown":
        return f"timeout: {how} before the timeout ('?' = undecided; {seconds})"
    return (f"needs search: {how}; {cells - decided} cells need a guess ('?' = undecided; "
            f"{seconds})")  # fmt: skip


def count_text(counted: CountResult, limit: int, interrupted: bool = False) -> str:
    """One line: the count, whether it is exact, a bound or an estimate, and how it was made
    (`interrupted`: Ctrl-C stopped it, rather than the timeout)."""
    n = counted.count
    noun = "solution" if n == 1 else "solutions"
    size = f", about {n:.2e}" if n >= 10**15 else ""
    if counted.exact:
        text = f"{n} {noun} (exact{size})"
    elif counted.estimate is not None and counted.approximation is not None:
        guarantee = counted.approximation
        low = counted.estimate / (1 + guarantee.epsilon)
        high = counted.estimate * (1 + guarantee.epsilon)
        text = (
            f"about {_approximately(counted.estimate)} solutions (ApproxMC estimate: with "
            f"probability at least {1 - guarantee.delta:.0%} the true count lies within a "
            f"factor {1 + guarantee.epsilon:g} of it, between {_approximately(low)} and "
            f"{_approximately(high)}; at least {n} counted exactly)"
        )
    elif counted.stopped == "limit":
        text = f"at least {n} {noun} (stopped at --limit {limit})"
    elif n:
        why = "interrupted" if interrupted else "timeout"
        text = f"at least {n} {noun} ({why}: a lower bound{size})"
    else:
        text = ("interrupted" if interrupted else "timeout") + " before any solution was counted"
    if counted.result.reason:
        text += f": {counted.result.reason}"
    methods = _methods_text(counted.factors)
    backbone = counted.result.stats.get("backbone")
    if backbone is not None:  # satnono.pipeline.counting.narrowing
        methods = f"SAT backbone fixed {backbone['fixed']} cells first" + (
            f", then {methods}" if methods else ""
        )
    return f"{text} ({counted.seconds:.2f} s{'; ' + methods if methods else ''})"


def _approximately(value: float) -> str:
    return f"{value:.3g}" if value >= 10**6 else f"{round(value)}"


def _methods_text(factors: Any) -> str:
    """How the factors were counted, e.g. 'ganak' or 'search x11, enumerate'."""
    tally: dict[str, int] = {}
    for factor in factors:
        tally[factor.method] = tally.get(factor.method, 0) + 1
    return ", ".join(name if n == 1 else f"{name} x{n}" for name, n in tally.items())


def sample_verdict(drawing: SampleRun) -> str:
    """The line after the samples: how many, what they guarantee, or why there are none."""
    drawn = drawing.drawn
    if drawing.status == "unsolvable":
        verdict = f"no solution: {drawing.reason}"
    elif drawing.status == "timeout":
        verdict = f"timeout after {drawn} of {drawing.n} samples"
    else:
        verdict = (
            f"{drawn} random solution{'s' * (drawn != 1)}, each verified ({drawing.guarantee})"
        )
    return f"{verdict} ({drawing.seconds:.2f} s)"


def print_analysis(
    console: Any,
    analysis: Analysis,
    max_solutions: int,
    clues: bool = False,
    interrupted: bool = False,
) -> None:
    """The report, and for an ambiguous puzzle the grid with its ambiguous cells as '?'
    (`clues` on its margins); `interrupted`: a Ctrl-C stopped it, and the report says so
    where it would say the timeout did."""
    stop = "interrupt" if interrupted else "timeout"
    for line in analysis.report_lines(max_solutions):
        console.out(line.replace("timeout", "interrupted") if interrupted else line,
                    highlight=False)  # fmt: skip
    if analysis.ambiguous_cells and analysis.domains is not None:
        console.out("")
        if analysis.backbone_exact:
            console.out("every solution agrees except on '?':", highlight=False)
        else:  # '?' also marks what the timeout left unsettled: not a claim of agreement
            console.out("'?': cells that differ between solutions or were not settled before "
                        f"the {stop}:", highlight=False)  # fmt: skip
        print_domains(console, analysis.puzzle, analysis.domains, clues)
    console.out(f"({analysis.seconds:.2f} s)", highlight=False)


def printable_lines(lines: list[str]) -> list[str]:
    return [printable(line) for line in lines]


def comparison_table(runs: list[Any], backends: list[str]) -> Any:
    """The rich table of `satnono compare`: seconds per puzzle and backend, fastest in green."""
    from rich.table import Table

    table = Table(title="seconds per puzzle and backend (fastest in bold green)")
    table.add_column("puzzle")
    for backend in backends:
        table.add_column(backend, justify="right")
    table.add_column("verdict")
    by_key = {(run.puzzle, run.backend): run for run in runs}
    for puzzle in dict.fromkeys(run.puzzle for run in runs):
        # A pair a Ctrl-C left unrun has no run: shown as "-".
        group = [by_key.get((puzzle, backend)) for backend in backends]
        finished = [run for run in group if run is not None and run.finished]
        fastest = min((run.seconds for run in finished), default=None)
        cells = []
        for run in group:
            if run is None:
                cells.append("-")
                continue
            text = f"{run.seconds:.2f}" if run.finished else run.status
            if run.finished and run.seconds == fastest:
                text = f"[bold green]{text}[/]"
            elif not run.finished:
                text = f"[red]{text}[/]"
            cells.append(text)
        verdicts = sorted({_short_verdict(run) for run in finished})
        # The file's name: the table stays narrow (the CSV has the whole path).
        name = printable(puzzle.rsplit("/", 1)[-1])
        table.add_row(name, *cells, " / ".join(verdicts) if verdicts else "-")
    totals = []
    for backend in backends:
        of_backend = [run for run in runs if run.backend == backend]
        solved = sum(1 for run in of_backend if run.finished)
        seconds = sum(run.seconds for run in of_backend)
        totals.append(f"{seconds:.2f} ({solved}/{len(of_backend)})")
    table.add_row("[bold]total (solved)[/]", *totals, "")
    return table


def _short_verdict(run: Any) -> str:
    if run.status == "multiple":
        return f"{run.solutions_found}{'' if run.complete else '+'} solutions"
    return str(run.status)


def from_image_lines(puzzle: Any, output: Any, analysis: Analysis) -> list[str]:
    """What `satnono from-image` says of the puzzle it wrote."""
    lines = [f"wrote {output}: {puzzle.width}x{puzzle.height}, {len(puzzle.palette) - 1} color(s)"]
    if analysis.difficulty == "ambiguous":
        lines.append(f"not unique: {len(analysis.ambiguous_cells)} ambiguous cells")
    else:
        verdict = "unique" if analysis.solutions == 1 else analysis.difficulty
        lines.append(f"{verdict}: {analysis.label}")
    return lines


def givens_line(puzzle: Any, givens: Any) -> str:
    """The cells to give away for uniqueness, as (row, column) color."""
    cells = ", ".join(
        f"({cell // puzzle.width + 1}, {cell % puzzle.width + 1}) {puzzle.palette[color].name}"
        for cell, color in givens.cells
    )
    done = "unique" if givens.unique else "still not unique (gave up)"
    noun = "cell" if len(givens.cells) == 1 else "cells"
    return f"give {len(givens.cells)} {noun} (row, column) to make it {done}: {cells}"


def batch_run_lines(run: Any, db: Path, proof: Path | None = None) -> list[str]:
    """What a batch run did, every entry accounted for: puzzles found, run now, already in
    the database, duplicates (solved once), the entries that are not puzzle files, and with
    --proof the certificates written and what satnono's checker said of them."""
    parts = [f"{len(run.rows)} run now", f"{run.skipped} already in {db}"]
    if run.adopted:
        parts[-1] += f" ({run.adopted} finished under another --timeout)"
    if run.duplicates:
        noun = "duplicate" if run.duplicates == 1 else "duplicates"
        parts.append(f"{run.duplicates} {noun} of another file's puzzle (solved once)")
    lines = [f"{run.found} puzzles: {', '.join(parts)} ({run.seconds:.1f} s)"]
    if run.ignored:
        lines.append(f"not puzzle files, skipped: {len(run.ignored)}")
        lines += [f"  {path}: {reason}" for path, reason in run.ignored[:10]]
        if len(run.ignored) > 10:
            lines.append(f"  ... and {len(run.ignored) - 10} more")
    if proof is not None:
        said = [row.certificate for row in run.rows if row.certificate is not None]
        made = [word for word in said if not word.startswith("none")]
        counts = {word: sum(1 for each in made if each.startswith(word))
                  for word in ("VERIFIED", "REJECTED", "NOT CHECKED")}  # fmt: skip
        checked = ", ".join(f"{number} {word}" for word, number in counts.items() if number)
        lines.append(f"{len(made)} certificates in {proof} (certificates.csv)"
                     f"{': ' + checked if checked else ''}; "
                     f"{len(said) - len(made)} puzzles without one")  # fmt: skip
    return lines


def certificate_line(result: Any) -> str:
    """What `solve --proof` wrote, or why it wrote nothing (on stderr, beside the verdict)."""
    made = result.certificate
    if made is None:
        return f"no certificate: {result.stats.get('certificate', 'none was made')}"
    plural = "" if made.proof_steps == 1 else "s"
    steps = f", {made.proof_steps} proof step{plural}" if made.proof_steps else ""
    if made.verified:
        checked = f"VERIFIED by satnono's checker in {made.check_seconds:.2f} s"
    elif made.verified is None:
        checked = made.check_reason or "not checked"
    else:
        checked = f"REJECTED by satnono's checker: {made.check_reason}"
    return (f"certificate of {made.verdict} in {made.folder} ({made.encoding} CNF{steps}, "
            f"{made.seconds:.2f} s), {checked}; check it again with: "
            f"satnono check-proof {made.folder}")  # fmt: skip


def not_drawn_line(what: str, label: str | None = None) -> str:
    """Said on stderr when a picture (`what`: its file, or the puzzle) was not drawn because
    --timeout passed first (satnono.render keeps it, with a grace for the drawing)."""
    start = f"{label}: " if label else ""
    return (
        f"satnono: {start}{what}: not drawn: the picture took longer than --timeout left it "
        "(give a longer one)"
    )
