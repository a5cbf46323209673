"""satnono.runtime.sat_solvers and satnono.runtime.served: CaDiCaL solving in slices within
its deadline, and the race of a solver with its rivals, its finisher and its guess, in this
process or in forked children that serve the later solves."""

from __future__ import annotations

import os
import random
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from satnono.runtime.deadline import Deadline, Timeout
from support import children

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def test_cadical_without_interrupt_stops_at_its_deadline_between_slices() -> None:
    """CaDiCaL 1.9.5 has no interrupt(): it solves in slices of a conflict budget and looks
    at the deadline between them, so it can run in this process (no child to kill)."""
    from pysat.examples.genhard import PHP

    from satnono.runtime.sat_solvers import SLICE_SECONDS, SatSolver

    hard = PHP(12).clauses  # pigeons into holes: minutes for CDCL
    started = time.monotonic()
    with SatSolver("cadical195", Deadline(0.5), hard) as solver:
        assert solver.solve() is None
    assert time.monotonic() - started < 0.5 + 3 * SLICE_SECONDS + 0.5
    with SatSolver("cadical195", Deadline(5), [[1, 2], [-1], [-2, 3]]) as solver:
        assert solver.solve() is True
        assert solver.solve([-3]) is False


class _EndedByItsRule(Deadline):
    """A deadline with no time limit that has passed by a rule of its own, as a count's
    listing's does once the engine's count has ended (counting.count._UntilEnded)."""

    def __init__(self) -> None:
        super().__init__(None)

    def expired(self) -> bool:
        return True


@pytest.mark.parametrize("name", ["cadical195", "glucose42", "minisat22"])
def test_a_deadline_passed_by_its_own_rule_stops_a_solve_before_it_starts(name: str) -> None:
    """Regression: the check before a solve read only the time left, so a count's listing of
    its first 64 solutions went on after the engine had counted (thin-20020: the count in
    0.25 s, the listing 0.5 s more, 64 solves of 7 ms each, each too short to be stopped)."""
    from satnono.runtime.sat_solvers import SatSolver

    with SatSolver(name, Deadline(None), [[1, 2], [-1]]) as solver:
        solver.deadline = _EndedByItsRule()  # passed once loaded (loading looks at it too)
        assert solver.solve() is None
    with pytest.raises(Timeout):  # a formula is never left loaded in part
        SatSolver(name, _EndedByItsRule(), [[1, 2], [-1]])
    with SatSolver(name, Deadline(None), [[1, 2], [-1]]) as solver:
        assert solver.solve() is True


@pytest.mark.parametrize(("seconds", "most"), [(2, 2_000), (60, 10_000)])
def test_cadical_s_first_slice_fits_a_near_deadline(seconds: float, most: int) -> None:
    """Before its speed is known, CaDiCaL's first slice is sized for a slow machine when the
    deadline is near: its tuned 10,000 conflicts took 8.7 s past a 4 s timeout with 6 other
    processes on 2 cores. A distant deadline keeps the tuned slice."""
    from pysat.examples.genhard import PHP

    from satnono.runtime.sat_solvers import SatSolver

    budgets: list[int] = []
    with SatSolver("cadical195", Deadline(seconds), PHP(12).clauses) as solver:
        real = solver.solver.conf_budget
        solver.solver.conf_budget = lambda n: (budgets.append(n), real(n))[1]
        assert solver.solve_for(0.05) is None
    assert most // 2 <= budgets[0] <= most


def test_a_race_keeps_the_solver_that_answers_and_ends_at_its_deadline() -> None:
    """After its head start in conflicts the first solver takes turns with a rival; the one
    that answers goes on as the adapter's solver, and two that cannot answer stop at the
    deadline. (The rival is loaded with another formula here, so that which one answered
    shows.)"""
    from pysat.examples.genhard import PHP

    from satnono.runtime.sat_solvers import SLICE_SECONDS, SatSolver

    hard = PHP(12).clauses
    easy = [[1, 2], [-1], [-2, 3]]
    made: list[str] = []

    def rival_easy(solver: object) -> None:
        made.append("rival")
        solver.append_formula(easy)  # type: ignore[attr-defined]

    with SatSolver("cadical195", Deadline(30), easy) as solver:
        assert solver.race("glucose3", rival_easy, 20_000) is True
        assert solver.name == "cadical195" and made == []  # answered in its head start
    with SatSolver("cadical195", Deadline(30), hard) as solver:
        assert solver.race("glucose3", rival_easy, 2_000) is True
        assert solver.name == "glucose3" and made == ["rival"]
        assert solver.get_model()[:3] == [-1, 2, 3]
        assert solver.solve([-3]) is False  # the rival goes on as the solver

    def rival_hard(solver: object) -> None:
        solver.append_formula(hard)  # type: ignore[attr-defined]

    started = time.monotonic()
    with SatSolver("cadical195", Deadline(1), hard) as solver:
        assert solver.race("glucose3", rival_hard, 2_000) is None
    assert time.monotonic() - started < 1 + 3 * SLICE_SECONDS + 0.5


