"""A formula's models one by one from a PySAT solver, for the SAT backend and the portfolio.

The first BLOCKING_PHASE solutions come from the classic loop (solve, block the solution,
solve again); past them, a depth-first split of the cells under assumptions. A first solve
given a rival is raced: past RIVAL_HEAD_START conflicts alone, FINISHER and the solver as it
stands go on side by side in forked children where two cores are idle, or the rival takes
turns with the solver on this core (`SatSolver.race`).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any

from satnono.encode.formula import CnfFormula
from satnono.runtime.clause_loading import add_clauses
from satnono.runtime.deadline import Deadline
from satnono.runtime.sat_solvers import Guess, Rival, SatSolver
from satnono.runtime.solver_kinds import (
    ENUMERATION_SOLVER,
    NO_PHASES,
    NO_PROPAGATE,
    NON_INCREMENTAL,
    configured_solver,
)

#: The seed that sets every initial phase to true instead of random ones: every residual cell
#: painted and (in the blocks encoding) every block as far right as it goes.
ALL_TRUE = -1

#: Solutions found by blocking clauses before enumeration switches to splitting (see below).
BLOCKING_PHASE = 64

#: Conflicts the solver has alone before its rival joins the race: what CaDiCaL needs on the
#: hard real puzzles (Faase 15,100 conflicts) and on all but 2 of taai2014's 254 probed
#: residuals (BENCHMARKS.md).
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


def enumerate_models(
    formula: CnfFormula,
    solver_name: str,
    deadline: Deadline,
    seed: int = 0,
    blocked: list[list[int]] | None = None,
    phases: list[int] | None = None,
    implied: Sequence[Sequence[int]] | None = None,
    rival: str | None = None,
    options: Sequence[tuple[str, int]] = (),
    quick_conflicts: int | None = None,
    guess: Guess | None = None,
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
    goes on). With a `guess` (SatSolver.race), FINISHER's child makes phases first and starts
    from them.
    """
    cell_variables = formula.cell_variables()
    incremental = solver_name not in NON_INCREMENTAL
    # Splitting needs propagate(); a solver without it blocks solutions to the end.
    splits = incremental and solver_name not in NO_PROPAGATE
    blocking: list[list[int]] = list(blocked or ())
    guided = phases is not None and solver_name not in NO_PHASES
    with SatSolver(solver_name, deadline, options=options) as solver:
        load(solver.solver, solver_name, formula, seed, blocking, deadline, phases, implied)

        def load_rival(other: Any) -> None:
            assert rival is not None
            load(other, rival, formula, seed, blocking, deadline, phases, implied)

        first = True
        named = solver_name  # who answers, said again whenever it changes
        while not splits or len(blocking) < BLOCKING_PHASE:
            if first and rival is not None:
                quick = (
                    (quick_conflicts, Rival(solver_name)) if options and quick_conflicts else None
                )
                early = guess is not None and _early(len(formula.cell_literals))
                result = solver.race(
                    rival, load_rival, RIVAL_HEAD_START, _second_core, FINISHER, quick, guess,
                    early,
                )  # fmt: skip
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
                first_name, solver_name = solver_name, ENUMERATION_SOLVER
                solver.replace(configured_solver(solver_name))
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


def _early(cells: int) -> bool:
    """Whether the race's guess starts as CaDiCaL does (its quick try and head start beside
    it) rather than after the head start (SatSolver.race's `early`): on a residual of
    EARLY_CELLS open cells or more, where this process may use two cores and fork."""
    from satnono.backends import usable_cores
    from satnono.runtime.child import can_fork

    return cells >= EARLY_CELLS and usable_cores() >= 2 and can_fork()


#: Open cells from which the race's guess starts with CaDiCaL (`_early`): a residual that
#: large takes CaDiCaL seconds where it has no quick answer (a random 45x45's quick try and
#: head start 2-3 s, against 1.2-2 s for decimation's grid, which then answers), while the probed
#: residuals of 25x25 tournament puzzles (625 cells at most), which mostly answer within tens
#: of milliseconds, never pay for a child they would not use (a fork, start and kill is ~18 ms).
EARLY_CELLS = 1_000


def load(
    solver: Any,
    solver_name: str,
    formula: CnfFormula,
    seed: int = 0,
    extra: Sequence[Sequence[int]] | None = None,
    deadline: Deadline | None = None,
    phases: list[int] | None = None,
    implied: Sequence[Sequence[int]] | None = None,
) -> None:
    """Load a new PySAT solver with the formula, then the `extra` clauses (blocking ones) and
    the `implied` ones (probing's); `phases` (literals) or a nonzero seed set the initial
    phases.

    The phase is what a CDCL solver tries first for each variable, so different seeds send
    otherwise identical solvers down different branches: cheap diversity for the portfolio.
    Solvers without phase control (CaDiCaL 1.0.3, Kissat) ignore both.
    Loading is done in chunks so that `deadline` can end it (raising Timeout): it takes
    about 0.9 s per million clauses, 28 s for a random 400 x 400 grid.
    """
    add_clauses(solver, formula.clauses, deadline)
    for more in (extra, implied):
        if more:
            add_clauses(solver, more, deadline)
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
