"""What every install shares: its plan, its result, its error, and one step run in the sandbox."""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pipeline.errors import CensusError
from pipeline.runtime.entry import Entry, EntryError, choose
from pipeline.runtime.installlog import last_error
from pipeline.runtime.interpreters import Interpreter
from pipeline.runtime.package_index import Hosts
from pipeline.runtime.packages import Package
from pipeline.runtime.sandbox import Sandbox, environment, trusted_files
from pipeline.runtime.standins import StandIn

#: the log kept of an install (its end: where the error is)
LOG_CHARS = 4000
#: words of an installer's error that say the interpreter is too old or too new
PYTHON_MISMATCH = ("requires-python", "requires python", "python>=", "python_version", "python version")


#: what a dated install's resolver says when a dependency had no version yet at that date
UNRESOLVED = ("ETARGET", "No solution found", "with a date before")
AS_RELEASED, NEWEST = "as released", "newest"
#: a dated install that cannot be resolved (a dependency it names was released a little later, or
#: re-uploaded) is tried again this much later, then with the newest of everything
LATER = (timedelta(days=7), timedelta(days=30))


class InstallError(CensusError):
    """A package that would not install or has nothing to start; ``log`` is the install's log."""

    def __init__(self, reason: str, log: str = "", repository: str | None = None) -> None:
        super().__init__(reason)
        self.log = log
        self.repository = repository
        """the repository the installed package names, when it installed but has nothing to start."""


@dataclass(frozen=True)
class Installed:
    """An installed package: the command that starts its server, and what the sandbox must show it."""

    command: tuple[str, ...]
    left_out: tuple[str, ...]
    """registry arguments not passed (placeholders, launcher flags)."""
    readable: tuple[Path, ...]
    """the install folder (first) and the interpreters it runs on."""
    path: tuple[str, ...]
    """folders to put first on the server's PATH."""
    log: str
    repository: str | None = None
    """the repository the package says it was built from (``package_metadata``)."""
    stand_ins: tuple[StandIn, ...] = ()
    """arguments passed as stand-ins for placeholders (``packages.arguments_for``)."""
    sdk: str | None = None
    """the MCP SDK installed with it (``package_metadata.installed_sdk``)."""
    dependencies: str = AS_RELEASED
    """``as released`` (as they were at ``Plan.before``, or newest when no date was set) or
    ``newest`` (the dated install could not be resolved, so it was taken without the date)."""


@dataclass(frozen=True)
class Plan:
    """How to install: where from, into what, and how far back its dependencies are taken."""

    cache: Path
    sandbox: Sandbox
    hosts: Hosts
    interpreters: Sequence[Interpreter]
    """the Pythons on offer (``interpreters.found``)."""
    seconds: float
    """one install step's time limit."""
    before: datetime | None = None
    """take every dependency as it was at this moment (npm ``--before``, uv ``--exclude-newer``)."""
    scripts: bool = False
    """run npm install scripts (off: only npm itself runs while the network is there)."""
    released: datetime | None = None
    """the package version's release date: which Python it is installed for (``pipeline.runtime.interpreters``)."""
    requires_python: str | None = None
    """the package version's ``Requires-Python``, as its index gives it."""
    stand_ins: bool = True
    """pass a placeholder argument as a stand-in (off: leave it out)."""
    newer_node: bool = True
    """run a package whose ``engines.node`` the machine's Node does not meet on a newer one from npm."""
    bounds: tuple[str, ...] = ()
    """PyPI: requirements installed with the package that keep a dependency below a major version
    (``mcp<2``, ``pipeline.runtime.drift``)."""


def stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def sandboxed(command: list[str], plan: Plan, *, readable: Sequence[Path], writable: Sequence[Path],
               path: Sequence[str] = (), env: Mapping[str, str] | None = None) -> str:
    """Run an install step in the sandbox, with the network; its output, or ``InstallError``."""
    seconds = plan.seconds
    with tempfile.TemporaryDirectory(prefix="census-install-home-") as home:
        wrapped = plan.sandbox.command(command, home=Path(home), readable=[*readable, *trusted_files()],
                                  writable=writable, network=True)
        try:
            done = subprocess.run(wrapped, env=environment(path, env, network=True), stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=seconds, check=False)
        except subprocess.TimeoutExpired as exc:
            output = (exc.stdout or b"").decode("utf-8", "replace")
            raise InstallError(f"install: not done within {seconds:g} s", output[-LOG_CHARS:]) from None
    output = done.stdout.decode("utf-8", "replace")
    if done.returncode != 0:
        raise InstallError(f"install: {Path(command[0]).name} {command[1]} exited {done.returncode}: "
                           f"{last_error(output)}", output[-LOG_CHARS:])
    return output


def entry_point(named: str | None, executables: Mapping[str, object], modules: Sequence[str], package: Package,
                log: str, *, repository: str | None = None) -> Entry:
    """What the entry names, else what ``entry.choose`` finds; ``InstallError`` when nothing fits
    (with the ``repository`` the package names: a name taken by another project has no server)."""
    if named:
        return Entry(named, None, "")
    try:
        found = choose(executables, package.name, package.server, modules)
    except EntryError as exc:
        raise InstallError(f"installed, but {exc}", log, repository) from None
    return replace(found, note=found.note + "\n" if found.note else "")


