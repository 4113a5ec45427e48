"""Every notebook of notebooks/ runs, top to bottom, against a census of synthetic trees.

Each notebook is converted from its jupytext percent-format ``.py`` and executed by nbclient
on the ``python3`` kernel of this environment, with ``CENSUS_DB`` pointing at the database
``report_world`` builds (with its runtime captures, ``report_world.add_runtime``); a cell error
fails the test, and the frames it displays must hold the numbers worked out by hand in
``test_stats.py`` (and, for runtime truth, in ``report_world.RUNTIME``). A notebook shows its
tables as polars DataFrames (HTML a user can read and query again), never as Markdown text.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import jupytext
import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from population_world import population_census
from report_world import ReportWorld, with_runtime
from synth import fake_sha
from timeline_world import timeline_census

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
HEADINGS = ["Question", "Data", "Method", "Result", "Caveats"]
#: per notebook, rows its displayed frames must hold, cell by cell as polars shows them (strings
#: in quotes, null, true/false, floats unformatted), each the start of one row (golden manifest,
#: see test_stats.py)
EXPECTED: dict[str, list[tuple[str, ...]]] = {
    "01-reproduce-published-counts.py": [
        ('"acme/notes"', '"readOnlyHint"', "2", "5", "3", "3", "0", "1", "1"),
        ('"acme/notes"', '"annotations"', "8", "8", "0", "7", "0", "1", "0"),
        ('"acme/gone"', '"repository-skipped"', '"found"'),
    ],
    "02-tool-census.py": [
        ('"acme/notes"', f'"{fake_sha("acme/notes")}"', '"scanned"', "4", "3", "1", "1", "0"),  # by role
        ('"acme/notes"', '"test"', "1", "0", "0", '["file:*_test.go (1)"]'),
        ('"acme/wiki"', '"python-mcp"', '"python"', "true", "3", "1", "2"),
        ('"acme/notes"', '"go-mcp-go"', '"go"', "true", "2", "0", "0"),  # every role: list_files and fixture_files
        ('"acme/memory"', '"langchain"', '"python"', "1", "1", '["agents/lc.py"]'),
        ('"acme/memory"', '"no-tool-in-server-paths"', '"found"'),
    ],
    "03-hint-semantics.py": [
        ('"on the wire"', '"idempotentHint"', "8", "5", "0.625", "3", "1", "2", "0"),
        ('"on the wire"', '"idempotentHint"', "10", "6", "0.6", "4", "1", "3", "0"),  # every role
        ('"no annotation, no gate"', '"destructiveHint"', "2", "0", "3", "0", "3"),
        ('"acme/wiki"', '"server/wiki.py"', '"delete_page"', '"openWorldHint"', '"unset"', '"unset"', '"true"',
         '"no gate"'),
        ('"acme/wiki"', '"false-zero"', '"found"'),
    ],
    "04-runtime-truth.py": [
        ('"acme/notes"', '"ok"', "null", '"file"', "2026-11-29 12:00:00", "2", "4", "3"),
        ('"readOnlyHint"', "4", "10", "9", "0.9", "7", "5", "1", "1"),
        ('"title"', "4", "10", "9", "0.9", "1", "null", "null", "null"),
        ('"wiki"', '"acme/wiki"', f'"{fake_sha("acme/wiki")}"', "2", "1", "1"),
        ('"acme/notes"', '"acme/notes"', '"readOnlyHint"', "4", "2", "1", "1", "0", "0", "3"),
        ('"wiki"', '"acme/wiki"', '"openWorldHint"', "2", "1", "0", "0", "1", "0", "1"),
        ('"acme/notes"', '"search"', '"readOnlyHint"', '"true"', '"true"', '"unset"', '"dropped on wire"', "false"),
        ('"wiki"', '"delete_page"', '"destructiveHint"', '"unset"', '"unset"', '"true"', '"added on wire"', "false"),
        ('"flaky"', '"stdio"', '"initialize: no answer within 60 s"'),
    ],
}
EXPECTED["05-registry-census.py"] = [  # the population census of population_world, manifest "population"
    ('"not-scanned"', "1"), ('"server-tools"', "1"), ('"not-a-server"', "5"), ('"unknown"', "1"),
    ('"acme/moved"', '"server-elsewhere"', '"README points to https://github.com/acme/new-home"'),
    ('"acme/lisp"', '"unsupported"'),
    ('"readOnlyHint"', "288", "262", "145", "117"),
    ('"none"', "2", "2", "0"),
    ('"ts-mcp"', '"typescript"', "1", "1", "0"),
    ('"acme/tools"', f'"{"1" * 40}"', "1", "0"),  # found by name
    # the timeline of timeline_world, stored under the same manifest name
    ('"2025-06"', "2025-06-30 23:59:59", "4", "4", "0", "4", "4", "4", "1.0", "4", "1.0", "7", "6"),
    ('"2025-03"', '"readOnlyHint"', "7", "4", "4", "0"),
    ('"python-mcp"', '"python"', '"2024-11"', '"2025-02"', "3", "2", "5", "4"),
    ('"acme/late"', '"2025-02"', '"2025-02"', '"2025-02"', '"python-mcp"'),
]
#: notebooks run against the population census instead of report_world's (manifest name)
POPULATION = {"05-registry-census.py": "population"}
#: what a notebook may import from the pipeline: statistics, charts and the report's table and image helpers
#: the library modules a notebook may import: the statistics and the reports' charts, nothing that counts
PIPELINE_IMPORTS = {"pipeline.analysis.stats", "pipeline.analysis.runtime", "pipeline.analysis.runtime_population",
                    "pipeline.analysis.source_vs_wire", "pipeline.report.census", "pipeline.report.plots",
                    "pipeline.report.population_plots", "pipeline.report.timeline_plots"}


@pytest.fixture(scope="module")
def population_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The census database of population_world's trees, with timeline_world's timeline under its name."""
    root = tmp_path_factory.mktemp("population")
    db = population_census(root)
    return timeline_census(root / "timeline", "population", db).db


