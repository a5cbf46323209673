"""The SAT backend: the residual CNF (satnono.cnf) solved and enumerated with a PySAT solver.

Solutions are enumerated with blocking clauses over the residual cell variables. Solvers that
PySAT can interrupt run in this process (satnono.runtime.stoppable stops them at the deadline
and on Ctrl-C); the others (CaDiCaL, Kissat, Lingeling) run in a forked child, so that a
timeout or a Ctrl-C is always honoured at once by killing it.
The solver, the encoding (SearchOptions.encoding) and the initial phases (SearchOptions.seed)
are all selectable, because the portfolio backend races different choices of them.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any, ClassVar

from satnono.backends import OnSolution, Residual, SearchOptions, SearchReport
from satnono.cnf import CnfFormula, encode_puzzle
from satnono.runtime.child import Send, stream_from_child
from satnono.runtime.deadline import Deadline, Timeout
from satnono.runtime.sat_solvers import (
    INTERRUPTIBLE,
    NO_PHASES,
    NO_PROPAGATE,
    NON_INCREMENTAL,
    SatSolver,
    canonical_solver,
)

#: The seed that sets every initial phase to true instead of random ones: every residual cell
#: painted and (in the blocks encoding) every block as far right as it goes.
ALL_TRUE = -1


#: Solutions found by blocking clauses before enumeration switches to splitting (see below).
BLOCKING_PHASE = 64


def enumerate_models(
    formula: CnfFormula,
    solver_name: str,
    deadline: Deadline,
    seed: int = 0,
    blocked: list[list[int]] | None = None,
) -> Iterator[Any]:
    """Yield lists of true cell literals, one per solution, then "exhausted" or "interrupted".

    The first solutions come from the classic loop (solve, add a blocking clause, solve again),
    which is what proving a solution unique takes. Past BLOCKING_PHASE solutions the space is
    evidently large, and a growing pile of long blocking clauses slows every later solve (the
    rate falls from ~8,000 to ~1,000 per second on a 9! component), so enumeration goes on by
    splitting instead: a depth-first walk over cell values under assumptions, pruned by unit
    propagation (line solving with the automaton encoding, weaker with the others, which
    then confirm each fully assigned leaf with a solve) and by a solve at each branching node. The
    blocking clauses already added keep the walk from finding those solutions again.
    The consumer sends nothing back; it simply stops iterating when it has enough.
    `blocked` are blocking clauses of solutions found before (by an earlier solver).
    """
    cell_variables = formula.cell_variables()
    incremental = solver_name not in NON_INCREMENTAL
    # Splitting needs propagate(); a solver without it blocks solutions to the end.
    splits = incremental and solver_name not in NO_PROPAGATE
    blocking: list[list[int]] = list(blocked or ())
    with SatSolver(solver_name, deadline) as solver:
        load(solver.solver, solver_name, formula, seed, blocking, deadline=deadline)
        while not splits or len(blocking) < BLOCKING_PHASE:
            result = solver.solve()
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
            else:  # no assumptions in this solver: a new one, with every blocking clause
                from pysat.solvers import Solver

                solver.replace(Solver(name=solver_name))
                load(solver.solver, solver_name, formula, seed, blocking)
        yield from _enumerate_by_splitting(solver, cell_variables, formula.checks_by_propagation)


#: Clauses handed to the solver between two looks at the deadline (about 0.05 s of loading).
LOAD_CHUNK = 50_000


def load(
    solver: Any,
    solver_name: str,
    formula: CnfFormula,
    seed: int = 0,
    extra: list[list[int]] | None = None,
    deadline: Deadline | None = None,
) -> None:
    """Load a new PySAT solver with the formula; a nonzero seed sets random initial phases.

    The phase is what a CDCL solver tries first for each variable, so different seeds send
    otherwise identical solvers down different branches: cheap diversity for the portfolio.
    Solvers without phase control (CaDiCaL 1.0.3, Kissat) ignore the seed.
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
    if seed and solver_name not in NO_PHASES:
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
    measured through satnono.solutions.solve on this machine).
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


