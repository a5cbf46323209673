"""A PySAT solver that solves in a forked child, one whole call per solve, for as long as
its parent asks.

CaDiCaL 1.9.5 has no interrupt(), so in this process it solves in slices of a conflict budget
(satnono.runtime.sat_solvers); but every slice's end is a new call that starts CaDiCaL's
search schedule over, and where the slices end (sized by the time they take) changes the
search: on the probed residual of a random 40x40 one whole call took 13.4-13.9 s, sliced
runs 7.8-13.7 s, and on another 15.7-16.8 s against 3.0-42.6 s (BENCHMARKS.md, issue 43). A
child needs no slices: it is killed at the deadline. The parent keeps its own solver and
hands the child each clause and phase it adds to it, so it can go on without the child at
any point (assumptions, propagation, the child gone).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from satnono.runtime.child import ChildFinished, ForkedChild, wait_any
from satnono.runtime.deadline import Deadline, Timeout

#: Longest wait for a child's answer between two looks at the deadline (seconds): a
#: deadline may be cancelled (Ctrl-C, a cancelled web solve) while the child solves.
LOOK = 0.1

#: What a served solve answers: satisfiable or not, and the model when it is.
Answer = tuple[bool, list[int] | None]


def _serve(make: Callable[[], Any]) -> Callable[[Callable[[Any], None], Callable[..., Any]], None]:
    """The child's work: solve the solver `make()` gives at once (or, given (solver, label),
    that solver, the label naming who answers), send the answer with the label (None: the
    starter's), then take the parent's requests ("clause", c), ("phases", p) and ("solve",)
    until it is killed, answering each."""

    def run(send: Callable[[Any], None], receive: Callable[..., Any]) -> None:
        made = make()
        solver, label = made if isinstance(made, tuple) else (made, None)
        satisfiable = bool(solver.solve())
        send((satisfiable, solver.get_model() if satisfiable else None, label))
        while True:
            while (request := receive())[0] != "solve":
                if request[0] == "clause":
                    solver.add_clause(request[1])
                else:
                    solver.set_phases(request[1])
            satisfiable = bool(solver.solve())
            send((satisfiable, solver.get_model() if satisfiable else None))

    return run


class Served:
    """The child that answered first (`first`), serving the later solves: its label, and
    which of the starters it is."""

    def __init__(self, child: ForkedChild, label: str, index: int) -> None:
        self.child = child
        self.label = label
        self.index = index

    def add_clause(self, clause: Sequence[int]) -> None:
        self.child.post(("clause", list(clause)))

    def set_phases(self, literals: Sequence[int]) -> None:
        self.child.post(("phases", list(literals)))

    def solve(self, deadline: Deadline) -> Answer | None:
        """The next answer, None at the deadline; raises RuntimeError (or ChildFinished,
        OSError) when the child failed: the caller goes on without it."""
        self.child.post(("solve",))
        while not deadline.expired():
            try:
                answer: Answer = self.child.receive(LOOK)
            except Timeout:
                continue
            return answer
        return None

    def stop(self) -> None:
        self.child.kill()


def start(label: str, make: Callable[[], Any]) -> ForkedChild:
    """A child forked now to solve `make()`'s solver and then serve (`_serve`), as `first`
    forks each of its starters; its first answer is read by `answered` or by `first`."""
    return ForkedChild(_serve(make), f"{label} solver", quiet=True, inbox=True)


def answered(child: ForkedChild, label: str) -> tuple[Served, Answer] | None:
    """The first answer of a child made by `start`, when it has given one (the child then
    serves, as the first of a race's starters, labelled `label` unless it named itself);
    None while it has not; RuntimeError when it failed (it is killed then)."""
    if not child.ready():
        return None
    given = _first_answer(child)
    if given is None:
        child.kill()
        raise RuntimeError(f"the {label} solver failed")
    answer, named = given
    return Served(child, named or label, 0), answer


def first(
    starters: Sequence[tuple[str, Callable[[], Any]]],
    deadline: Deadline,
    started: Sequence[tuple[ForkedChild, str]] = (),
) -> tuple[Served, Answer] | None:
    """Forks a child per (label, make) of `starters`, each solving `make()`'s loaded solver
    in one call (`make()` may give (solver, label) instead, the label then naming who
    answered); `started` are children forked before (`start`), with their labels, ahead of
    the starters in the order of the race (`Served.index`). The first to answer is kept,
    serving, and the others are killed. None when the deadline comes first or every child
    failed (all killed then)."""
    labels = [label for _, label in started] + [label for label, _ in starters]
    children = {child: index for index, (child, _) in enumerate(started)}
    try:
        for index, (label, make) in enumerate(starters, len(started)):
            children[start(label, make)] = index
        while children and not deadline.expired():
            for child in wait_any(list(children), LOOK):
                index = children.pop(child)
                given = _first_answer(child)
                if given is None:  # it failed: the others go on
                    child.kill()
                    continue
                answer, named = given
                return Served(child, named or labels[index], index), answer
        return None
    finally:
        for child in children:
            child.kill()


def _first_answer(child: ForkedChild) -> tuple[Answer, str | None] | None:
    """A serving child's first answer (one is waiting), with the label it named itself by;
    None when it failed instead."""
    try:
        satisfiable, model, label = child.receive(0)
    except (ChildFinished, RuntimeError, Timeout):
        return None
    return (satisfiable, model), label
