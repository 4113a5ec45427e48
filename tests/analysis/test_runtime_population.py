"""The runtime census's statistics and report section: a small census of synthetic trees, each
paired with a package capture (stored as ``census probe-registry`` stores one), held against
the detector's rows; the section is rebuilt byte for byte from its Parquet frames."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import polars as pl
import pytest
from tree_census import tree_census

from pipeline.analysis import runtime_population, source_vs_wire
from pipeline.report import census as report
from pipeline.report import population as report_population
from pipeline.runtime.ingest import SKIPPED, STDIO, Capture, ingest_tools_list
from pipeline.store.database import Store
from pipeline.store.runtime import PackageRun, ensure_readable, record_capture, set_server_repo

TS = (b'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\n'
      b'const server = new McpServer({ name: "m", version: "1" });\n')
TREES: dict[str, dict[str, bytes | tuple[str, str]]] = {
    "acme/multi": {
        "package.json": b'{"name": "m", "dependencies": {"@modelcontextprotocol/sdk": "^1.12.0"}}',
        "packages/server/src/index.ts": TS + b'server.tool("echo", "Echo", {}, async () => ({ content: [] }));\n'
                                             b'server.tool("list-things", "List", {}, async () => ({ content: [] }));\n'
                                             b'server.tool("old-tool", "Old", {}, async () => ({ content: [] }));\n',
        "packages/other/index.ts": TS + b'server.tool("other-tool", "Other", {}, async () => ({ content: [] }));\n'},
    "acme/py": {
        "pyproject.toml": b'[project]\nname = "p"\ndependencies = ["fastmcp"]\n',
        "server.py": b"from fastmcp import FastMCP\nmcp = FastMCP('p')\n\n@mcp.tool\ndef lookup(): ...\n\n"
                     b"@mcp.tool\ndef remove(): ...\n"},
}
#: (server, repo, subfolder, tools received with their annotations, released, commit date)
Received = list[tuple[str, dict[str, bool] | None]]
CAPTURES: list[tuple[str, str, str | None, Received, datetime, str]] = [
    ("io.github.acme/multi", "acme/multi", "packages/server",
     [("echo", {"readOnlyHint": True}), ("list-things", None), ("new-tool", {"destructiveHint": False})],
     datetime(2025, 6, 1, tzinfo=UTC), "2025-05-01"),
    ("io.github.acme/py", "acme/py", None, [("lookup", {"readOnlyHint": True})], datetime(2025, 1, 1, tzinfo=UTC),
     "2025-03-01"),
]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db, statuses = tree_census(tmp_path_factory.mktemp("runtime-population"), "runtime", TREES)
    assert statuses == ["scanned", "scanned"]
    root = db.parent
    with Store(db) as store:
        con = store.connection
        for server, repo, subfolder, tools, released, committed in CAPTURES:
            answer = root / f"{repo.replace('/', '-')}.json"
            answer.write_text(json.dumps({"tools": [{"name": n, **({"annotations": a} if a else {})}
                                                    for n, a in tools]}))
            capture = ingest_tools_list(answer, server, datetime(2026, 1, 1, tzinfo=UTC))
            run = PackageRun("npm", repo.split("/")[1], "1.0.0", "1.0.0", released, "added 1 package")
            record_capture(con, capture, run)
            set_server_repo(con, server, repo, subfolder)
            con.execute("UPDATE snapshots SET committed_at_utc = ?::TIMESTAMP WHERE repo = ?", [committed, repo])
        broken = Capture(server="io.github.acme/broken", captured_at_utc=datetime(2026, 1, 1, tzinfo=UTC),
                         status=SKIPPED, reason="resolve: the npm registry has no package broken (HTTP 404)",
                         transport=STDIO, command_or_url="npm:broken@1.0.0")
        record_capture(con, broken, PackageRun("npm", "broken", "1.0.0", "1.0.0", None, ""))
        set_server_repo(con, "io.github.acme/broken", "acme/py")
    return db


@pytest.fixture
def con(db: Path) -> duckdb.DuckDBPyConnection:
    return duckdb.connect(str(db), read_only=True)


def test_each_package_has_its_step_and_its_dates(con: duckdb.DuckDBPyConnection) -> None:
    rows = {r["server"]: r for r in runtime_population.package_captures(con, "runtime").iter_rows(named=True)}
    assert rows["io.github.acme/broken"]["step"] == "resolve"
    assert rows["io.github.acme/broken"]["tools"] is None
    assert rows["io.github.acme/multi"]["step"] == "ok"
    assert rows["io.github.acme/multi"]["tools"] == 3
    assert rows["io.github.acme/multi"]["version_vs_commit"] == "package newer"
    assert rows["io.github.acme/multi"]["released_minus_commit_days"] == 31
    assert rows["io.github.acme/py"]["version_vs_commit"] == "package older"
    assert rows["io.github.acme/broken"]["cause"] == "resolve"  # stored before causes were: read from its reason
    assert rows["io.github.acme/multi"]["cause"] == "answered"
    funnel = dict(runtime_population.probe_funnel(con, "runtime").select("cause", "packages").iter_rows())
    assert funnel == {"answered": 2, "resolve": 1, "no artifact": 0, "build": 0, "interpreter": 0, "entry point": 0,
                      "dependency drift": 0, "needs a value": 0, "needs the network or a service": 0, "timeout": 0,
                      "crashed": 0, "not stdio": 0}


def test_the_detector_is_held_against_the_answers_within_the_server_folder(con: duckdb.DuckDBPyConnection) -> None:
    frame = source_vs_wire.detector_vs_runtime(con, "runtime")
    rows = {r["server"]: r for r in frame.iter_rows(named=True)}
    multi = rows["io.github.acme/multi"]  # other-tool lives outside the server's subfolder: not counted
    assert (multi["matched"], multi["runtime_only"], multi["source_only"]) == (2, 1, 1)
    assert multi["precision"] == pytest.approx(2 / 3)
    assert multi["recall"] == pytest.approx(2 / 3)
    assert multi["sdk"] == "ts-mcp"
    assert multi["language"] == "typescript"
    py = rows["io.github.acme/py"]
    assert (py["matched"], py["runtime_only"], py["source_only"], py["recall"]) == (1, 0, 1, 1.0)
    total = source_vs_wire.detector_accuracy(frame).row(0, named=True)
    assert (total["servers"], total["matched"], total["precision"]) == (2, 3, pytest.approx(3 / 5))
    by_language = source_vs_wire.detector_accuracy(frame, ["language"])
    assert set(by_language["language"].to_list()) == {"typescript", "python"}


def test_each_disagreement_has_its_likely_cause(con: duckdb.DuckDBPyConnection) -> None:
    rows = source_vs_wire.runtime_disagreements(con, "runtime").select("tool_name", "side", "cause", "detail").rows()
    assert rows == [("new-tool", "runtime only", source_vs_wire.NOT_MATCHED,
                     "package released 31 days after the scanned commit"),
                    ("old-tool", "source only", source_vs_wire.NOT_MATCHED,
                     "package released 31 days after the scanned commit"),
                    ("remove", "source only", source_vs_wire.NOT_MATCHED,
                     "package released 59 days before the scanned commit")]


def test_at_the_commit_a_package_was_built_from_a_disagreement_is_the_detectors(db: Path, tmp_path: Path) -> None:
    copy = tmp_path / "c.duckdb"
    shutil.copy(db, copy)
    with duckdb.connect(str(copy)) as writable:
        ensure_readable(writable)
        writable.execute("""
            INSERT INTO runtime_built_from SELECT c.server, 'npm', c.package_name, c.package_version,
                   c.package_released_at_utc, s.repo, s.subfolder, 'exact-tag', 'v1.0.0', n.commit, n.committed_at_utc,
                   31, '', NULL, NULL FROM runtime_captures c JOIN runtime_servers s USING (server)
                   JOIN snapshots n ON n.repo = s.repo
            WHERE c.server = 'io.github.acme/multi'""")
        frame = source_vs_wire.detector_vs_runtime(writable, "runtime")
        rows = source_vs_wire.runtime_disagreements(writable, "runtime").filter(
            pl.col("server") == "io.github.acme/multi").select("tool_name", "cause", "detail").rows()
    assert rows == [("new-tool", source_vs_wire.DETECTOR_MISS, "exact-tag"),
                    ("old-tool", source_vs_wire.DETECTOR_EXTRA, "exact-tag")]
    by_rule = dict(source_vs_wire.detector_accuracy(frame, ["rule"]).select("rule", "servers").iter_rows())
    assert by_rule == {"exact-tag": 1, None: 1}


def test_seed_000s_table_from_the_answers(con: duckdb.DuckDBPyConnection) -> None:
    seed = runtime_population.runtime_seed_000(con, "runtime")
    read_only = seed.filter(pl.col("field") == "readOnlyHint").row(0, named=True)
    assert (read_only["servers"], read_only["received_tools"], read_only["received_annotated"]) == (2, 4, 3)
    assert (read_only["received_set"], read_only["received_true"], read_only["seed_000_set"]) == (2, 2, 262)


def test_the_section_joins_the_population_report_and_is_rebuilt_from_its_frames(con: duckdb.DuckDBPyConnection,
                                                                                 tmp_path: Path) -> None:
    data = report_population.collect(con, "runtime")
    report_population.write(data, tmp_path / "out")
    text = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert "## At run time: the registry's packages, installed and asked" in text
    assert "installed each of the 3 servers with an npm or PyPI package" in text
    assert "2 answered, with 4 tools" in text
    assert "precision by tool name is 0.600 and its recall 0.750" in text
    assert f"| new-tool | runtime only | {source_vs_wire.NOT_MATCHED} |" in text
    assert (tmp_path / "out" / "runtime-funnel.png").stat().st_size > 1000
    copy = tmp_path / "copy"
    shutil.copytree(tmp_path / "out" / "data", copy / "data")
    report.rebuild(copy)
    for name in ("README.md", "runtime-funnel.png"):
        assert (copy / name).read_bytes() == (tmp_path / "out" / name).read_bytes(), name


def test_notebook_05_shows_the_runtime_census(db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_notebooks import NOTEBOOKS, execute, outputs, shows_row

    monkeypatch.setenv("CENSUS_DB", str(db))
    monkeypatch.setenv("CENSUS_MANIFEST", "runtime")
    shown = outputs(execute(NOTEBOOKS / "05-registry-census.py", tmp_path))
    assert shows_row(shown.tables, ('"resolve"', "1"))  # the funnel
    assert shows_row(shown.tables, ("2", "3", "1", "2"))  # the totals: servers, matched, runtime only, source only
    assert shows_row(shown.tables, ('"io.github.acme/multi"', '"new-tool"', '"runtime only"'))
    assert "no package captures" not in shown.printed


def test_a_package_built_from_another_repository_is_no_oracle(db: Path, tmp_path: Path) -> None:
    copy = tmp_path / "c.duckdb"
    shutil.copy(db, copy)
    with duckdb.connect(str(copy)) as writable:
        writable.execute("UPDATE runtime_captures SET package_repository = 'someone/else' "
                         "WHERE server = 'io.github.acme/multi'")
        writable.execute("UPDATE runtime_captures SET package_repository = 'ACME/P_y' "
                         "WHERE server = 'io.github.acme/py'")
        frame = source_vs_wire.detector_vs_runtime(writable, "runtime")
        causes = source_vs_wire.runtime_disagreements(writable, "runtime")
    same = dict(frame.select("server", "same_repository").iter_rows())
    assert same == {"io.github.acme/multi": False, "io.github.acme/py": True}  # renamed: case and separators aside
    total = source_vs_wire.detector_accuracy(frame).row(0, named=True)
    assert (total["servers"], total["matched"], total["source_only"]) == (1, 1, 1)  # acme/multi left out
    multi = causes.filter(pl.col("server") == "io.github.acme/multi")["cause"].unique().to_list()
    assert multi == [source_vs_wire.OTHER_REPOSITORY]


def test_a_server_that_listed_no_tool_is_no_oracle(db: Path, tmp_path: Path) -> None:
    copy = tmp_path / "c.duckdb"
    shutil.copy(db, copy)
    with duckdb.connect(str(copy)) as writable:
        writable.execute("DELETE FROM runtime_tools WHERE server = 'io.github.acme/py'")
        frame = source_vs_wire.detector_vs_runtime(writable, "runtime")
        rows = source_vs_wire.runtime_disagreements(writable, "runtime").filter(
            pl.col("server") == "io.github.acme/py").select("tool_name", "cause", "detail").rows()
    assert rows == [("lookup", source_vs_wire.NOT_SENT, "the server listed no tool"),
                    ("remove", source_vs_wire.NOT_SENT, "the server listed no tool")]
    assert dict(frame.select("server", "sent").iter_rows()) == {"io.github.acme/multi": 3, "io.github.acme/py": 0}
    total = source_vs_wire.detector_accuracy(frame).row(0, named=True)
    assert (total["servers"], total["matched"], total["source_only"]) == (1, 2, 1)  # acme/py left out


def test_a_name_found_only_under_a_condition_is_set_aside(db: Path, tmp_path: Path) -> None:
    copy = tmp_path / "c.duckdb"
    shutil.copy(db, copy)
    with duckdb.connect(str(copy)) as writable:
        writable.execute("UPDATE tools SET conditional = true, condition = 'process.env.ACME_WRITE' "
                         "WHERE tool_name = 'old-tool'")
        frame = source_vs_wire.detector_vs_runtime(writable, "runtime")
        causes = dict(source_vs_wire.runtime_disagreements(writable, "runtime").select("tool_name", "cause").rows())
    assert causes["old-tool"] == source_vs_wire.CONDITIONAL
    multi = frame.filter(pl.col("server") == "io.github.acme/multi").row(0, named=True)
    assert (multi["source_only"], multi["conditional"], multi["precision"]) == (1, 1, 1.0)  # set aside, counted
