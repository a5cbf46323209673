"""The house rules of the code (README, "How the code is laid out"), checked on the source:
no import cycle, no library module importing a front end, thin front ends, no module past
500 lines, no private PySAT module, and a public API whose every name resolves."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "satnono"
#: The front ends (`python -m satnono` is the CLI too).
FRONT_ENDS = ("satnono.cli", "satnono.serve", "satnono.__main__")


def _modules() -> dict[str, Path]:
    """Every module of the package by name; a compiled extension is known by its stub."""
    found = {}
    for path in [*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.pyi")]:
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _module_of(name: str) -> str:
    """The module a dotted name lives in ("" when it is none of satnono's)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name


def _imports(name: str, path: Path) -> set[str]:
    """The satnono modules `name` imports, wherever in the module the import stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            # `from satnono.x import y`: y itself when it is a module, else satnono.x.
            targets = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            if target.split(".")[0] == "satnono":
                found.add(_module_of(target))
    found.discard(name)
    return found


@functools.cache
def _graph() -> dict[str, set[str]]:
    """Every module's satnono imports, parsed once, when a test first asks (not at collection,
    which every pytest process does: 0.8 s of each)."""
    return {name: _imports(name, path) for name, path in MODULES.items()}


def _inside(name: str, front: str) -> bool:
    return name == front or name.startswith(front + ".")


def test_no_import_cycle() -> None:
    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            current = todo.pop()
            for nxt in _graph()[current]:
                if nxt == goal:
                    return True
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return False

    cycles = [name for name in _graph() if reaches(name, name)]
    assert cycles == []


def test_no_library_module_imports_a_front_end() -> None:
    for name, imported in _graph().items():
        if any(_inside(name, front) for front in FRONT_ENDS):
            continue
        fronts = [m for m in imported if any(_inside(m, front) for front in FRONT_ENDS)]
        assert fronts == [], f"{name} imports {fronts}"


def test_front_ends_are_thin() -> None:
    for front in FRONT_ENDS:
        outside = set()
        for name, imported in _graph().items():
            if _inside(name, front):
                outside |= {m for m in imported if not _inside(m, front)}
        assert len(outside) <= 6, f"{front} imports {sorted(outside)}"


def test_no_module_does_two_jobs_by_length() -> None:
    long = {name: n for name, path in MODULES.items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > 500}  # fmt: skip
    assert long == {}


def test_no_private_pysat_module() -> None:
    for name, path in MODULES.items():
        source = path.read_text(encoding="utf-8")
        assert "pysat._" not in source and "from pysat import _" not in source, name


def test_star_import_gives_every_public_name() -> None:
    import satnono

    namespace: dict[str, object] = {}
    exec("from satnono import *", namespace)
    assert set(satnono.__all__) <= set(namespace)
    for name in ("SolveResult", "CountResult", "Analysis", "SolveHandle", "Status"):
        assert isinstance(namespace[name], type), name


def test_only_satnono_native_imports_the_engine() -> None:
    """The native engine's boundary is one module (satnono.logic.native): nothing else reaches the
    extension, so its narrow interface stays the only one."""
    graph = _graph()
    users = sorted(name for name, imported in graph.items() if "satnono.logic._engine" in imported)
    assert users == ["satnono.logic.native"]


#: The layers of the package, lowest first (satnono/__init__.py's map, docs/development.md): a
#: module may import its own layer and those below it, never one above, lazy imports and
#: imports for type checking included. Each module is in the layer of its longest prefix.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("core", ("satnono.errors", "satnono.version", "satnono.core")),
    ("runtime", ("satnono.runtime",)),
    ("formats", ("satnono.formats",)),
    ("logic", ("satnono.logic",)),
    ("encodings", ("satnono.encode",)),
    ("reference", ("satnono.reference",)),
    ("backends", ("satnono.backends",)),
    ("certificates", ("satnono.proof",)),
    ("pipeline", ("satnono.pipeline",)),
    ("puzzles from pictures", ("satnono.pipeline.from_image",)),
    ("output", ("satnono.output",)),
    ("checking certificates", ("satnono.proof.check",)),
    ("public API", ("satnono", "satnono.calls", "satnono.puzzles")),
    ("archives", ("satnono.archive",)),
    ("front ends", ("satnono.cli", "satnono.serve", "satnono.__main__")),
]  # fmt: skip


def _layer(name: str) -> int:
    """The index of the layer `name` is in (the longest prefix that names it)."""
    found = [
        (len(prefix), index)
        for index, (_, prefixes) in enumerate(LAYERS)
        for prefix in prefixes
        if name == prefix or name.startswith(prefix + ".")
    ]
    assert found, f"{name} is in no layer: add it to LAYERS (and to the map in __init__.py)"
    return max(found)[1]


def test_every_import_goes_down_the_layers() -> None:
    upward = [
        f"{name} ({LAYERS[_layer(name)][0]}) imports {target} ({LAYERS[_layer(target)][0]})"
        for name, imported in _graph().items()
        for target in imported
        if _layer(target) > _layer(name)
    ]
    assert upward == []


def test_the_python_reference_is_apart_from_the_live_path() -> None:
    """The Python line solver, propagation and counting search (satnono.reference) are what
    the tests hold the engine to: nothing outside the reference imports them, so the live path
    reaches line logic only through the engine."""
    users = sorted(
        name
        for name, imported in _graph().items()
        if not _inside(name, "satnono.reference")
        and any(_inside(target, "satnono.reference") for target in imported)
    )
    assert users == []


def test_the_top_level_holds_only_the_faces() -> None:
    """Every module is in the room its group names (satnono/__init__.py's map); the top level
    keeps the package's faces: the public calls and puzzles, errors, the version, `-m`."""
    top = sorted(path.stem for path in PACKAGE.glob("*.py"))
    assert top == ["__init__", "__main__", "calls", "errors", "puzzles", "version"]


def test_the_serial_run_collects_every_file_with_a_serial_test() -> None:
    """`make test` runs the tests marked serial from the files SERIAL_TESTS names only: a
    serial test in another file would never run."""
    tests = Path(__file__).resolve().parent
    makefile = (tests.parent / "Makefile").read_text()
    line = next(line for line in makefile.splitlines() if line.startswith("SERIAL_TESTS :="))
    listed = {Path(name).name for name in line.split(":=", 1)[1].split()}
    decorator = re.compile(r"^@pytest\.mark\.serial\b", re.MULTILINE)
    marked = {path.name for path in tests.glob("test_*.py")
              if decorator.search(path.read_text())}  # fmt: skip
    assert marked and marked <= listed, f"serial tests in {sorted(marked - listed)}"
