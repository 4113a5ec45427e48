"""The locks of the tested set: `requirements.lock` (what `census` needs) and
`requirements-test.lock` (that and the test extras), each pinned with hashes.

    .venv/bin/python scripts/lock.py             # after a change to pyproject.toml: pins kept where they fit
    .venv/bin/python scripts/lock.py --upgrade   # the newest version of everything pyproject.toml allows
    .venv/bin/python scripts/lock.py --check     # the locks against pyproject.toml: one line per problem

Both are `uv pip compile --generate-hashes` output: the requirements format plain pip installs
(a fresh machine has pip, not uv), with a hash for every file, so pip checks each download. The
resolution is universal (every platform, Python 3.11 and newer) with the fewest versions of each
package, so Python 3.11 to 3.13 install the set the suite passed with. The build backend
(`[build-system].requires`, and `editables`, which hatchling asks for to build an editable
install) is locked too: the README installs the project with `--no-build-isolation`. The
runtime lock is resolved within the test lock, so the two never disagree on a version.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
MAIN, TEST = "requirements.lock", "requirements-test.lock"
#: what hatchling asks for, beyond itself, to build an editable install
EDITABLE_BUILD = ("editables",)
COMPILE = ("pip", "compile", "--universal", "--fork-strategy", "fewest", "--python-version", "3.11",
           "--generate-hashes", "--quiet", "--no-header")
HEADER = "# {name}: the tested set ({what}), pinned with hashes. Made by `python scripts/lock.py`; do not edit.\n"


class LockError(Exception):
    """A lock that cannot be read, or that does not hold what pyproject.toml asks for: one line each."""


@dataclass(frozen=True)
class Pin:
    """One locked requirement."""

    name: str
    """its canonical name."""
    version: str
    marker: str
    """its environment marker, '' when it applies everywhere."""
    hashes: int
    line: int
    """where it starts in its file."""


def requirements(project: Path) -> tuple[list[Requirement], list[Requirement], list[Requirement]]:
    """pyproject.toml's runtime, test and build requirements."""
    data = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))
    runtime = [Requirement(r) for r in data["project"]["dependencies"]]
    test = [Requirement(r) for r in data["project"]["optional-dependencies"]["test"]]
    build = [Requirement(r) for r in [*data["build-system"]["requires"], *EDITABLE_BUILD]]
    return runtime, test, build


def write(project: Path, upgrade: bool = False) -> None:
    """Resolve and write both locks with uv (the census's own dependency)."""
    from uv import find_uv_bin

    _, _, build = requirements(project)
    extra = "\n".join(str(r) for r in build) + "\n"
    for name, options, what in ((TEST, ["--extra", "test"], "runtime, test extras and build backend"),
                                (MAIN, ["--constraint", TEST], "runtime and build backend")):
        out = project / name
        command = [find_uv_bin(), *COMPILE, "pyproject.toml", "-", *options, "--output-file", name,
                   *(["--upgrade"] if upgrade and name == TEST else [])]
        subprocess.run(command, cwd=project, input=extra, text=True, check=True)
        out.write_text(HEADER.format(name=name, what=what) + out.read_text(encoding="utf-8"), encoding="utf-8")


def pins(path: Path) -> dict[str, list[Pin]]:
    """The pins of one lock by name; ``LockError`` naming the file and line of what is not a pin."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LockError(f"{path.name}: cannot be read: {exc}") from None
    found: dict[str, list[Pin]] = {}
    for line, entry in _entries(text):
        spec, *hashes = entry.split(" --hash=")
        try:
            requirement = Requirement(spec)
        except InvalidRequirement as exc:
            raise LockError(f"{path.name}:{line}: not a requirement: {exc}") from None
        pinned = [s.version for s in requirement.specifier if s.operator == "=="]
        if len(pinned) != 1 or len(requirement.specifier) != 1:
            raise LockError(f"{path.name}:{line}: {requirement.name} is not pinned to one version (==)")
        if not hashes or not all(h.startswith("sha256:") and len(h.strip()) == 71 for h in hashes):
            raise LockError(f"{path.name}:{line}: {requirement.name} has no sha256 hash for its files")
        name = canonicalize_name(requirement.name)
        found.setdefault(name, []).append(Pin(name, pinned[0], str(requirement.marker or ""), len(hashes), line))
    if not found:
        raise LockError(f"{path.name}: holds no requirement")
    return found


def _entries(text: str) -> Iterator[tuple[int, str]]:
    """Each requirement of a requirements file with its first line, continuation lines joined."""
    start, parts = 0, []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split(" #", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if not line:
            continue
        start = start or number
        parts.append(line.removesuffix("\\").strip())
        if not line.endswith("\\"):
            yield start, " ".join(parts)
            start, parts = 0, []
    if parts:
        yield start, " ".join(parts)


def check(project: Path) -> list[str]:
    """Every way the locks fail pyproject.toml, one line each (none: they hold what it asks for)."""
    runtime, test, build = requirements(project)
    try:
        main, tested = pins(project / MAIN), pins(project / TEST)
    except LockError as exc:
        return [str(exc)]
    problems = [*_missing(MAIN, main, [*runtime, *build]), *_missing(TEST, tested, [*runtime, *test, *build])]
    for name, locked in main.items():
        versions = {p.version for p in tested.get(name, [])}
        for pin in locked:
            if pin.version not in versions:
                problems.append(f"{MAIN}:{pin.line}: {name}=={pin.version}, but {TEST} has "
                                f"{', '.join(sorted(versions)) or 'no version of it'}")
    return problems


def _missing(name: str, locked: dict[str, list[Pin]], wanted: Sequence[Requirement]) -> Iterator[str]:
    """The requirements of ``wanted`` that ``locked`` lacks, or pins outside their range."""
    for requirement in wanted:
        pins_ = locked.get(canonicalize_name(requirement.name), [])
        if not pins_:
            yield f"{name}: {requirement.name} is required by pyproject.toml ({requirement}) but not locked"
        for pin in pins_:
            if pin.version not in requirement.specifier:
                yield f"{name}:{pin.line}: {pin.name}=={pin.version} is outside pyproject.toml's {requirement}"


def main(argv: Sequence[str] | None = None) -> int:
    """Write the locks, or check them (exit 1 with one line per problem)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--upgrade", action="store_true", help="take the newest version of everything allowed")
    parser.add_argument("--check", action="store_true", help="check the locks against pyproject.toml; write nothing")
    parser.add_argument("--project", type=Path, default=ROOT, help="the project's folder (default: this checkout)")
    args = parser.parse_args(argv)
    if not args.check:
        write(args.project, upgrade=args.upgrade)
    problems = check(args.project)
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"{MAIN} and {TEST} hold what pyproject.toml asks for")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
