"""The locks of the tested set hold what pyproject.toml asks for, and a bad lock is named with its line
(``scripts/lock.py --check``, run as a developer runs it)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "scripts" / "lock.py"
MAIN, TEST = "requirements.lock", "requirements-test.lock"


def check(project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(LOCK), "--check", "--project", str(project)], capture_output=True,
                          text=True, timeout=120, check=False)


def test_the_committed_locks_hold_what_pyproject_asks_for() -> None:
    done = check(ROOT)
    assert done.returncode == 0, done.stderr
    assert "hold what pyproject.toml asks for" in done.stdout
    for name in (MAIN, TEST):
        text = (ROOT / name).read_text(encoding="utf-8")
        assert re.search(r"^tomlkit==[\d.]+ \\\n    --hash=sha256:[0-9a-f]{64}", text, re.M), name
        assert re.search(r"^hatchling==", text, re.M), name  # the build backend: installed --no-build-isolation
    assert "pytest==" in (ROOT / TEST).read_text(encoding="utf-8")
    assert "pytest==" not in (ROOT / MAIN).read_text(encoding="utf-8")


def test_the_readme_installs_from_the_locks() -> None:
    block = (ROOT / "README.md").read_text(encoding="utf-8").split("```sh\n", 1)[1].split("```", 1)[0]
    main_job, tests = block.strip().splitlines()
    assert f"-r {MAIN} " in main_job
    assert f"-r {TEST} " in tests
    for line in (main_job, tests):  # the project itself, with the locked build backend, adding nothing
        assert "--no-deps --no-build-isolation -e ." in line


def _project(tmp_path: Path) -> Path:
    for name in ("pyproject.toml", MAIN, TEST):
        shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


def _edit(name: str, change: Callable[[str], str]) -> Callable[[Path], None]:
    def edit(project: Path) -> None:
        path = project / name
        path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")
    return edit


@pytest.mark.parametrize(("edit", "said"), [
    (_edit(TEST, lambda t: t.replace("\ntomlkit==", "\ntomlkit=!", 1)), rf"^{TEST}:\d+: not a requirement"),
    (_edit(TEST, lambda t: re.sub(r"(\npytest==[\d.]+) \\\n(    --hash=\S+ ?\\?\n)+", r"\1\n", t, count=1)),
     rf"^{TEST}:\d+: pytest has no sha256 hash"),
    (_edit(MAIN, lambda t: re.sub(r"\ntomlkit==[\d.]+", "\ntomlkit==0.1.0", t, count=1)),
     rf"^{MAIN}:\d+: tomlkit==0.1.0 is outside pyproject.toml's tomlkit>=[\d.]+$"),
    (_edit(MAIN, lambda t: re.sub(r"\nrich==[\d.]+", "\nrich==99.0.0", t, count=1)),
     rf"^{MAIN}:\d+: rich==99.0.0, but {TEST} has [\d.]+$"),
    (_edit(TEST, lambda t: re.sub(r"\nhypothesis==[^\n]*(\n    [^\n]*)*", "", t, count=1)),
     rf"^{TEST}: hypothesis is required by pyproject.toml \(hypothesis>=[\d.]+\) but not locked$"),
    (lambda project: (project / MAIN).write_bytes(b"\xff\xfe"), rf"^{MAIN}: cannot be read"),
    (lambda project: (project / TEST).unlink(), rf"^{TEST}: cannot be read"),
])
def test_a_bad_lock_is_one_line_naming_the_file_and_line(tmp_path: Path, edit: Callable[[Path], None],
                                                          said: str) -> None:
    project = _project(tmp_path)
    edit(project)
    done = check(project)
    assert done.returncode == 1
    first = done.stderr.strip().splitlines()[0]
    assert re.search(said, first), done.stderr
    assert "Traceback" not in done.stderr
