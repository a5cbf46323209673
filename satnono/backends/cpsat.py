"""The CP-SAT backend: OR-tools CP-SAT on the residual cells, one automaton constraint per line.

Specified in encodings/cpsat-automaton.md. OR-tools takes about a second to import, so this
module is loaded only when the backend is chosen.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from satnono.backends import Residual, SearchOptions, SearchReport, SearchTask
from satnono.core.grids import colors_of
from satnono.encode.automaton import LineAutomaton, automaton_of_line
from satnono.runtime.child import Send, can_fork, stream_from_child
from satnono.runtime.deadline import Deadline, Timeout
from satnono.runtime.stoppable import Stoppable


@dataclass
class CellModel:
    """A residual cell in the model: its value expression and one literal per color."""

    expression: Any  # affine expression over one CP-SAT variable, valued in palette indices
    literals: list[tuple[int, Any]]  # (color, literal true when the cell takes that color)


def automaton_transitions(automaton: LineAutomaton) -> list[tuple[int, int, int]]:
    """The (state, color, next state) triples of the clue automaton (satnono.encode.automaton)."""
    return [
        (state, color, target)
        for state in range(automaton.states)
        for color, target in automaton.transitions(state)
    ]


def build_model(
    residual: Residual, deadline: Deadline | None = None
) -> tuple[Any, dict[int, CellModel]]:
    """The CP-SAT model: one variable per residual cell, one AddAutomaton per unfinished line.

    Raises Timeout when `deadline` passes first, looked at as cells and lines are added
    (building takes 2 to 3 s for a random 400 x 400 grid).
    """
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    cells: dict[int, CellModel] = {}
    domains = residual.domains
    for made, cell in enumerate(residual.cells()):
        if not made & 1023 and deadline is not None and deadline.expired():
            raise Timeout
        domain = domains[cell]
        colors = colors_of(domain)
        if len(colors) == 2:
            # A Boolean is the cheapest form: value = low + (high - low) * b.
            b = model.new_bool_var(f"c{cell}")
            low, high = colors
            cells[cell] = CellModel(low + (high - low) * b, [(low, ~b), (high, b)])
            continue
        value = model.new_int_var_from_domain(cp_model.Domain.from_values(colors), f"c{cell}")
        literals = []
        for color in colors:
            b = model.new_bool_var(f"c{cell}={color}")
            model.add(value == color).only_enforce_if(b)
            model.add(value != color).only_enforce_if(~b)
            literals.append((color, b))
        model.add_exactly_one(b for _, b in literals)
        cells[cell] = CellModel(value, literals)
    for line in residual.scope():
        line_cells = residual.geometry.cells[line]
        if not any(cell in cells for cell in line_cells):
            continue
        if deadline is not None and deadline.expired():
            raise Timeout
        automaton = automaton_of_line(residual.puzzle, line)
        expressions = [
            cells[cell].expression if cell in cells else domains[cell].bit_length() - 1
            for cell in line_cells
        ]
        finals = [q for q in range(automaton.states) if automaton.accepting >> q & 1]
        model.add_automaton(expressions, 0, finals, automaton_transitions(automaton))
    return model, cells


#: With several threads, limits up to this are found by blocking solves (each multi-threaded);
#: anything else is one enumerate-all search. A blocking solve costs a presolve and a restart
#: each time: with one thread, enumeration was 2x faster on the survey set even for 2
#: solutions (Marley 20.6 -> 9.5 s, Hot 2.8 -> 1.2 s, measured with both modes on this machine),
#: and far faster for long lists (13 ms a solution -> well under 1 ms on 720-solution squares).
BLOCKING_LIMIT = 4


class CpSatBackend:
    name: ClassVar[str] = "cpsat"

    def search(self, task: SearchTask) -> SearchReport:
        """One enumerate-all search; or, with --threads > 1 and a small limit, blocking solves.

        CP-SAT's enumerate-all mode runs one thread and keeps presolve from removing
        solutions; the blocking loop keeps every solve multi-threaded and fully presolved,
        which is the only way to use several threads for the usual 1 or 2 solutions.
        Under a deadline the search runs in a forked child, killed CHILD_GRACE seconds
        after the deadline if it is still going: CP-SAT looks at neither its time limit nor
        stop_search() while it loads a presolved model (0.8 s late on frans_faase, 95 x 80;
        7 s on a random 400 x 400 grid).
        """
        if task.deadline.bounded and can_fork():
            return _search_in_child(task)
        return _search(task)


#: Seconds a CP-SAT child may run past the deadline to stop by itself and report its stats.
CHILD_GRACE = 0.1


def _search_in_child(task: SearchTask) -> SearchReport:
    residual, options, deadline, on_solution = task.parts()
    cells = residual.cells()

    def run(send: Send) -> None:
        sent = 0

        def forward(decided: list[int]) -> bool:
            nonlocal sent
            send([decided[cell] for cell in cells])
            sent += 1
            return options.limit == 0 or sent < options.limit  # never more than wanted

        report = _search(replace(task, on_solution=forward), on_model=send)
        send(report)

    report = SearchReport(exhausted=False, timed_out=True, stats={"solver": "cp-sat"})
    items = stream_from_child(run, deadline, "CP-SAT", CHILD_GRACE)
    try:
        for item in items:
            if isinstance(item, SearchReport):
                return item
            if isinstance(item, dict):  # the model's size, kept if the search is cut short
                report.stats.update(item)
                continue
            decided = list(residual.domains)  # a new list each time, as in-process
            for cell, domain in zip(cells, item, strict=True):
                decided[cell] = domain
            if not on_solution(decided):
                report.timed_out = False
                return report
    except Timeout:
        report.stats["cpsat_child"] = "killed at the deadline"
    finally:
        items.close()
    return report


def _search(
    task: SearchTask, on_model: Callable[[dict[str, Any]], None] | None = None
) -> SearchReport:
    """The search; `on_model` is told the model's stats as soon as it is built."""
    residual, options, deadline = task.residual, task.options, task.deadline
    started = time.perf_counter()
    try:
        model, cells = build_model(residual, deadline)
    except Timeout:
        return SearchReport(exhausted=False, timed_out=True, stats={"solver": "cp-sat"})
    stats: dict[str, Any] = {
        "solver": "cp-sat",
        "threads": options.threads,
        "cpsat_variables": len(model.proto.variables),
        "cpsat_constraints": len(model.proto.constraints),
        "encode_seconds": round(time.perf_counter() - started, 4),
        "cpsat_conflicts": 0,
        "cpsat_branches": 0,
    }
    if on_model is not None:
        on_model(dict(stats))
    report = SearchReport(exhausted=False, stats=stats)
    solve_started = time.perf_counter()
    try:
        if options.threads > 1 and 0 < options.limit <= BLOCKING_LIMIT:
            _block_and_solve(model, cells, task, report)
        else:
            _enumerate(model, cells, task, report)
    finally:
        stats["solve_seconds"] = round(time.perf_counter() - solve_started, 4)
    return report


