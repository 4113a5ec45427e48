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
from datetime import UTC, datetime
from pathlib import Path

from packaging.utils import canonicalize_name

from pipeline.errors import CensusError
from pipeline.runtime import interpreters
from pipeline.runtime.package_index import Hosts
from pipeline.runtime.package_metadata import MetadataError, npm_metadata, python_metadata
from pipeline.runtime.packages import NPM, Package, arguments_for
from pipeline.runtime.sandbox import Sandbox, environment, trusted_files

#: the log kept of an install (its end: where the error is)
LOG_CHARS = 4000
#: words of an installer's error that say the interpreter is too old or too new
PYTHON_MISMATCH = ("requires-python", "requires python", "python>=", "python_version", "python version")


#: what a dated install's resolver says when a dependency had no version yet at that date
UNRESOLVED = ("ETARGET", "No solution found", "with a date before")
AS_RELEASED, NEWEST = "as released", "newest"


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


def install(package: Package, version: str, folder: Path, plan: Plan) -> Installed:
    """Install ``package`` at ``version`` into ``folder`` (made empty first)."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    plan.cache.mkdir(parents=True, exist_ok=True)  # made here: the sandbox shows only folders that exist
    step = _npm if package.registry == NPM else _pypi
    try:
        return step(package, version, folder, plan)
    except InstallError as exc:
        if plan.before is None or not any(word in exc.log for word in UNRESOLVED):
            raise
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        installed = step(package, version, folder, replace(plan, before=None))
        note = (f"dependencies as of {_stamp(plan.before)} could not be resolved ({exc}); "
                "took the newest instead\n")
        return replace(installed, log=(note + installed.log)[-LOG_CHARS:], dependencies=NEWEST)


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
    arguments = arguments_for(package, metadata.executables)
    chosen = arguments.executable or _choose(metadata.executables, package.name.rsplit("/", 1)[-1], package, log)
    command = (str(folder / "node_modules" / ".bin" / chosen), *arguments.passed)
    return Installed(command, arguments.left_out, (folder, *tools), (str(tools[1]),), log, metadata.repository)


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
        return _python_server(package, folder, prefix, "\n".join(logs)[-LOG_CHARS:])
    raise InstallError("no interpreter to install it for", "\n".join(logs))  # pragma: no cover - choices is not empty


def _python_server(package: Package, folder: Path, prefix: Path, log: str) -> Installed:
    metadata = python_metadata(folder, package.name)
    arguments = arguments_for(package, metadata.executables)
    if arguments.module:
        command: tuple[str, ...] = (str(folder / "bin" / "python"), "-m", arguments.module, *arguments.passed)
    else:
        chosen = arguments.executable or _choose(metadata.executables, package.name, package, log)
        command = (str(folder / "bin" / chosen), *arguments.passed)
    return Installed(command, arguments.left_out, (folder, prefix), (str(folder / "bin"),), log, metadata.repository)


def _choose(names: Mapping[str, object], preferred: str, package: Package, log: str) -> str:
    """The one executable to start: the only one, or the one named like the package."""
    if len(names) == 1:
        return next(iter(names))
    for name in names:
        if canonicalize_name(name) == canonicalize_name(preferred):
            return name
    if not names:
        raise InstallError("installed, but the package has no executable to start (no bin / console script)", log)
    raise InstallError(f"installed, but the package has {len(names)} executables ({', '.join(sorted(names))}) "
                       "and the registry entry names none of them", log)


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
                           f"{_last_line(output)}", output[-LOG_CHARS:])
    return output


def _last_line(output: str) -> str:
    """The install's last meaningful line (npm's ``npm error`` lines come last)."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [n for n, line in enumerate(lines) if "error" in line.lower() and "A complete log" not in line]
    if not errors:
        return (lines[-1] if lines else "no output")[:300]
    first = errors[0]
    said = lines[first]
    causes = [line for line in lines[first + 1:] if line.startswith("cause:")]
    if said.rstrip().endswith(":") or "No solution found" in said:  # uv explains on the lines after
        said += " " + " ".join(line.lstrip("╰─▶ ") for line in lines[first + 1:first + 3])
    elif causes:  # uv's chain of causes: the last is the root
        said += f" ({causes[-1]})"
    elif said.startswith("npm error code"):  # npm names the code first, the error itself later
        rest = [line.removeprefix("npm error").strip() for line in lines[first + 1:] if line.startswith("npm error")]
        cause = next((line for line in rest if "Error: " in line), rest[0] if rest else None)
        said = f"{said}: {cause}" if cause else said
    return said[:400]
