"""Measure issue 41's figures: certificates of random small puzzles, interrupted enumerations
on every PySAT solver, and `check-proof` on fuzzed certificates (RELIABILITY.md, round 4).

A dev tool: `python tools/measure_round4.py certificates|enumerations|fuzz [--count N]
[--seed S]`. Each prints one line of totals (and every failure as it happens).
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import satnono
from satnono.core.model import BLACK_AND_WHITE, BLOTTED, Block, Color, Puzzle
from satnono.formats.generate import puzzle_from_grid, random_grid
from satnono.proof.check import check_certificate

#: Palettes of 2 to 4 colors, the background included.
HUES = (Color("red", "r", "#ff0000"), Color("blue", "b", "#0000ff"), Color("green", "g", "#00ff00"))
PALETTES = {n: (BLACK_AND_WHITE[0], *HUES[: n - 1]) for n in (3, 4)} | {2: BLACK_AND_WHITE}
SOLVERS = ("glucose3", "glucose42", "cadical195", "minisat22", "maplechrono", "kissat404")


def small_puzzle(rng: random.Random) -> Puzzle:
    """A random puzzle up to 6x6, 2-4 colors; a third with a clue changed (most of those have
    no solution), a third with some block lengths blotted."""
    colors = rng.choice([2, 2, 3, 4])
    width, height = rng.randint(1, 6), rng.randint(1, 6)
    grid = random_grid(width, height, colors, rng.uniform(0.3, 0.7), rng)
    puzzle = puzzle_from_grid(grid, PALETTES[colors], keep_goal=False)
    kind = rng.randrange(3)
    if kind == 0:
        rows = list(puzzle.rows)
        row = rng.randrange(height)
        color = rng.randint(1, colors - 1)
        rows[row] = rng.choice([(), (*rows[row], Block(1, color)), (Block(width, color),)])
        puzzle = replace(puzzle, rows=tuple(rows))
    elif kind == 1:
        blot = tuple(
            tuple(Block(BLOTTED, b.color) if rng.random() < 0.3 else b for b in clue)
            for clue in puzzle.columns
        )
        puzzle = replace(puzzle, columns=blot)
    return puzzle


def certificates(count: int, rng: random.Random) -> None:
    verdicts: dict[str, list[int]] = {}
    with tempfile.TemporaryDirectory() as place:
        for number in range(count):
            puzzle = small_puzzle(rng)
            folder = Path(place) / f"c{number}"
            result = satnono.solve(puzzle, proof=folder, timeout=30)
            if result.certificate is None:
                continue
            checked = check_certificate(folder)
            tally = verdicts.setdefault(result.status, [0, 0])
            tally[0] += 1
            tally[1] += checked.verified
            if not checked.verified:
                print(f"REJECTED {result.status}: {checked.reason}", flush=True)
    summary = ", ".join(f"{v}: {ok} of {n} verified" for v, (n, ok) in sorted(verdicts.items()))
    print(f"{count} puzzles: {summary}")


def enumerations(count: int, rng: random.Random) -> None:
    truths: dict[Puzzle, int] = {}
    wrong = complete = 0
    for _ in range(count):
        puzzle = small_puzzle(rng)
        if puzzle not in truths:
            full = satnono.solve(puzzle, "sat", 0, timeout=60)
            if not full.complete:
                continue
            truths[puzzle] = full.solutions_found
        solver = rng.choice(SOLVERS)
        timeout = rng.choice([0.0, 0.0005, 0.002, 0.01, 0.05])
        result = satnono.solve(puzzle, "sat", 0, timeout=timeout, solver=solver)
        complete += result.complete
        if (
            len(set(result.grids)) != result.solutions_found
            or (result.complete and result.solutions_found != truths[puzzle])
            or result.solutions_found > truths[puzzle]
        ):
            wrong += 1
            print(f"WRONG {solver} {timeout}: {result.solutions_found} of {truths[puzzle]}")
    print(f"{count} interrupted enumerations on {len(SOLVERS)} solvers: {complete} complete, "
          f"{wrong} wrong")  # fmt: skip


def fuzz(count: int, rng: random.Random) -> None:
    from satnono.proof.certify import PROOF

    with tempfile.TemporaryDirectory() as place:
        honest = Path(place) / "honest"
        satnono.solve(satnono.read_puzzle("examples/needs-search-25.non"), proof=honest)
        files = {path.name: path.read_bytes() for path in honest.iterdir()}
        outcomes: dict[str, int] = {}
        verified_by: dict[str, int] = {}
        slowest = 0.0
        for number in range(count):
            folder = Path(place) / f"f{number}"
            folder.mkdir()
            name = rng.choice(sorted(files))
            for file, content in files.items():
                data = content
                if file == name:
                    data = mangle(content, rng)
                (folder / file).write_bytes(data)
            if rng.random() < 0.05:  # now and then a proof of a huge literal or lemma
                huge = rng.choice(["2147483647 0\n", "1 -1 " * 300_000 + "0\n"])
                (folder / PROOF).write_text(huge)
            started = time.monotonic()
            try:
                done = subprocess.run(
                    [sys.executable, "-m", "satnono", "check-proof", str(folder), "--timeout", "3"],
                    capture_output=True, text=True, timeout=30,
                )  # fmt: skip
                code = done.returncode
                said = (done.stdout + done.stderr).strip().splitlines()[-1:] or [""]
            except subprocess.TimeoutExpired:
                code, said = -1, ["hang"]
            seconds = time.monotonic() - started
            slowest = max(slowest, seconds)
            kind = said[0].split(":")[0] if code in (0, 1, 2) else f"exit {code}"
            if "Traceback" in done.stderr or "internal error" in said[0] or code not in (0, 1, 2):
                print(f"BAD exit {code}: {said[0]}", flush=True)
                kind = "BAD"
            outcomes[kind] = outcomes.get(kind, 0) + 1
            if kind == "VERIFIED":  # which file's change kept the claim
                verified_by[name] = verified_by.get(name, 0) + 1
    print(f"{count} fuzzed certificates: {outcomes}; slowest {slowest:.2f} s (timeout 3); "
          f"verified with a change in {verified_by}")  # fmt: skip


def mangle(data: bytes, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    how = rng.choice(["flip", "cut", "repeat", "number", "garbage"])
    at = rng.randrange(max(1, len(lines)))
    if how == "flip" and data:
        changed = bytearray(data)
        changed[rng.randrange(len(changed))] ^= rng.randint(1, 255)
        return bytes(changed)
    if how == "cut":
        return b"\n".join(lines[:at])
    if how == "repeat" and lines:
        return b"\n".join([*lines[:at], *[lines[at]] * rng.randint(2, 50), *lines[at:]])
    if how == "number" and lines:
        lines[at] = f"{rng.choice([2**31 - 1, -(2**31), 2**63, 0, 10**6])} 0".encode()
        return b"\n".join(lines)
    return rng.randbytes(rng.randint(0, 200))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("what", choices=("certificates", "enumerations", "fuzz"))
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=41)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    {"certificates": certificates, "enumerations": enumerations, "fuzz": fuzz}[args.what](
        args.count, rng
    )


if __name__ == "__main__":
    main()
