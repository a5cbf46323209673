"""The SAT backend: the native engine probes and searches first; what it leaves after its budget
is encoded as CNF (satnono.encode.cnf) and solved by a PySAT solver.

By default (no solver or encoding named) it takes the steps of the field's strongest solvers:
the native engine propagates and probes the residual and searches it depth first under a probe
budget (SEARCH_WORK); if that does not finish, CaDiCaL takes the probed residual, with the
binary implications probing found as extra clauses and belief propagation's guesses as its
phases (cells and block starts). Once it has spent a head start without an answer, the solve
goes on in forked children (models.FINISHER): CaDiCaL in stable mode, after decimation
guided by belief propagation (DECIMATION) has had its seconds to find a grid for its phases
(on a large residual that child starts with CaDiCaL, on the second core: models._early),
and CaDiCaL as it stands where two cores are idle; where the process cannot fork, Glucose
takes turns with CaDiCaL. Each later solution is searched from the last one's phases. A
named solver or encoding gets line logic's residual alone, with the phase seed
(SearchOptions.seed): that is the configuration being compared, and what the portfolio races.

Solutions are enumerated by satnono.backends.models, over the residual's cells. Solvers that
PySAT can interrupt run in this process (satnono.runtime.stoppable stops them at the deadline
and on Ctrl-C), and so does CaDiCaL 1.9.5 on a formula of up to IN_PROCESS_CLAUSES (it solves
in slices, satnono.runtime.sat_solvers); the others (Kissat, Lingeling, CaDiCaL on a larger
formula) run in a forked child, so that a timeout or a Ctrl-C is always honoured at once by
killing it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import nullcontext
from dataclasses import replace
from typing import Any, ClassVar

from satnono.backends import OnSolution, Residual, SearchOptions, SearchReport, SearchTask
from satnono.backends.guidance import decimated_phases, guessed_phases
from satnono.backends.models import enumerate_models
from satnono.encode.cnf import encode_puzzle
from satnono.encode.formula import CnfFormula
from satnono.logic import native
from satnono.runtime.child import Send, stream_from_child
from satnono.runtime.collector import collector_paused
from satnono.runtime.deadline import Deadline, Timeout
from satnono.runtime.sat_solvers import SLICED, Guess
from satnono.runtime.solver_kinds import INTERRUPTIBLE, canonical_solver

#: The native search's budget before CDCL takes over, in probes times lines (a larger puzzle
#: gets fewer, costlier probes). Since CaDiCaL's quick try (QUICK_CONFLICTS), CPU for taai2014:
#: 5e5 36.1 s, 1e6 34.5 s, 2e6 36.9 s, 4e6 41.5 s; 1.5e6 leaves Lion to the native search
#: (13,800 probes past its root, 94 lines), 0.08 s where CaDiCaL takes 0.6 s (BENCHMARKS.md).
SEARCH_WORK = 1_500_000
#: The budget where the residual is small (SMALL_RESIDUAL), which CaDiCaL without restarts
#: takes on cheaply: modelled on taai2014 (tuning) from each step's time alone, 5e5 33.9 s,
#: 7.5e5 32.8 s, 1e6 33.2 s, 1.5e6 33.9 s (tcga2013: 35.1, 34.8, 35.0, 36.0 s); as whole
#: `satnono tournament` processes, the 8 sets 299.4 s against 314.3 s with SEARCH_WORK.
SMALL_SEARCH_WORK = 750_000
#: The solver that takes the probed residual by default: with belief propagation's phases it
#: found Knotty's two solutions in 0.1 s and Faase's in 2.5 s (BENCHMARKS.md).
PROBED_SOLVER = "cadical195"
#: Where this process cannot fork (models.FINISHER otherwise), the solver that takes turns
#: with PROBED_SOLVER for the probed residual's first solution once that has spent its head
#: start (models.RIVAL_HEAD_START conflicts) alone: Glucose 3, with the same phases as first
#: guesses only (CaDiCaL keeps the phases it is given to the end; Glucose's saved phases
#: replace them).
#: Kept phases find Knotty's solutions in 3,400 conflicts (0.1 s) where Glucose finds none
#: in 60 s, but on a large random residual with many solutions they lose their way: on the
#: generated tuning set's five probed residuals CaDiCaL alone took 0.6-27.8 s, Glucose
#: 0.2-6.2 s (satnono.backends.models: the race).
PROBED_RIVAL = "glucose3"
#: The probed residual's first QUICK_CONFLICTS go to CaDiCaL with PROBED_OPTIONS, no restarts
#: nor chronological backtracking (it keeps to belief propagation's phases); then CaDiCaL
#: with its defaults starts over for the head start. First solutions, CPU seconds of CaDiCaL
#: on taai2014's 254 probed residuals (tuning set): defaults 15.5 s, PROBED_OPTIONS 8.9 s
#: (restarts off alone 13.2, chronological backtracking off alone 12.7), 5,000 conflicts so
#: then the defaults 11.9 s; Faase 0.4 s against 3.6 s, Sierp 0.8 s against 0.1 s (hence no
#: more than 5,000). Only a quick try past SMALL_RESIDUAL cells: random 40x40s went faster on
#: the defaults past it.
PROBED_OPTIONS = (("chrono", 0), ("restart", 0))
QUICK_CONFLICTS = 5_000
#: A probed residual of at most this many undecided cells keeps PROBED_OPTIONS past the quick
#: try, through the head start and the race (as the solver beside models.FINISHER).
#: Unsliced, to a first solution, on taai2014's 302 probed residuals (tuning): 5,000
#: conflicts then the defaults 37.0 s of satnono's CPU in all, PROBED_OPTIONS throughout
#: 33.9 s (modelled from each configuration's time alone); on tcga2013's 242, 40.2 s and
#: 36.0 s; on 24 random 28x28 to 32x32s the same way (BENCHMARKS.md). The larger ones go the
#: other way: Sierp (1,531 cells) 11,226 conflicts against 2,321, and random 40x40s answered
#: sooner past a head start of the defaults.
SMALL_RESIDUAL = 1_024
#: Implications of probing handed to the solver at most (each one a binary clause).
MOST_IMPLICATIONS = 300_000
#: Solutions asked for at most, past which the collector runs again once a hand-over's formula
#: is made (satnono.runtime.collector): up to it, it stays off through the solving until the
#: formula's lists are freed, and no collection walks them. A hand-over asked for so few
#: solutions is short, and calls back twice at most, so nothing piles up meanwhile (a stream
#: of solutions would run its consumer's code with the collector off). On taai2014 #600-649
#: under callgrind: 25.20 billion instructions against 24.81 (BENCHMARKS.md, round 22).
PAUSED_THROUGH = 2
#: Seconds at most the collector stays off so: it is the whole process's, and a server's
#: other requests go on meanwhile. A tournament's hand-over takes tens of milliseconds; past a
#: second, the walk the pause saves is a few milliseconds of a long solve.
PAUSED_AT_MOST = 1.0
#: The race's guess: decimation guided by belief propagation (native.Engine.decimation) for
#: at most DECIMATION_SECONDS, first thing in models.FINISHER's child, which is forked past
#: CaDiCaL's head start (models.RIVAL_HEAD_START), or as CaDiCaL starts on a large residual
#: (models._early); the grid it finds becomes the finisher's phases, from which it finds that
#: grid as a model in no conflicts; without one, the finisher starts as before. Alone, on
#: round 16's ten random 45x45s (tuning): a grid of seven within 7.0 s where CDCL took 2-224 s
#: or none in 300 s; of twelve 35x35 and 40x40s, nine within 7.3 s; Knotty 0.11 s, Faase
#: 15.6 s (BENCHMARKS.md, rounds 36 and 37).
DECIMATION = "decimation"
DECIMATION_SECONDS = 10.0
#: Largest formula a sliced solver (CaDiCaL 1.9.5) solves in this process rather than in a
#: child. A child costs ~18 ms (fork, start, kill), more than CaDiCaL takes on most probed
#: 25 x 25 residuals (taai2014's 254: 20.0 s in children, 14.8 s in this process); a slice
#: of a large formula may run long past the deadline, where a child is killed at once.
IN_PROCESS_CLAUSES = 200_000


class SatBackend:
    name: ClassVar[str] = "sat"

    def search(self, task: SearchTask) -> SearchReport:
        """By default the native search under its budget, then CaDiCaL on the probed residual
        with probing's implications and belief propagation's phases; with a solver or an
        encoding named, that configuration alone on line logic's residual."""
        residual, options, deadline, on_solution = task.parts()
        return self.search_excluding(residual, options, deadline, on_solution)

    def search_excluding(
        self,
        residual: Residual,
        options: SearchOptions,
        deadline: Deadline,
        on_solution: OnSolution,
        excluded: Sequence[Sequence[int]] = (),
    ) -> SearchReport:
        """`search`, without the solutions `excluded` (decided domains, each within the
        residual's domains): they were reported before (the cubes backend goes on in parts of
        a cube whose search it stopped)."""
        if options.solver is not None or options.encoding is not None:
            # A named solver is what is being compared: it gets line logic's residual.
            solver_name = canonical_solver(options.solver)
            return _search(residual, options, solver_name, deadline, on_solution, excluded)
        started = time.perf_counter()
        puzzle = residual.puzzle
        work = SMALL_SEARCH_WORK if residual.unknown <= SMALL_RESIDUAL else SEARCH_WORK
        search = native.Engine(puzzle).search(
            residual.domains, residual.lines, restarts=0 < options.limit <= 2,
            budget=work // puzzle.line_count, seed=max(options.seed, 0), excluded=excluded,
        )  # fmt: skip
        found: list[Sequence[int]] = list(excluded)
        stats: dict[str, Any] = {}

        def native_stats() -> dict[str, Any]:
            return {f"native_{key}": value for key, value in search.stats().items()} | {
                "native_seconds": round(time.perf_counter() - started, 4)
            }

        for decided in search.solutions(deadline):
            found.append(decided)
            if not on_solution(decided):
                return SearchReport(exhausted=False, stats={"solver": "native", **native_stats()})
        if search.outcome != "budget":
            return SearchReport(
                exhausted=search.outcome == "exhausted",
                timed_out=search.outcome == "timeout",
                stats={"solver": "native", **native_stats()},
            )
        probed = search.root_domains()
        stats.update(native_stats())
        if probed is None:  # the budget is spent only once the root is probed
            raise AssertionError("the native search spent its budget before its root")
        narrowed = replace(residual, domains=tuple(probed))
        stats["probed_cells_left"] = narrowed.unknown
        # Asked for at most two solutions (is it unique?), the collector stays off until the
        # formula's lists are freed, not only while they are made (see PAUSED_THROUGH).
        few = 0 < options.limit <= PAUSED_THROUGH
        paused = collector_paused(PAUSED_AT_MOST) if few else nullcontext()
        with paused:
            report = _search(
                narrowed, options, PROBED_SOLVER, deadline, on_solution, found, search, True
            )
        report.stats = {**stats, **report.stats}
        return report


