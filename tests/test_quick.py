"""The fast path of `satnono solve` and `satnono count` (satnono/cli/quick.py): it parses what
it knows exactly as typer does, leaves everything else to typer, and never imports typer
itself."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer.main

from satnono.cli import app, quick
from satnono.cli.count import CountArgs
from satnono.cli.solve import SolveArgs
from support import EXAMPLES, run_satnono

#: The typer path for the same command line: the whole app, then shell.main.
TYPER = [
    sys.executable,
    "-c",
    "import satnono.cli.solving; from satnono.cli.shell import main; main()",
]


def _typer_command(command: str) -> Any:
    """typer's click command for `command` (typer vendors click: duck-typed here)."""
    return typer.main.get_command(app).commands[command]  # type: ignore[attr-defined]


#: Each command with a fast path: its Args, and the fast path's options.
FAST = {
    "solve": (SolveArgs, quick.FLAGS, quick.VALUES),
    "count": (CountArgs, quick.COUNT_FLAGS, quick.COUNT_VALUES),
}


def test_every_command_with_a_fast_path_is_here() -> None:
    assert set(quick.COMMANDS) == set(FAST)


@pytest.mark.parametrize("command", sorted(FAST))
def test_the_typer_command_has_exactly_the_fields_of_its_args(command: str) -> None:
    names = {param.name for param in _typer_command(command).params} - {"puzzles"}
    assert names == {field.name for field in dataclasses.fields(FAST[command][0])}
    for param in _typer_command(command).params:  # the same defaults
        if param.name != "puzzles":
            assert param.default == getattr(FAST[command][0](), param.name), param.name


@pytest.mark.parametrize("command", sorted(FAST))
def test_every_fast_option_is_typers_with_the_same_field_and_bounds(command: str) -> None:
    options = {
        opt: param
        for param in _typer_command(command).params
        if param.param_type_name == "option"
        for opt in param.opts
    }
    _, flags, values = FAST[command]
    for flag, field in flags.items():
        assert options[flag].is_flag and options[flag].name == field
    for flag, (field, read) in values.items():
        param = options[flag]
        assert not param.is_flag and param.name == field
        low = getattr(param.type, "min", None)
        if low is not None:
            assert read(str(low)) == low
            assert read(str(low - 1)) is None  # below typer's range: typer says so
        high = getattr(param.type, "max", None)
        if high is not None:
            assert read(str(high)) == high
            assert read(str(high + 1)) is None  # above it
        if param.type.name in ("integer", "float", "integer range", "float range"):
            assert read("70") == 70


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--help"],
        ["-h", "p.non"],
        ["p.non", "--svg", "x.svg"],  # not on the fast path
        ["p.non", "--json", "--json"],  # repeated
        ["p.non", "--timeout"],  # no value
        ["p.non", "--timeout", "-1"],
        ["p.non", "--timeout", "1e3"],
        ["p.non", "--timeout", "nan"],
        ["p.non", "--threads", "0"],
        ["p.non", "--threads", "1_000"],
        ["p.non", "--threads", "٣"],  # a digit, but not ASCII
        ["p.non", "--seed", "-1"],
        ["p.non", "--backend", "--json"],
        ["p.non", "--backend", ""],
        ["p.non", "--backend=sat"],
        ["p.non", "--"],
        ["p.non", "-qj"],
        [""],
    ],
)
def test_anything_else_is_left_to_typer(argv: list[str]) -> None:
    assert quick.parse(argv) is None
    assert quick.parse(argv, "count") is None


@pytest.mark.parametrize(
    "argv",
    [
        ["p.non", "--max-solutions", "0"],  # solve's, not count's
        ["p.non", "--memory", "15"],
        ["p.non", "--memory", "1048577"],
        ["p.non", "--limit", "-1"],
        ["p.non", "--json", "--json-lines"],  # one field twice
        ["p.non", "--epsilon", "0.5"],  # not on the fast path
        ["p.non", "--workers", "2"],
    ],
)
def test_anything_else_of_count_is_left_to_typer(argv: list[str]) -> None:
    assert quick.parse(argv, "count") is None