def test_a_race_s_quick_try_gives_way_to_a_fresh_solver_for_the_head_start() -> None:
    """With a quick try, the first solver has only its conflicts; then a fresh solver of the
    kind given, loaded anew, takes its place for the head start (and the race after it). (The
    fresh one is loaded with another formula here, so that which one answered shows.)"""
    from pysat.examples.genhard import PHP

    from satnono.runtime.sat_solvers import Rival, SatSolver

    easy = [[1, 2], [-1], [-2, 3]]
    loaded: list[int] = []

    def load_easy(solver: object) -> None:
        loaded.append(1)
        solver.append_formula(easy)  # type: ignore[attr-defined]

    quick = (500, Rival("cadical195"))
    options = (("restart", 0),)
    with SatSolver("cadical195", Deadline(30), easy, options=options) as solver:
        assert solver.race("glucose3", load_easy, 20_000, quick=quick) is True
        assert loaded == []  # answered within its quick try: no other solver made
    with SatSolver("cadical195", Deadline(30), PHP(10).clauses, options=options) as solver:
        first = solver.solver
        assert solver.race("glucose3", load_easy, 20_000, quick=quick) is True
        assert loaded == [1] and solver.solver is not first and solver.name == "cadical195"
        assert solver.get_model()[:3] == [-1, 2, 3] and solver.conflicts() < 500
        assert solver.solve([-3]) is False  # the fresh solver goes on as the solver


def test_a_race_asks_for_a_second_core_only_past_its_head_start() -> None:
    """Whether a core is idle is measured by sleeping 50 ms: it was measured before every
    race, also where the solver answers within its head start (most probed residuals); and
    only a race that goes on in children asks (taking turns, it does not matter)."""
    from pysat.examples.genhard import PHP

    from satnono.runtime.sat_solvers import Rival, SatSolver

    asked: list[bool] = []

    def no_core() -> bool:
        asked.append(False)
        return False

    def rival(solver: object) -> None:
        solver.append_formula([[1, 2], [-1], [-2, 3]])  # type: ignore[attr-defined]

    finisher = Rival("cadical195")
    with SatSolver("cadical195", Deadline(30), [[1, 2], [-1], [-2, 3]]) as solver:
        assert solver.race("glucose3", rival, 20_000, no_core, finisher) is True
    assert asked == []
    with SatSolver("cadical195", Deadline(30), PHP(12).clauses) as solver:
        assert solver.race("glucose3", rival, 2_000, no_core) is True  # taking turns
        assert solver.rival_answered and solver.name == "glucose3"
    assert asked == []
    with SatSolver("cadical195", Deadline(30), PHP(12).clauses) as solver:
        assert solver.race("glucose3", rival, 2_000, no_core, finisher) is True
        assert solver.rival_answered and solver.name == "cadical195" and solver.served
    assert asked == [False]


