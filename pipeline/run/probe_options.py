"""How ``census probe-registry`` runs (``pipeline.run.probe_registry``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.runtime.interpreters import Interpreter


@dataclass(frozen=True)
class Options:
    """How ``census probe-registry`` runs."""

    work_dir: Path
    """install folders and the npm / uv caches (``--work-dir``, ``CENSUS_PROBE_DIR``); a relative
    path is taken from the current folder (the sandbox starts each command in its own HOME)."""
    latest: bool = False
    """install the newest version, not the one the registry entry names."""
    jobs: int = 2
    seconds: float = 60.0
    """a started server's time to initialize (then each tools/list page has ``Timeouts.page_seconds``)."""
    install_seconds: float = 600.0
    retry_skipped: bool = False
    keep_installs: bool = False
    dependencies_now: bool = False
    """take each dependency's newest version, not the one there was when the package was released."""
    install_scripts: bool = False
    """run npm install scripts (they would have the network)."""
    env: Mapping[str, str] = field(default_factory=dict)
    """variables given to every server that declares them (values never stored)."""
    interpreters: tuple[Interpreter, ...] = ()
    """the Pythons PyPI packages may be installed for (``interpreters.found``)."""
    newer_node: bool = True
    """run an npm server that needs a newer Node than the machine's on one from npm (``pipeline.runtime.nodes``)."""
    stand_ins: bool = True
    """give declared variables and placeholder arguments a stand-in (``pipeline.runtime.standins``);
    off: a variable the entry marks required skips the package, placeholders are left out."""