#: Seconds the default configuration searches before it escalates (see SatBackend.search).
#: Everything of the survey and the held-out set is decided well within it (1.2 s at most).
ESCALATE_AFTER = 10.0
#: The solver the escalation hands the probed residual to: on frans_faase (95x80) CaDiCaL
#: 1.9.5 found two solutions in 231 s, where Glucose 4.2 and MapleChrono found none in 120 s
#: (BENCHMARKS.md, frontier section). It cannot be interrupted, so it runs in a child.
ESCALATION_SOLVER = "cadical195"


class SatBackend:
    name: ClassVar[str] = "sat"

    def search(
        self,
        residual: Residual,
        options: SearchOptions,
        deadline: Deadline,
        on_solution: OnSolution,
    ) -> SearchReport:
        """The default configuration (no solver named) escalates when it has not finished after
        ESCALATE_AFTER seconds: probing to a fixpoint with the exact line solver fixes what
        every solution shares (on frans_faase 813 more cells), and ESCALATION_SOLVER goes on
        from the smaller formula, the solutions already reported blocked."""
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
        solver_name = canonical_solver(options.solver)
        if options.solver is not None or not deadline_allows(deadline, ESCALATE_AFTER):
            return _search(residual, options, solver_name, deadline, on_solution, excluded)
        reported: list[Sequence[int]] = list(excluded)

        def record(decided: list[int]) -> bool:
            reported.append(decided)
            return on_solution(decided)

        first = _search(
            residual, options, solver_name, deadline.sooner(ESCALATE_AFTER), record, excluded
        )
        if not first.timed_out or deadline.expired():
            return first
        from satnono.backends.backtrack import probe_fixpoint

        started = time.perf_counter()
        try:
            probed = probe_fixpoint(residual, deadline)
        except Timeout:
            return first
        stats = {**first.stats, "escalated_after": ESCALATE_AFTER,
                 "probe_seconds": round(time.perf_counter() - started, 4)}  # fmt: skip
        if probed is None:  # probing refutes the residual: there was no solution to find
            return SearchReport(exhausted=True, stats=stats)
        narrowed = replace(residual, domains=probed)
        stats["probed_cells_left"] = narrowed.unknown
        # No phases: CaDiCaL takes set phases as fixed for good, which turns off its own
        # rephasing (frans_faase: no solution in 600 s with the default seed's random phases,
        # two solutions in 231 s without).
        natural = replace(options, seed=0)
        second = _search(narrowed, natural, ESCALATION_SOLVER, deadline, on_solution, reported)
        second.stats = {**stats, **second.stats}
        return second


def deadline_allows(deadline: Deadline, seconds: float) -> bool:
    """Whether more than `seconds` are left (no deadline: always)."""
    left = deadline.remaining()
    return left is None or left > seconds


def _search(
    residual: Residual,
    options: SearchOptions,
    solver_name: str,
    deadline: Deadline,
    on_solution: OnSolution,
    blocked: Sequence[Sequence[int]] = (),
) -> SearchReport:
    """Encode the residual and enumerate its solutions with one solver, none of `blocked`."""
    started = time.perf_counter()
    try:
        formula = encode_puzzle(
            residual.propagator, residual.domains, residual.lines, options.encoding, deadline
        )
    except Timeout:
        return SearchReport(exhausted=False, timed_out=True, stats={"solver": solver_name})
    stats: dict[str, Any] = {
        "solver": solver_name,
        "encoding": formula.encoding,
        "cnf_variables": formula.variables,
        "cnf_clauses": len(formula.clauses),
        "encode_seconds": round(time.perf_counter() - started, 4),
    }
    extra = [formula.blocking_clause_of(decided) for decided in blocked]
    if solver_name in INTERRUPTIBLE:
        models: Iterator[Any] = enumerate_models(
            formula, solver_name, deadline, options.seed, extra
        )
    else:

        def run(send: Send) -> None:  # no deadline: the child is killed when it passes
            for item in enumerate_models(formula, solver_name, Deadline(None), options.seed, extra):
                send(item)

        models = stream_from_child(run, deadline, f"{solver_name} solver")
    report = SearchReport(exhausted=False, stats=stats)
    solve_started = time.perf_counter()
    try:
        for item in models:
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
