"""Count a thin black-and-white board by a transfer matrix in numpy: a second, independent count.

A dev tool (`python tools/transfer_count.py PUZZLE... [--expect N]`) for confirming the
engine's sweep (engine/src/count/sweep.rs) on boards no other counter finishes: it shares
nothing with the engine but the clues. Its state is every row's state in the clue's automaton
(satnono.encode.automaton, as the CNF and the reference line solver read it, not the engine's
classes), packed into one integer; it goes column by column, each column's fillings listed
from the column's own automaton; a row state with no completion along its row is dropped (the
row's live states, forwards and backwards). Counts add in 64-bit words that wrap, so the
result is the count modulo 2^64: equal to the count wherever that is below 2^64 (and a wrong
count agreeing with it modulo 2^64 by chance is out of the question). Boards of up to 8 rows.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from satnono import read_puzzle
from satnono.core.model import Puzzle
from satnono.encode.automaton import LineAutomaton, automaton_of_line

WHITE, BLACK = 0, 1
MOST_ROWS = 8


def column_fillings(automaton: LineAutomaton, height: int) -> list[tuple[int, ...]]:
    """Every filling of a column of `height` cells that its clue accepts."""
    fillings = []
    for bits in range(1 << height):
        colors = tuple(bits >> row & 1 for row in range(height))
        state: int | None = 0
        for color in colors:
            state = automaton.next_state(state, color)
            if state is None:
                break
        if state is not None and automaton.accepting >> state & 1:
            fillings.append(colors)
    return fillings


def transfer_count(puzzle: Puzzle) -> int:
    """The number of solutions modulo 2^64 (see the module's docstring)."""
    if len(puzzle.palette) != 2 or puzzle.height > MOST_ROWS:
        raise ValueError("black-and-white boards of at most 8 rows only")
    rows = [automaton_of_line(puzzle, row) for row in range(puzzle.height)]
    full = [0b11] * puzzle.width
    live = [row.live_states(full) for row in rows]
    if any(states is None for states in live):
        return 0
    sizes = [row.states for row in rows]
    radix = np.cumprod([1, *sizes[:-1]], dtype=np.int64)  # row r's digit weight
    # step[r][color][state]: the next state, or -1 where the color does not fit.
    step = [
        np.array(
            [[-1 if (s := row.next_state(q, color)) is None else s for q in range(row.states)]
             for color in (WHITE, BLACK)],
            dtype=np.int64,
        )
        for row in rows
    ]  # fmt: skip
    codes = np.zeros(1, dtype=np.int64)  # every row at its start state
    counts = np.ones(1, dtype=np.uint64)
    for column in range(puzzle.width):
        automaton = automaton_of_line(puzzle, puzzle.height + column)
        digits = [(codes // radix[r]) % sizes[r] for r in range(puzzle.height)]
        alive = [
            np.array([live[r][column + 1] >> q & 1 for q in range(sizes[r])], dtype=bool)  # type: ignore[index]
            for r in range(puzzle.height)
        ]
        moved_codes, moved_counts = [], []
        for filling in column_fillings(automaton, puzzle.height):
            code = np.zeros(len(codes), dtype=np.int64)
            fits = np.ones(len(codes), dtype=bool)
            for r, color in enumerate(filling):
                nxt = step[r][color][digits[r]]
                fits &= nxt >= 0
                fits &= alive[r][np.maximum(nxt, 0)]
                code += np.maximum(nxt, 0) * radix[r]
            moved_codes.append(code[fits])
            moved_counts.append(counts[fits])
        if not moved_codes:
            return 0
        joined = np.concatenate(moved_codes)
        weights = np.concatenate(moved_counts)
        if not len(joined):
            return 0
        order = np.argsort(joined, kind="stable")
        joined, weights = joined[order], weights[order]
        starts = np.flatnonzero(np.r_[True, joined[1:] != joined[:-1]])
        codes = joined[starts]
        counts = np.add.reduceat(weights, starts)  # uint64: wraps, exact modulo 2^64
    # Every state left is live at the last boundary: accepting on every row.
    return int(counts.sum(dtype=np.uint64))  # wraps likewise


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("puzzles", nargs="+", type=Path)
    parser.add_argument("--expect", type=int, nargs="*", help="the counts to confirm, in order")
    args = parser.parse_args()
    print("| board | transfer count (mod 2^64) | s | expected | agrees |")
    print("|---|---|---|---|---|")
    for number, path in enumerate(args.puzzles):
        started = time.perf_counter()
        counted = transfer_count(read_puzzle(path))
        seconds = time.perf_counter() - started
        expected = args.expect[number] if args.expect and number < len(args.expect) else None
        agrees = "-" if expected is None else ("yes" if expected % 2**64 == counted else "NO")
        print(f"| {path.stem} | {counted} | {seconds:.1f} | {expected} | {agrees} |", flush=True)


if __name__ == "__main__":
    main()
