"""PySAT's solvers behind one context manager: made, stopped at the deadline, and deleted.

`with SatSolver(name, deadline, clauses) as solver:` scopes every solver satnono makes (the
sat backend, the ambiguity map, the counting search's checks), so none is left allocated and
each is stopped through PySAT's public interrupt() (solve_limited with expect_interrupt).
CaDiCaL 1.9.5 has no interrupt() but honours a conflict budget: it solves in slices of about
SLICE_SECONDS, looking at the deadline between them, or past a race's head start unsliced in
a forked child (satnono.runtime.served). The others without interrupt() (Kissat,
Lingeling, CaDiCaL 1.0.3) are stopped between calls; the sat backend runs those in a forked
child that it can kill instead, as it does CaDiCaL on a large formula.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Self

from satnono.runtime.child import ChildFinished, ForkedChild, can_fork
from satnono.runtime.clause_loading import add_clauses
from satnono.runtime.deadline import Deadline
from satnono.runtime.solver_kinds import INTERRUPTIBLE, configured_solver, solver_names
from satnono.runtime.stoppable import Stoppable

if TYPE_CHECKING:
    from satnono.runtime.served import Served

#: PySAT solvers without interrupt() whose conf_budget() bounds a solve_limited() call.
SLICED = frozenset({"cadical195"})
#: Seconds a sliced solver runs between two looks at the deadline, and its first slice in
#: conflicts. Each call costs CaDiCaL a restart of its search (on taai2014's 254 probed
#: residuals: one call 14.8 s in all, slices of 10,000 conflicts 14.2 s, of 1,000 21.4 s).
SLICE_SECONDS = 0.2
FIRST_SLICE = 10_000
SMALLEST_SLICE = 1_000
#: Conflicts a second a slice is sized by before its solver's speed is known, when the deadline
#: is near: a slow machine's (CaDiCaL met 1,150 a second at a fifth of a core, with 6 other
#: processes on 2 cores, and its first slice of 10,000 took 8.7 s past a 4 s timeout). A
#: deadline 10 s away or more keeps the first slice of FIRST_SLICE the solver was tuned with.
SAFE_RATE = 1_000


#: What `SatSolver.race` may guess with first, in the finisher's child: its label (the JSON's
#: `solver` says "label+finisher" when the finisher answers from the phases guessed) and what
#: makes the phases (None: no guess came).
Guess = tuple[str, Callable[[], Sequence[int] | None]]


@dataclass(frozen=True)
class Rival:
    """A solver a race makes (SatSolver.race): one that races the first, or one that takes its
    place after a quick try. Its PySAT name, the options (CaDiCaL's) set on it before anything
    is loaded, and the label a result's `solver` names it by."""

    name: str
    options: tuple[tuple[str, int], ...] = ()
    label: str = ""

    def make(self) -> Any:
        """A new PySAT solver of this kind, its options set, nothing loaded yet."""
        return configured_solver(self.name, self.options)

    @property
    def called(self) -> str:
        return self.label or self.name


class SatSolver(Stoppable):
    """One PySAT solver in use: `with SatSolver(name, deadline, clauses) as s:` then
    s.solve(), s.propagate(), s.add_clause(); leaving the block deletes it.

    `solver` is the PySAT object itself, for the calls this adapter does not wrap
    (get_model, set_phases, append_formula); `replace()` swaps in a new one (a solver that
    cannot add clauses incrementally is rebuilt instead).
    """

    def __init__(
        self,
        name: str,
        deadline: Deadline,
        clauses: Sequence[Sequence[int]] = (),
        with_proof: bool = False,
        options: Sequence[tuple[str, int]] = (),
    ) -> None:
        """`with_proof`: the solver logs a DRUP proof (CaDiCaL, Glucose), read after an
        unsatisfiable answer with `solver.get_proof()` (certificates, satnono.proof.certify).
        `options` (CaDiCaL's) are set before anything is loaded, as CaDiCaL requires."""
        canonical = solver_names().get(name, name)
        super().__init__(deadline, canonical in INTERRUPTIBLE)
        self.name = name
        self.slice = FIRST_SLICE if canonical in SLICED else None
        #: Whether a slice has shown this solver's speed here (the slices are sized by it).
        self.measured = False
        #: The model of the last answer when a child gave it (`_finish_in_children`).
        self.given_model: list[int] | None = None
        #: Whether the rival answered the last `race`.
        self.rival_answered = False
        #: The child that solves for this adapter once a race has gone to children
        #: (`_finish_in_children`), until a solve it cannot serve.
        self.served: Served | None = None
        #: The name of this process's solver while a child serves (`name` is the child's).
        self.own_name = name
        self.solver: Any = configured_solver(name, options, with_proof)
        if clauses:
            # Within the deadline (Timeout when it passes): a wide formula takes seconds to
            # load (16 million clauses, 33 s into Glucose).
            try:
                add_clauses(self.solver, clauses, deadline)
            except BaseException:
                self.solver.delete()
                raise

    def replace(self, solver: Any) -> None:
        """Use `solver` from now on; the previous one is deleted."""
        self.solver.delete()
        self.solver = solver

    def __enter__(self) -> Self:
        return super().__enter__()

    def __exit__(self, *_: object) -> None:
        super().__exit__()
        self._stop_serving()
        self.solver.delete()

    def solve(self, assumptions: Iterable[int] = ()) -> bool | None:
        """Satisfiable or not under `assumptions`; None when the deadline stopped the solver."""
        self.given_model = None
        # expired(), not only the time left: a deadline may pass by a rule of its own (a
        # count's listing's, once the engine has counted), and short solves never look again.
        if self.deadline.expired():
            return None
        assumed = list(assumptions)
        if self.served is not None:
            if not assumed:
                return self._served_solve()
            self._hand_back()  # assumptions: this process's solver from here on
        solver = self.solver
        if self.slice is not None:
            return self.solve_for(float("inf"), assumptions=assumed)
        if not self.interruptible:
            return bool(solver.solve(assumptions=assumed))
        result = solver.solve_limited(assumptions=assumed, expect_interrupt=True)
        if result is None:
            solver.clear_interrupt()
            return None
        return bool(result)

    def solve_within(
        self, conflicts: int, assumptions: Sequence[int] = (), propagations: int | None = None
    ) -> bool | None:
        """solve() with at most `conflicts` more conflicts (and, given, `propagations` more
        propagations): None when they ran out first or the deadline stopped the solver
        (`deadline.expired()` says which). A sliced solver takes the conflicts in its slices
        (no propagation budget); an interruptible one both in one call, its budgets lifted
        after; one that is neither takes no budget."""
        if self.slice is not None or self.served is not None:
            return self.solve_for(float("inf"), conflicts, assumptions)
        self.solver.conf_budget(max(conflicts, 1))
        if propagations is not None:
            self.solver.prop_budget(max(propagations, 1))
        try:
            return self.solve(assumptions)
        finally:
            self.solver.conf_budget(-1)  # off: later calls are unlimited
            if propagations is not None:
                self.solver.prop_budget(-1)

    def solve_for(
        self,
        seconds: float,
        conflicts: int | None = None,
        assumptions: Sequence[int] = (),
        until: Callable[[], bool] | None = None,
    ) -> bool | None:
        """solve() in slices of a conflict budget (each about SLICE_SECONDS) for about
        `seconds` or `conflicts` more conflicts, or until `until()` says so between two
        slices: None when it has not answered by then or the deadline has passed."""
        self.given_model = None
        if self.slice is None:
            self.slice = FIRST_SLICE
        spent = 0.0
        most = None if conflicts is None else self.conflicts() + conflicts
        remaining = self.deadline.remaining()
        if remaining is not None and not self.measured:  # no speed known yet: a safe slice
            self.slice = min(self.slice, max(SMALLEST_SLICE, int(remaining * SAFE_RATE)))
        while True:
            started = time.perf_counter()
            budget = self.slice if most is None else min(self.slice, most - self.conflicts())
            self.solver.conf_budget(max(budget, 1))
            result = self.solver.solve_limited(assumptions=list(assumptions))
            if result is not None:
                return bool(result)
            took = max(time.perf_counter() - started, 1e-3)
            spent += took
            if self.deadline.expired() or spent >= seconds:
                return None
            if most is not None and self.conflicts() >= most:
                return None
            if until is not None and until():
                return None
            # Grown at most 4-fold: conflicts slow down as learned clauses pile up.
            self.measured = True
            scaled = int(self.slice * min(SLICE_SECONDS / took, 4.0))
            self.slice = max(SMALLEST_SLICE, min(scaled, 10**7))

    def conflicts(self) -> int:
        """Conflicts met so far by this solver."""
        return int(self.solver.accum_stats().get("conflicts", 0))

    def race(
        self,
        rival_name: str,
        load_rival: Callable[[Any], None],
        head_start: int,
        parallel: bool | Callable[[], bool] = False,
        finisher: Rival | None = None,
        quick: tuple[int, Rival] | None = None,
        guess: Guess | None = None,
        early: bool = False,
    ) -> bool | None:
        """solve(), but with `quick` (conflicts, a solver) this solver has only so many
        conflicts, then that solver, loaded by `load_rival`, takes its place from scratch; and
        after `head_start` conflicts without an answer the solve goes on in
        forked children, each one whole solve call, unsliced (`_finish_in_children`): the
        `finisher` (loaded by `load_rival`), and when `parallel` (or `parallel()`, asked only
        once the head start has passed: a look at the idle cores sleeps 50 ms) this solver
        beside it on a core of its own; the first answer is this adapter's, `name` names who
        gave it, `rival_answered` says whether the finisher did, and that child serves the
        later solves. With `guess` (its label, and what makes phases, or None when it finds
        none: it runs in the finisher's child, and keeps a time of its own), the finisher
        starts from the phases guessed (`name` then says "label+finisher"), or as it would
        have where none came; `early` (the caller gives this search two cores), the guess and
        the finisher start in their child at once, beside the quick try and the head start
        (each looks at it between two slices), whichever answers first is this adapter's (the
        child then serves), and past the head start this solver as it stands joins the
        finisher. Without a finisher, or where this process cannot fork, the rival named
        `rival_name` takes turns with this solver instead, a slice each, and the one that
        answers is this adapter's solver from then on (`name` and `rival_answered` say so).
        None when the deadline came first. Both must take a conflict budget."""
        self.rival_answered = False
        early_child: list[ForkedChild] = []  # the guessing finisher's, forked at once (`early`)
        if early and finisher is not None and guess is not None and can_fork():
            early_child = self._fork_finisher(finisher, load_rival, guess)
        try:
            if quick is not None:
                result = self._solve_beside(quick[0], early_child, finisher)
                if result is not None or self.deadline.expired():
                    return result
                successor = quick[1].make()
                self.replace(successor)
                load_rival(successor)
            result = self._solve_beside(head_start, early_child, finisher)
            if result is not None or self.deadline.expired():
                return result
            if finisher is not None and can_fork():
                started = early_child.pop() if early_child else None
                if started is not None:  # the caller gave this search two cores
                    both = True
                else:
                    both = parallel if isinstance(parallel, bool) else parallel()
                return self._finish_in_children(finisher, load_rival, both, guess, started)
        finally:
            for child in early_child:  # not handed on: the race ended before it was needed
                child.kill()
        rival = SatSolver(rival_name, self.deadline)  # not watched: its slices look at the deadline
        rival.slice = SMALLEST_SLICE  # grown to SLICE_SECONDS from its first turn's speed
        try:
            load_rival(rival.solver)
            while not self.deadline.expired():
                result = rival.solve_for(SLICE_SECONDS)
                if result is not None:  # swapped, so that the loser is the one deleted below
                    self.solver, rival.solver = rival.solver, self.solver
                    self.name, self.slice, self.measured = rival.name, rival.slice, True
                    self.rival_answered = True
                    return result
                result = self.solve_for(SLICE_SECONDS)
                if result is not None:
                    return result
            return None
        finally:
            rival.solver.delete()

    def _fork_finisher(
        self, finisher: Rival, load_rival: Callable[[Any], None], guess: Guess
    ) -> list[ForkedChild]:
        """The finisher's child, guessing first, forked now (`race`'s `early`); none where the
        fork is refused (no memory, no process left): the race then goes as without it."""
        from satnono.runtime import served

        make = self._finisher_maker(finisher, load_rival, guess)
        try:
            return [served.start(finisher.called, make)]
        except OSError:
            return []

    def _solve_beside(
        self, conflicts: int, early_child: list[ForkedChild], finisher: Rival | None
    ) -> bool | None:
        """solve_for(inf, `conflicts`), in the same slices as alone, looking between two at the
        early child (when `early_child` holds one): once it has answered, its answer is this
        one's and it serves (`early_child` emptied); one that failed is dropped, and the solve
        goes on alone."""
        from satnono.runtime import served

        most = self.conflicts() + conflicts
        while True:
            child = early_child[0] if early_child else None
            looked = None if child is None else child.ready
            result = self.solve_for(float("inf"), most - self.conflicts(), until=looked)
            if result is not None or self.deadline.expired() or child is None or not child.ready():
                return result
            early_child.clear()
            try:
                answer = served.answered(child, finisher.called if finisher else "finisher")
            except RuntimeError:  # it failed (and was killed)
                answer = None
            if answer is not None:
                return self._served_by(*answer)
            child.kill()
            if self.conflicts() >= most:  # the rest of the solve alone, if any is left
                return None

    def _finisher_maker(
        self, finisher: Rival, load_rival: Callable[[Any], None], guess: Guess | None
    ) -> Callable[[], Any]:
        """What the finisher's child solves: `finisher`, loaded by `load_rival`; with `guess`,
        from the phases guessed first (labelled "label+finisher" then)."""

        def fresh() -> Any:
            solver = finisher.make()
            load_rival(solver)
            return solver

        def guessed_first() -> tuple[Any, str]:
            assert guess is not None
            try:
                phases = guess[1]()
            except Exception:  # a hint that failed: the finisher starts without it
                phases = None
            solver = fresh()
            if phases is None:
                return solver, finisher.called
            solver.set_phases(list(phases))
            return solver, f"{guess[0]}+{finisher.called}"

        return fresh if guess is None else guessed_first

    def _finish_in_children(
        self,
        finisher: Rival,
        load_rival: Callable[[Any], None],
        beside: bool,
        guess: Guess | None = None,
        started: ForkedChild | None = None,
    ) -> bool | None:
        """The rest of `race` in forked children, each one whole solve call, no slices:
        `finisher`, loaded by `load_rival` (or `started`, its child forked already), and with
        `beside` this solver as its head start left it, on a core of its own; with `guess`,
        the finisher's child guesses first. The first to answer serves the later solves."""
        from satnono.runtime import served

        starters: list[tuple[str, Callable[[], Any]]] = []
        if started is None:
            starters.append((finisher.called, self._finisher_maker(finisher, load_rival, guess)))
        if beside:
            starters.append((self.name, lambda: self.solver))
        already = [] if started is None else [(started, finisher.called)]
        first = served.first(starters, self.deadline, already)
        if first is None:  # the deadline, or every child failed: then this solver goes on
            return None if self.deadline.expired() else self.solve_for(float("inf"))
        return self._served_by(*first)

    def _served_by(self, by: Served, answer: tuple[bool, list[int] | None]) -> bool:
        """The answer of the child that answered a race first, which serves from now on."""
        self.served, (satisfiable, model) = by, answer
        self.rival_answered = by.index == 0
        self.own_name, self.name = self.name, by.label
        self.given_model = model
        return satisfiable

    def _served_solve(self) -> bool | None:
        """solve() by the serving child; without it, from here on, if it failed."""
        assert self.served is not None
        try:
            answer = self.served.solve(self.deadline)
        except (ChildFinished, RuntimeError, OSError):
            self._hand_back()
            return self.solve()
        if answer is None:  # the deadline: the child is mid-solve, and ends here
            self._stop_serving()
            return None
        satisfiable, self.given_model = answer
        return satisfiable

    def _stop_serving(self) -> None:
        if self.served is not None:
            self.served.stop()
            self.served = None

    def _hand_back(self) -> None:
        """This process's solver solves from here on, and `name` says who answered before it
        and who after ("cadical195-stable+cadical195"), as a result's `solver` does."""
        if self.served is not None:
            self.name = f"{self.served.label}+{self.own_name}"
            self._stop_serving()

    def set_phases(self, literals: Sequence[int]) -> None:
        """The phases the next solves start from (and the serving child's)."""
        self.solver.set_phases(list(literals))
        if self.served is not None:
            with contextlib.suppress(OSError):  # gone: the next solve finds out
                self.served.set_phases(literals)

    def propagate(self, assumptions: Iterable[int] = ()) -> tuple[bool, list[int]]:
        """Unit propagation under `assumptions`: (consistent, implied literals)."""
        consistent, implied = self.solver.propagate(assumptions=list(assumptions))
        return bool(consistent), implied

    def add_clause(self, clause: Sequence[int]) -> None:
        self.solver.add_clause(clause)
        if self.served is not None:
            with contextlib.suppress(OSError):  # gone: the next solve finds out
                self.served.add_clause(clause)

    def get_model(self) -> Any:
        """The last satisfying assignment: this solver's, or a rival's that answered for it."""
        return self.solver.get_model() if self.given_model is None else self.given_model

    def interrupt(self) -> None:
        if self.interruptible:
            self.solver.interrupt()
