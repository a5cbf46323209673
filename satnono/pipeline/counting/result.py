"""What a count comes to: the count (exact, or a lower bound and why), each independent
component's factor and how it was counted, and the guarantee an estimate was asked for."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from satnono.core.model import Grid

#: Why a count is not exact: the --limit was reached, the deadline passed, or an estimate
#: answered first (with an approximation asked for).
Stopped = Literal["limit", "timeout", "estimate"]
#: How a factor was counted (`"method"` in `satnono count --json`).
Method = Literal["enumerate", "search", "sweep", "ganak", "approxmc", "cubes"]
ENUMERATE: Method = "enumerate"
SEARCH: Method = "search"
CUBES: Method = "cubes"
BY_GANAK: Method = "ganak"
BY_APPROXMC: Method = "approxmc"


@dataclass(frozen=True)
class Approximation:
    """The guarantee asked of an estimate: within a factor 1 + epsilon of the true count
    with probability at least 1 - delta (ApproxMC's defaults)."""

    epsilon: float = 0.8
    delta: float = 0.2

    def __post_init__(self) -> None:
        # Written as "not (a < x)" so that NaN fails too.
        if not self.epsilon > 0:
            raise ValueError(f"epsilon must be positive, got {self.epsilon}")
        if not 0 < self.delta < 1:
            raise ValueError(f"delta must be between 0 and 1, got {self.delta}")


@dataclass(frozen=True)
class Factor:
    """One independent component: its count and the method that produced it.

    `count` is exact when `exact`, else a lower bound (solutions really counted). `estimate`
    is ApproxMC's, within 1 + `epsilon` with probability 1 - `delta`, when it is the method.
    """

    lines: tuple[int, ...]
    cells: int
    count: int
    exact: bool
    method: Method
    seconds: float
    estimate: int | None = None
    epsilon: float | None = None
    delta: float | None = None


@dataclass(frozen=True)
class Counted:
    """A count: exact, or a lower bound when `stopped` says why the counting ended early."""

    count: int
    exact: bool
    stopped: Stopped | None = None
    #: One verified solution, when there is at least one and the count got that far.
    witness: Grid | None = None
    #: Why there is no solution, when the count is exactly 0.
    reason: str | None = None
    solver: str | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    #: The independent components, in the order they were counted (smallest first).
    factors: tuple[Factor, ...] = ()
    #: The estimate, when an approximation was asked for and ApproxMC gave one.
    estimate: int | None = None
    approximation: Approximation | None = None
