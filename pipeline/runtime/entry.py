"""What starts an installed package, and why that: one rule for every package.

1. what the registry entry names: ``-m MODULE``, or a leading word naming one of the package's
   executables (``pipeline.runtime.packages.arguments_for``);
2. its only executable (npm ``bin``, a PyPI console script);
3. among several, the one named like the package or the server, compared without case and
   with ``-``, ``_`` and ``.`` alike, then with the words ``mcp`` and ``server`` taken off
   both (``@acme/mcp-server-notes`` starts ``notes``), then the only one that says ``mcp``;
4. a PyPI package without a console script: ``python -m MODULE`` for its package with a
   ``__main__.py``, else its module that runs as a script (``if __name__ == "__main__":``),
   among several the one named like the package, then the only ``server`` or ``main``.

Anything else is an ``EntryError`` saying what there was. Each choice but the first says which
rule made it, for the install log.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pipeline.errors import CensusError

#: words a package or executable name often carries besides what it serves
#: what a module a package's user starts as a script is usually called
SCRIPT_NAMES = frozenset({"server", "main"})
NOISE = frozenset({"mcp", "server", "servers", "model", "context", "protocol", "stdio", "cli"})


class EntryError(CensusError):
    """Nothing to start, or several things and no rule to choose one; the message says which."""


@dataclass(frozen=True)
class Entry:
    """What starts the server: an executable's name, or a module for ``python -m``."""

    executable: str | None
    module: str | None
    note: str
    """why it (empty when the registry entry named it, or it was the only one)."""


def choose(executables: Iterable[str], package: str, server: str, modules: Sequence[str] = ()) -> Entry:
    """The entry point of the module doc, among a package's ``executables`` and ``modules``."""
    names = sorted(executables)
    if len(names) == 1:
        return Entry(names[0], None, "")
    if names:
        chosen, why = _named_like(names, package, server)
        if chosen is None:
            raise EntryError(f"the package has {len(names)} executables ({', '.join(names)}) and neither the "
                             "registry entry nor their names say which is the server")
        return Entry(chosen, None, f"entry point: {chosen}, of {', '.join(names)}: {why}")
    if modules:
        found, why = _named_like(list(modules), package, server)
        usual = [m for m in modules if m.rsplit(".", 1)[-1] in SCRIPT_NAMES]
        if found is None and len(modules) > 1 and len(usual) == 1:
            found, why = usual[0], f"named {usual[0].rsplit('.', 1)[-1]}"
        module = found or (modules[0] if len(modules) == 1 else None)
        if module is None:
            raise EntryError(f"the package has no console script and {len(modules)} modules to start "
                             f"({', '.join(modules)}), none named like it")
        return Entry(None, module, f"entry point: python -m {module}: no console script; "
                                   f"{module} runs as __main__{' and is ' + why if found else ''}")
    raise EntryError("the package has no executable to start (no bin / console script, no module with a __main__)")


def _named_like(names: Sequence[str], package: str, server: str) -> tuple[str | None, str]:
    """The one of ``names`` the package or server is named like, and which rule found it."""
    wanted = [package.rsplit("/", 1)[-1], server.rsplit("/", 1)[-1]]
    for label, key in (("named like the package or server", _normal), ("named like it but for mcp/server", _core)):
        keys = {key(w) for w in wanted} - {""}
        matched = [n for n in names if key(n.rsplit(".", 1)[-1]) in keys or key(n) in keys]
        if len(matched) == 1:
            return matched[0], label
    saying = [n for n in names if "mcp" in _words(n)]
    if len(saying) == 1:
        return saying[0], "the only one that says mcp"
    return None, ""


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[-_.@/\s]+", name.lower()) if w]


def _normal(name: str) -> str:
    return "-".join(_words(name))


def _core(name: str) -> str:
    return "-".join(w for w in _words(name) if w not in NOISE)
