"""Every notebook of notebooks/ runs, top to bottom, against a census of synthetic trees.

Each notebook is converted from its jupytext percent-format ``.py`` and executed by nbclient
on the ``python3`` kernel of this environment, with ``CENSUS_DB`` pointing at the database
``report_world`` builds (with its runtime captures, ``report_world.add_runtime``); a cell error
fails the test, and the outputs must hold the numbers worked out by hand in ``test_stats.py``
(and, for runtime truth, in ``report_world.RUNTIME``).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import jupytext
import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from report_world import ReportWorld, with_runtime
from synth import fake_sha

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
HEADINGS = ["Question", "Data", "Method", "Result", "Caveats"]
#: per notebook, lines its printed output must hold (golden manifest, see test_stats.py)
EXPECTED = {
    "01-reproduce-published-counts.py": [
        "manifest: golden",
        "| acme/notes | readOnlyHint | 2 | 5 | 3 | 3 | 0 | 1 | 1 |",
        "| acme/notes | annotations | 8 | 8 | 0 | 7 | 0 | 1 | 0 |",
        "| acme/gone | repository-skipped | found |",
    ],
    "02-tool-census.py": [
        f"| acme/notes | {fake_sha('acme/notes')} | scanned | 4 | 3 | 1 | 1 | 0 |",  # by role
        "| acme/notes | test | 1 | 0 | 0 | file:*_test.go (1) |",
        "| acme/wiki | python-mcp | python | yes | 3 | 1 | 2 |",
        "| acme/notes | go-mcp-go | go | yes | 2 | 0 | 0 |",  # every role: list_files and fixture_files
        "| acme/memory | langchain | python | 1 | 1 | agents/lc.py |",
        "| acme/memory | no-tool-in-server-paths | found |",
    ],
    "03-hint-semantics.py": [
        "| on the wire | idempotentHint | 8 | 5 | 63% | 3 | 1 | 2 | 0 |",
        "| on the wire | idempotentHint | 10 | 6 | 60% | 4 | 1 | 3 | 0 |",  # every role
        "| no annotation, no gate | destructiveHint | 2 | 0 | 3 | 0 | 3 |",
        "| acme/wiki | server/wiki.py | delete_page | openWorldHint | unset | unset | true | no gate |",
        "| acme/wiki | false-zero | found |",
    ],
    "04-runtime-truth.py": [
        "manifest: golden",
        "| acme/notes | ok | \N{EN DASH} | file | 2026-11-29 12:00:00 | 2 | 4 | 3 |",
        "| readOnlyHint | 4 | 10 | 9 | 90% | 7 | 5 | 1 | 1 |",
        "| title | 4 | 10 | 9 | 90% | 1 | \N{EN DASH} | \N{EN DASH} | \N{EN DASH} |",
        "| wiki | acme/wiki | 7e9dc454ab4de650b65e9b7acb4f721856e28be4 | 2 | 1 | 1 |",  # fake_sha("acme/wiki")
        "| acme/notes | acme/notes | readOnlyHint | 4 | 2 | 1 | 1 | 0 | 0 | 3 |",
        "| wiki | acme/wiki | openWorldHint | 2 | 1 | 0 | 0 | 1 | 0 | 1 |",
        "| acme/notes | search | readOnlyHint | true | true | unset | dropped on wire | no |",
        "| wiki | delete_page | destructiveHint | unset | unset | true | added on wire | no |",
        "| flaky | stdio | initialize: no answer within 60 s |",
    ],
}
#: what a notebook may import from the pipeline: statistics, charts and the report's table and image helpers
PIPELINE_IMPORTS = {"plots", "report", "runtime_stats", "stats"}


@pytest.fixture(scope="module")
def captured(world: ReportWorld, tmp_path_factory: pytest.TempPathFactory) -> ReportWorld:
    """A copy of the census database of the synthetic trees, with runtime captures."""
    return replace(world, db=with_runtime(world, tmp_path_factory.mktemp("notebooks")))


def execute(path: Path, cwd: Path) -> Any:
    """The notebook of ``path``, executed in ``cwd``; raises ``CellExecutionError`` on a cell error."""
    notebook = jupytext.read(path)
    NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute()
    return notebook


def outputs(notebook: Any) -> tuple[str, int]:
    """All printed text of ``notebook``, and how many PNG images it displayed."""
    texts, images = [], 0
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            texts.append(output.get("text", ""))
            images += "image/png" in output.get("data", {})
    return "".join(texts), images


def test_every_notebook_is_tested() -> None:
    assert sorted(p.name for p in NOTEBOOKS.glob("*.py")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_notebook_runs_against_the_census(name: str, captured: ReportWorld, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CENSUS_DB", str(captured.db))
    monkeypatch.setenv("CENSUS_MANIFEST", "golden")

    notebook = execute(NOTEBOOKS / name, tmp_path)

    text, images = outputs(notebook)
    for line in EXPECTED[name]:
        assert line in text, line
    assert f"database: {captured.db}" in text
    assert images >= 1
    nbformat.validate(notebook)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_notebook_has_the_headings_and_no_counting_of_its_own(name: str) -> None:
    notebook = jupytext.read(NOTEBOOKS / name)
    markdown = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    code = "\n".join(c.source for c in notebook.cells if c.cell_type == "code")

    assert re.findall(r"^## (\w+)", markdown, re.M) == HEADINGS
    imported = {name for line in re.findall(r"^from pipeline import (.+)$", code, re.M) for name in line.split(", ")}
    assert {"plots", "report", "stats"} <= imported <= PIPELINE_IMPORTS
    assert re.findall(r"^(?:from|import) pipeline\b(?! import)", code, re.M) == []
    for counting in ("SELECT", ".sql(", "group_by", ".agg(", ".sum(", ".count(", "len(", "duckdb"):
        assert counting not in code, counting
    assert notebook.metadata["kernelspec"]["name"] == "python3"


def test_a_missing_database_is_one_line_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tmp_path / "nowhere.duckdb"
    monkeypatch.setenv("CENSUS_DB", str(missing))

    with pytest.raises(CellExecutionError) as caught:
        execute(NOTEBOOKS / "02-tool-census.py", tmp_path)

    error = caught.value
    assert error.ename == "StoreError"
    assert error.evalue.startswith(f"{missing}: no census database here")
    assert "\n" not in error.evalue
