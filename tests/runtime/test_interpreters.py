"""The Pythons ``census probe-registry`` installs PyPI packages for, found without configuration
on a synthetic machine: PATH, pyenv, uv's managed ones and the system's; ``CENSUS_PROBE_PYTHONS``
names them instead, and a name that is not a Python is one line naming it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pipeline.errors import SettingsError
from pipeline.runtime import interpreters


def fake(path: Path, says: str) -> Path:
    """An executable that answers the census's version question as ``says`` (``cpython 3 12 1``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho {says}\n")
    path.chmod(0o755)
    return path


def test_every_kind_of_install_is_found_one_per_version(tmp_path: Path) -> None:
    own = interpreters.version_of(Path(getattr(sys, "_base_executable", sys.executable)))
    assert own is not None
    mine = own[1]
    minors = [m for m in (9, 10, 12, 13, 14) if m != mine][:4]  # four versions that are not the census's own
    on_path, pyenv, uv, system = (tmp_path / name for name in ("bin", "pyenv", "uv", "system"))
    fake(on_path / f"python3.{minors[0]}", f"cpython 3 {minors[0]} 8")
    fake(on_path / f"python3.{minors[0]}-config", "not a python")  # not an interpreter's name
    fake(tmp_path / "pyenv" / "shims" / f"python3.{minors[1]}", f"cpython 3 {minors[1]} 0")  # a shim: needs pyenv
    fake(pyenv / "versions" / f"3.{minors[1]}.2" / "bin" / "python3", f"cpython 3 {minors[1]} 2")
    fake(pyenv / "versions" / "pypy3.10-7.3" / "bin" / "python3", "pypy 3 10 14")  # not CPython
    fake(pyenv / "versions" / f"3.{minors[0]}.1" / "bin" / "python3", f"cpython 3 {minors[0]} 1")  # found on PATH first
    fake(uv / f"cpython-3.{minors[2]}.1-linux-x86_64-gnu" / "bin" / "python3", f"cpython 3 {minors[2]} 1")
    fake(system / f"python3.{minors[3]}", f"cpython 3 {minors[3]} 7")
    fake(system / "python3.7", "cpython 3 7 1")  # older than any uv makes a venv for
    environ = {"PATH": f"{on_path}:{tmp_path / 'pyenv' / 'shims'}", "PYENV_ROOT": str(pyenv),
               "UV_PYTHON_INSTALL_DIR": str(uv), "HOME": str(tmp_path / "home")}
    found = interpreters.found(environ, system=[system])
    assert [(i.version[1], i.found) for i in found] == sorted(
        [(mine, "the census's own"), (minors[0], "PATH"), (minors[1], "pyenv"), (minors[2], "uv"),
         (minors[3], "the system")])
    assert next(i for i in found if i.found == "PATH").micro == 8
    assert "shims" not in " ".join(str(i.path) for i in found)


def test_a_named_interpreter_that_is_not_a_python_says_which(tmp_path: Path) -> None:
    fake(tmp_path / "python3.12", "cpython 3 12 1")
    fake(tmp_path / "python3.6", "cpython 3 6 15")
    missing = tmp_path / "nowhere" / "python3.13"
    for bad in (missing, tmp_path / "python3.6"):
        with pytest.raises(SettingsError) as raised:
            interpreters.found({"CENSUS_PROBE_PYTHONS": f"{tmp_path / 'python3.12'}:{bad}"})
        assert str(raised.value) == f"CENSUS_PROBE_PYTHONS: {bad} is not a CPython 3.8 or newer that runs"


def test_each_choice_says_why_and_what_was_found(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    offered = [interpreters.Interpreter(tmp_path / f"python3.{m}", (3, m), "pyenv", 1) for m in (11, 12, 13)]
    choices = interpreters.ordered(offered, None, datetime(2025, 4, 1, tzinfo=UTC), ">=3.12")
    assert [(c.interpreter.label, c.why) for c in choices] == [
        ("3.12", "out 180 days before the package's release (2025-04-01), newest first, within Requires-Python >=3.12"),
        ("3.13", "not out 180 days before the package's release (2025-04-01), oldest first, "
                 "within Requires-Python >=3.12")]
    assert interpreters.ordered(offered, "3.13", None)[0].why == "the registry entry asks for Python 3.13"
    assert interpreters.labels(offered) == "3.11 (pyenv), 3.12 (pyenv), 3.13 (pyenv)"
    assert interpreters.labels([]) == "none"
