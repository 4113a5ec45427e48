"""A catalog's recorded tools lists as captures: each dated by the catalog commit from which it
stayed as it is, stored by ``census ingest-catalog``, pinned by ``census discover --from-captures``
at the last commit before the record, scanned from a real git mirror and held against the source."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest
from synth import git
from timeline_world import commit as dated_commit

from pipeline.analysis import runtime, source_vs_wire
from pipeline.cli.main import main
from pipeline.errors import RegistryDumpError
from pipeline.manifest import catalog, manifests
from pipeline.runtime.ingest import RECORDED
from pipeline.runtime.recorded import captures, items_at, recorded

DAY, START = 86400, 1_735_689_600  # 2025-01-01


def commit(repo: Path, files: dict[str, str], day: int) -> str:
    """``timeline_world.commit`` of ``files`` (text) dated ``day`` days after 2025-01-01."""
    return dated_commit(repo, f"@{START + day * DAY} +0000", {path: text.encode() for path, text in files.items()})


def index(**tools: Sequence[str]) -> str:
    return json.dumps({package: {"category": "tools", "path": f"tools/{package.removeprefix('acme-')}.json",
                                 "validated": True, "tools": names if isinstance(names, str) else
                                 {n: {"name": n, "description": f"does {n}"} for n in names}}
                       for package, names in tools.items()})


def entry(package: str, url: str) -> str:
    return json.dumps({"type": "mcp-server", "packageName": package, "runtime": "node", "url": url, "env": {}})


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A catalog whose index records notes' list on day 2, changes it on day 5 and keeps it on day 9;
    other's on day 9; gone's is dropped; a malformed entry lives only in the past."""
    repo = tmp_path / "awesome-mcp-registry"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    packages = {"packages/tools/notes.json": entry("acme-notes", "https://github.com/acme/tools/tree/HEAD/servers/notes"),
                "packages/tools/other.json": entry("acme-other", "https://github.com/acme/other"),
                "packages/tools/gone.json": entry("gone", "https://github.com/acme/gone"),
                "packages/README.md": "not an entry\n"}
    commit(repo, {**packages, "indexes/packages-list.json": index(**{"acme-notes": ["add_note"], "gone": ["g"]})}, 2)
    listed = ["add_note", "list_notes", "export_notes", "search_notes"]
    commit(repo, {"indexes/packages-list.json": index(**{"acme-notes": listed, "bad": "x"})}, 5)
    commit(repo, {"indexes/packages-list.json": index(**{"acme-notes": listed,
                                                          "acme-other": ["summon_dragon", "brew_tea", "list_files"]})},
           9)
    return repo


def test_each_list_is_dated_by_the_commit_from_which_it_stayed(clone: Path) -> None:
    found = recorded(clone)
    assert sorted(found) == ["tools/notes", "tools/other"]  # gone's list is not in the index at HEAD
    notes = found["tools/notes"]
    assert [t["name"] for t in notes.tools] == ["add_note", "list_notes", "export_notes", "search_notes"]
    assert notes.recorded_at_utc == datetime.fromtimestamp(START + 5 * DAY, UTC)  # changed on day 5, kept on day 9
    assert found["tools/other"].recorded_at_utc == datetime.fromtimestamp(START + 9 * DAY, UTC)
    offered, made = captures(clone)
    assert offered == 2
    package, capture, record = made[0]
    assert (package.repo, package.subfolder) == ("acme/tools", "servers/notes")  # a url to a folder names it
    assert (capture.transport, capture.status, [t.tool_name for t in capture.tools][:2]) == (
        RECORDED, "ok", ["add_note", "list_notes"])
    assert (capture.captured_at_utc, record.commit) == (notes.recorded_at_utc, notes.commit)
    assert [p.server for _, p, _ in captures(clone, sample=1, seed=3)[1]] == \
        [p.server for _, p, _ in captures(clone, sample=1, seed=3)[1]]  # the same seed, the same draw


def test_a_list_dropped_and_recorded_again_dates_from_its_return(clone: Path) -> None:
    listed = ["add_note", "list_notes", "export_notes", "search_notes"]
    commit(clone, {"indexes/packages-list.json": index(**{"acme-other": ["summon_dragon"]})}, 12)
    commit(clone, {"indexes/packages-list.json": index(**{"acme-notes": listed, "acme-other": ["summon_dragon"]})},
           15)
    assert recorded(clone)["tools/notes"].recorded_at_utc == datetime.fromtimestamp(START + 15 * DAY, UTC)


