"""The CP-SAT backend: OR-tools CP-SAT on the residual cells, one automaton constraint per line.

Specified in encodings/cpsat-automaton.md. OR-tools takes about a second to import, so this
module is loaded only when the backend is chosen.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, ClassVar

from satnono.automaton import LineAutomaton
from satnono.backends import OnSolution, Residual, SearchOptions, SearchReport
from satnono.deadline import Deadline
from satnono.linesolver import colors_of


@dataclass
class CellModel:
    """A residual cell in the model: its value expression and one literal per color."""

    expression: Any  # affine expression over one CP-SAT variable, valued in palette indices
    literals: list[tuple[int, Any]]  # (color, literal true when the cell takes that color)


def automaton_transitions(automaton: LineAutomaton) -> list[tuple[int, int, int]]:
    """The (state, color, next state) triples of the clue automaton (satnono.automaton)."""
    triples = []
    for state in range(automaton.states):
        if automaton.loops >> state & 1:
            triples.append((state, 0, state))
        if state + 1 < automaton.states:
            triples.append((state, automaton.entry_color[state + 1], state + 1))
    return triples


def build_model(residual: Residual) -> tuple[Any, dict[int, CellModel]]:
    """The CP-SAT model: one variable per residual cell, one AddAutomaton per unfinished line."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    cells: dict[int, CellModel] = {}
    domains = residual.domains
    for cell in residual.cells():
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
        line_cells = residual.propagator.cells[line]
        if not any(cell in cells for cell in line_cells):
            continue
        automaton = residual.propagator.solvers[line].automaton
        expressions = [
            cells[cell].expression if cell in cells else domains[cell].bit_length() - 1
            for cell in line_cells
        ]
        model.add_automaton(expressions, 0, [automaton.accept], automaton_transitions(automaton))
    return model, cells


class CpSatBackend:
    name: ClassVar[str] = "cpsat"

    def search(
        self,
        residual: Residual,
        options: SearchOptions,
        deadline: Deadline,
        on_solution: OnSolution,
    ) -> SearchReport:
        """Solve, block the solution, solve again: each answer is found and proven in turn.

        A blocking loop (rather than CP-SAT's enumerate-all mode) keeps every solve
        multi-threaded and fully presolved; re-solving is cheap next to the search itself.
        """
        from ortools.sat.python import cp_model

        started = time.perf_counter()
        model, cells = build_model(residual)
        stats: dict[str, Any] = {
            "solver": "cp-sat",
            "threads": options.threads,
            "cpsat_variables": len(model.proto.variables),
            "cpsat_constraints": len(model.proto.constraints),
            "encode_seconds": round(time.perf_counter() - started, 4),
            "cpsat_conflicts": 0,
            "cpsat_branches": 0,
        }
        report = SearchReport(exhausted=False, stats=stats)
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = max(1, options.threads)
        solver.parameters.random_seed = options.seed
        solve_started = time.perf_counter()
        try:
            while True:
                remaining = deadline.remaining()
                if remaining is not None:
                    if remaining <= 0:
                        report.timed_out = True
                        break
                    solver.parameters.max_time_in_seconds = remaining
                status = solver.solve(model)
                stats["cpsat_conflicts"] += solver.num_conflicts
                stats["cpsat_branches"] += solver.num_branches
                if status == cp_model.INFEASIBLE:
                    report.exhausted = True
                    break
                if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                    if status == cp_model.UNKNOWN:
                        left = deadline.remaining()
                        if left is None or left > 0.1:
                            # CP-SAT catches SIGINT itself and just stops: give Ctrl-C back.
                            raise KeyboardInterrupt
                        report.timed_out = True
                        break
                    raise RuntimeError(f"CP-SAT returned {solver.status_name(status)}")
                decided = list(residual.domains)
                chosen = []
                for cell, entry in cells.items():
                    for color, literal in entry.literals:
                        if solver.boolean_value(literal):
                            decided[cell] = 1 << color
                            chosen.append(literal)
                            break
                if not on_solution(decided):
                    break
                model.add_bool_or([~literal for literal in chosen])
        finally:
            stats["solve_seconds"] = round(time.perf_counter() - solve_started, 4)
        return report


BACKEND = CpSatBackend()
