"""``pipeline.scan.roles``: the one classifier of server, example, test and docs, checked against a
labelled corpus of paths (``tests/fixtures/roles/paths.toml``, written by hand from each
ecosystem's conventions), and through the scan pass, the store and the statistics."""

from __future__ import annotations

import tomllib
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
from synth import FASTMCP_SERVER, GO_SERVER, tarball

from pipeline.analysis import stats
from pipeline.archive import tarball as archive
from pipeline.errors import StoreError
from pipeline.fetch.source import Fetched
from pipeline.scan.detect import Detector
from pipeline.scan.roles import ROLES, RoleRules, classify, rust_test_lines
from pipeline.scan.tree import scan_tree
from pipeline.store.database import Store

CORPUS = Path(__file__).parents[1] / "fixtures" / "roles" / "paths.toml"
CASES: list[dict[str, Any]] = tomllib.loads(CORPUS.read_text(encoding="utf-8"))["case"]


def test_the_corpus_is_large_and_covers_every_ecosystem_both_ways() -> None:
    assert len(CASES) >= 150
    assert {c["role"] for c in CASES} == set(ROLES)
    by_ecosystem = Counter(c["ecosystem"] for c in CASES)
    for ecosystem in ("go", "python", "typescript", "jvm", "kotlin", "csharp", "ruby", "php", "rust", "swift"):
        labels = {c["role"] for c in CASES if c["ecosystem"] == ecosystem}
        assert by_ecosystem[ecosystem] >= 8, ecosystem
        assert {"server", "test"} <= labels, ecosystem
    near_misses = [c for c in CASES if c["role"] == "server" and "near miss" in c["note"]]
    assert len(near_misses) >= 30
    assert sum(1 for c in CASES if c.get("server_paths")) >= 12
    assert len({c["path"] + repr(c.get("server_paths")) for c in CASES}) == len(CASES)  # no case twice


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['ecosystem']}:{c['path']}")
def test_every_labelled_path(case: dict[str, Any]) -> None:
    role = RoleRules(case.get("server_paths", ())).of_path(case["path"])
    assert role.role == case["role"], f"{case['note']} (decided by {role.rule})"


@pytest.mark.parametrize(("path", "rule"), [
    ("pkg/inventory/registry_test.go", "file:*_test.go"), ("a/tests/x.py", "folder:tests/"),
    ("src/jvmTest/kotlin/A.kt", "folder:jvmTest/"), ("docs/a.md", "extension:.md"),
    ("examples/w/server.py", "folder:examples/"), ("pkg/github/issues.go", "default"),
    ("src/server/mcp.examples.ts", "file:*example*"),
])
def test_the_rule_is_named(path: str, rule: str) -> None:
    assert classify(path).rule == rule


def test_server_paths_win_over_the_folders_that_lead_to_them() -> None:
    rules = RoleRules(["./examples/weather/", "servers/demo", ".", ""])

    assert rules.server_paths == ("examples/weather", "servers/demo")  # the whole tree is no server path
    assert rules.of_path("examples/weather/server.py").rule == "server_paths:examples/weather"
    assert rules.of_path("examples/weather/tests/test_tools.py").role == "test"  # a test inside is a test
    assert rules.of_path("examples/weather/README.md").role == "docs"
    assert rules.of_path("examples/weatherman/server.py").role == "example"  # a sibling, not below it
    assert rules.of_path("servers/demo/src/index.ts").role == "server"
    assert RoleRules(["mcp"], top="o-r-1").of_path("o-r-1/mcp/examples/x.py").role == "example"
    assert RoleRules(["mcp"], top="o-r-1").of_path("o-r-1/mcp/x.py").rule == "server_paths:mcp"