def test_a_bare_clone_reads_as_a_work_tree_does(clone: Path, tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(clone), str(bare)], check=True)
    assert dict(items_at(bare)) == dict(catalog.items(clone))
    assert recorded(bare) == recorded(clone)


def test_a_malformed_index_at_head_names_the_file_commit_and_entry(clone: Path) -> None:
    commit(clone, {"indexes/packages-list.json": index(**{"acme-notes": ["add_note"], "broken": "not an object"})},
           12)
    with pytest.raises(RegistryDumpError, match=r'indexes/packages-list\.json@[0-9a-f]{12}: entry "broken"'):
        recorded(clone)
    (clone.parent / "empty").mkdir()
    with pytest.raises(RegistryDumpError, match="not a git clone"):
        recorded(clone.parent / "empty")


def test_recorded_lists_are_held_against_the_source_at_the_last_commit_before_them(
        clone: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mirrors = tmp_path / "mirrors"
    server = ('import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\n'
              'const server = new McpServer({ name: "notes", version: "1" });\n')
    tool = 'server.tool("{}", "a tool", {{}}, async () => ({{ content: [] }}));\n'
    tools = mirrors / "acme" / "tools"
    tools.mkdir(parents=True)
    git(tools, "init", "-q", "-b", "main")
    before = commit(tools, {"package.json": '{"dependencies": {"@modelcontextprotocol/sdk": "^1.12.0"}}',
                            "README.md": "search_notes is registered in a way no detector reads\n",
                            "servers/notes/index.ts": server + tool.format("add_note") + tool.format("list_notes")}, 3)
    commit(tools, {"servers/notes/index.ts": server + tool.format("add_note") + tool.format("delete_note")}, 20)
    other = mirrors / "acme" / "other"  # the catalog's url for other points at a repository with none of its names
    other.mkdir(parents=True)
    git(other, "init", "-q", "-b", "main")
    commit(other, {"package.json": '{"dependencies": {"@modelcontextprotocol/sdk": "^1.12.0"}}',
                   "README.md": "Its tools: weather. Not list_files.\n",
                   "index.ts": server + tool.format("weather")}, 4)
    db, manifest = tmp_path / "c.duckdb", tmp_path / "recorded.toml"
    main(["ingest-catalog", str(clone), "--db", str(db)])
    assert "2 recorded lists stored (7 tools), 2 paired" in capsys.readouterr().out
    main(["discover", "--from-captures", "--db", str(db), "--mirrors", str(mirrors), "--out", str(manifest)])
    pinned = {entry.repo: entry for entry in manifests.load(manifest).repos}
    assert pinned["acme/tools"].commit == before  # the last commit touching the folder before day 5
    assert pinned["acme/tools"].note == "by-date: acme-notes as recorded, 2 days before the record"
    main(["run", str(manifest), "--mirrors", str(mirrors), "--offline", "--db", str(db)])
    with duckdb.connect(str(db), read_only=True) as con:
        frame = source_vs_wire.detector_vs_runtime(con, "recorded")
        causes = source_vs_wire.runtime_disagreements(con, "recorded").select("server", "tool_name", "cause").rows()
        received = con.execute("SELECT count(*) FROM runtime_tools").fetchone()
        coverage = runtime.runtime_hint_coverage(con)
    rows = {r["server"]: r for r in frame.iter_rows(named=True)}
    assert (rows["tools/notes"]["matched"], rows["tools/notes"]["names_in_tree"]) == (2, 0.75)
    assert rows["tools/other"]["names_in_tree"] == pytest.approx(1 / 3)  # one name of three is in its tree
    assert {(t, c) for s, t, c in causes if s == "tools/other"} == {
        (name, source_vs_wire.NOT_IN_SOURCE) for name in ("brew_tea", "list_files", "summon_dragon", "weather")}
    assert {(t, c) for s, t, c in causes if s == "tools/notes"} == {  # delete_note came after the record
        ("export_notes", source_vs_wire.NOT_MATCHED),  # nowhere in the tree: it changed in between
        ("search_notes", source_vs_wire.DETECTOR_MISS)}  # in the tree, not found: the detector's
    total = source_vs_wire.detector_accuracy(frame).row(0, named=True)
    assert (total["servers"], total["precision"], total["recall"]) == (1, 1.0, 0.5)  # other's set aside
    assert received == (7,)
    assert coverage["tools"].to_list() == [0] * 5  # a record keeps no annotations: no hint is counted from it