def _decided(
    residual: Residual, cells: dict[int, CellModel], value: Any
) -> tuple[list[int], list[Any]]:
    """The decided domains of a solution, and the true color literal of each residual cell."""
    decided = list(residual.domains)
    chosen = []
    for cell, entry in cells.items():
        for color, literal in entry.literals:
            if value(literal):
                decided[cell] = 1 << color
                chosen.append(literal)
                break
    return decided, chosen


def _new_solver(options: SearchOptions) -> Any:
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    solver.parameters.num_workers = max(1, options.threads)
    solver.parameters.random_seed = options.seed
    # Ctrl-C and the deadline stop the search through stop_search() (see _StoppableCpSat);
    # CP-SAT's own SIGINT catching made a Ctrl-C look like a timeout and the reverse.
    solver.parameters.catch_sigint_signal = False
    return solver


class _StoppableCpSat(Stoppable):
    """A CP-SAT search in progress, stopped at its deadline or on Ctrl-C by stop_search()."""

    def __init__(self, solver: Any, deadline: Deadline) -> None:
        super().__init__(deadline)
        self.solver = solver

    def interrupt(self) -> None:
        self.solver.stop_search()


def _stopped_early(stoppable: _StoppableCpSat, report: SearchReport) -> None:
    """CP-SAT stopped before the end: the deadline (ours, cancelled on Ctrl-C, or its own
    time limit)."""
    report.timed_out = True


def _solve(solver: Any, model: Any, deadline: Deadline, callback: Any = None) -> tuple[Any, Any]:
    """solver.solve under the watcher; also returns the _StoppableCpSat that watched it.

    The watcher's stop_search() is what makes Ctrl-C work, but CP-SAT's presolve does not look
    at it (0.6 s late on frans_faase); its own time limit is checked there, so it is set too.
    """
    remaining = deadline.remaining()
    if remaining is not None:
        solver.parameters.max_time_in_seconds = remaining
    with _StoppableCpSat(solver, deadline) as stoppable:
        status = solver.solve(model, callback)
    return status, stoppable


def _block_and_solve(
    model: Any, cells: dict[int, CellModel], task: SearchTask, report: SearchReport
) -> None:
    from ortools.sat.python import cp_model

    residual, options, deadline, on_solution = task.parts()
    solver = _new_solver(options)
    stats = report.stats
    while True:
        if deadline.expired():
            report.timed_out = True
            return
        status, stoppable = _solve(solver, model, deadline)
        stats["cpsat_conflicts"] += solver.num_conflicts
        stats["cpsat_branches"] += solver.num_branches
        if status == cp_model.INFEASIBLE:
            report.exhausted = True
            return
        if status == cp_model.UNKNOWN:
            _stopped_early(stoppable, report)
            return
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            raise RuntimeError(f"CP-SAT returned {solver.status_name(status)}")
        decided, chosen = _decided(residual, cells, solver.boolean_value)
        if not on_solution(decided):
            return
        model.add_bool_or([~literal for literal in chosen])


def _enumerate(
    model: Any, cells: dict[int, CellModel], task: SearchTask, report: SearchReport
) -> None:
    from ortools.sat.python import cp_model

    residual, options, deadline, on_solution = task.parts()

    class Callback(cp_model.CpSolverSolutionCallback):
        wanted_more = True
        error: BaseException | None = None

        def on_solution_callback(self) -> None:
            try:
                decided, _ = _decided(residual, cells, self.boolean_value)
                if not on_solution(decided):
                    self.wanted_more = False
                    self.stop_search()
            except BaseException as error:  # raised again outside the solver
                self.error = error
                self.stop_search()

    solver = _new_solver(options)
    solver.parameters.num_workers = 1  # what enumerate-all supports
    solver.parameters.enumerate_all_solutions = True
    if deadline.expired():
        report.timed_out = True
        return
    callback = Callback()
    status, stoppable = _solve(solver, model, deadline, callback)
    report.stats["cpsat_conflicts"] += solver.num_conflicts
    report.stats["cpsat_branches"] += solver.num_branches
    if callback.error is not None:
        raise callback.error
    if not callback.wanted_more:
        return
    if status in (cp_model.OPTIMAL, cp_model.INFEASIBLE):
        report.exhausted = True  # every solution reported (or there is none)
    elif status in (cp_model.FEASIBLE, cp_model.UNKNOWN):
        _stopped_early(stoppable, report)
    else:
        raise RuntimeError(f"CP-SAT returned {solver.status_name(status)}")


BACKEND = CpSatBackend()
