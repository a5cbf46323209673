"""Types of satnono's native engine (engine/src/lib.rs); satnono.logic.native is its only user."""

from collections.abc import Iterator, Sequence
from typing import Any, Literal, overload

#: Domains go out in the kind they came in: bytes (one per cell) or a list of ints.
Domains = bytes | list[int]

Verdict = tuple[Literal["fixpoint", "solved", "conflict", "timeout"], Domains | None, int | None]

class Clauses(Sequence[list[int]]):
    def __init__(self, clauses: list[list[int]]) -> None: ...
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: int) -> list[int]: ...
    @overload
    def __getitem__(self, index: slice) -> list[list[int]]: ...
    def __iter__(self) -> Iterator[list[int]]: ...
    def add_to_cadical(self, add: int, solver: int, start: int, end: int) -> None: ...

class Engine:
    def __init__(
        self,
        width: int,
        height: int,
        colors: int,
        clues: list[list[int]] | list[list[tuple[int, int]]],
    ) -> None: ...
    def reach(
        self,
        domains: Domains,
        scope: list[int],
        seconds: float | None = None,
        probing: bool = False,
    ) -> tuple[Verdict, int]: ...
    def split(
        self,
        domains: Domains,
        scope: list[int],
        count: int,
        candidates: int,
        seconds: float | None = None,
        search: bool = False,
    ) -> tuple[list[tuple[list[tuple[int, int]], bytes | list[int]]], int] | None: ...
    def probing_lemmas(
        self, seconds: float | None = None
    ) -> tuple[str, list[tuple[int, int, int, int]]]: ...
    def estimate(self, domains: Domains, rounds: int) -> tuple[list[int], list[list[int]]]: ...
    def blocks_cnf(
        self, domains: Domains, scope: list[int], seconds: float | None = None
    ) -> (
        tuple[
            int,
            Clauses,
            list[tuple[int, list[tuple[int, int]]]],
            list[tuple[int, list[tuple[int, list[int]]]]],
            list[tuple[str, int]],
        ]
        | None
    ): ...
    def search(
        self,
        domains: Domains,
        scope: list[int],
        restart_base: int = 300,
        noise: float = 0.5,
        seed: int = 0,
        max_probes: int | None = None,
        excluded: list[list[int]] = ...,
    ) -> Search: ...

class Search:
    def run(self, seconds: float | None = None) -> tuple[str, Domains | None]: ...
    def root_domains(self) -> Domains | None: ...
    def give_away(self) -> tuple[list[Domains], list[Domains]] | None: ...
    def implications(
        self, most: int, seconds: float | None = None
    ) -> list[tuple[int, int, int, int]] | None: ...
    def implication_clauses(
        self,
        most: int,
        literals: list[tuple[int, Sequence[tuple[int, int]]]],
        seconds: float | None = None,
    ) -> tuple[Clauses, int] | None: ...
    def stats(self) -> dict[str, int]: ...

def solve_lines(
    colors: int, lines: list[tuple[list[tuple[int, int]], list[int]]], repeat: int = 1
) -> list[list[int] | None]: ...
def check_drup(dimacs: str, proof: str, seconds: float | None = None) -> tuple[str, int]: ...
def automaton_cnf(
    width: int,
    height: int,
    colors: int,
    clues: list[list[int]] | list[list[tuple[int, int]]],
    seconds: float | None = None,
    clauses: bool = False,
    max_clauses: int = 10_000_000,
) -> (
    tuple[int, int, str, list[tuple[int, list[tuple[int, int]]]], list[list[int]] | None] | None
): ...

class Job:
    def wait(self, seconds: float) -> bool: ...
    def ended(self) -> bool: ...
    def cancel(self) -> None: ...
    def progress(self) -> dict[str, int]: ...
    def counted(
        self,
    ) -> (
        tuple[
            int,
            bool,
            int,
            list[tuple[list[int], int, int, bool, str, float]],
            dict[str, int],
            Domains | None,
        ]
        | None
    ): ...
    def ambiguity(self) -> tuple[bool, list[int], list[int]] | None: ...

class Solutions:
    def next_batch(self, most: int, seconds: float | None = None) -> tuple[list[Domains], bool]: ...

def count(
    engine: Engine,
    domains: Domains,
    knobs: tuple[int, int, int, int, bool],
    seconds: float | None = None,
    colors: bool = False,
) -> Job: ...

class Sampler:
    def request(self, n: int) -> None: ...
    def receive(self, seconds: float) -> tuple[str, Any]: ...
    def cancel(self) -> None: ...
    def nodes(self) -> int: ...
    def swept(self) -> int: ...

def sampler(
    engine: Engine,
    domains: Domains,
    seed: int,
    knobs: tuple[int, int, int, int, bool],
    seconds: float | None = None,
) -> Sampler: ...

MAX_THREADS: int

def solutions(
    engine: Engine,
    domains: Domains,
    threads: int = 1,
    layers: bool = True,
    seconds: float | None = None,
    guide: Sequence[int] | None = None,
) -> Solutions: ...

class Decimation:
    def run(
        self, pause: float | None = None, seconds: float | None = None
    ) -> tuple[str, Domains | None]: ...
    def stats(self) -> tuple[int, int]: ...

def decimation(
    engine: Engine,
    domains: Domains,
    scope: list[int],
    fraction: float,
    rounds: int,
    noise: float,
    seed: int,
    probing: bool,
) -> Decimation: ...
