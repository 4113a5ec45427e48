"""``coverage``: every repository of a census gets a reason, from evidence the census holds."""

from __future__ import annotations

from pathlib import Path

import duckdb
from population_world import TREES, population_census

from pipeline.analysis import coverage

EXPECTED = {
    "acme/tools": ("server-tools", "named server tools: 1"),
    "acme/remote": ("runtime-generated", "registrations named at run time: 1 (typescript.ts-mcp.list-tools-dynamic)"),
    "acme/moved": ("server-elsewhere", "README points to https://github.com/acme/new-home"),
    "acme/list": ("not-a-server", "no package manifest declares an MCP SDK"),
    "acme/sdk": ("not-a-server", "only example and test tools (1): an SDK or a framework"),
    "acme/lisp": ("unsupported", "hint names in .clj files, a language no detector parses"),
    "acme/quiet": ("unknown", "declares ts-mcp; no tool, no pointer elsewhere"),
    "acme/fork": ("server-elsewhere", "its package names the repository https://github.com/upstream/server"),
    "acme/docs": ("not-a-server", "no source file of a language the detector parses: docs, images and configuration"),
    "acme/inspector": ("not-a-server", "uses MCP as a client (src/inspect.ts): an app, an inspector or a proxy"),
    "acme/prompts": ("not-a-server", "serves prompts or resources and no tool (src/server.ts)"),
    "acme/gone": ("not-scanned", None),
}


def test_every_repository_has_its_reason_and_the_evidence(tmp_path: Path) -> None:
    with duckdb.connect(str(population_census(tmp_path)), read_only=True) as con:
        found = coverage.coverage(con, "population")
        summary = coverage.coverage_summary(con, "population")
    assert found["repo"].to_list() == [*TREES, "acme/gone"]  # manifest order
    rows = {r["repo"]: (r["reason"], r["evidence"]) for r in found.iter_rows(named=True)}
    for repo, (reason, evidence) in EXPECTED.items():
        assert rows[repo][0] == reason, repo
        assert evidence is None or rows[repo][1] == evidence, rows[repo]
    assert found.filter(found["repo"] == "acme/tools")["server_tools"].to_list() == [1]
    assert found.filter(found["repo"] == "acme/gone")["server_tools"].to_list() == [None]
    assert rows["acme/gone"][1].startswith("source not found: ")
    assert summary["reason"].to_list() == list(coverage.REASONS)  # every reason, zero ones too
    assert summary["repositories"].to_list() == [1, 1, 1, 2, 5, 1, 1]
