"""satnono's optional parts and the pip extra that brings each (pyproject.toml's
optional-dependencies): a part whose packages are missing is refused in one line that names
the extra to install, never an ImportError's traceback. `pip install satnono` is the solver
(line logic, the native engine, the sat and backtrack backends); `satnono[all]` is every part.
"""

from __future__ import annotations

import importlib.util

from satnono.errors import InputError

#: Each extra: what it brings, and the modules it installs (the first is looked for).
EXTRAS: dict[str, tuple[str, tuple[str, ...]]] = {
    "cpsat": ("the cpsat backend (OR-tools CP-SAT)", ("ortools",)),
    "counting": (
        "exact counting with Ganak, ApproxMC estimates, and sampling with CMSGen or UniGen",
        ("pyganak", "pyapproxmc", "pycmsgen", "pyunigen"),
    ),
    "pictures": ("PNG pictures, plots, and puzzles from pictures", ("matplotlib", "PIL")),
    "cluster": ("batch, compare and the cubes backend on Dask", ("distributed",)),
    "web": ("the web page, satnono serve", ("starlette", "uvicorn")),
}
_EXTRA_OF = {module: extra for extra, (_, modules) in EXTRAS.items() for module in modules}


def installed(module: str) -> bool:
    """Whether `module` can be imported (looked for, not imported)."""
    return importlib.util.find_spec(module) is not None


def require(module: str, who: str) -> None:
    """InputError naming the extra that brings `module` when it is not installed; `who` is
    what needs it (a parameter, a command), named at the start of the message."""
    if not installed(module):
        raise missing(module, who)


def missing(module: str, who: str) -> InputError:
    """The error for `who` needing `module`, which is not installed."""
    extra = _EXTRA_OF.get(module)
    if extra is None:  # not one of satnono's extras: the package itself
        return InputError(f"needs {module}, which is not installed", who)
    return InputError(f"needs satnono's {extra!r} extra ({EXTRAS[extra][0]}): "
                      f"pip install 'satnono[{extra}]'", who)  # fmt: skip
