"""Loading clauses into PySAT's solvers, by the shortest way each solver has.

Most of a hand-over to CaDiCaL on the tournament sets was once spent on the way there: the
engine's clauses made into Python lists, each list handed to the solver by a Python call,
then freed. Now:

- the engine's own clauses (`satnono.logic.native.Clauses`: the blocks CNF and probing's
  implications) go into CaDiCaL 1.9.5 without becoming Python objects: the engine calls
  CaDiCaL's `add` itself (`add_to_cadical`), given its address, which `ctypes` finds in the
  pysolvers module PySAT loaded, and the solver's, which PySAT's handle holds;
- clauses held as lists go to CaDiCaL's and Glucose's C entry points straight
  (DIRECT_ENTRIES), one C call a clause, not two Python methods;
- any other solver, or a PySAT built without those names, gets `append_formula`.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Iterable, Sequence
from itertools import repeat
from typing import Any

from satnono.runtime.deadline import Deadline, Timeout

#: PySAT solvers whose clauses `add_clauses` hands to their C entry point straight: the class
#: of `Solver.solver`, the attribute holding its C handle, and the entry point in pysolvers.
#: `append_formula` calls two Python methods per clause on the way there: on taai2014's 254
#: probed residuals (3.4 million clauses) loading CaDiCaL took 1.43-1.55 s so, 0.96-0.99 s
#: straight (BENCHMARKS.md, round 22).
DIRECT_ENTRIES = {
    "Cadical195": ("cadical", "cadical195_add_cl"),
    "Glucose3": ("glucose", "glucose3_add_cl"),
    "Glucose42": ("glucose", "glucose421_add_cl"),
}
#: `void CaDiCaL195::Solver::add(int)` as the C++ ABI of Linux names it in pysolvers.
CADICAL_ADD = "_ZN10CaDiCaL1956Solver3addEi"
#: Clauses handed to the solver between two looks at the deadline (about 0.05 s of loading
#: as lists, far less from the engine).
LOAD_CHUNK = 50_000


def add_clauses(
    solver: Any, clauses: Iterable[Sequence[int]], deadline: Deadline | None = None
) -> None:
    """Add `clauses` to a PySAT `Solver` (or to the solver object it wraps) by the shortest
    way (see the module's comment), LOAD_CHUNK at a time when they have a length, looking at
    `deadline` between chunks (Timeout when it has passed). Either way a clause the solver
    finds contradicting the rest marks it unsatisfiable, as PySAT's `add_clause` does."""
    inner = getattr(solver, "solver", solver)
    native = getattr(clauses, "add_to_cadical", None)
    straight = _cadical_addresses(inner) if native is not None else None
    if not isinstance(clauses, Sequence):
        _add(solver, inner, clauses)
        return
    for start in range(0, len(clauses), LOAD_CHUNK):
        if deadline is not None and deadline.expired():
            raise Timeout
        if straight is not None and native is not None:
            native(*straight, start, start + LOAD_CHUNK)
        elif start == 0 and len(clauses) <= LOAD_CHUNK:
            _add(solver, inner, clauses)
        else:
            _add(solver, inner, clauses[start : start + LOAD_CHUNK])


def _add(solver: Any, inner: Any, clauses: Iterable[Sequence[int]]) -> None:
    """Through the C entry point DIRECT_ENTRIES names, else `append_formula`."""
    entry = DIRECT_ENTRIES.get(type(inner).__name__)
    handle = getattr(inner, entry[0], None) if entry is not None else None
    if entry is None or not handle:
        solver.append_formula(clauses)
        return
    import pysolvers

    add = getattr(pysolvers, entry[1])
    if not min(map(add, repeat(handle), clauses), default=True):
        inner.status = False


def _cadical_addresses(inner: Any) -> tuple[int, int] | None:
    """(the address of CaDiCaL 1.9.5's `add`, that of the solver) for a PySAT `Cadical195`
    with a solver made; None for any other solver, or where either cannot be found."""
    if type(inner).__name__ != "Cadical195" or type(inner).__module__ != "pysat.solvers":
        return None
    add = cadical_add_address()
    handle = getattr(inner, "cadical", None)
    if add is None or handle is None:
        return None
    try:
        pointer = _capsule_pointer()(handle, None)
    except ValueError:  # not a capsule, or one with a name: not the handle PySAT makes
        return None
    return (add, pointer) if pointer else None


@functools.cache
def cadical_add_address() -> int | None:
    """The address of `CADICAL_ADD` in the pysolvers module this process loaded (dlopen of a
    loaded library gives it back, not a second copy); None where PySAT's build does not
    export it (the lists' way is taken then)."""
    try:
        import pysolvers

        library = ctypes.CDLL(pysolvers.__file__)
        address: int | None = ctypes.cast(getattr(library, CADICAL_ADD), ctypes.c_void_p).value
    except (ImportError, OSError, AttributeError):
        return None
    return address


@functools.cache
def _capsule_pointer() -> Any:
    """Python's `PyCapsule_GetPointer`, typed for ctypes (a ValueError when the object is not
    a capsule of that name)."""
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return get_pointer
