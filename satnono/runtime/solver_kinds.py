"""The PySAT solvers there are: their names (PySAT's aliases, the canonical one each), which
of them this build can make, what each cannot do (incremental solving, propagate(),
set_phases(), interrupt()), and one made with its options set before anything is loaded.
`satnono.runtime.sat_solvers` runs them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from satnono.errors import InputError

#: Chosen by measurement: with the default encoding (blocks) and default phases, the fastest
#: total and slowest puzzle on the webpbn survey set (BENCHMARKS.md, portfolio section).
#: It was glucose42 with the automaton encoding, where glucose42 was the fastest.
DEFAULT_SOLVER = "glucose3"
#: PySAT solvers without incremental solving: they find the first solution, and the rest of
#: an enumeration goes on in ENUMERATION_SOLVER (rebuilding Kissat with every blocking clause
#: took 32-57 s for 2,000 solutions that CaDiCaL 1.9.5 lists in milliseconds).
NON_INCREMENTAL = frozenset({"kissat404"})
ENUMERATION_SOLVER = "cadical195"
#: PySAT solvers without propagate() ("Simple literal propagation is not yet implemented").
NO_PROPAGATE = frozenset({"cadical103", "kissat404", "lingeling"})
#: PySAT solvers without set_phases().
NO_PHASES = frozenset({"cadical103", "kissat404"})
#: PySAT solvers whose interrupt() works with solve_limited().
INTERRUPTIBLE = frozenset({
    "glucose3", "glucose4", "glucose42", "gluecard3", "gluecard4", "maplechrono", "maplecm",
    "maplesat", "mergesat3", "minicard", "minisat22", "minisatgh",
})  # fmt: skip


def solver_names() -> dict[str, str]:
    """Every name PySAT accepts, mapped to its canonical solver name."""
    from pysat.solvers import SolverNames

    names = {}
    for canonical, aliases in vars(SolverNames).items():
        if not canonical.startswith("_"):
            for alias in (canonical, *aliases):
                names[alias] = canonical
    return names


def is_interruptible(name: str) -> bool:
    """Whether PySAT's solver `name` (any alias) can be stopped in the middle of a call."""
    return solver_names().get(name, name) in INTERRUPTIBLE


def available_solvers() -> list[str]:
    """The canonical names of the solvers this PySAT build can create.

    PySAT names some solvers that a given build lacks (minisatgh, and cryptosat without
    pycryptosat): they raise at creation, so only the ones that construct are offered.
    """
    return sorted(name for name in set(solver_names().values()) if _constructs(name))


def _constructs(name: str) -> bool:
    from pysat.solvers import Solver

    try:
        Solver(name=name).delete()
    except Exception:  # NoSuchSolverError, or a missing optional module
        return False
    return True


def canonical_solver(name: str | None) -> str:
    """The canonical name of a solver that works here; InputError for any other name."""
    if name is None:
        return DEFAULT_SOLVER
    canonical = solver_names().get(name) if isinstance(name, str) else None
    if canonical is None or not _constructs(canonical):
        known = ", ".join(available_solvers())
        raise InputError(f"unknown SAT solver {name!r}; choose one of: {known}", "solver")
    return canonical


def configured_solver(
    name: str, options: Sequence[tuple[str, int]] = (), with_proof: bool = False
) -> Any:
    """A new PySAT solver with `options` (CaDiCaL's) set before anything is loaded, as CaDiCaL
    requires (it aborts the process otherwise)."""
    from pysat.solvers import Solver

    solver = Solver(name=name, with_proof=with_proof)
    if options:
        solver.configure(dict(options))
    return solver
