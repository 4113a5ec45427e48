"""Drift before it breaks a user: the suite on the newest versions pyproject.toml allows.

    .venv/bin/python scripts/newest.py [--lowest] [--keep] [pytest arguments...]

Makes a scratch virtual environment, installs the project and its test extras into it without
the locks (each dependency at the newest version its range allows, uv's metadata cache
refreshed so a release of today is seen), prints every package whose version differs from
`requirements-test.lock`, then runs the suite, `ruff check` and `mypy` with it, as `.ci/run`
does with the locked set. Exit 0 when all three pass: the locks can be refreshed
(`scripts/lock.py --upgrade`); otherwise the first failure's exit code, and the newer versions
printed above it are where to look. It needs PyPI; it takes about as long as the suite.

``--lowest`` takes instead the oldest version each of pyproject.toml's own requirements allows
(uv's ``lowest-direct``): whether its lower bounds are honest for those who install the library
into an environment of their own.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lock import ROOT, TEST, LockError, pins  # a script beside this one


def installed(python: Path) -> dict[str, str]:
    """name -> version of what the scratch environment holds."""
    from packaging.utils import canonicalize_name
    from uv import find_uv_bin

    listed = subprocess.run([find_uv_bin(), "pip", "freeze", "--python", str(python)], capture_output=True,
                            text=True, check=True).stdout
    versions: dict[str, str] = {}
    for line in listed.splitlines():
        name, _, version = line.partition("==")
        if version:
            versions[canonicalize_name(name)] = version
    return versions


def drift(python: Path, project: Path) -> list[str]:
    """A line for each package whose installed version is not the locked one."""
    try:
        locked = pins(project / TEST)
    except LockError as exc:
        return [f"cannot compare with the lock: {exc}"]
    lines = []
    for name, version in sorted(installed(python).items()):
        versions = {pin.version for pin in locked.get(name, [])}
        if version not in versions:
            lines.append(f"  {name} {version} (locked: {', '.join(sorted(versions)) or 'not locked'})")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Install the newest allowed set into a scratch venv and run the checks with it."""
    from uv import find_uv_bin

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--keep", action="store_true", help="keep the scratch environment and print where it is")
    parser.add_argument("--lowest", action="store_true",
                        help="the oldest versions pyproject.toml's own requirements allow, not the newest")
    parser.add_argument("--project", type=Path, default=ROOT, help="the project's folder (default: this checkout)")
    args, pytest_args = parser.parse_known_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="census-newest-"))
    python = scratch / "bin" / "python"
    uv = find_uv_bin()
    which = "lowest" if args.lowest else "newest"
    try:
        subprocess.run([uv, "venv", "--quiet", "--python", sys.executable, str(scratch)], check=True)
        resolution = ["--resolution", "lowest-direct"] if args.lowest else []
        subprocess.run([uv, "pip", "install", "--quiet", "--refresh", *resolution, "--python", str(python), "-e",
                        ".[test]"], cwd=args.project, check=True)
        other = drift(python, args.project)
        print(f"{len(other)} packages not at their version in {TEST}" + (":" if other else ""), *other, sep="\n",
              flush=True)
        checks = [[str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *pytest_args],
                  [str(scratch / "bin" / "ruff"), "check", "--no-cache", "."],
                  [str(scratch / "bin" / "mypy"), "--no-incremental", "--cache-dir", str(scratch / "mypy")]]
        for command in checks:
            print(f"+ {Path(command[0]).name} {' '.join(command[1:])}", flush=True)
            code = subprocess.run(command, cwd=args.project, check=False).returncode
            if code:
                print(f"{which} versions: {Path(command[0]).name} failed (exit {code})", file=sys.stderr)
                return code
        print(f"{which} versions: the suite, ruff and mypy pass")
        return 0
    finally:
        if args.keep:
            print(f"scratch environment: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
