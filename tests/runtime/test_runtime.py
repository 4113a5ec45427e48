"""Runtime truth without servers: reading tools/list answers, the runtime tables, their statistics.

Servers probed over stdio and HTTP are in ``test_probe.py``; here answers are JSON files and
the database is a real DuckDB file.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest

from pipeline.analysis import runtime as runtime_stats
from pipeline.fetch.source import Fetched
from pipeline.runtime.ingest import FILE, OK, SKIPPED, Capture, ToolsListError, ingest_tools_list, read_pages, tool_row
from pipeline.scan.detect import Detection
from pipeline.scan.detect.model import Annotations, Tool
from pipeline.scan.tree import TreeScan
from pipeline.store.database import Store
from pipeline.store.runtime import forget_server, install, record_capture, server_repos, set_server_repo

WHEN = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
HINT_COLUMNS = ("read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint")


def tool(name: str, **annotations: Any) -> dict[str, Any]:
    """A tools/list tool object; no keyword arguments: no annotations key at all."""
    body: dict[str, Any] = {"name": name, "inputSchema": {"type": "object"}}
    return {**body, "annotations": annotations} if annotations else body


def write(path: Path, answer: Any) -> Path:
    path.write_text(json.dumps(answer), encoding="utf-8")
    return path


@pytest.fixture
def con(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A census database with the main schema and the runtime tables."""
    with Store(tmp_path / "census.duckdb") as store:
        install(store.connection)
        yield store.connection


def hints(row: Any) -> tuple[str, ...]:
    return tuple(getattr(row, column) for column in HINT_COLUMNS)


# --- reading answers ---------------------------------------------------------------------


def test_every_answer_shape_gives_the_same_pages() -> None:
    page1 = {"tools": [tool("a")], "nextCursor": "2"}
    page2 = {"tools": [tool("b")]}
    response = {"jsonrpc": "2.0", "id": 1, "result": page1}
    assert read_pages(page1, "f") == [page1]
    assert read_pages(response, "f") == [page1]
    assert read_pages([page1, page2], "f") == [page1, page2]
    assert read_pages([response, {"jsonrpc": "2.0", "id": 2, "result": page2}], "f") == [page1, page2]


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "nope"}}, "f.json: a JSON-RPC error"),
        ({"result": {"resources": []}}, "f.json: not a tools/list answer"),
        ("tools", "f.json: not a tools/list answer"),
        ([{"tools": []}, 3], "f.json: not a tools/list answer"),
    ],
)
def test_answers_that_hold_no_tools_are_refused(answer: Any, message: str) -> None:
    with pytest.raises(ToolsListError, match=message):
        read_pages(answer, "f.json")


@pytest.mark.parametrize(
    ("value", "expected"),
    [(True, "true"), (False, "false"), (None, "unset"), ("yes", '"yes"'), ("true", '"true"'), (1, "1"),
     (0, "0"), ({}, "{}"), ([True], "[true]")],
)
def test_a_hint_is_a_boolean_unset_or_its_json_text(value: Any, expected: str) -> None:
    row = tool_row({"name": "t", "annotations": {"readOnlyHint": value}})
    assert row.read_only_hint == expected
    assert row.destructive_hint == "unset"  # absent
    assert row.annotated


def test_a_row_keeps_the_title_and_the_raw_json() -> None:
    raw = {"name": "t", "title": "Tool title", "annotations": {"title": "Annotation title", "openWorldHint": False}}
    row = tool_row(raw)
    assert (row.tool_name, row.title, row.open_world_hint) == ("t", "Annotation title", "false")
    assert json.loads(row.raw_json) == raw
    assert json.loads(row.annotations_json or "") == raw["annotations"]
    bare = tool_row({"name": "u", "annotations": "read-only"})
    assert (bare.annotations_json, bare.annotated, hints(bare)) == ('"read-only"', False, ("unset",) * 4)
    assert tool_row({"name": 5}).tool_name == "5"
    assert tool_row({"name": "v"}).annotations_json is None


