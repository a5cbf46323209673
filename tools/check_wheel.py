"""The wheel installs and solves where no Rust toolchain is: `make test`'s last step.

Makes a fresh venv, installs dist/satnono-*.whl into it (its dependencies from the package
index) with every directory holding cargo or rustc taken off the PATH, and solves a bundled
example from outside the checkout (so that nothing is imported from it). Exit 0 when the
example is solved by the wheel's satnono; otherwise the step that failed and its output.

    python tools/check_wheel.py [--dist dist] [--venv /tmp/satnono-wheel-check]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOLCHAIN = ("cargo", "rustc", "rustup")


def path_without_rust() -> str:
    """PATH without the directories that hold a Rust toolchain's commands."""
    kept = []
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if folder and not any((Path(folder) / tool).exists() for tool in TOOLCHAIN):
            kept.append(folder)
    return os.pathsep.join(kept)


def run(step: str, command: list[str], **kwargs: object) -> str:
    done = subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]
    if done.returncode != 0:
        sys.exit(
            f"check_wheel: {step} failed (exit {done.returncode}):\n{done.stdout}{done.stderr}"
        )
    return str(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist")
    parser.add_argument(
        "--venv", type=Path, default=Path(tempfile.gettempdir()) / "satnono-wheel-check"
    )
    args = parser.parse_args()
    wheels = sorted(args.dist.glob("satnono-*.whl"))
    if len(wheels) != 1:
        sys.exit(
            f"check_wheel: expected one wheel in {args.dist}, found {len(wheels)} (make wheel)"
        )
    (wheel,) = wheels
    if "abi3" not in wheel.name:
        sys.exit(f"check_wheel: {wheel.name} is not an abi3 wheel")
    env = {**os.environ, "PATH": path_without_rust()}
    env.pop("VIRTUAL_ENV", None)
    if any(shutil.which(tool, path=env["PATH"]) for tool in TOOLCHAIN):
        sys.exit("check_wheel: could not take the Rust toolchain off the PATH")
    shutil.rmtree(args.venv, ignore_errors=True)
    run("making the venv", [sys.executable, "-m", "venv", str(args.venv)], env=env)
    python = str(args.venv / "bin" / "python")
    run("installing the wheel", [python, "-m", "pip", "install", "--quiet", str(wheel)], env=env)
    with tempfile.TemporaryDirectory() as elsewhere:
        engine = "import satnono.logic._engine as e; print(e.__file__)"
        where = run("importing satnono", [python, "-c", engine], env=env, cwd=elsewhere)
        if not where.startswith(str(args.venv)):
            sys.exit(f"check_wheel: the engine came from {where.strip()}, not the wheel")
        example = ROOT / "examples" / "heart-color.non"
        out = run("solving", [str(args.venv / "bin" / "satnono"), "solve", str(example)], env=env,
                  cwd=elsewhere)  # fmt: skip
    if "unique solution" not in out:
        sys.exit(f"check_wheel: unexpected answer:\n{out}")
    shutil.rmtree(args.venv, ignore_errors=True)
    print(f"check_wheel: {wheel.name} installed without Rust and solved {example.name}")


if __name__ == "__main__":
    main()
