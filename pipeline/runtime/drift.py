"""Dependency drift: an old package resolved against a newer major version of a dependency it
imports without an upper bound (``No module named 'mcp.server.fastmcp'`` under mcp 2.x).

The module the failing line names is traced to the installed distribution that provides it
(its ``top_level.txt``, else the first folder of its ``RECORD``); the package is then installed
again below that distribution's major version (``mcp<2``), the version line it was written for;
below a 0.x distribution's minor version (``acme-client<0.9``), where semantic versioning puts
breaking changes. A module of the package itself, of no installed distribution, or of version
0.0.x gives no bound: nothing earlier to try.
"""

from __future__ import annotations

import re
from pathlib import Path

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

#: the top-level module a drift line names: a missing submodule, or a name missing from a module
MISSING = re.compile(r"No module named '(\w+)\.[\w.]+'|cannot import name '\w+' from '(\w+)[\w.]*'")


def earlier_major(folder: Path, line: str, package: str) -> str | None:
    """``DIST<MAJOR>`` (``DIST<0.MINOR`` for a 0.x) for the dependency installed in the virtual
    environment ``folder`` whose module ``line`` names, when it is not ``package`` itself."""
    named = MISSING.search(line)
    if named is None:
        return None
    module = named.group(1) or named.group(2)
    for info in sorted(folder.glob("lib/python*/site-packages/*.dist-info")):
        name, _, version = info.name.removesuffix(".dist-info").rpartition("-")
        if canonicalize_name(name) == canonicalize_name(package) or module not in _top_levels(info):
            continue
        try:
            release = Version(version)
        except InvalidVersion:
            return None
        if release.major > 0:
            return f"{canonicalize_name(name)}<{release.major}"
        return f"{canonicalize_name(name)}<0.{release.minor}" if release.minor > 0 else None
    return None


def _top_levels(info: Path) -> set[str]:
    """The top-level modules a distribution installs."""
    listed = info / "top_level.txt"
    if listed.exists():
        return {line.strip() for line in listed.read_text(encoding="utf-8", errors="replace").splitlines()
                if line.strip()}
    try:
        lines = (info / "RECORD").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return set()
    paths = [line.split(",", 1)[0] for line in lines]
    return {p.split("/", 1)[0].removesuffix(".py") for p in paths
            if p and not p.split("/", 1)[0].endswith((".dist-info", ".data")) and not p.startswith("..")}