def test_a_dotnet_project_referencing_a_test_sdk_makes_its_folder_tests() -> None:
    rules = RoleRules()
    rules.learn("src/Shop.Checks/Shop.Checks.csproj",
                b'<Project><ItemGroup><PackageReference Include="xunit.v3" /></ItemGroup></Project>')
    rules.learn("src/Shop/Shop.csproj", b'<Project><ItemGroup><PackageReference Include="Xunitish" /></ItemGroup>'
                                        b"</Project>")
    rules.learn("src/Shop.Sdk/Shop.Sdk.fsproj", b'<Project Sdk="MSTest.Sdk"></Project>')

    checks = "project:src/Shop.Checks/Shop.Checks.csproj (xunit.v3)"
    assert rules.of_path("src/Shop.Checks/Tools/Echo.cs").rule == checks
    assert rules.of_path("src/Shop.Sdk/Lib.fs").role == "test"
    assert rules.of_path("src/Shop/Tools/Echo.cs").role == "server"  # Xunitish is no test SDK
    assert rules.of_path("src/Shop.Checks.Extra/A.cs").role == "server"  # a sibling folder
    assert RoleRules.wanted([b"a/b.csproj", b"a/b.cs", b"C.FSPROJ"]) == [0, 2]


def _rust_tree(source: bytes) -> Any:
    from pipeline.scan.detect.source import SourceFile

    return SourceFile("src/lib.rs", source).tree.root_node


def test_rust_test_lines_follow_test_attributes_at_every_depth() -> None:
    source = (b"fn shipped() {}\n"  # 1
              b"#[cfg(test)]\n"  # 2
              b"mod tests {\n"  # 3
              b"    fn helper() {}\n"  # 4
              b"}\n"  # 5
              b"#[cfg(not(test))]\n"  # 6
              b"fn not_test() {}\n"  # 7
              b"mod outer {\n"  # 8
              b"    #[test]\n"  # 9
              b"    // a comment between the attribute and its item\n"  # 10
              b"    fn case() {}\n"  # 11
              b"}\n")  # 12
    assert rust_test_lines(_rust_tree(source)) == [(3, 5), (11, 11)]
    assert rust_test_lines(_rust_tree(b"#![cfg(test)]\nfn a() {}\n")) == [(1, 1 << 30)]


def test_the_scan_places_every_count_and_tool(tmp_path: Path) -> None:
    tree = {
        "server.py": FASTMCP_SERVER,
        "examples/demo.py": FASTMCP_SERVER,
        "pkg/notes_test.go": GO_SERVER,
        "docs/hints.md": b"readOnlyHint\n",
        "src/Shop.Checks/Shop.Checks.csproj": b'<PackageReference Include="Microsoft.NET.Test.Sdk" />',
        "src/Shop.Checks/notes.txt": b"readOnlyHint\n",  # docs by extension, but in a test project: a test's
    }
    path = tmp_path / "t.tar.gz"
    path.write_bytes(tarball(tree, "top"))
    for entries in (archive.stream(path, "top"), archive.members(path, "top")):  # runs and one by one
        scan = scan_tree(entries, ("readOnlyHint",), Detector(), RoleRules())
        assert dict(scan.roles) == {"server.py": "server", "examples/demo.py": "example", "pkg/notes_test.go": "test",
                                    "docs/hints.md": "docs", "src/Shop.Checks/notes.txt": "test"}
        assert scan.detection is not None
        assert Counter(t.role for t in scan.detection.tools) == {"server": 2, "example": 2, "test": 1}


