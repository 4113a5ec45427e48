"""Which Python a PyPI package is installed for: the one its registry entry asks for, else the
one a user would have had when the package was released.

``CENSUS_PROBE_PYTHONS`` lists the interpreters on offer (``:``-separated paths; default the
census's own). They are tried in this order (a ``Requires-Python`` the first does not meet
moves to the next, ``pipeline.runtime.installer``):

1. those whose version the entry names (uvx's ``--python 3.12``);
2. those released at least ``ADOPTION`` before the package, newest first: a package from
   early 2025 ran on 3.12, not on 3.13, which had just removed ``imghdr`` and ``audioop``;
3. the rest, oldest first.

Without a release date the order is newest first.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path

VARIABLE = "CENSUS_PROBE_PYTHONS"
#: CPython's feature releases (python.org's release dates)
RELEASED = {(3, 8): datetime(2019, 10, 14, tzinfo=UTC), (3, 9): datetime(2020, 10, 5, tzinfo=UTC),
            (3, 10): datetime(2021, 10, 4, tzinfo=UTC), (3, 11): datetime(2022, 10, 24, tzinfo=UTC),
            (3, 12): datetime(2023, 10, 2, tzinfo=UTC), (3, 13): datetime(2024, 10, 7, tzinfo=UTC),
            (3, 14): datetime(2025, 10, 7, tzinfo=UTC)}
#: how long after its release a Python is the one most users of a new package have
ADOPTION = timedelta(days=180)


def pythons(environ: Mapping[str, str] | None = None) -> list[Path]:
    """The interpreters PyPI packages may be installed for (``CENSUS_PROBE_PYTHONS``)."""
    text = (os.environ if environ is None else environ).get(VARIABLE, "")
    named = [Path(p) for p in text.split(os.pathsep) if p.strip()]
    return named or [Path(getattr(sys, "_base_executable", sys.executable))]


@cache
def version_of(interpreter: Path) -> tuple[int, int] | None:
    """``(major, minor)`` of an interpreter (asked once), None when it does not run."""
    try:
        done = subprocess.run([str(interpreter), "-c", "import sys; print(*sys.version_info[:2])"],
                              capture_output=True, text=True, timeout=30, check=False)
        major, minor = done.stdout.split()
        return int(major), int(minor)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


def ordered(interpreters: Sequence[Path], wanted: str | None, released: datetime | None) -> list[Path]:
    """``interpreters`` in the order of the module doc."""
    versions = {path: version_of(path) for path in interpreters}

    def rank(path: Path) -> tuple[int, float]:
        version = versions[path] or (0, 0)
        if wanted is not None and f"{version[0]}.{version[1]}" == wanted.strip():
            return 0, 0.0
        out = RELEASED.get(version)
        if released is None or out is None:
            return 1, -version[1]
        if out + ADOPTION <= released:
            return 1, -version[1]
        return 2, version[1]

    return sorted(interpreters, key=rank)