def test_the_common_lines_are_parsed() -> None:
    parsed = quick.parse(
        ["a.non", "--json", "-", "--timeout", "2.5", "--max-solutions", "0", "--seed", "3"]
    )
    assert parsed == (
        [Path("a.non"), Path("-")],
        SolveArgs(json_output=True, timeout=2.5, max_solutions=0, seed=3),
    )
    assert quick.parse(["a.non", "-q", "--backend", "cpsat", "--threads", "2"]) == (
        [Path("a.non")],
        SolveArgs(quiet=True, backend="cpsat", threads=2),
    )
    assert quick.parse(["a.non", "--proof", "cert"]) == (
        [Path("a.non")],
        SolveArgs(proof=Path("cert")),
    )


def test_the_common_count_lines_are_parsed() -> None:
    parsed = quick.parse(["a.non", "--json-lines", "--timeout", "10", "--limit", "5"], "count")
    assert parsed == ([Path("a.non")], CountArgs(json_output=True, timeout=10.0, limit=5))
    assert quick.parse(["a.non", "b.non", "--approx", "--memory", "64"], "count") == (
        [Path("a.non"), Path("b.non")],
        CountArgs(approx=True, memory=64),
    )


def _same(line: str) -> str:
    """Output with its timings blanked (two runs never take the same time).

    A count stopped at ``--limit`` also has its method blanked: which of the racing
    ways reaches the limit first (the sweep or enumeration) is a race, on both paths.
    """
    line = re.sub(r"\"(\w*seconds)\": [0-9.e-]+", r"\"\1\": 0", line)
    line = re.sub(r"(stopped at --limit \d+\) \([0-9.]+ s); [^)]*\)", r"\1; ...)", line)
    return re.sub(r"\([0-9.]+ s", "(0 s", line)


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        ("solve", [str(EXAMPLES / "duck.non")]),
        ("solve", [str(EXAMPLES / "switches-8.non"), "--json", "--max-solutions", "0"]),
        ("solve", [str(EXAMPLES / "needs-search-25.non"), "-q", "--timeout", "60"]),
        ("count", [str(EXAMPLES / "switches-8.non")]),
        ("count", [str(EXAMPLES / "switches-8.non"), "--json", "--timeout", "60"]),
        ("count", [str(EXAMPLES / "switches-8.non"), "--limit", "10"]),
        *[
            (command, argv)
            for command in sorted(FAST)
            for argv in [
                [str(EXAMPLES / "duck.non"), str(EXAMPLES / "bad" / "broken.non"), "--json-lines"],
                ["no-such-file.non"],
                [str(EXAMPLES / "duck.non"), "--backend", "nonesuch"],
            ]
        ],
    ],
)
def test_the_fast_path_answers_as_typer_does(command: str, argv: list[str]) -> None:
    fast = run_satnono(command, *argv)
    slow = subprocess.run([*TYPER, command, *argv], capture_output=True, text=True, check=False)
    assert fast.returncode == slow.returncode
    assert _same(fast.stdout) == _same(slow.stdout)
    assert _same(fast.stderr) == _same(slow.stderr)
    if "--json" in argv:  # switches-8: 256 solutions
        answer = json.loads(fast.stdout)
        assert answer.get("status") == "multiple" or answer.get("count") == 256


@pytest.mark.parametrize("command", sorted(FAST))
def test_the_fast_path_does_not_import_typer(command: str) -> None:
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('typer', 'click', 'rich')), file=sys.stderr))\n"
        "sys.argv = ['satnono', sys.argv[2], sys.argv[1]]\n"
        "from satnono.cli import main\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(EXAMPLES / "duck.non"), command],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "[]"
