"""The SAT backend: the residual CNF (satnono.cnf) solved and enumerated with a PySAT solver.

Solutions are enumerated with blocking clauses over the residual cell variables. Solvers that
PySAT can interrupt run in this process under a timer; the others (CaDiCaL, Kissat, Lingeling)
run in a forked child when a deadline is set, so a timeout is always honoured by killing it.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Iterator
from multiprocessing.connection import Connection
from typing import Any, ClassVar

from satnono.backends import OnSolution, Residual, SearchOptions, SearchReport
from satnono.cnf import CnfFormula, encode_puzzle
from satnono.deadline import Deadline
from satnono.errors import InputError

#: Chosen by measurement: the fastest total on the webpbn survey set (see BENCHMARKS.md).
DEFAULT_SOLVER = "glucose42"
#: PySAT solvers without incremental solving: re-created with the blocking clauses instead.
_NON_INCREMENTAL = {"kissat404"}
#: PySAT solvers whose interrupt() works with solve_limited().
_INTERRUPTIBLE = {
    "glucose3", "glucose4", "glucose42", "gluecard3", "gluecard4", "maplechrono", "maplecm",
    "maplesat", "mergesat3", "minicard", "minisat22", "minisatgh",
}  # fmt: skip


def solver_names() -> dict[str, str]:
    """Every name PySAT accepts, mapped to its canonical solver name."""
    from pysat.solvers import SolverNames

    names = {}
    for canonical, aliases in vars(SolverNames).items():
        if not canonical.startswith("_"):
            for alias in (canonical, *aliases):
                names[alias] = canonical
    return names


def canonical_solver(name: str | None) -> str:
    if name is None:
        return DEFAULT_SOLVER
    names = solver_names()
    if name not in names:
        known = ", ".join(sorted(set(names.values())))
        raise InputError(f"unknown SAT solver {name!r}; choose one of: {known}", "--solver")
    return names[name]


#: Solutions found by blocking clauses before enumeration switches to splitting (see below).
BLOCKING_PHASE = 64


def enumerate_models(formula: CnfFormula, solver_name: str, deadline: Deadline) -> Iterator[Any]:
    """Yield lists of true cell literals, one per solution, then "exhausted" or "interrupted".

    The first solutions come from the classic loop (solve, add a blocking clause, solve again),
    which is what proving a solution unique takes. Past BLOCKING_PHASE solutions the space is
    evidently large, and a growing pile of long blocking clauses slows every later solve (the
    rate falls from ~8,000 to ~1,000 per second on a 9! component), so enumeration goes on by
    splitting instead: a depth-first walk over cell values under assumptions, pruned by unit
    propagation (which is line solving here) and by a solve at each branching node. The
    blocking clauses already added keep the walk from finding those solutions again.
    The consumer sends nothing back; it simply stops iterating when it has enough.
    """
    from pysat.solvers import Solver

    cell_variables = formula.cell_variables()
    interruptible = solver_name in _INTERRUPTIBLE
    solver = Solver(name=solver_name, bootstrap_with=formula.clauses)
    blocking: list[list[int]] = []
    try:
        for _ in range(BLOCKING_PHASE):
            result = _solve(solver, [], deadline, interruptible)
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
            if solver_name in _NON_INCREMENTAL:
                blocking.append(clause)
                solver.delete()
                solver = Solver(name=solver_name, bootstrap_with=formula.clauses + blocking)
            else:
                solver.add_clause(clause)
        if solver_name in _NON_INCREMENTAL:
            # No assumptions in this solver: keep blocking.
            while (result := _solve(solver, [], deadline, interruptible)) is True:
                true = [solver.get_model()[v - 1] for v in cell_variables]
                yield true
                blocking.append(formula.blocking_clause(true))
                solver.delete()
                solver = Solver(name=solver_name, bootstrap_with=formula.clauses + blocking)
            yield "interrupted" if result is None else "exhausted"
            return
        yield from _enumerate_by_splitting(solver, cell_variables, deadline, interruptible)
    finally:
        solver.delete()


def _enumerate_by_splitting(
    solver: Any, cell_variables: list[int], deadline: Deadline, interruptible: bool
) -> Iterator[Any]:
    stack: list[list[int]] = [[]]
    while stack:
        if deadline.expired():
            yield "interrupted"
            return
        assumptions = stack.pop()
        consistent, implied = solver.propagate(assumptions=assumptions)
        if not consistent:
            continue
        assigned = set(implied)
        assigned.update(assumptions)
        free = next((v for v in cell_variables if v not in assigned and -v not in assigned), None)
        if free is None:
            yield [v if v in assigned else -v for v in cell_variables]
            continue
        result = _solve(solver, assumptions, deadline, interruptible)
        if result is None:
            yield "interrupted"
            return
        if result:
            # Take the branch the model is in first: it holds a solution for sure.
            first = solver.get_model()[free - 1]
            stack.append([*assumptions, -first])
            stack.append([*assumptions, first])
    yield "exhausted"


def _solve(
    solver: Any, assumptions: list[int], deadline: Deadline, interruptible: bool
) -> bool | None:
    """Solve under assumptions; None when the deadline interrupted the solver."""
    remaining = deadline.remaining()
    if remaining is not None and remaining <= 0:
        return None
    if not (interruptible and remaining is not None):
        return bool(solver.solve(assumptions=assumptions))
    timer = threading.Timer(remaining, solver.interrupt)
    timer.start()
    try:
        result = solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
    finally:
        timer.cancel()
    if result is None:
        solver.clear_interrupt()
        return None
    return bool(result)


class SatBackend:
    name: ClassVar[str] = "sat"

    def search(
        self,
        residual: Residual,
        options: SearchOptions,
        deadline: Deadline,
        on_solution: OnSolution,
    ) -> SearchReport:
        solver_name = canonical_solver(options.solver)
        started = time.perf_counter()
        formula = encode_puzzle(residual.propagator, residual.domains, residual.lines)
        stats: dict[str, Any] = {
            "solver": solver_name,
            "cnf_variables": formula.variables,
            "cnf_clauses": len(formula.clauses),
            "encode_seconds": round(time.perf_counter() - started, 4),
        }
        if solver_name in _INTERRUPTIBLE or not deadline.bounded:
            models: Iterator[Any] = enumerate_models(formula, solver_name, deadline)
        else:
            models = _in_child(formula, solver_name, deadline)
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
        finally:
            close = getattr(models, "close", None)
            if close is not None:
                close()
            stats["solve_seconds"] = round(time.perf_counter() - solve_started, 4)
        return report


def _in_child(formula: CnfFormula, solver_name: str, deadline: Deadline) -> Iterator[Any]:
    """Run `enumerate_models` in a forked process, killed when the deadline passes."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child_main, args=(formula, solver_name, sender), daemon=True)
    child.start()
    sender.close()
    try:
        while True:
            remaining = deadline.remaining()
            if not receiver.poll(remaining):
                yield "interrupted"
                return
            try:
                item = receiver.recv()
            except EOFError:
                raise RuntimeError(f"the {solver_name} solver process died") from None
            yield item
            if item in ("exhausted", "interrupted"):
                return
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        receiver.close()


def _child_main(formula: CnfFormula, solver_name: str, sender: Connection) -> None:
    try:
        for item in enumerate_models(formula, solver_name, Deadline(None)):
            sender.send(item)
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    finally:
        sender.close()


BACKEND = SatBackend()
