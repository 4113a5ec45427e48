"""Install one package into a private folder, inside the sandbox, and find how to start it.

- npm: ``npm install --prefix FOLDER NAME@VERSION`` (no lock file, no audit, production
  dependencies only), from ``Hosts.npm_registry``; the server is the package's ``bin``.
- PyPI: ``uv venv FOLDER`` with one of the Pythons found on the machine, then ``uv pip install
  NAME==VERSION`` from ``Hosts.pypi_index`` (uv never downloads an interpreter); the server is
  the package's console script, or ``python -m MODULE`` when the registry entry says so.
  Only Pythons that meet the package's ``Requires-Python`` are tried, and one whose install
  fails on a dependency's ``Requires-Python`` moves to the next (``pipeline.runtime.interpreters``:
  which, in what order); the log says which was chosen and why. None that fits is an
  :class:`InstallError` naming the version needed and those found.

Both run with the network (the only step that has it), their caches shared between packages
(npm and uv check every file's hash) and nothing else of the machine writable. A failed
install is an :class:`InstallError` with the last lines of its log.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pipeline.errors import CensusError
from pipeline.runtime import interpreters, nodes
from pipeline.runtime.entry import Entry, EntryError, choose
from pipeline.runtime.installlog import last_error
from pipeline.runtime.package_index import Hosts
from pipeline.runtime.package_metadata import (
    MetadataError,
    installed_sdk,
    npm_metadata,
    python_metadata,
)
from pipeline.runtime.packages import NPM, Package, arguments_for
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

    def __init__(self, reason: str, log: str = "") -> None:
        super().__init__(reason)
        self.log = log


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
    interpreters: Sequence[interpreters.Interpreter]
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


def install(package: Package, version: str, folder: Path, plan: Plan) -> Installed:
    """Install ``package`` at ``version`` into ``folder`` (made empty first)."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    plan.cache.mkdir(parents=True, exist_ok=True)  # made here: the sandbox shows only folders that exist
    step = _npm if package.registry == NPM else _pypi
    notes = ""
    dates = [plan.before, *(plan.before + later for later in LATER)] if plan.before else [None]
    for before in dates:
        try:
            installed = step(package, version, folder, replace(plan, before=before))
        except InstallError as exc:
            if before is None or not any(word in exc.log for word in UNRESOLVED):
                raise
            notes += f"dependencies as of {_stamp(before)} could not be resolved ({exc}); "
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            continue
        if not notes:
            return installed
        note = notes + (f"took them as of {_stamp(before)}\n" if before else "took the newest instead\n")
        return replace(installed, log=(note + installed.log)[-LOG_CHARS:],
                       dependencies=AS_RELEASED if before else NEWEST)
    installed = step(package, version, folder, replace(plan, before=None))
    return replace(installed, log=(notes + "took the newest instead\n" + installed.log)[-LOG_CHARS:],
                   dependencies=NEWEST)


def _npm(package: Package, version: str, folder: Path, plan: Plan) -> Installed:
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        missing = " and ".join(name for name, found in (("npm", npm), ("node", node)) if found is None)
        raise InstallError(f"npm packages are installed with npm and run on node: {missing} not on PATH")
    tools = [Path(npm).resolve().parents[1], Path(node).resolve().parent]
    options = [*([] if plan.scripts else ["--ignore-scripts"]),
               *([f"--before={_stamp(plan.before)}"] if plan.before else [])]
    log = _sandboxed([npm, "install", "--prefix", str(folder), "--no-audit", "--no-fund", "--no-package-lock",
                      "--omit=dev", "--no-update-notifier", f"--registry={plan.hosts.npm_registry}",
                      f"--cache={plan.cache / 'npm'}", *options, f"{package.name}@{version}"],
                     plan, readable=tools, writable=[folder, plan.cache], path=[str(tools[1])])
    try:
        metadata = npm_metadata(folder, package.name)
    except MetadataError as exc:
        raise InstallError(f"installed, but {exc}", log) from None
    log = nodes.engines_note(metadata.engines_node, node, package.name) + log
    arguments = arguments_for(package, metadata.executables, stand_ins=plan.stand_ins)
    entry = _entry(arguments.executable, metadata.executables, (), package, log)
    command = (str(folder / "node_modules" / ".bin" / str(entry.executable)), *arguments.passed)
    return Installed(command, arguments.left_out, (folder, *tools), (str(tools[1]),), entry.note + log,
                     metadata.repository, arguments.stand_ins, installed_sdk(folder, NPM))


