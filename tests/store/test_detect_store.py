"""Detector rows in DuckDB: the ``tools`` table keeps the source, the view gives the wire."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest

from pipeline.fetch.source import Fetched
from pipeline.scan.detect import Detection
from pipeline.scan.detect.model import Annotations, Exclusion, Tool
from pipeline.scan.detect.sdks import SDKS
from pipeline.scan.tree import TreeScan
from pipeline.store.database import Store

FETCHED = Fetched("b" * 64, 10, "o-n-1", datetime(2026, 1, 2, tzinfo=UTC))
RO = Annotations(read_only_hint="true", source="inline")
NONE = Annotations()
UN = "unset"
UNSET4 = (UN, UN, UN, UN)
DEFAULTS = ("false", "true", "false", "true")


def _store_tools(tmp_path: Path, *tools: Tool, excluded: tuple[Exclusion, ...] = ()) -> Store:
    store = Store(tmp_path / "t.duckdb")
    scan = TreeScan(1, 0, 1, (), (), Detection(tools, excluded, len(tools)))
    store.record_scan("o/n", "1" * 40, fetched=FETCHED, source="github", scan=scan, terms=("x",), version="2")
    return store


def _wire(store: Store, name: str) -> tuple[str, ...]:
    rows = store.connection.execute(
        "SELECT read_only_hint, destructive_hint, idempotent_hint, open_world_hint"
        " FROM tool_hints_on_wire WHERE tool_name = ?",
        [name],
    ).fetchall()
    assert len(rows) == 1, rows
    return tuple(rows[0])


def _tool(name: str, sdk: str, annotations: Annotations = NONE, version: str | None = None) -> Tool:
    form = "new-tool" if sdk == "go-mcp-go" else "form"
    return Tool("s.x", 3, sdk, name, f"{SDKS[sdk].language}.{sdk}.{form}", annotations, sdk_version=version)


@pytest.mark.parametrize(
    ("sdk", "annotations", "version", "expected"),
    [
        ("python-mcp", NONE, None, UNSET4),
        ("python-mcp", RO, None, ("true", "unset", "unset", "unset")),
        ("java-spring-ai", NONE, None, DEFAULTS),
        ("java-spring-ai", RO, None, ("true", "true", "false", "true")),
        ("ruby-mcp", NONE, None, UNSET4),
        ("ruby-mcp", RO, None, ("true", "true", "false", "true")),
        ("go-official", NONE, None, UNSET4),
        ("go-official", Annotations(destructive_hint="false", source="inline"), None, ("false", "false", "false", UN)),
        ("go-mcp-go", NONE, "v0.32.0", DEFAULTS),
        ("go-mcp-go", NONE, None, DEFAULTS),
        ("go-mcp-go", NONE, "v0.26.1", UNSET4),
        ("go-mcp-go", RO.with_source("options"), "v0.40.0", ("true", "true", "false", "true")),
        ("go-mcp-go", RO, "v0.40.0", ("true", "unset", "unset", "unset")),
        ("kotlin-mcp", RO, "0.7.7", ("true", "true", "false", "true")),
        ("kotlin-mcp", RO, "0.8.1", ("true", "unset", "unset", "unset")),
        ("kotlin-mcp", RO, None, ("true", "unset", "unset", "unset")),
        ("java-spring-ai", Annotations(read_only_hint="dynamic", source="inline"), None, ("dynamic", *DEFAULTS[1:])),
    ],
)
def test_wire_view_applies_each_sdks_documented_defaults(
    tmp_path: Path, sdk: str, annotations: Annotations, version: str | None, expected: tuple[str, ...]
) -> None:
    with _store_tools(tmp_path, _tool("t", sdk, annotations, version)) as store:
        declared = store.connection.execute(
            "SELECT read_only_hint, destructive_hint, idempotent_hint, open_world_hint FROM tools"
        ).fetchall()[0]
        assert declared == (annotations.read_only_hint, annotations.destructive_hint,
                            annotations.idempotent_hint, annotations.open_world_hint)
        assert _wire(store, "t") == expected


def test_tools_table_keeps_every_column_and_the_view_drops_lookalikes(tmp_path: Path) -> None:
    ann = Annotations(title="Search", title_state="true", read_only_hint="true", source="preset:RO")
    mcp = Tool("src/s.py", 12, "python-fastmcp", "search", "python.python-fastmcp.decorator", ann,
               via="wrapper:Registry.tool", tool_title="Find", sdk_version=">=2.3", conditional=True,
               condition="settings.enable_search")
    fake = Tool("a.py", 1, "langchain", "calc", "python.langchain.decorator", is_mcp=False)
    excluded = (Exclusion("vendor/x.go", "vendored", "vendor/"),)
    with _store_tools(tmp_path, mcp, fake, excluded=excluded) as store:
        con = store.connection
        row = con.execute("SELECT * EXCLUDE (repo, commit) FROM tools WHERE is_mcp").fetchall()[0]
        on_wire = con.execute("SELECT tool_name, title FROM tool_hints_on_wire").fetchall()
        reasons = con.execute("SELECT path, reason, detail FROM detector_exclusions").fetchall()
    assert row == ("src/s.py", 12, "python-fastmcp", True, "search", "wrapper:Registry.tool", "Search",
                   "true", "unset", "unset", "unset", "preset:RO", "python.python-fastmcp.decorator", "true",
                   "Find", ">=2.3", "server", "default", True, "settings.enable_search")
    assert on_wire == [("search", "Search")]
    assert reasons == [("vendor/x.go", "vendored", "vendor/")]


def test_mcp_go_prefills_only_what_new_tool_builds(tmp_path: Path) -> None:
    raw = Tool("s.go", 1, "go-mcp-go", "raw", "go.go-mcp-go.raw-schema", sdk_version="v0.40.0")
    literal = Tool("s.go", 2, "go-mcp-go", "lit", "go.go-mcp-go.tool-literal", sdk_version="v0.40.0")
    preset = Tool("s.go", 3, "go-mcp-go", "pre", "go.go-mcp-go.new-tool", RO.with_source("preset:RO"))
    # a wrapper around NewTool is pre-filled; one around a Tool{} literal with options is not (grafana's ConvertTool)
    options, v40 = RO.with_source("options"), "v0.40.0"
    wrapped = Tool("s.go", 4, "go-mcp-go", "wrapped", "go.go-mcp-go.wrapper", options, sdk_version=v40)
    literal_wrapped = Tool("s.go", 5, "go-mcp-go", "lit_wrapped", "go.go-mcp-go.wrapper-literal", options,
                           sdk_version=v40)
    with _store_tools(tmp_path, raw, literal, preset, wrapped, literal_wrapped) as store:
        assert [_wire(store, n) for n in ("raw", "lit")] == [UNSET4, UNSET4]
        assert _wire(store, "pre") == ("true", UN, UN, UN)
        assert _wire(store, "wrapped") == ("true", "true", "false", "true")
        assert _wire(store, "lit_wrapped") == ("true", UN, UN, UN)


def test_spring_title_falls_back_to_the_tool_name_on_the_wire(tmp_path: Path) -> None:
    with _store_tools(tmp_path, _tool("calc", "java-spring-ai")) as store:
        assert store.connection.execute("SELECT title FROM tool_hints_on_wire").fetchall() == [("calc",)]


def test_rescan_replaces_tools_and_exclusions(tmp_path: Path) -> None:
    with _store_tools(tmp_path, _tool("a", "python-mcp"), excluded=(Exclusion("d.md", "docs"),)) as store:
        scan = TreeScan(1, 0, 1, (), (), Detection((_tool("b", "python-mcp"),), (), 1))
        store.record_scan("o/n", "1" * 40, fetched=FETCHED, source="github", scan=scan, terms=("x",), version="2")
        names = store.connection.execute("SELECT tool_name FROM tools").fetchall()
        excluded = store.connection.execute("SELECT count(*) FROM detector_exclusions").fetchall()
    assert (names, excluded) == ([("b",)], [(0,)])


def test_catalogue_lists_every_sdk_once(tmp_path: Path) -> None:
    with Store(tmp_path / "a.duckdb"), Store(tmp_path / "a.duckdb") as again:
        rows = again.connection.execute("SELECT sdk, count(*) FROM sdk_catalog GROUP BY sdk").fetchall()
    assert sorted(rows) == sorted((key, 1) for key in SDKS)


#: a census database from before conditional registrations: roles, but no ``conditional`` column
BEFORE_CONDITIONS = """
CREATE TABLE tools (repo VARCHAR NOT NULL, commit VARCHAR NOT NULL, path VARCHAR NOT NULL, line INTEGER NOT NULL,
    sdk VARCHAR NOT NULL, is_mcp BOOLEAN NOT NULL, tool_name VARCHAR, via VARCHAR NOT NULL, title VARCHAR,
    read_only_hint VARCHAR NOT NULL, destructive_hint VARCHAR NOT NULL, idempotent_hint VARCHAR NOT NULL,
    open_world_hint VARCHAR NOT NULL, annotations_source VARCHAR NOT NULL, rule VARCHAR NOT NULL,
    title_state VARCHAR NOT NULL, tool_title VARCHAR, sdk_version VARCHAR, role VARCHAR, role_rule VARCHAR);
INSERT INTO tools VALUES ('o/old', 'c', 's.py', 3, 'python-mcp', true, 'old', 'direct', NULL, 'unset', 'unset',
    'unset', 'unset', 'none', 'python.python-mcp.decorator', 'unset', NULL, NULL, 'server', 'default');
"""


def test_a_database_from_before_conditions_opens_and_gains_both_columns(tmp_path: Path) -> None:
    """Its rows keep NULL (not collected); a tree scanned now says whether each tool is conditional."""
    db = tmp_path / "t.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute(BEFORE_CONDITIONS)
    guarded = Tool("s.py", 9, "python-mcp", "purge", "python.python-mcp.decorator", conditional=True,
                   condition="args.admin")
    scan = TreeScan(1, 0, 1, (), (), Detection((_tool("plain", "python-mcp"), guarded), (), 2))
    with Store(db) as store:
        store.record_scan("o/n", "1" * 40, fetched=FETCHED, source="github", scan=scan, terms=("x",), version="2")
        rows = store.connection.execute("SELECT tool_name, conditional, condition FROM tools ORDER BY repo, line"
                                        ).fetchall()
    assert rows == [("plain", False, None), ("purge", True, "args.admin"), ("old", None, None)]