def test_a_finished_race_goes_on_in_children_that_serve_the_later_solves(
    no_children_left: None,
) -> None:
    """Past its head start a race with a finisher goes on in forked children, each one
    unsliced solve call: the finisher alone, or the first solver beside it on a core of its
    own.
    The one that answers serves the later solves with the clauses and phases the adapter is
    given; a solve under assumptions, or the child's death, and this process's solver (which
    was given them too) goes on. (The finisher is loaded with a formula of its own, so that
    who answered shows.)"""
    from pysat.examples.genhard import PHP

    from satnono.runtime.sat_solvers import Rival, SatSolver

    hard = PHP(12).clauses
    three = [[1, 2, 3], [-1, -2], [-1, -3], [-2, -3]]  # one of three: three models
    finisher = Rival("cadical195", (("stabilizeonly", 1),), "stable")

    def loading(clauses: list[list[int]]) -> Callable[[object], None]:
        def load(solver: object) -> None:
            solver.append_formula(clauses)  # type: ignore[attr-defined]

        return load

    for both, answering in ((False, {"stable"}), (True, {"stable", "cadical195"})):
        with SatSolver("cadical195", Deadline(30), hard) as solver:
            assert solver.race("glucose3", loading(three), 2_000, both, finisher) is True
            assert solver.name in answering and solver.served
            seen = set()
            for _ in range(4):  # three models, then unsatisfiable
                model = solver.get_model()
                seen.add(tuple(model[:3]))
                solver.add_clause([-lit for lit in model[:3]])
                solver.set_phases([-lit for lit in model[:3]])
                answer = solver.solve()
                assert solver.served is not None  # served, not by this process's solver
                if not answer:
                    break
            assert answer is False and len(seen) == 3
            assert all(sum(lit > 0 for lit in model) == 1 for model in seen)
        assert children() == []

    rng = random.Random(7)  # a random 3-SAT that CaDiCaL solves in about 2,000 conflicts
    some = [[v * rng.choice((1, -1)) for v in rng.sample(range(1, 201), 3)] for _ in range(820)]

    def satisfies(model: list[int]) -> bool:
        return all(any(model[abs(lit) - 1] == lit for lit in clause) for clause in some)

    with SatSolver("cadical195", Deadline(30), some) as solver:
        assert solver.race("glucose3", loading(some), 1, True, finisher) is True
        first = solver.get_model()
        assert solver.served is not None and satisfies(first)
        served_by = solver.name
        os.kill(solver.served.child.pid, signal.SIGKILL)  # its child dies: this solver goes on
        solver.add_clause([-lit for lit in first])
        assert solver.solve() is True and solver.served is None
        assert satisfies(solver.get_model()) and solver.get_model() != first
        assert solver.name == f"{served_by}+cadical195"  # who answered after the child
    with SatSolver("cadical195", Deadline(30), some) as solver:
        assert solver.race("glucose3", loading(some), 1, True, finisher) is True
        first, served_by = solver.get_model(), solver.name
        assert solver.solve([-first[0]]) is True and solver.served is None  # here from now on
        model = solver.get_model()
        assert satisfies(model) and model[0] == -first[0]
        assert solver.name == f"{served_by}+cadical195"

    def cadical_fails(solver: object) -> None:
        if type(solver.solver).__name__.startswith("Cadical"):  # type: ignore[attr-defined]
            raise MemoryError("the finisher could not load")
        loading(some)(solver)

    with SatSolver("cadical195", Deadline(30), some) as solver:  # the one beside answers
        assert solver.race("glucose3", cadical_fails, 1, True, finisher) is True
        assert not solver.rival_answered and solver.name == "cadical195" and solver.served
        assert satisfies(solver.get_model())
    with SatSolver("cadical195", Deadline(30), some) as solver:  # every child failed
        assert solver.race("glucose3", cadical_fails, 1, False, finisher) is True
        assert solver.served is None and satisfies(solver.get_model())

    started = time.monotonic()
    with SatSolver("cadical195", Deadline(1), hard) as solver:
        assert solver.race("glucose3", loading(hard), 2_000, True, finisher) is None
        assert solver.served is None
    assert time.monotonic() - started < 1.5