@pytest.fixture(scope="module")
def captured(world: ReportWorld, tmp_path_factory: pytest.TempPathFactory) -> ReportWorld:
    """A copy of the census database of the synthetic trees, with runtime captures."""
    return replace(world, db=with_runtime(world, tmp_path_factory.mktemp("notebooks")))


def execute(path: Path, cwd: Path) -> Any:
    """The notebook of ``path``, executed in ``cwd``; raises ``CellExecutionError`` on a cell error."""
    notebook = jupytext.read(path)
    NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute()
    return notebook


class Tables(HTMLParser):
    """The tables of an HTML text, each as the texts of its body rows' cells (entities decoded)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[tuple[str, ...]]] = []
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._in_body = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag in ("thead", "tbody"):
            self._in_body = tag == "tbody"
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._row is not None and self._cell is not None:
            self._row.append("".join(self._cell))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            if self._in_body:
                self.tables[-1].append(tuple(self._row))
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


@dataclass(frozen=True)
class Outputs:
    """What an executed notebook showed."""

    printed: str
    """Its printed text (streams), joined."""
    texts: list[str]
    """Every textual output: streams and every text/* representation of displayed data."""
    tables: list[list[tuple[str, ...]]]
    """The tables of its ``text/html`` outputs (the frames it displayed), as rows of cell texts."""
    images: int
    """How many PNG images it displayed."""


def outputs(notebook: Any) -> Outputs:
    """What ``notebook`` showed, once executed."""
    printed, texts, tables, images = [], [], [], 0
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            printed.append(output.get("text", ""))
            texts += [output.get("text", ""), *(v for k, v in data.items() if k.startswith("text/"))]
            if "text/html" in data:
                parser = Tables()
                parser.feed(data["text/html"])
                tables += parser.tables
            images += "image/png" in data
    return Outputs("".join(printed), texts, tables, images)


def shows_row(tables: list[list[tuple[str, ...]]], cells: tuple[str, ...]) -> bool:
    """Whether a row of ``tables`` begins with ``cells``."""
    return any(row[:len(cells)] == cells for table in tables for row in table)


def test_every_notebook_is_tested() -> None:
    assert sorted(p.name for p in NOTEBOOKS.glob("*.py")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_notebook_runs_against_the_census(name: str, captured: ReportWorld, population_db: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    db, manifest = (population_db, POPULATION[name]) if name in POPULATION else (captured.db, "golden")
    monkeypatch.setenv("CENSUS_DB", str(db))
    monkeypatch.setenv("CENSUS_MANIFEST", manifest)

    notebook = execute(NOTEBOOKS / name, tmp_path)

    shown = outputs(notebook)
    assert shown.tables, "no frame displayed as an HTML table"
    for cells in EXPECTED[name]:
        assert shows_row(shown.tables, cells), cells
    truncated = [cell for table in shown.tables for row in table for cell in row if "\N{HORIZONTAL ELLIPSIS}" in cell]
    assert truncated == [], "a frame is cut short (pl.Config at the top)"
    markdown = [line for text in shown.texts for line in text.splitlines() if line.startswith(("|---", "| "))]
    assert markdown == [], "a table printed as Markdown text"
    assert f"database: {db}\nmanifest: {manifest}" in shown.printed
    assert shown.images >= 1
    nbformat.validate(notebook)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_notebook_has_the_headings_and_no_counting_of_its_own(name: str) -> None:
    notebook = jupytext.read(NOTEBOOKS / name)
    markdown = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    code = "\n".join(c.source for c in notebook.cells if c.cell_type == "code")

    assert re.findall(r"^## (\w+)", markdown, re.M) == HEADINGS
    imported = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            assert not [a.name for a in node.names if a.name.startswith("pipeline")], "import a module, not a package"
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pipeline"):
            imported |= {f"{node.module}.{alias.name}" for alias in node.names}
    assert {"pipeline.analysis.stats", "pipeline.report.census", "pipeline.report.plots"} <= imported
    assert imported <= PIPELINE_IMPORTS
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
