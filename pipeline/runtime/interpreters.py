"""Which Python a PyPI package is installed for: the one its registry entry asks for, else the
one a user would have had when the package was released.

The interpreters on offer are found without configuration (:func:`found`): the census's own,
then every ``python3.X`` on ``PATH`` (pyenv's shims left out: they need pyenv itself), pyenv's
(``$PYENV_ROOT/versions``), uv's managed ones (``uv python install``), and
``/usr/bin/python3.X`` and ``/usr/local/bin/python3.X``; CPython 3.8 and newer, one per
version, the first found. ``CENSUS_PROBE_PYTHONS`` (``:``-separated paths) names them instead.

Those that meet the package's ``Requires-Python`` are tried in this order (a dependency's
``Requires-Python`` the first does not meet moves to the next, ``pipeline.runtime.installer``):

1. those whose version the entry names (uvx's ``--python 3.12``);
2. those released at least ``ADOPTION`` before the package, newest first: a package from
   early 2025 ran on 3.12, not on 3.13, which had just removed ``imghdr`` and ``audioop``;
3. the rest, oldest first.

Without a release date the order is newest first. Each choice says why (:class:`Choice`), and
the install log keeps it: the version and where it was found, never this machine's paths.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from pipeline.errors import SettingsError

VARIABLE = "CENSUS_PROBE_PYTHONS"
#: CPython's feature releases (python.org's release dates)
RELEASED = {(3, 8): datetime(2019, 10, 14, tzinfo=UTC), (3, 9): datetime(2020, 10, 5, tzinfo=UTC),
            (3, 10): datetime(2021, 10, 4, tzinfo=UTC), (3, 11): datetime(2022, 10, 24, tzinfo=UTC),
            (3, 12): datetime(2023, 10, 2, tzinfo=UTC), (3, 13): datetime(2024, 10, 7, tzinfo=UTC),
            (3, 14): datetime(2025, 10, 7, tzinfo=UTC)}
#: how long after its release a Python is the one most users of a new package have
ADOPTION = timedelta(days=180)
#: the oldest Python a package is installed for (uv makes no older venv)
OLDEST = (3, 8)
#: folders holding the system's interpreters
SYSTEM_DIRS = (Path("/usr/bin"), Path("/usr/local/bin"))
_VERSIONED = re.compile(r"python3\.\d+")


@dataclass(frozen=True)
class Interpreter:
    """A CPython the census can install packages for."""

    path: Path
    version: tuple[int, int]
    found: str
    """where it was found: ``CENSUS_PROBE_PYTHONS``, ``the census's own``, ``PATH``, ``pyenv``, ``uv``,
    ``the system``."""
    micro: int = 0
    """the patch release: ``Requires-Python >=3.11.5`` is met by 3.11.7, not 3.11.4."""

    @property
    def label(self) -> str:
        """``3.12``."""
        return f"{self.version[0]}.{self.version[1]}"


@dataclass(frozen=True)
class Choice:
    """An interpreter to try, and why it comes where it does."""

    interpreter: Interpreter
    why: str


def found(environ: Mapping[str, str] | None = None, *, system: Sequence[Path] = SYSTEM_DIRS) -> list[Interpreter]:
    """The interpreters on offer (module doc); ``SettingsError`` naming a ``CENSUS_PROBE_PYTHONS``
    entry that is not a CPython 3.8 or newer."""
    environ = os.environ if environ is None else environ
    named = [Path(p) for p in environ.get(VARIABLE, "").split(os.pathsep) if p.strip()]
    if named:
        offered = []
        for path in named:
            full = version_of(path)
            if full is None or full[:2] < OLDEST:
                raise SettingsError(f"{VARIABLE}: {path} is not a CPython {OLDEST[0]}.{OLDEST[1]} or newer that runs")
            offered.append(Interpreter(path, full[:2], VARIABLE, full[2]))
        return offered
    by_version: dict[tuple[int, int], Interpreter] = {}
    seen: set[Path] = set()
    for path, where in _candidates(environ, system):
        real = path.resolve()
        if real in seen or not os.access(real, os.X_OK) or not real.is_file():
            continue
        seen.add(real)
        full = version_of(path)
        if full is not None and full[:2] >= OLDEST and full[:2] not in by_version:
            by_version[full[:2]] = Interpreter(path, full[:2], where, full[2])
    return sorted(by_version.values(), key=lambda i: i.version)


def _candidates(environ: Mapping[str, str], system: Sequence[Path]) -> Iterator[tuple[Path, str]]:
    """Every place an interpreter may be, in the order of the module doc."""
    home = Path(environ.get("HOME") or Path.home())
    yield Path(getattr(sys, "_base_executable", sys.executable)), "the census's own"
    for folder in environ.get("PATH", "").split(os.pathsep):
        if folder and "shims" not in Path(folder).parts:
            yield from ((path, "PATH") for path in _versioned(Path(folder)))
    pyenv = Path(environ.get("PYENV_ROOT") or home / ".pyenv")
    yield from ((path, "pyenv") for path in _each(pyenv / "versions", "bin/python3"))
    data = Path(environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    uv = Path(environ.get("UV_PYTHON_INSTALL_DIR") or data / "uv" / "python")
    yield from ((path, "uv") for path in _each(uv, "bin/python3"))
    for place in system:
        yield from ((path, "the system") for path in _versioned(place))


def _versioned(folder: Path) -> Iterable[Path]:
    try:
        return sorted(p for p in folder.iterdir() if _VERSIONED.fullmatch(p.name))
    except OSError:
        return ()


def _each(folder: Path, inside: str) -> Iterable[Path]:
    try:
        return [p / inside for p in sorted(folder.iterdir()) if (p / inside).exists()]
    except OSError:
        return ()


@cache
def version_of(interpreter: Path) -> tuple[int, int, int] | None:
    """``(major, minor, micro)`` of a CPython (asked once), None when it does not run or is not CPython."""
    try:
        done = subprocess.run([str(interpreter), "-c", "import sys; print(sys.implementation.name, "
                                                       "*sys.version_info[:3])"],
                              capture_output=True, text=True, timeout=30, check=False)
        name, major, minor, micro = done.stdout.split()
        return (int(major), int(minor), int(micro)) if name == "cpython" else None
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


def ordered(offered: Sequence[Interpreter], wanted: str | None, released: datetime | None,
            requires: str | None = None) -> list[Choice]:
    """Those of ``offered`` that meet ``requires`` (a ``Requires-Python``), in the module doc's order."""
    fits = [i for i in offered if _meets(i, requires)]
    fit = f", within Requires-Python {requires}" if requires and len(fits) < len(offered) else ""

    def rank(interpreter: Interpreter) -> tuple[int, int, str]:
        version = interpreter.version
        if wanted is not None and interpreter.label == wanted.strip():
            return 0, 0, f"the registry entry asks for Python {wanted.strip()}"
        out = RELEASED.get(version)
        if released is None or out is None:
            return 1, -version[1], "newest first" + (" (the package gives no release date)" if released is None else "")
        when = f"{ADOPTION.days} days before the package's release ({released:%Y-%m-%d})"
        if out + ADOPTION <= released:
            return 1, -version[1], f"out {when}, newest first"
        return 2, version[1], f"not out {when}, oldest first"

    ranked = sorted(((rank(i), i) for i in fits), key=lambda pair: pair[0][:2])
    return [Choice(interpreter, why + fit) for (_, _, why), interpreter in ranked]


def _meets(interpreter: Interpreter, requires: str | None) -> bool:
    if not requires:
        return True
    try:
        return SpecifierSet(requires).contains(f"{interpreter.label}.{interpreter.micro}", prereleases=True)
    except InvalidSpecifier:
        return True  # an unreadable Requires-Python is left to the installer to judge


def labels(offered: Iterable[Interpreter]) -> str:
    """``3.10, 3.11 (PATH)``: the versions found, for a log or a reason."""
    return ", ".join(f"{i.label} ({i.found})" for i in offered) or "none"
