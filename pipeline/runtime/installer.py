"""Install one package into a private folder, inside the sandbox, and find how to start it.

- npm: ``npm install --prefix FOLDER NAME@VERSION`` (no lock file, no audit, production
  dependencies only), from ``Hosts.npm_registry``; the server is the package's ``bin``
  (``pipeline.runtime.entry``), run on the machine's Node, or on a newer one from npm when the
  package's ``engines.node`` asks for it (``pipeline.runtime.nodes``, :func:`with_newer_node`);
- PyPI (``pipeline.runtime.install_pypi``): ``uv venv FOLDER`` with one of the Pythons found on
  the machine, then ``uv pip install NAME==VERSION`` from ``Hosts.pypi_index`` (uv never
  downloads an interpreter); the server is the package's console script, or ``python -m
  MODULE`` when the registry entry says so or the package has only a module with a
  ``__main__``. Only Pythons that meet the package's ``Requires-Python`` are tried, and one
  whose install fails on a dependency's ``Requires-Python`` moves to the next
  (``pipeline.runtime.interpreters``: which, in what order); the log says which was chosen and
  why. None that fits is an :class:`InstallError` naming the version needed and those found.

Both run with the network (the only step that has it), their caches shared between packages
(npm and uv check every file's hash) and nothing else of the machine writable. A failed
install is an :class:`InstallError` with the last lines of its log.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from pipeline.runtime import nodes
from pipeline.runtime.install_pypi import install_pypi
from pipeline.runtime.install_step import (
    AS_RELEASED,
    LATER,
    LOG_CHARS,
    NEWEST,
    UNRESOLVED,
    Installed,
    InstallError,
    Plan,
    entry_point,
    sandboxed,
    stamp,
)
from pipeline.runtime.package_metadata import MetadataError, installed_sdk, npm_metadata
from pipeline.runtime.packages import NPM, Package, arguments_for

__all__ = ["InstallError", "Installed", "Plan", "install", "with_newer_node"]


def install(package: Package, version: str, folder: Path, plan: Plan) -> Installed:
    """Install ``package`` at ``version`` into ``folder`` (made empty first)."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    plan.cache.mkdir(parents=True, exist_ok=True)  # made here: the sandbox shows only folders that exist
    step = _npm if package.registry == NPM else install_pypi
    notes = ""
    dates = [plan.before, *(plan.before + later for later in LATER)] if plan.before else [None]
    for before in dates:
        try:
            installed = step(package, version, folder, replace(plan, before=before))
        except InstallError as exc:
            if before is None or not any(word in exc.log for word in UNRESOLVED):
                raise
            notes += f"dependencies as of {stamp(before)} could not be resolved ({exc}); "
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            continue
        if not notes:
            return installed
        note = notes + (f"took them as of {stamp(before)}\n" if before else "took the newest instead\n")
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
               *([f"--before={stamp(plan.before)}"] if plan.before else [])]
    log = sandboxed([npm, "install", "--prefix", str(folder), "--no-audit", "--no-fund", "--no-package-lock",
                      "--omit=dev", "--no-update-notifier", f"--registry={plan.hosts.npm_registry}",
                      f"--cache={plan.cache / 'npm'}", *options, f"{package.name}@{version}"],
                     plan, readable=tools, writable=[folder, plan.cache], path=[str(tools[1])])
    try:
        metadata = npm_metadata(folder, package.name)
    except MetadataError as exc:
        raise InstallError(f"installed, but {exc}", log) from None
    log = nodes.engines_note(metadata.engines_node, node, package.name) + log
    arguments = arguments_for(package, metadata.executables, stand_ins=plan.stand_ins)
    entry = entry_point(arguments.executable, metadata.executables, (), package, log, repository=metadata.repository)
    command = (str(folder / "node_modules" / ".bin" / str(entry.executable)), *arguments.passed)
    installed = Installed(command, arguments.left_out, (folder, *tools), (str(tools[1]),), entry.note + log,
                          metadata.repository, arguments.stand_ins, installed_sdk(folder, NPM))
    if log.startswith("engines.node:") and plan.newer_node:
        return with_newer_node(installed, plan, metadata.engines_node) or installed
    return installed


def with_newer_node(installed: Installed, plan: Plan, engines: str | None = None) -> Installed | None:
    """``installed`` to run on the newest Node from npm that meets ``engines`` (None: the newest
    long-term one), or None when npm has none for this machine or it would not install."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        return None
    tools = [Path(npm).resolve().parents[1], Path(node).resolve().parent]

    def fetch(arguments: list[str], prefix: Path) -> str:
        return sandboxed([npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--no-package-lock",
                           "--ignore-scripts", "--no-update-notifier", f"--registry={plan.hosts.npm_registry}",
                           f"--cache={plan.cache / 'npm'}", *arguments], plan, readable=tools,
                          writable=[prefix, plan.cache], path=[str(tools[1])])

    try:
        newer = nodes.newer_node(engines, nodes.version_of(node) or "?", plan.hosts.npm_registry, plan.cache, fetch)
    except InstallError:
        return None
    if newer is None:
        return None
    return replace(installed, readable=(*installed.readable, newer.folder.parent), path=(str(newer.folder),),
                   log=(newer.note + installed.log)[-LOG_CHARS:])