def _search(
    residual: Residual,
    options: SearchOptions,
    solver_name: str,
    deadline: Deadline,
    on_solution: OnSolution,
    blocked: Sequence[Sequence[int]] = (),
    probed: native.Search | None = None,
    guess: bool = False,
) -> SearchReport:
    """Encode the residual and enumerate its solutions with one solver, none of `blocked`;
    the implications `probed` (the native search that probed the residual) found become
    clauses, and with `guess` belief propagation's estimate gives the phases."""
    started = time.perf_counter()
    with collector_paused():
        try:
            formula = encode_puzzle(
                residual.geometry, residual.domains, residual.lines, options.encoding, deadline
            )
        except Timeout:
            return SearchReport(exhausted=False, timed_out=True, stats={"solver": solver_name})
        domains = residual.domains
        # A solution outside the residual's domains (one that probing found and ruled out)
        # cannot be found again, and its blocking clause over the residual's cells would be
        # another solution's: only those inside are blocked, every cell checked.
        extra = [
            formula.blocking_clause_of(decided)
            for decided in blocked
            if all(map(int.__and__, decided, domains))
        ]
        made = (
            probed.implication_clauses(MOST_IMPLICATIONS, formula.cell_literals, deadline)
            if probed is not None
            else None
        )
        implied: Sequence[Sequence[int]] = made[0] if made is not None else []
        implications = made[1] if made is not None else 0
        phases = guessed_phases(formula, residual) if guess else None
        rival, solver_options = (PROBED_RIVAL, PROBED_OPTIONS) if guess else (None, ())
        quick = None if residual.unknown <= SMALL_RESIDUAL else QUICK_CONFLICTS
        decimated = _decimation(formula, residual, deadline, options.seed) if guess else None
    solving = (options.seed, extra, phases, implied, rival, solver_options, quick, decimated)
    stats: dict[str, Any] = {
        "solver": solver_name,
        "encoding": formula.encoding,
        "cnf_variables": formula.variables,
        "cnf_clauses": len(formula.clauses),
        "implication_clauses": implications,
        "encode_seconds": round(time.perf_counter() - started, 4),
    }
    in_process = solver_name in INTERRUPTIBLE or (
        solver_name in SLICED and len(formula.clauses) + len(implied) <= IN_PROCESS_CLAUSES
    )
    if in_process:
        models: Iterator[Any] = enumerate_models(formula, solver_name, deadline, *solving)
    else:

        def run(send: Send) -> None:  # no deadline: the child is killed when it passes
            for item in enumerate_models(formula, solver_name, Deadline(None), *solving):
                send(item)

        models = stream_from_child(run, deadline, f"{solver_name} solver")
    report = SearchReport(exhausted=False, stats=stats)
    solve_started = time.perf_counter()
    try:
        for item in models:
            if isinstance(item, tuple):
                stats["solver"] = item[1]
                continue
            if item == "exhausted":
                report.exhausted = True
                break
            if item == "interrupted":
                report.timed_out = True
                break
            if not on_solution(formula.decode(item, residual.domains)):
                break
    except Timeout:  # loading the solver, or a solver in a child, ran into the deadline
        report.timed_out = True
    finally:
        close = getattr(models, "close", None)
        if close is not None:
            close()
        stats["solve_seconds"] = round(time.perf_counter() - solve_started, 4)
    return report


def _decimation(formula: CnfFormula, residual: Residual, deadline: Deadline, seed: int) -> Guess:
    """The race's guess (SatSolver.race): decimation's grid as phases, for at most
    DECIMATION_SECONDS of the child that makes them."""

    def phases() -> list[int] | None:
        remaining = deadline.remaining()
        seconds = DECIMATION_SECONDS if remaining is None else min(DECIMATION_SECONDS, remaining)
        return decimated_phases(formula, residual, Deadline(seconds), max(seed, 0))

    return DECIMATION, phases


BACKEND = SatBackend()