def test_tools_and_counts_are_stored_with_their_roles(tmp_path: Path) -> None:
    path = tmp_path / "t.tar.gz"
    path.write_bytes(tarball({"mcp/server.py": FASTMCP_SERVER, "mcp/tests/test_server.py": FASTMCP_SERVER,
                              "examples/e.py": FASTMCP_SERVER}, "top"))
    scan = scan_tree(archive.stream(path, "top"), ("readOnlyHint",), Detector(), RoleRules(["mcp"]))
    fetched = Fetched("a" * 64, 1, "top", datetime(2026, 12, 1, tzinfo=UTC))
    with Store(tmp_path / "c.duckdb") as store:
        store.record_scan("o/n", "1" * 40, fetched=fetched, source="tarball", scan=scan, terms=("readOnlyHint",),
                          version="8", server_paths=["mcp"])
        con = store.connection
        tools = con.execute("SELECT path, role, role_rule FROM tools ORDER BY path, line").fetchall()
        counts = con.execute("SELECT path, role FROM term_counts ORDER BY path").fetchall()
        assert store.scanned_archive("o/n", "1" * 40, ("readOnlyHint",), "8", server_paths=["mcp"]) == ("a" * 64,)
        assert store.scanned_archive("o/n", "1" * 40, ("readOnlyHint",), "8") is None  # other roles: rescan
    assert tools == [("examples/e.py", "example", "folder:examples/")] * 2 + \
        [("mcp/server.py", "server", "server_paths:mcp")] * 2 + \
        [("mcp/tests/test_server.py", "test", "folder:tests/")] * 2  # it asserts nothing: its folder decides
    assert counts == [("examples/e.py", "example"), ("mcp/server.py", "server"), ("mcp/tests/test_server.py", "test")]


#: the schema of an older census (before roles): what a user's database holds when they upgrade
OLD_SCHEMA = """
CREATE TABLE snapshots (repo VARCHAR NOT NULL, commit VARCHAR, archive_sha256 VARCHAR, archive_size_bytes BIGINT,
    regular_files BIGINT, skipped_members BIGINT, content_bytes BIGINT, fetched_at_utc TIMESTAMP,
    scanned_at_utc TIMESTAMP, scanner_version VARCHAR, status VARCHAR NOT NULL, skip_reason VARCHAR,
    skipped_stage VARCHAR, archive_root VARCHAR, source VARCHAR, terms VARCHAR[]);
CREATE TABLE term_counts (repo VARCHAR NOT NULL, commit VARCHAR NOT NULL, path VARCHAR NOT NULL,
    term VARCHAR NOT NULL, count BIGINT NOT NULL);
CREATE TABLE tools (repo VARCHAR NOT NULL, commit VARCHAR NOT NULL, path VARCHAR NOT NULL, line INTEGER NOT NULL,
    sdk VARCHAR NOT NULL, is_mcp BOOLEAN NOT NULL, tool_name VARCHAR, via VARCHAR NOT NULL, title VARCHAR,
    read_only_hint VARCHAR NOT NULL, destructive_hint VARCHAR NOT NULL, idempotent_hint VARCHAR NOT NULL,
    open_world_hint VARCHAR NOT NULL, annotations_source VARCHAR NOT NULL, rule VARCHAR NOT NULL,
    title_state VARCHAR NOT NULL, tool_title VARCHAR, sdk_version VARCHAR);
CREATE VIEW tool_hints_on_wire AS SELECT * FROM tools;
INSERT INTO snapshots (repo, commit, status, scanner_version, terms) VALUES ('o/n', 'c', 'scanned', '7', ['x']);
INSERT INTO term_counts VALUES ('o/n', 'c', 'pkg/a_test.go', 'x', 2), ('o/n', 'c', 'README.md', 'x', 1);
INSERT INTO tools VALUES ('o/n', 'c', 'pkg/a_test.go', 3, 'go-official', true, 'fixture', 'direct', NULL,
    'unset', 'unset', 'unset', 'unset', 'none', 'go.go-official.add-tool', 'unset', NULL, NULL),
    ('o/n', 'c', 'pkg/a.go', 3, 'go-official', true, 'real', 'direct', NULL,
    'unset', 'unset', 'unset', 'unset', 'none', 'go.go-official.add-tool', 'unset', NULL, NULL);
"""