def _pypi(package: Package, version: str, folder: Path, plan: Plan) -> Installed:
    from uv import find_uv_bin

    uv = Path(find_uv_bin()).resolve()
    choices = interpreters.ordered(plan.interpreters, arguments_for(package).python, plan.released,
                                   plan.requires_python)
    offered = interpreters.labels(plan.interpreters)
    if not choices:
        raise InstallError(f"needs Python {plan.requires_python} (its Requires-Python); found {offered}",
                           f"no Python found meets Requires-Python {plan.requires_python}: found {offered}")
    logs: list[str] = []
    for choice in choices:
        interpreter = choice.interpreter.path
        prefix = interpreter.resolve().parents[1]
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        env = {"UV_CACHE_DIR": str(plan.cache / "uv"), "UV_NO_CONFIG": "1", "UV_PYTHON_DOWNLOADS": "never",
               "UV_INDEX_URL": plan.hosts.pypi_index, "UV_LINK_MODE": "copy",
               **({"UV_EXCLUDE_NEWER": _stamp(plan.before)} if plan.before else {})}
        logs.append(f"python {choice.interpreter.label} ({choice.interpreter.found}): {choice.why}; found {offered}")
        try:
            logs.append(_sandboxed([str(uv), "venv", "--quiet", "--python", str(interpreter), str(folder)], plan,
                                   readable=[uv, prefix], writable=[folder, plan.cache], env=env))
            logs.append(_sandboxed([str(uv), "pip", "install", "--python", str(folder / "bin" / "python"),
                                    f"{package.name}=={version}"], plan, readable=[uv, prefix],
                                   writable=[folder, plan.cache], env=env))
        except InstallError as exc:
            logs.append(exc.log)
            if choice != choices[-1] and any(w in exc.log.lower() for w in PYTHON_MISMATCH):
                continue
            tried = ", ".join(c.interpreter.label for c in choices[:choices.index(choice) + 1])
            reason = str(exc) if len(choices) == 1 else f"{exc} (tried Python {tried}; found {offered})"
            raise InstallError(reason, "\n".join(logs)[-LOG_CHARS:]) from None
        return _python_server(package, folder, prefix, "\n".join(logs)[-LOG_CHARS:], plan.stand_ins)
    raise InstallError("no interpreter to install it for", "\n".join(logs))  # pragma: no cover - choices is not empty


def _python_server(package: Package, folder: Path, prefix: Path, log: str, stand_ins: bool) -> Installed:
    metadata = python_metadata(folder, package.name)
    arguments = arguments_for(package, metadata.executables, stand_ins=stand_ins)
    entry = Entry(None, arguments.module, "") if arguments.module else \
        _entry(arguments.executable, metadata.executables, metadata.main_modules, package, log)
    python = str(folder / "bin" / "python")
    command = (python, "-m", entry.module, *arguments.passed) if entry.module else \
        (str(folder / "bin" / str(entry.executable)), *arguments.passed)
    return Installed(command, arguments.left_out, (folder, prefix), (str(folder / "bin"),), entry.note + log,
                     metadata.repository, arguments.stand_ins, installed_sdk(folder, "pypi"))


def _entry(named: str | None, executables: Mapping[str, object], modules: Sequence[str], package: Package,
           log: str) -> Entry:
    """What the entry names, else what ``entry.choose`` finds; ``InstallError`` when nothing fits."""
    if named:
        return Entry(named, None, "")
    try:
        found = choose(executables, package.name, package.server, modules)
    except EntryError as exc:
        raise InstallError(f"installed, but {exc}", log) from None
    return replace(found, note=found.note + "\n" if found.note else "")


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _sandboxed(command: list[str], plan: Plan, *, readable: Sequence[Path], writable: Sequence[Path],
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
