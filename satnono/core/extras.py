"""satnono's optional parts and the pip extra that brings each (pyproject.toml's
optional-dependencies): a part whose packages are missing is refused in one line that names
the extra and the pip command that installs its packages, never an ImportError's traceback.
satnono itself is on no package index: `pip install 'satnono[web]'` would find nothing, so
the advice names the packages themselves (on PyPI), read from satnono's own metadata.
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
                      f"pip install {' '.join(packages_of(extra))}", who)  # fmt: skip


def packages_of(extra: str) -> list[str]:
    """The requirements the extra adds, as pip takes them (satnono's metadata; its modules'
    names when the metadata cannot be read)."""
    import importlib.metadata

    marker = f"extra == '{extra}'"
    try:
        required = importlib.metadata.requires("satnono") or []
    except importlib.metadata.PackageNotFoundError:
        required = []
    found = [
        requirement.split(";")[0].strip()
        for requirement in required
        if requirement.split(";")[-1].strip() == marker and not requirement.startswith("satnono")
    ]
    return found or list(EXTRAS[extra][1])
