"""Dependency drift: the module a failing line names is traced to the distribution installed in a
(synthetic) virtual environment, and the bound below its major version is what is asked for."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.runtime.drift import earlier_major
from pipeline.runtime.package_metadata import python_metadata


def install(folder: Path, name: str, version: str, files: dict[str, str], *, top_level: bool = False) -> None:
    """A distribution as an installer leaves it: its files and a dist-info with RECORD."""
    site = folder / "lib" / "python3.11" / "site-packages"
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    for path, text in files.items():
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_text(text)
    (info / "RECORD").write_text("".join(f"{p},," + "\n" for p in [*files, f"{info.name}/RECORD"]))
    if top_level:
        (info / "top_level.txt").write_text("\n".join(sorted({p.split("/")[0].removesuffix(".py") for p in files})))


@pytest.fixture
def venv(tmp_path: Path) -> Path:
    install(tmp_path, "mcp", "2.3.0", {"mcp/__init__.py": "", "mcp/types.py": ""})
    install(tmp_path, "acme-server", "0.4.0", {"acme_server/__init__.py": ""}, top_level=True)
    install(tmp_path, "zero-dep", "0.9.1", {"zero_dep.py": ""}, top_level=True)
    install(tmp_path, "early-dep", "0.0.4", {"early_dep.py": ""}, top_level=True)
    return tmp_path


@pytest.mark.parametrize(("line", "bound"), [
    ("ModuleNotFoundError: No module named 'mcp.server.fastmcp'. This is mcp 2.x", "mcp<2"),
    ("ImportError: cannot import name 'FastMCP' from 'mcp.server' (/x/mcp/server/__init__.py)", "mcp<2"),
    ("ModuleNotFoundError: No module named 'acme_server.cli'", None),  # the package's own module
    ("ImportError: cannot import name 'x' from 'zero_dep'", "zero-dep<0.9"),  # 0.x: below its minor
    ("ImportError: cannot import name 'x' from 'early_dep'", None),  # 0.0.x: nothing earlier
    ("ModuleNotFoundError: No module named 'absent.sub'", None),  # of no installed distribution
    ("TypeError: unexpected keyword argument", None),
])
def test_the_bound_is_below_the_major_of_the_distribution_named(venv: Path, line: str, bound: str | None) -> None:
    assert earlier_major(venv, line, "acme-server") == bound


def test_a_module_that_runs_as_a_script_is_found_when_no_package_has_a_main(tmp_path: Path) -> None:
    block = 'if __name__ == "__main__":\n    main()\n'
    install(tmp_path, "acme", "1.0.0", {"main.py": block, "helpers.py": "def main(): ...\n", "setup.py": block,
                                         "tests/test_x.py": block, "acme/server.py": block, "acme/__init__.py": block})
    assert python_metadata(tmp_path, "acme").main_modules == ("main", "acme.server")
    install(tmp_path / "two", "acme", "1.0.0", {"acme/__main__.py": "", "acme/server.py": block})
    assert python_metadata(tmp_path / "two", "acme").main_modules == ("acme",)  # a __main__.py comes first
