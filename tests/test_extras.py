"""The optional parts (pyproject's extras): with an extra's packages missing, the part that
needs them is refused in one line naming the extra to install; the solver itself needs none."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from satnono.core.extras import packages_of
from support import EXAMPLES, run_satnono

DUCK = str(EXAMPLES / "duck.non")
ALL_OPTIONAL = ["ortools", "pyganak", "pyapproxmc", "pycmsgen", "pyunigen", "matplotlib", "PIL",
                "distributed", "dask", "starlette", "uvicorn"]  # fmt: skip


def _without(
    modules: list[str], *argv: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """The CLI with `modules` impossible to import, as if their packages were not installed."""
    blocked = "; ".join(f"sys.modules[{name!r}] = None" for name in modules)
    code = f"import sys; {blocked}; from satnono.cli import main; main()"
    return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True,
                          timeout=120, cwd=cwd)  # fmt: skip


def test_the_solver_needs_no_extra() -> None:
    done = _without(ALL_OPTIONAL, "solve", DUCK, "--quiet")
    assert done.returncode == 0 and done.stdout.startswith("unique solution"), done.stderr
    counted = _without(ALL_OPTIONAL, "count", str(EXAMPLES / "switches-8.non"))
    assert counted.returncode == 0 and "256 solutions (exact)" in counted.stdout, counted.stderr


@pytest.mark.parametrize(
    ("missing", "argv", "extra"),
    [
        (["ortools"], ["solve", DUCK, "--backend", "cpsat"], "cpsat"),
        (["pyapproxmc"], ["count", DUCK, "--approx"], "counting"),
        (["pycmsgen"], ["sample", DUCK], "counting"),
        (["matplotlib"], ["render", DUCK, "-o", "duck.png"], "pictures"),
        (["PIL"], ["from-image", str(EXAMPLES / "cross.png"), "-o", "cross.non"], "pictures"),
        (["distributed"], ["batch", "run", DUCK, "--db", "runs.db"], "cluster"),
        (["starlette", "uvicorn"], ["serve", "--port", "0"], "web"),
    ],
)
def test_a_missing_extra_is_named_in_one_line(
    missing: list[str], argv: list[str], extra: str, tmp_path: Path
) -> None:
    done = _without(missing, *argv, cwd=tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    # satnono is on no package index: the advice names the extra's own packages (issue 42).
    assert f"needs satnono's '{extra}' extra" in done.stderr
    command = done.stderr.split("pip install ", 1)[1].split()
    assert command == packages_of(extra) and "satnono" not in " ".join(command)


def test_every_package_satnono_imports_is_declared() -> None:
    """Each third-party module satnono imports comes from a distribution pyproject.toml
    declares, as a dependency or in an extra (a module found here only because a development
    tool brought it would be missing on a user's machine)."""
    import ast
    import importlib.metadata
    import re
    import tomllib

    root = Path(__file__).resolve().parent.parent
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    wanted = project["dependencies"] + [
        spec for specs in project["optional-dependencies"].values() for spec in specs
    ]

    def name(spec: str) -> str:
        return re.split(r"[\[<>=!~; ]", spec, maxsplit=1)[0].lower().replace("_", "-")

    declared = {name(spec) for spec in wanted}
    distributions = importlib.metadata.packages_distributions()
    imported: set[str] = set()
    for path in (root / "satnono").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                imported.add(node.module.split(".")[0])
    third_party = imported - set(sys.stdlib_module_names) - {"satnono", "__future__"}
    for module in sorted(third_party):
        owners = {name(owner) for owner in distributions.get(module, [])}
        if not owners:  # a lone extension module (pyganak.*.so) is not mapped: by its name
            with contextlib.suppress(importlib.metadata.PackageNotFoundError):
                owners = {name(importlib.metadata.distribution(module).metadata["Name"])}
        assert owners & declared, f"{module} (from {owners or 'nothing installed'}) is not declared"


def test_a_count_that_stops_without_ganak_says_where_ganak_is() -> None:
    """Without the counting extra, a count searched for 627 s with no hint that Ganak, a pip
    command away, finishes it (issue 42)."""
    import random

    from satnono import write_puzzles
    from satnono.formats.generate import puzzle_from_grid, random_grid

    hard = puzzle_from_grid(random_grid(45, 45, 2, 0.45, random.Random(45)), keep_goal=False)
    with tempfile.TemporaryDirectory() as place:
        path = Path(place) / "hard.non"
        write_puzzles([hard], path)
        done = _without(["pyganak"], "count", str(path), "--timeout", "2")
    assert "satnono: hint: Ganak counts some puzzles" in done.stderr, done.stderr
    assert "pip install pyganak" in done.stderr
    with_ganak = run_satnono("count", str(EXAMPLES / "switches-8.non"))
    assert "hint" not in with_ganak.stderr
