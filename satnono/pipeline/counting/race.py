"""The counters racing the counting search on one component: Ganak (exact) and ApproxMC (an
estimate), each in a forked child on the satnono.runtime.race; the first answer wins."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from satnono.encode.cnf import encode_puzzle
from satnono.pipeline.counting.counters import (
    APPROXMC,
    GANAK,
    Estimate,
    approxmc_count,
    ganak_count,
)
from satnono.pipeline.prepare import Prepared
from satnono.runtime.child import Send
from satnono.runtime.deadline import Deadline
from satnono.runtime.race import Race

#: The least memory a counter is given, whatever the count's budget: Ganak ran out of 16 MB
#: on webpbn's Center, and counts it in 1.9 s within 64 MB.
COUNTER_MEMORY = 64 << 20


@dataclass
class CounterRace:
    """The counters racing the search on one component, each in a forked child
    (satnono.runtime.race): the first count that arrives wins, an int from Ganak or an
    Estimate from ApproxMC.

    They start once the search has had its head start and is not held back (`tick`, called
    as the search goes), or at once (`start`) when the search does not run.
    """

    prepared: Prepared
    deadline: Deadline
    lines: tuple[int, ...]
    methods: tuple[str, ...]
    guarantee: tuple[float, float] | None
    head_start: float
    #: Bytes each counter may allocate in its child (the count's `--memory`, at least
    #: COUNTER_MEMORY): Ganak's cache has no bound of its own (Marley's child held 527 MB after
    #: 240 s under `--memory 64`, and grows on).
    memory: int | None = None
    started_at: float = field(default_factory=time.perf_counter, init=False)
    #: The component's state at its root: the search narrows prepared.domains in place.
    root: tuple[int, ...] = field(init=False)
    race: Race[str] = field(default_factory=lambda: Race(lambda _, answer: True), init=False)
    started: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        self.root = tuple(self.prepared.domains)

    @property
    def answer(self) -> int | Estimate | None:
        winner = self.race.winner
        return None if winner is None else winner.messages[-1]

    @property
    def errors(self) -> list[str]:
        return self.race.errors

    def narrow(self, domains: list[int]) -> None:
        """Count from `domains` once started (the same solutions, more cells decided: the
        backbone's, satnono.pipeline.counting.narrowing)."""
        self.root = tuple(domains)

    def start(self) -> None:
        if self.started:
            return
        self.started = True
        geometry, root, lines = self.prepared.geometry, self.root, self.lines
        memory = None if self.memory is None else max(self.memory, COUNTER_MEMORY)
        if GANAK in self.methods:

            def run_ganak(send: Send) -> None:
                send(ganak_count(encode_puzzle(geometry, root, lines)))

            self.race.enter(GANAK, run_ganak, "Ganak counter", quiet=True, memory=memory)
        if APPROXMC in self.methods and self.guarantee is not None:
            epsilon, delta = self.guarantee

            def run_approxmc(send: Send) -> None:
                formula = encode_puzzle(geometry, root, lines)
                send(approxmc_count(formula, epsilon, delta))

            self.race.enter(APPROXMC, run_approxmc, "ApproxMC counter", quiet=True, memory=memory)

    def tick(self, hold: bool = False) -> bool:
        """Start the counters when the head start is over, unless `hold`; True once an answer
        is in."""
        if not (self.started or hold) and time.perf_counter() - self.started_at >= self.head_start:
            self.start()
        return self.race.poll() is not None

    def wait(self) -> int | Estimate | None:
        """Wait for the first answer; None at the deadline or when every counter failed."""
        self.race.collect(self.deadline)
        return self.answer

    def close(self) -> None:
        self.race.close()