def test_a_race_s_guess_gives_the_finisher_its_phases(no_children_left: None) -> None:
    """Past the head start, a race given a guess makes it first thing in the finisher's child
    (CaDiCaL going on beside it keeps its own core): the finisher starts from the phases
    guessed, so that its first model is the guessed one, named "label+finisher", and serves
    the later solves. A guess that finds nothing, or fails, and the finisher starts as it
    would have; the deadline ends them all."""
    from pysat.examples.genhard import PHP

    from satnono.runtime.sat_solvers import Rival, SatSolver

    hard = PHP(12).clauses  # the head start's solver never answers
    rng = random.Random(7)
    some = [[v * rng.choice((1, -1)) for v in rng.sample(range(1, 201), 3)] for _ in range(820)]
    with SatSolver("cadical195", Deadline(30), some) as solver:
        assert solver.solve() is True
        known = solver.get_model()
    flipped = [-lit for lit in known]  # known's phases negated: not a model of `some`
    finisher = Rival("cadical195", (), "finisher")

    def load_some(solver: object) -> None:
        solver.append_formula(some)  # type: ignore[attr-defined]
        solver.set_phases(flipped)  # type: ignore[attr-defined]

    def satisfies(model: list[int]) -> bool:
        return all(any(model[abs(lit) - 1] == lit for lit in clause) for clause in some)

    def failing() -> list[int]:
        raise RuntimeError("the guess failed")

    for both in (False, True):
        with SatSolver("cadical195", Deadline(30), hard) as solver:
            guess = ("guessed", lambda: known)
            assert solver.race("glucose3", load_some, 1, both, finisher, None, guess) is True
            assert solver.name == "guessed+finisher" and solver.served is not None
            assert solver.get_model() == known
            solver.add_clause([-lit for lit in known])
            assert solver.solve() is True and solver.served is not None
            assert satisfies(solver.get_model()) and solver.get_model() != known
        assert children() == []
    for nothing in (lambda: None, failing):
        with SatSolver("cadical195", Deadline(30), hard) as solver:
            assert solver.race("glucose3", load_some, 1, False, finisher, None, ("g", nothing))
            assert solver.name == "finisher" and satisfies(solver.get_model())
            assert solver.get_model() != known
    started = time.monotonic()
    with SatSolver("cadical195", Deadline(1), hard) as solver:  # nothing answers
        slow = ("g", lambda: time.sleep(5))
        assert solver.race("glucose3", lambda s: None, 1, True, finisher, None, slow) is None
        assert solver.served is None
    assert time.monotonic() - started < 1.5
    assert children() == []


@pytest.mark.parametrize("name", ["cadical195", "glucose3", "glucose42", "minisat22"])
def test_clauses_added_straight_are_the_same_formula(name: str) -> None:
    """`add_clauses` hands clauses to CaDiCaL's and Glucose's C entry points straight (and to
    other solvers through append_formula): the same models as PySAT's own loading, on a
    random 3-SAT formula near the threshold, and a contradiction found while adding (a unit
    and its negation) still makes the solver say unsatisfiable."""
    import pysolvers
    from pysat.solvers import Solver

    from satnono.runtime.clause_loading import DIRECT_ENTRIES, add_clauses

    for handle, entry in DIRECT_ENTRIES.values():  # a PySAT that renamed them fails here
        assert callable(getattr(pysolvers, entry)), (handle, entry)
    rng = random.Random(7)
    for _ in range(20):
        clauses = [[rng.choice([-1, 1]) * rng.randint(1, 30) for _ in range(3)] for _ in range(120)]
        with Solver(name=name) as straight, Solver(name=name, bootstrap_with=clauses) as pysat:
            add_clauses(straight, clauses)
            assert straight.solve() == pysat.solve()
            model = straight.get_model()
            if model is not None:
                true = set(model)
                assert all(any(lit in true for lit in clause) for clause in clauses)
    with Solver(name=name) as contradicted:
        add_clauses(contradicted, [[1, 2], [3], [-3]])
        assert contradicted.solve() is False


def test_an_early_race_s_finisher_answers_beside_the_head_start(no_children_left: None) -> None:
    """With `early`, the guessing finisher's child starts with the race (its quick try and
    head start), not after the head start: on a formula the head start cannot answer (a
    billion conflicts of it), the finisher's answer from the phases guessed is taken at the
    end of a slice, long before the head start would end (or the quick try), and that child
    serves the later solves. Where the head start answers first, the child is killed."""
    from pysat.examples.genhard import PHP

    from satnono.runtime.sat_solvers import Rival, SatSolver

    rng = random.Random(7)
    some = [[v * rng.choice((1, -1)) for v in rng.sample(range(1, 201), 3)] for _ in range(820)]
    with SatSolver("cadical195", Deadline(30), some) as solver:
        assert solver.solve() is True
        known = solver.get_model()
    finisher = Rival("cadical195", (), "finisher")

    def load_some(solver: object) -> None:
        solver.append_formula(some)  # type: ignore[attr-defined]

    def satisfies(model: list[int]) -> bool:
        return all(any(model[abs(lit) - 1] == lit for lit in clause) for clause in some)

    started = time.monotonic()
    with SatSolver("cadical195", Deadline(30), PHP(12).clauses) as solver:
        guess = ("guessed", lambda: known)
        assert solver.race("glucose3", load_some, 10**9, False, finisher, None, guess, True)
        assert time.monotonic() - started < 10
        assert solver.name == "guessed+finisher" and solver.rival_answered
        assert solver.served is not None and solver.get_model() == known
        solver.add_clause([-lit for lit in known])
        assert solver.solve() is True and solver.served is not None
        assert satisfies(solver.get_model()) and solver.get_model() != known
    assert children() == []
    with SatSolver("cadical195", Deadline(30), PHP(12).clauses) as solver:
        guess = ("guessed", lambda: known)  # it answers within the quick try, before any head start
        quick, own = (10**9, Rival("glucose3")), solver.solver
        assert solver.race("glucose3", load_some, 10**9, False, finisher, quick, guess, True)
        assert solver.name == "guessed+finisher" and solver.get_model() == known
        assert solver.solver is own  # the quick try's successor never made
    assert children() == []
    with SatSolver("cadical195", Deadline(30), some) as solver:  # the head start answers
        slow = ("guessed", lambda: time.sleep(20))
        assert solver.race("glucose3", load_some, 10**9, False, finisher, None, slow, True)
        assert solver.served is None and solver.name == "cadical195"
        assert satisfies(solver.get_model())
        assert children() == []  # the finisher's child, still guessing, is gone


