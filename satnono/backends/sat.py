"""The SAT backend: the native engine probes and searches first; what it leaves after its budget
is encoded as CNF (satnono.encode.cnf) and solved by a PySAT solver.

By default (no solver or encoding named) it takes the steps of the field's strongest solvers:
the native engine propagates and probes the residual and searches it depth first under a probe
budget (SEARCH_WORK); if that does not finish, CaDiCaL takes the probed residual, with the
binary implications probing found as extra clauses and belief propagation's guesses as its
phases (cells and block starts), raced by Glucose once it has spent a head start without an
answer (on a core of its own, in a forked child, where the process has two and both are
idle: taking turns on one core halves each solver's speed); each later solution is searched
from the last one's phases. A named solver or encoding gets line logic's residual alone, with
the phase seed (SearchOptions.seed): that is the configuration being compared, and what the
portfolio races.

Solutions are enumerated with blocking clauses over the residual cell variables. Solvers that
PySAT can interrupt run in this process (satnono.runtime.stoppable stops them at the deadline
and on Ctrl-C), and so does CaDiCaL 1.9.5 on a formula of up to IN_PROCESS_CLAUSES (it solves
in slices, satnono.runtime.sat_solvers); the others (Kissat, Lingeling, CaDiCaL on a larger
formula) run in a forked child, so that a timeout or a Ctrl-C is always honoured at once by
killing it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any, ClassVar

from satnono.backends import OnSolution, Residual, SearchOptions, SearchReport, SearchTask
from satnono.backends.guidance import guessed_phases, implication_clauses
from satnono.encode.cnf import encode_puzzle
from satnono.encode.formula import CnfFormula
from satnono.logic import native
from satnono.runtime.child import Send, stream_from_child
from satnono.runtime.collector import collector_paused
from satnono.runtime.deadline import Deadline, Timeout
from satnono.runtime.sat_solvers import (
    ENUMERATION_SOLVER,
    INTERRUPTIBLE,
    NO_PHASES,
    NO_PROPAGATE,
    NON_INCREMENTAL,
    SLICED,
    Rival,
    SatSolver,
    canonical_solver,
)

#: The seed that sets every initial phase to true instead of random ones: every residual cell
#: painted and (in the blocks encoding) every block as far right as it goes.
ALL_TRUE = -1

#: Solutions found by blocking clauses before enumeration switches to splitting (see below).
BLOCKING_PHASE = 64

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
#: Where this process cannot fork (FINISHER otherwise), the solver that takes turns with
#: PROBED_SOLVER for the probed residual's first solution once that has met RIVAL_HEAD_START
#: conflicts alone: Glucose 3, with the same phases as first guesses only
#: (CaDiCaL keeps the phases it is given to the end; Glucose's saved phases replace them).
#: Kept phases find Knotty's solutions in 3,400 conflicts (0.1 s) where Glucose finds none
#: in 60 s, but on a large random residual with many solutions they lose their way: on the
#: generated tuning set's five probed residuals CaDiCaL alone took 0.6-27.8 s, Glucose
#: 0.2-6.2 s. The head start covers what CaDiCaL needs on the hard real puzzles (Faase 15,100
#: conflicts) and on all but 2 of taai2014's 254 probed residuals (BENCHMARKS.md).
PROBED_RIVAL = "glucose3"
RIVAL_HEAD_START = 20_000
#: What takes the probed residual over once the head start has passed without an answer,
#: where this process can fork: CaDiCaL 1.9.5 in stable mode only (the residuals of random
#: puzzles are satisfiable), one whole solve call in a forked child, unsliced; on two idle
#: cores, CaDiCaL as the head start left it beside it, in a child of its own (Faase's two
#: solutions, which the head start nearly reaches: 4.2-4.5 s then, 6.2-6.7 s from stable mode
#: alone). The first answer is kept and its child serves the later solves. To a first
#: solution, unsliced, on 18 probed residuals of random 35x35 and 40x40 puzzles (the tuning
#: set, BENCHMARKS.md issue 43, round 17): stable mode 64.3 s in all, CaDiCaL's defaults
#: 147.7 s and Glucose 3 more (each of them undecided in 40 s on two where stable mode took
#: 13.4 s and 1.3 s); the faster of stable mode and the defaults 45.0 s (and of stable mode and
#: Glucose 43.6 s).
FINISHER = Rival("cadical195", (("stabilizeonly", 1),), "cadical195-stable")
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
#: try, through the head start and the race (as the solver beside FINISHER). Unsliced, to a
#: first solution, on taai2014's 302 probed residuals (tuning): 5,000 conflicts then the
#: defaults 37.0 s of satnono's CPU in all, PROBED_OPTIONS throughout 33.9 s (modelled from
#: each configuration's time alone); on tcga2013's 242, 40.2 s and 36.0 s; on 24 random 28x28
#: to 32x32s the same way (BENCHMARKS.md). The larger ones go the other way: Sierp (1,531
#: cells) 11,226 conflicts against 2,321, and random 40x40s answered sooner past a head start
#: of the defaults.
SMALL_RESIDUAL = 1_024
#: Implications of probing handed to the solver at most (each one a binary clause).
MOST_IMPLICATIONS = 300_000
#: Largest formula a sliced solver (CaDiCaL 1.9.5) solves in this process rather than in a
#: child. A child costs ~18 ms (fork, start, kill), more than CaDiCaL takes on most probed
#: 25 x 25 residuals (taai2014's 254: 20.0 s in children, 14.8 s in this process); a slice
#: of a large formula may run long past the deadline, where a child is killed at once.
IN_PROCESS_CLAUSES = 200_000


def enumerate_models(
    formula: CnfFormula,
    solver_name: str,
    deadline: Deadline,
    seed: int = 0,
    blocked: list[list[int]] | None = None,
    phases: list[int] | None = None,
    implied: list[list[int]] | None = None,
    rival: str | None = None,
    options: Sequence[tuple[str, int]] = (),
    quick_conflicts: int | None = QUICK_CONFLICTS,
) -> Iterator[Any]:
    """Yield lists of true cell literals, one per solution, then "exhausted" or "interrupted"
    (and ("solver", name) whenever another solver answers from then on: a rival, the child
    that won a race, or this process's solver after it).

    The first solutions come from the classic loop (solve, add a blocking clause, solve again),
    which is what proving a solution unique takes. With `phases` (literals), the solver starts
    from them and each later solve from the last solution found. Past BLOCKING_PHASE solutions
    the space is evidently large, and a growing pile of long blocking clauses slows every
    later solve (the rate falls from ~8,000 to ~1,000 per second on a 9! component), so
    enumeration goes on by splitting instead: a depth-first walk over cell values under
    assumptions, pruned by unit propagation (line solving with the automaton encoding, weaker
    with the others, which then confirm each fully assigned leaf with a solve) and by a solve
    at each branching node. The blocking clauses already added keep the walk from finding
    those solutions again. The consumer sends nothing back; it simply stops iterating when it
    has enough. `blocked` are blocking clauses of solutions found before (by an earlier search);
    `implied` are clauses the formula implies (probing's), loaded with it; `options` are the
    solver's, with a rival for its first `quick_conflicts` only (then its defaults; None: all
    along). With a `rival` solver, the first solve is a race (SatSolver.race): after
    RIVAL_HEAD_START conflicts FINISHER, loaded alike, goes on in a forked child, and the
    solver as it stands beside it in a child of its own where this process has two idle cores
    (`_second_core`), the one that answers first serving the later solves; where this process
    cannot fork, the rival takes turns with the solver on this core (and whichever answers
    goes on).
    """
    cell_variables = formula.cell_variables()
    incremental = solver_name not in NON_INCREMENTAL
    # Splitting needs propagate(); a solver without it blocks solutions to the end.
    splits = incremental and solver_name not in NO_PROPAGATE
    blocking: list[list[int]] = list(blocked or ())
    guided = phases is not None and solver_name not in NO_PHASES
    with SatSolver(solver_name, deadline, options=options) as solver:
        load(
            solver.solver,
            solver_name,
            formula,
            seed,
            [*blocking, *(implied or ())],
            deadline,
            phases,
        )

        def load_rival(other: Any) -> None:
            assert rival is not None
            load(other, rival, formula, seed, [*blocking, *(implied or ())], deadline, phases)

        first = True
        named = solver_name  # who answers, said again whenever it changes
        while not splits or len(blocking) < BLOCKING_PHASE:
            if first and rival is not None:
                quick = (
                    (quick_conflicts, Rival(solver_name)) if options and quick_conflicts else None
                )
                result = solver.race(
                    rival, load_rival, RIVAL_HEAD_START, _second_core, FINISHER, quick
                )
            else:
                result = solver.solve()
            first = False
            if solver.name != named:  # another solver answered (a rival, a child, or this one)
                named = solver.name
                yield ("solver", named)
            if result is None:
                yield "interrupted"
                return
            if not result:
                yield "exhausted"
                return
            model = solver.get_model()
            true = [model[v - 1] for v in cell_variables]
            yield true
            clause = formula.blocking_clause(true)
            blocking.append(clause)
            if incremental:
                solver.add_clause(clause)
                if guided:
                    solver.set_phases(model)
            else:  # not incremental: the rest in an incremental solver, said in `solver`
                from pysat.solvers import Solver

                first_name, solver_name = solver_name, ENUMERATION_SOLVER
                solver.replace(Solver(name=solver_name))
                solver.name = solver_name
                load(
                    solver.solver, solver_name, formula, seed, [*blocking, *(implied or ())],
                    phases=phases,
                )  # fmt: skip
                incremental = True
                splits = solver_name not in NO_PROPAGATE
                guided = phases is not None and solver_name not in NO_PHASES
                named = solver.name
                yield ("solver", f"{first_name}+{solver_name}")
        for item in _enumerate_by_splitting(solver, cell_variables, formula.checks_by_propagation):
            if solver.name != named:  # splitting solves under assumptions, in this process
                named = solver.name
                yield ("solver", named)
            yield item


def _second_core() -> bool:
    """Whether the solver may go on beside FINISHER, each in a child on a core of its own:
    this process may use two cores, and two are idle now (`idle_cores`). On busy cores two
    children would only take time from each other."""
    from satnono.backends import idle_cores, usable_cores
    from satnono.runtime.child import can_fork

    if usable_cores() < 2 or not can_fork():
        return False
    idle = idle_cores()
    return idle is None or idle >= IDLE_CORES


#: Cores that must be idle for two children to solve side by side (this search's own, which
#: waits while they are measured, and the other), less a margin for the measure's coarseness.
IDLE_CORES = 1.5


#: Clauses handed to the solver between two looks at the deadline (about 0.05 s of loading).
LOAD_CHUNK = 50_000


def load(
    solver: Any,
    solver_name: str,
    formula: CnfFormula,
    seed: int = 0,
    extra: list[list[int]] | None = None,
    deadline: Deadline | None = None,
    phases: list[int] | None = None,
) -> None:
    """Load a new PySAT solver with the formula; `phases` (literals) or a nonzero seed set the
    initial phases.

    The phase is what a CDCL solver tries first for each variable, so different seeds send
    otherwise identical solvers down different branches: cheap diversity for the portfolio.
    Solvers without phase control (CaDiCaL 1.0.3, Kissat) ignore both.
    Loading is done in chunks so that `deadline` can end it (raising Timeout): it takes
    about 0.9 s per million clauses, 28 s for a random 400 x 400 grid.
    """
    clauses = formula.clauses
    for start in range(0, len(clauses), LOAD_CHUNK):
        if deadline is not None and deadline.expired():
            raise Timeout
        solver.append_formula(clauses[start : start + LOAD_CHUNK])
    if extra:
        solver.append_formula(extra)
    if solver_name in NO_PHASES:
        return
    if phases is not None:
        solver.set_phases(phases)
    elif seed:
        variables = range(2, formula.variables + 1)
        if seed == ALL_TRUE:
            solver.set_phases(list(variables))
        else:
            rng = random.Random(seed)
            solver.set_phases([v if rng.random() < 0.5 else -v for v in variables])


def _enumerate_by_splitting(
    solver: SatSolver, cell_variables: list[int], checks_by_propagation: bool
) -> Iterator[Any]:
    """Depth-first over cell values; each node carries a model known to satisfy it, if any.

    A model found at a node is a solution inside the branch that follows it, so that branch
    needs no solve of its own, only propagation: about one solve per solution instead of
    one per node (7,000 -> 8,400 verified solutions a second from permutation-9's 9! when
    measured through satnono.pipeline.solutions.solve on this machine).
    """
    stack: list[tuple[list[int], list[int] | None]] = [([], None)]
    deadline = solver.deadline
    while stack:
        if deadline.expired():
            yield "interrupted"
            return
        assumptions, model = stack.pop()
        consistent, implied = solver.propagate(assumptions)
        if not consistent:
            continue
        assigned = set(implied)
        assigned.update(assumptions)
        free = next((v for v in cell_variables if v not in assigned and -v not in assigned), None)
        if model is None and (free is not None or not checks_by_propagation):
            # Is there a solution down here? Weaker encodings also ask it of a full assignment.
            result = solver.solve(assumptions)
            if result is None:
                yield "interrupted"
                return
            if not result:
                continue
            model = solver.get_model()
        if free is None:
            yield [v if v in assigned else -v for v in cell_variables]
            continue
        assert model is not None
        first = model[free - 1]
        stack.append(([*assumptions, -first], None))
        stack.append(([*assumptions, first], model))
    yield "exhausted"


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
        implications = search.implications(MOST_IMPLICATIONS, deadline) or []
        stats.update(native_stats())
        if probed is None:  # the budget is spent only once the root is probed
            raise AssertionError("the native search spent its budget before its root")
        narrowed = replace(residual, domains=tuple(probed))
        stats["probed_cells_left"] = narrowed.unknown
        report = _search(
            narrowed, options, PROBED_SOLVER, deadline, on_solution, found, implications, True
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
    implications: Sequence[tuple[int, int, int, int]] = (),
    guess: bool = False,
) -> SearchReport:
    """Encode the residual and enumerate its solutions with one solver, none of `blocked`;
    `implications` become binary clauses, and with `guess` belief propagation's estimate
    gives the phases."""
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
        implied = implication_clauses(formula, implications)
        phases = guessed_phases(formula, residual) if guess else None
        rival, solver_options = (PROBED_RIVAL, PROBED_OPTIONS) if guess else (None, ())
        quick = None if residual.unknown <= SMALL_RESIDUAL else QUICK_CONFLICTS
    solving = (options.seed, extra, phases, implied, rival, solver_options, quick)
    stats: dict[str, Any] = {
        "solver": solver_name,
        "encoding": formula.encoding,
        "cnf_variables": formula.variables,
        "cnf_clauses": len(formula.clauses),
        "implication_clauses": len(implications),
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


BACKEND = SatBackend()