def test_a_tool_that_is_not_an_object_names_its_page_and_index(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.json", [{"tools": [tool("a")]}, {"tools": [tool("b"), "c"]}])
    with pytest.raises(ToolsListError, match=r"bad\.json: page 2: tools\[1\] is not an object"):
        ingest_tools_list(path, "s")


def test_ingest_a_file_as_an_ok_capture(tmp_path: Path) -> None:
    path = write(tmp_path / "answer.json", {"jsonrpc": "2.0", "id": 3, "result": {"tools": [tool("a"), tool("b")]}})
    capture = ingest_tools_list(path, "srv")
    assert (capture.server, capture.status, capture.transport, capture.command_or_url) == ("srv", OK, FILE, str(path))
    assert capture.captured_at_utc == datetime.fromtimestamp(path.stat().st_mtime, UTC)
    assert [t.tool_name for t in capture.tools] == ["a", "b"]
    assert json.loads(capture.raw_json) == {"initialize": None, "tools/list": [{"tools": [tool("a"), tool("b")]}]}


@pytest.mark.parametrize(("content", "message"), [("{not json", "cannot read"), (None, "cannot read")])
def test_an_unreadable_file_is_named(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "answer.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(ToolsListError, match=f"answer.json: {message}"):
        ingest_tools_list(path, "srv")


# --- the runtime tables ------------------------------------------------------------------


def capture(server: str, *tools: dict[str, Any], status: str = OK, when: datetime = WHEN) -> Capture:
    rows = tuple(tool_row(t) for t in tools) if status == OK else ()
    return Capture(server, when, status, None if status == OK else "initialize: no answer within 1 s", "stdio",
                   "python server.py", pages=({"tools": list(tools)},), tools=rows)


def stored(con: duckdb.DuckDBPyConnection, table: str, server: str) -> list[tuple[Any, ...]]:
    return con.execute(f"SELECT * FROM {table} WHERE server = ? ORDER BY rowid", [server]).fetchall()


def test_a_capture_is_stored_whole_and_replaces_the_previous_one(con: duckdb.DuckDBPyConnection) -> None:
    assert record_capture(con, capture("s", tool("a", readOnlyHint=True), tool("b")))
    assert record_capture(con, capture("other", tool("z")))
    (row,) = stored(con, "runtime_captures", "s")
    assert row[:7] == ("s", WHEN.replace(tzinfo=None), OK, None, "stdio", "python server.py", 1)
    assert json.loads(row[7])["tools/list"][0]["tools"][0]["name"] == "a"
    assert [r[2:8] for r in stored(con, "runtime_tools", "s")] == [
        ("a", None, "true", "unset", "unset", "unset"), ("b", None, "unset", "unset", "unset", "unset")]
    later = WHEN.replace(hour=13)
    assert record_capture(con, capture("s", tool("c", idempotentHint=False), when=later))
    rows = [(r[1], r[2], r[6]) for r in stored(con, "runtime_tools", "s")]
    assert rows == [(later.replace(tzinfo=None), "c", "false")]
    assert len(stored(con, "runtime_captures", "s")) == 1
    assert len(stored(con, "runtime_tools", "other")) == 1  # other servers are left alone


def test_a_skipped_capture_never_replaces_an_ok_one(con: duckdb.DuckDBPyConnection) -> None:
    assert record_capture(con, capture("s", status=SKIPPED))
    assert stored(con, "runtime_captures", "s")[0][2:4] == (SKIPPED, "initialize: no answer within 1 s")
    assert record_capture(con, capture("s", tool("a")))
    assert not record_capture(con, capture("s", status=SKIPPED, when=WHEN.replace(hour=14)))
    assert stored(con, "runtime_captures", "s")[0][2] == OK
    assert [r[2] for r in stored(con, "runtime_tools", "s")] == ["a"]


def test_server_repository_pairs(con: duckdb.DuckDBPyConnection) -> None:
    set_server_repo(con, "s", "o/one")
    set_server_repo(con, "s", "o/two")
    set_server_repo(con, "t", "o/three")
    assert server_repos(con) == {"s": "o/two", "t": "o/three"}
    record_capture(con, capture("s", tool("a")))
    forget_server(con, "s")
    assert server_repos(con) == {"t": "o/three"}
    assert stored(con, "runtime_captures", "s") == stored(con, "runtime_tools", "s") == []


def test_stats_read_an_older_database_opened_read_only(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    Store(path).close()  # the main schema only: no runtime tables
    with duckdb.connect(str(path), read_only=True) as con:
        coverage = runtime_stats.runtime_hint_coverage(con)
        assert coverage["tools"].to_list() == [0] * 5
        assert coverage["annotated_share"].to_list() == [None] * 5
        assert runtime_stats.static_vs_runtime(con).is_empty()


# --- seed 000's table from runtime data ---------------------------------------------------

#: seed 000: 14 servers, 288 tools, 262 annotated; per field: set, set true, set false
SEED_000 = {"readOnlyHint": (262, 145, 117), "destructiveHint": (49, 5, 44), "idempotentHint": (138, 126, 12),
            "openWorldHint": (44, 17, 27), "title": (13, None, None)}


def seed_tool(n: int) -> dict[str, Any]:
    """Tool ``n`` of a sample built to have seed 000's counts (tools 262..287 unannotated)."""
    if n >= 262:
        return tool(f"t{n}")
    annotations: dict[str, Any] = {"readOnlyHint": n < 145}
    for name, (count, true) in {"idempotentHint": (138, 126), "destructiveHint": (49, 5),
                                "openWorldHint": (44, 17)}.items():
        if n < count:
            annotations[name] = n < true
    if n < 13:
        annotations["title"] = f"Tool {n}"
    return {"name": f"t{n}", "inputSchema": {"type": "object"}, "annotations": annotations}


def test_runtime_hint_coverage_gives_seed_000s_table(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    for server in range(14):
        tools = [seed_tool(n) for n in range(server, 288, 14)]
        pages = [{"tools": tools[:5], "nextCursor": "5"}, {"tools": tools[5:]}]
        record_capture(con, ingest_tools_list(write(tmp_path / f"s{server}.json", pages), f"server-{server}"))
    record_capture(con, capture("down", status=SKIPPED))  # a skipped server counts nowhere
    coverage = runtime_stats.runtime_hint_coverage(con)
    assert coverage["field"].to_list() == list(SEED_000)
    assert {r["field"]: (r["set"], r["set_true"], r["set_false"]) for r in coverage.iter_rows(named=True)} == SEED_000
    assert set(coverage.select("servers", "tools", "annotated_tools").rows()) == {(14, 288, 262)}
    assert round(coverage["annotated_share"][0], 2) == 0.91
    assert coverage["set_other"].to_list() == [0, 0, 0, 0, None]
    only = runtime_stats.runtime_hint_coverage(con, ["server-0"])
    assert only.row(0, named=True)["servers"] == 1
    assert only.row(0, named=True)["tools"] == 21


def test_non_boolean_hints_count_as_set_but_neither_true_nor_false(con: duckdb.DuckDBPyConnection) -> None:
    record_capture(con, capture("odd", tool("a", readOnlyHint="yes", openWorldHint=None), tool("b", readOnlyHint=1),
                                {"name": "c", "annotations": {}}))
    row = runtime_stats.runtime_hint_coverage(con).row(0, named=True)
    assert (row["tools"], row["annotated_tools"], row["set"], row["set_true"], row["set_other"]) == (3, 3, 2, 0, 2)
    open_world = runtime_stats.runtime_hint_coverage(con).row(3, named=True)
    assert open_world["set"] == 0  # null is unset


# --- static against runtime ---------------------------------------------------------------

FETCHED = Fetched("b" * 64, 10, "o-n-1", datetime(2026, 1, 2, tzinfo=UTC))


def scan(con: duckdb.DuckDBPyConnection, path: Path, repo: str, *tools: Tool) -> None:
    """Store ``tools`` as the detector's findings in ``repo`` (through the store, as a scan would)."""
    con.close()
    with Store(path) as store:
        scanned = TreeScan(1, 0, 1, (), (), Detection(tools, (), len(tools)))
        store.record_scan(repo, "1" * 40, fetched=FETCHED, source="github", scan=scanned, terms=("x",), version="2")


def declared(name: str, path: str = "src/tools.java", role: str = "server", **hints: str) -> Tool:
    annotations = Annotations(**hints, source="inline") if hints else Annotations()
    return Tool(path, 3, "java-spring-ai", name, "java.java-spring-ai.mcp-tool", annotations, role=role,
                role_rule="file:*Test.java|kt" if role == "test" else "default")


@pytest.fixture
def compared(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """Spring AI's tools in source (the SDK sends all four hints) and what a server sent."""
    path = tmp_path / "census.duckdb"
    with Store(path):
        pass
    scan(duckdb.connect(str(path)), path, "o/spring",
         declared("read", read_only_hint="true"), declared("write", read_only_hint="false"),
         declared("same", destructive_hint="false"), declared("same", "src/test/SameTest.java", role="test"),
         declared("gone"))
    con = duckdb.connect(str(path))
    install(con)
    answer = [tool("read", readOnlyHint=True, destructiveHint=True, idempotentHint=False, openWorldHint=True),
              tool("write", readOnlyHint=True, destructiveHint=True, idempotentHint=False, openWorldHint=True),
              tool("same", readOnlyHint=False, destructiveHint=False, idempotentHint=False),
              tool("built_at_run_time")]
    record_capture(con, capture("spring-server", *answer))
    record_capture(con, capture("o/spring", tool("read")))  # named like the repository: paired by name
    record_capture(con, capture("unpaired", tool("read")))
    set_server_repo(con, "spring-server", "o/spring")
    yield con
    con.close()


def test_static_vs_runtime_per_tool_and_hint(compared: duckdb.DuckDBPyConnection) -> None:
    frame = runtime_stats.static_vs_runtime(compared).filter(pl.col("server") == "spring-server")
    sides = dict(frame.filter(pl.col("hint") == "readOnlyHint").select("tool_name", "side").rows())
    assert sides == {"built_at_run_time": "runtime only", "gone": "source only", "read": "both", "same": "both",
                     "write": "both"}
    def cell(name: str, hint: str) -> tuple[Any, ...]:
        return frame.filter((pl.col("tool_name") == name) & (pl.col("hint") == hint)).select(
            "declared", "expected_on_wire", "runtime", "agreement", "as_expected").row(0)
    assert cell("read", "readOnlyHint") == ("true", "true", "true", "same", True)
    assert cell("read", "destructiveHint") == ("unset", "true", "true", "added on wire", True)
    assert cell("write", "readOnlyHint") == ("false", "false", "true", "differ", False)
    assert cell("same", "openWorldHint") == ("unset", "true", "unset", "same", False)
    assert cell("gone", "readOnlyHint") == ("unset", "false", None, None, None)
    assert cell("built_at_run_time", "readOnlyHint") == (None, None, "unset", None, None)
    same = frame.filter(pl.col("tool_name") == "same").row(0, named=True)
    assert (same["definitions"], same["path"], same["commit"]) == (1, "src/tools.java", "1" * 40)  # server tools
    widened = runtime_stats.static_vs_runtime(compared, roles=("server", "test"))
    same = widened.filter((pl.col("server") == "spring-server") & (pl.col("tool_name") == "same")).row(0, named=True)
    assert (same["definitions"], same["path"]) == (2, "src/tools.java")  # the server's definition stands for both
    tests_only = runtime_stats.static_vs_runtime(compared, roles="test").filter(pl.col("server") == "spring-server")
    assert set(tests_only.filter(pl.col("side") == "both")["tool_name"]) == {"same"}


def test_pairs_come_from_the_argument_the_table_or_the_name(compared: duckdb.DuckDBPyConnection) -> None:
    assert set(runtime_stats.static_vs_runtime(compared)["server"]) == {"spring-server", "o/spring"}
    overridden = runtime_stats.static_vs_runtime(compared, {"spring-server": "o/elsewhere", "unpaired": "o/spring"})
    assert set(overridden["server"]) == {"unpaired", "o/spring"}  # o/elsewhere was never scanned


def test_static_vs_runtime_summary(compared: duckdb.DuckDBPyConnection) -> None:
    summary = runtime_stats.static_vs_runtime_summary(compared).filter(pl.col("server") == "spring-server")
    assert summary["hint"].to_list() == ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]
    destructive = summary.row(1, named=True)
    assert destructive == {"server": "spring-server", "repo": "o/spring", "hint": "destructiveHint", "both": 3,
                           "same": 1, "added_on_wire": 2, "dropped_on_wire": 0, "differ": 0, "resolved": 0,
                           "as_expected": 3, "source_only": 1, "runtime_only": 1}
    assert summary.row(0, named=True)["differ"] == 1
