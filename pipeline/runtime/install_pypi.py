"""A PyPI package installed into a virtual environment of its own, for one of the Pythons found."""

from __future__ import annotations

import shutil
from pathlib import Path

from pipeline.runtime import interpreters
from pipeline.runtime.entry import Entry
from pipeline.runtime.install_step import (
    LOG_CHARS,
    PYTHON_MISMATCH,
    Installed,
    InstallError,
    Plan,
    entry_point,
    sandboxed,
    stamp,
)
from pipeline.runtime.package_metadata import installed_sdk, python_metadata
from pipeline.runtime.packages import Package, arguments_for


def install_pypi(package: Package, version: str, folder: Path, plan: Plan) -> Installed:
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
               **({"UV_EXCLUDE_NEWER": stamp(plan.before)} if plan.before else {})}
        logs.append(f"python {choice.interpreter.label} ({choice.interpreter.found}): {choice.why}; found {offered}")
        try:
            logs.append(sandboxed([str(uv), "venv", "--quiet", "--python", str(interpreter), str(folder)], plan,
                                   readable=[uv, prefix], writable=[folder, plan.cache], env=env))
            logs.append(sandboxed([str(uv), "pip", "install", "--python", str(folder / "bin" / "python"),
                                    f"{package.name}=={version}", *plan.bounds], plan, readable=[uv, prefix],
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
        entry_point(arguments.executable, metadata.executables, metadata.main_modules, package, log,
                    repository=metadata.repository)
    python = str(folder / "bin" / "python")
    command = (python, "-m", entry.module, *arguments.passed) if entry.module else \
        (str(folder / "bin" / str(entry.executable)), *arguments.passed)
    return Installed(command, arguments.left_out, (folder, prefix), (str(folder / "bin"),), entry.note + log,
                     metadata.repository, arguments.stand_ins, installed_sdk(folder, "pypi"))