def test_a_database_from_before_roles_is_named_then_upgraded_without_losing_a_row(tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute(OLD_SCHEMA)

    with pytest.raises(StoreError) as caught:
        stats.connect(db)  # read-only: it cannot be upgraded here
    assert str(caught.value) == (f"{db}: written by an older census, before tools had roles; run `census scan "
                                 f"MANIFEST --db {db}` once to bring it up to date")

    with Store(db) as store:
        con = store.connection
        tools = con.execute("SELECT tool_name, role, role_rule FROM tools ORDER BY line, path").fetchall()
        counts = con.execute("SELECT path, count, role FROM term_counts ORDER BY path").fetchall()
        server_paths = con.execute("SELECT server_paths FROM snapshots").fetchall()
    assert tools == [("real", "server", "path-only:default"), ("fixture", "test", "path-only:file:*_test.go")]
    assert counts == [("README.md", 1, "docs"), ("pkg/a_test.go", 2, "test")]
    assert server_paths == [(None,)]
    stats.connect(db).close()  # now it opens


def test_a_tree_of_examples_and_tests_ships_no_server_tool(tmp_path: Path) -> None:
    path = tmp_path / "sdk.tar.gz"
    path.write_bytes(tarball({"examples/demo.py": FASTMCP_SERVER, "tests/test_tools.py": FASTMCP_SERVER,
                              "src/sdk/server.py": b"class Server:\n    pass\n"}, "top"))
    scan = scan_tree(archive.stream(path, "top"), ("readOnlyHint",), Detector(), RoleRules())
    fetched = Fetched("a" * 64, 1, "top", datetime(2026, 12, 1, tzinfo=UTC))
    with Store(tmp_path / "c.duckdb") as store:
        store.record_scan("o/sdk", "1" * 40, fetched=fetched, source="tarball", scan=scan, terms=("readOnlyHint",),
                          version="8")
    con = stats.connect(tmp_path / "c.duckdb")
    try:
        found = stats.caveats(con).filter(pl.col("caveat") == "no-server-tools")
        widened = stats.caveats(con, roles=stats.TOOL_ROLES).filter(pl.col("caveat") == "wrapper-registration")
        totals = stats.repo_totals(con).select("server_tools", "example_tools", "test_tools").row(0)
    finally:
        con.close()
    assert found["evidence"].to_list() == [
        "every MCP tool of this tree is an example's or a test's (2 example tools and 2 test tools): it ships no "
        "server tool here (an SDK, a sample collection, or a server the path rules misplace: give its server_paths)"]
    assert widened.is_empty()
    assert totals == (0, 2, 2)


#: a tool module named like a test: it wraps a "test migration" API, and no assertion is in it
TEST_NAMED_TOOL = b'''from mcp.server.fastmcp import FastMCP

mcp = FastMCP("cache")


@mcp.tool(name="test-migration")
def test_migration(source: str) -> str:
    """Start a test migration of the cache."""
    return source
'''


def test_a_python_file_named_like_a_test_that_is_none_keeps_its_tools(tmp_path: Path) -> None:
    tree = {
        "src/cache/tools/test_migration.py": TEST_NAMED_TOOL,  # no assertion, no framework: a shipped tool
        "src/cache/tools/test_plain.py": TEST_NAMED_TOOL + b"\n\ndef test_it():\n    assert test_migration('a')\n",
        "src/cache/checks_test.py": TEST_NAMED_TOOL + b"import pytest\n",
        "src/Tools/ConnectionTest.php": b"<?php\nclass ConnectionTest { public function run() {} }\n",
        "src/Tools/CacheTest.php": b"<?php\nclass CacheTest extends TestCase { }\n",
    }
    path = tmp_path / "t.tar.gz"
    path.write_bytes(tarball(tree, "top"))
    for entries in (archive.stream(path, "top"), archive.members(path, "top")):
        rules = RoleRules()
        scan = scan_tree(entries, ("migration",), Detector(), rules)
        assert scan.detection is not None
        roles = {t.path: (t.role, t.role_rule) for t in scan.detection.tools}
        assert roles == {"src/cache/tools/test_migration.py": ("server", "default"),
                         "src/cache/tools/test_plain.py": ("test", "file:test_*.py"),
                         "src/cache/checks_test.py": ("test", "file:*_test.py")}
        assert dict(scan.roles)["src/cache/tools/test_migration.py"] == "server"
        assert rules.of_path("src/Tools/ConnectionTest.php").role == "server"
        assert rules.of_path("src/Tools/CacheTest.php").role == "test"
    assert RoleRules().of_path("src/cache/tools/test_migration.py").role == "test"  # unread, its name decides
