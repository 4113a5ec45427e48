"""The Node an npm package runs on: the machine's, and whether it meets the package's ``engines.node``."""

from __future__ import annotations

import subprocess
from functools import cache

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