def test_an_early_race_goes_on_past_its_head_start_and_outlives_a_failed_child(
    no_children_left: None,
) -> None:
    """An early finisher that has not answered when the head start ends stays in the race,
    beside this solver as the head start left it (here the one that answers: the finisher's
    guess takes seconds); a finisher's child that fails is no loss (the head start goes on,
    then the children as without `early`); and the deadline ends it all on time."""
    from pysat.examples.genhard import PHP

    from satnono.runtime.sat_solvers import Rival, SatSolver

    rng = random.Random(7)  # a random 3-SAT that CaDiCaL solves in about 2,000 conflicts
    some = [[v * rng.choice((1, -1)) for v in rng.sample(range(1, 201), 3)] for _ in range(820)]
    finisher = Rival("cadical195", (), "finisher")

    def load_some(solver: object) -> None:
        solver.append_formula(some)  # type: ignore[attr-defined]

    def failing(solver: object) -> None:
        raise MemoryError("the finisher could not load")

    slow = ("guessed", lambda: time.sleep(20))
    with SatSolver("cadical195", Deadline(30), some) as solver:
        assert solver.race("glucose3", load_some, 1, False, finisher, None, slow, True)
        assert solver.served is not None and solver.served.index == 1  # the one beside
        assert solver.name == "cadical195" and not solver.rival_answered
    assert children() == []
    with SatSolver("cadical195", Deadline(30), some) as solver:
        guess = ("guessed", lambda: None)
        assert solver.race("glucose3", failing, 1, False, finisher, None, guess, True)
        assert not solver.rival_answered  # this solver, alone or beside, answered
    assert children() == []
    started = time.monotonic()
    with SatSolver("cadical195", Deadline(1), PHP(12).clauses) as solver:
        assert solver.race("glucose3", load_some, 10**9, False, finisher, None, slow, True) is None
        assert solver.served is None
    assert time.monotonic() - started < 1.5


def test_an_early_race_whose_fork_is_refused_races_as_without_it(
    monkeypatch: pytest.MonkeyPatch, no_children_left: None
) -> None:
    """A fork refused as the head start begins (no memory, no process left) costs the early
    start only: the head start runs, then the children past it as without `early`."""
    from satnono.runtime import served
    from satnono.runtime.sat_solvers import Rival, SatSolver

    rng = random.Random(7)
    some = [[v * rng.choice((1, -1)) for v in rng.sample(range(1, 201), 3)] for _ in range(820)]
    refused: list[str] = []
    forking = served.start

    def refusing_once(label: str, make: Callable[[], object]) -> object:
        if not refused:
            refused.append(label)
            raise BlockingIOError(11, "Resource temporarily unavailable")
        return forking(label, make)

    monkeypatch.setattr(served, "start", refusing_once)

    def load_some(solver: object) -> None:
        solver.append_formula(some)  # type: ignore[attr-defined]

    with SatSolver("cadical195", Deadline(30), some) as solver:
        guess = ("guessed", lambda: None)
        finisher = Rival("cadical195", (), "finisher")
        assert solver.race("glucose3", load_some, 1, False, finisher, None, guess, True)
        assert refused == ["finisher"] and solver.served is not None
