"""Golden tests of ``pipeline.analysis.stats`` over a census of the synthetic trees of ``report_world``.

Every expected value below is worked out by hand from the files ``report_world`` writes (each
file there says what it adds); none is copied from output.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
from report_world import ReportWorld

from pipeline.analysis import stats
from pipeline.analysis.frames import PROJECT_ROOT
from pipeline.errors import StoreError
from pipeline.manifest.terms import TERM_SETS

GOLDEN = ["acme/notes", "acme/memory", "acme/wiki", "acme/gone", "acme/bridge"]
SCANNED = ["acme/notes", "acme/memory", "acme/wiki", "acme/bridge"]
PLACES = ("in_server", "in_examples", "in_tests", "in_docs")
EVERY_ROLE = ("server", "example", "test")


def rows(frame: pl.DataFrame, *columns: str) -> list[tuple[Any, ...]]:
    """The rows of ``columns``, in the frame's order."""
    return frame.select(columns).rows()


def test_repositories_follow_the_manifest(con: duckdb.DuckDBPyConnection, world: ReportWorld) -> None:
    frame = stats.repositories(con, "golden")

    assert rows(frame, "repo", "commit") == [(r, world.commits[r]) for r in GOLDEN]
    assert rows(frame, "status", "source", "regular_files", "skipped_members", "server_tools", "annotated_server_tools",
                "example_tools", "test_tools", "lookalike_tools", "server_repo") == [
        # 9 files and link.py; 2 FastMCP + mcp-go + go-sdk under server/, echo in examples/, fixture_files in a test
        ("scanned", "github", 9, 1, 4, 3, 1, 1, 0, None),
        ("scanned", "github", 6, 0, 1, 0, 0, 0, 1, None),  # save_memory; the LangChain @tool
        ("scanned", "github", 2, 0, 3, 1, 0, 0, 0, None),  # read_page (annotated), edit_page and delete_page
        ("skipped", None, None, None, None, None, None, None, None, None),
        ("scanned", "git", 2, 1, 0, 0, 0, 0, 0, "acme/bridge-mcp"),  # README.md, .gitmodules; the submodule
    ]
    assert frame["server_paths"].to_list() == [["server"], ["mcp"], ["server"], [], []]
    assert frame["note"].to_list()[1] == "the server moved to src/"
    assert rows(stats.repositories(con, "plain"), "repo") == [("acme/plain",)]
    assert len(stats.repositories(con)) == 6  # no manifest: every snapshot


#: (repo, term) -> (published, measured, difference, in server code, examples, tests, docs), where not all zero
NON_ZERO = {
    ("acme/notes", "readOnlyHint"): (2, 5, 3, 3, 0, 1, 1),  # notes.py, search/main.go, check.sh; test; doc
    ("acme/notes", "destructiveHint"): (None, 1, None, 1, 0, 0, 0),
    ("acme/notes", "idempotentHint"): (None, 1, None, 1, 0, 0, 0),
    ("acme/notes", "openWorldHint"): (None, 3, None, 2, 0, 0, 1),
    ("acme/notes", "ToolAnnotations"): (None, 3, None, 3, 0, 0, 0),
    ("acme/notes", "annotations"): (8, 8, 0, 7, 0, 1, 0),  # 4 + 2 in server/ and .gitattributes; the test
    ("acme/memory", "readOnlyHint"): (None, 1, None, 0, 0, 1, 0),
    ("acme/memory", "destructiveHint"): (None, 1, None, 0, 0, 1, 0),
    ("acme/memory", "idempotentHint"): (None, 1, None, 0, 0, 0, 1),
    ("acme/memory", "annotations"): (None, 4, None, 4, 0, 0, 0),  # .gitmodules 3, src/memory.py 1: server code
    ("acme/wiki", "readOnlyHint"): (0, 0, 0, 0, 0, 0, 0),  # published zero, measured zero
    ("acme/wiki", "read_only_hint"): (None, 1, None, 1, 0, 0, 0),
    ("acme/wiki", "open_world_hint"): (None, 1, None, 1, 0, 0, 0),
    ("acme/wiki", "ToolAnnotations"): (None, 2, None, 2, 0, 0, 0),
    ("acme/wiki", "annotations"): (None, 3, None, 3, 0, 0, 0),
}


def test_published_vs_measured_per_repository_and_term(con: duckdb.DuckDBPyConnection) -> None:
    frame = stats.published_vs_measured(con, "golden")
    dialects = list(TERM_SETS["dialects"])

    assert rows(frame, "repo", "term") == [(repo, term) for repo in SCANNED for term in dialects]  # gone: no row
    got = {(r, t): values for r, t, *values in rows(frame, "repo", "term", "published", "measured", "difference",
                                                      *PLACES)}
    for key, values in got.items():
        assert tuple(values) == NON_ZERO.get(key, (None, 0, None, 0, 0, 0, 0)), key
    assert all(key in got for key in NON_ZERO)


def test_published_vs_measured_keeps_to_its_manifest(con: duckdb.DuckDBPyConnection) -> None:
    plain = stats.published_vs_measured(con, "plain")

    assert rows(plain, "repo", "term", "published", "measured", *PLACES) == [
        ("acme/plain", "readOnlyHint", None, 1, 1, 0, 0, 0),  # main.go: no server_paths, server code by default
        ("acme/plain", "destructiveHint", None, 0, 0, 0, 0, 0),
        ("acme/plain", "idempotentHint", None, 0, 0, 0, 0, 0),
        ("acme/plain", "openWorldHint", None, 1, 1, 0, 0, 0),
        ("acme/plain", "annotations", None, 2, 2, 0, 0, 0),
    ]
    assert len(stats.published_vs_measured(con)) == 4 * 16 + 5


def test_hint_coverage_declared_and_on_the_wire(con: duckdb.DuckDBPyConnection) -> None:
    frame = stats.hint_coverage(con, "golden")

    # 8 MCP tools: list_notes, delete_note, search (go-sdk), list_files (mcp-go), save_memory, read_page, edit_page,
    # delete_page; annotated in source: the first three and read_page; on the wire list_files too (mcp-go fills)
    assert rows(frame, "reading", "field", "tools", "annotated_tools", "set", "set_true", "set_false",
                "set_dynamic") == [
        ("declared in source", "readOnlyHint", 8, 4, 3, 3, 0, 0),
        ("declared in source", "destructiveHint", 8, 4, 1, 1, 0, 0),
        ("declared in source", "idempotentHint", 8, 4, 1, 1, 0, 0),
        ("declared in source", "openWorldHint", 8, 4, 3, 1, 2, 0),
        ("declared in source", "title", 8, 4, 1, None, None, 0),
        ("on the wire", "readOnlyHint", 8, 5, 4, 3, 1, 0),  # list_files false
        ("on the wire", "destructiveHint", 8, 5, 2, 2, 0, 0),  # list_files true
        ("on the wire", "idempotentHint", 8, 5, 3, 1, 2, 0),  # search false (go-sdk), list_files false
        ("on the wire", "openWorldHint", 8, 5, 4, 2, 2, 0),  # list_files true
        ("on the wire", "title", 8, 5, 1, None, None, 0),
    ]
    assert frame["annotated_share"].to_list() == [0.5] * 5 + [0.625] * 5


def test_hint_coverage_widened_to_every_role(con: duckdb.DuckDBPyConnection) -> None:
    frame = stats.hint_coverage(con, "golden", roles=EVERY_ROLE)

    # and echo (example, FastMCP: nothing on the wire) and fixture_files (test, mcp-go: the four defaults)
    assert rows(frame, "reading", "field", "tools", "annotated_tools", "set", "set_true", "set_false") == [
        ("declared in source", "readOnlyHint", 10, 4, 3, 3, 0),
        ("declared in source", "destructiveHint", 10, 4, 1, 1, 0),
        ("declared in source", "idempotentHint", 10, 4, 1, 1, 0),
        ("declared in source", "openWorldHint", 10, 4, 3, 1, 2),
        ("declared in source", "title", 10, 4, 1, None, None),
        ("on the wire", "readOnlyHint", 10, 6, 5, 3, 2),
        ("on the wire", "destructiveHint", 10, 6, 3, 3, 0),
        ("on the wire", "idempotentHint", 10, 6, 4, 1, 3),
        ("on the wire", "openWorldHint", 10, 6, 5, 3, 2),
        ("on the wire", "title", 10, 6, 1, None, None),
    ]
    assert stats.hint_coverage(con, "golden", roles="test")["tools"].to_list() == [1] * 10
    assert stats.hint_coverage(con, "golden", roles=["example"])["annotated_tools"].to_list() == [0] * 10


@pytest.mark.parametrize("roles", ["servers", ("server", "docs-ish"), ()])
def test_an_unknown_role_is_one_line_naming_it_and_the_choices(con: duckdb.DuckDBPyConnection, roles: Any) -> None:
    for function in (stats.hint_coverage, stats.tools_by_sdk, stats.effective_summary, stats.caveats):
        with pytest.raises(ValueError, match=r"^roles: .*\(choose from server, example, test, docs\)$"):
            function(con, "golden", roles=roles)


def test_hint_coverage_with_no_tools_is_all_zero(con: duckdb.DuckDBPyConnection) -> None:
    frame = stats.hint_coverage(con, "nothing-stored")

    assert len(frame) == 10
    assert frame["tools"].to_list() == [0] * 10
    assert frame["annotated_share"].null_count() == 10


#: tool -> per hint (readOnly, destructive, idempotent, openWorld): (declared, on wire, defaults, no gate)
EFFECTIVE = {
    "list_files": [("unset", "false", "false", "false"), ("unset", "true", "true", "true"),
                   ("unset", "false", "false", "false"), ("unset", "true", "true", "true")],
    "list_notes": [("true", "true", "true", "true"), ("unset", "unset", "not applicable", "not applicable"),
                   ("unset", "unset", "not applicable", "not applicable"), ("false", "false", "false", "false")],
    "delete_note": [("unset", "unset", "false", "false"), ("true", "true", "true", "true"),
                    ("true", "true", "true", "true"), ("unset", "unset", "true", "true")],
    "search": [("true", "true", "true", "true"), ("unset", "unset", "not applicable", "not applicable"),
               ("unset", "false", "not applicable", "not applicable"), ("true", "true", "true", "true")],
    "save_memory": [("unset", "unset", "false", "no gate"), ("unset", "unset", "true", "no gate"),
                    ("unset", "unset", "false", "no gate"), ("unset", "unset", "true", "no gate")],
    "read_page": [("true", "true", "true", "true"), ("unset", "unset", "not applicable", "not applicable"),
                  ("unset", "unset", "not applicable", "not applicable"), ("false", "false", "false", "false")],
    "edit_page": [("unset", "unset", "false", "no gate"), ("unset", "unset", "true", "no gate"),
                  ("unset", "unset", "false", "no gate"), ("unset", "unset", "true", "no gate")],
}
EFFECTIVE["delete_page"] = EFFECTIVE["edit_page"]


def test_effective_hints_per_tool_and_hint(con: duckdb.DuckDBPyConnection) -> None:
    frame = stats.effective_hints(con, "golden")
    hints = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]

    order = ["list_files", "list_notes", "delete_note", "search", "save_memory", "read_page", "edit_page",
             "delete_page"]
    assert rows(frame, "tool_name", "hint") == [(tool, hint) for tool in order for hint in hints]
    got: dict[str, list[tuple[Any, ...]]] = {}
    for tool, *values in rows(frame, "tool_name", "declared", "on_wire", "effective_defaults", "effective_no_gate"):
        got.setdefault(tool, []).append(tuple(values))
    assert got == EFFECTIVE


def test_effective_summary_counts_both_readings(con: duckdb.DuckDBPyConnection) -> None:
    frame = stats.effective_summary(con, "golden")

    assert rows(frame, "reading", "hint", "effective_true", "effective_false", "not_applicable", "unknown",
                "no_gate") == [
        ("defaults applied", "readOnlyHint", 3, 5, 0, 0, 0),
        ("defaults applied", "destructiveHint", 5, 0, 3, 0, 0),
        ("defaults applied", "idempotentHint", 1, 4, 3, 0, 0),
        ("defaults applied", "openWorldHint", 6, 2, 0, 0, 0),
        ("no annotation, no gate", "readOnlyHint", 3, 2, 0, 0, 3),  # save_memory, edit_page, delete_page
        ("no annotation, no gate", "destructiveHint", 2, 0, 3, 0, 3),
        ("no annotation, no gate", "idempotentHint", 1, 1, 3, 0, 3),
        ("no annotation, no gate", "openWorldHint", 3, 2, 0, 0, 3),
    ]


def test_tools_by_sdk_and_lookalikes(con: duckdb.DuckDBPyConnection) -> None:
    frame = stats.tools_by_sdk(con, "golden")

    assert rows(frame, "repo", "sdk", "language", "is_mcp", "tools", "annotated_tools", "via_wrapper") == [
        ("acme/notes", "go-mcp-go", "go", True, 1, 0, 0),  # list_files; fixture_files is a test's
        ("acme/notes", "go-official", "go", True, 1, 1, 0),
        ("acme/notes", "python-mcp", "python", True, 2, 2, 0),  # echo is an example's
        ("acme/memory", "python-mcp", "python", True, 1, 0, 0),
        ("acme/memory", "langchain", "python", False, 1, 0, 0),
        ("acme/wiki", "python-mcp", "python", True, 3, 1, 2),
    ]
    widened = stats.tools_by_sdk(con, "golden", roles=EVERY_ROLE).filter(pl.col("repo") == "acme/notes")
    assert rows(widened, "sdk", "tools") == [("go-mcp-go", 2), ("go-official", 1), ("python-mcp", 3)]
    assert rows(stats.lookalikes_excluded(con, "golden"), "repo", "sdk", "language", "tools", "files", "paths") == [
        ("acme/memory", "langchain", "python", 1, 1, ["agents/lc.py"])]
    assert stats.lookalikes_excluded(con, "golden", roles="test").is_empty()
    assert stats.lookalikes_excluded(con, "plain").is_empty()


def test_tools_by_role_with_the_rules_that_placed_them(con: duckdb.DuckDBPyConnection) -> None:
    frame = stats.tools_by_role(con, "golden")

    assert rows(frame, "repo", "role", "mcp_tools", "annotated_tools", "lookalike_tools", "rules") == [
        ("acme/notes", "server", 4, 3, 0, ["server_paths:server (4)"]),
        ("acme/notes", "example", 1, 0, 0, ["folder:examples/ (1)"]),
        ("acme/notes", "test", 1, 0, 0, ["file:*_test.go (1)"]),  # under the server path, still a test
        ("acme/memory", "server", 1, 0, 1, ["default (2)"]),  # src/memory.py and agents/lc.py
        ("acme/wiki", "server", 3, 1, 0, ["server_paths:server (3)"]),
    ]


#: (repo, caveat, status, words the evidence must hold)
CAVEATS = [
    ("acme/notes", "export-ignore", "found", "not in the archive, so not counted: .gitattributes: *.bin"),
    ("acme/notes", "files-not-read", "found", "symlinks, not followed: 1 (link.py)"),
    ("acme/memory", "no-tool-in-server-paths", "found", "under mcp (server_paths); 1 MCP tool elsewhere in the tree: "
                                                        "src/memory.py"),
    ("acme/memory", "hints-not-in-server-code", "found", "(destructiveHint 1 in tests, idempotentHint 1 in docs, "
                                                         "readOnlyHint 1 in tests); none in server code"),
    ("acme/memory", "submodules", "found", ".gitmodules lists 1 submodule (vendor/annotations): archives leave"),
    ("acme/wiki", "wrapper-registration", "found", "2 of 3 MCP tools registered through the project's own helper "
                                                   "(Registry.tool)"),
    ("acme/wiki", "false-zero", "found", "readOnlyHint counts 0, but other spellings match (read_only_hint 1) and the "
                                         "detector reads it declared on 1 of 3 MCP tools; openWorldHint counts 0, but "
                                         "other spellings match (open_world_hint 1)"),
    ("acme/gone", "repository-skipped", "found", "(skipped at the fetch stage): repository or commit not found"),
    ("acme/bridge", "server-elsewhere", "found", "lives in acme/bridge-mcp (server_repo)"),
    ("acme/bridge", "submodules", "found", "1 submodule not read (their files live in other repositories): vendor/sdk"),
]


def test_caveats_with_their_evidence(con: duckdb.DuckDBPyConnection) -> None:
    frame = stats.caveats(con, "golden")

    assert rows(frame, "repo", "caveat", "status") == [c[:3] for c in CAVEATS]
    for (repo, caveat, _, words), evidence in zip(CAVEATS, frame["evidence"], strict=True):
        assert words in evidence, (repo, caveat, evidence)


def test_a_camelcase_zero_without_dialect_terms_is_not_checked(con: duckdb.DuckDBPyConnection) -> None:
    frame = stats.caveats(con, "plain").filter(pl.col("caveat") == "false-zero")

    assert rows(frame, "repo", "status") == [("acme/plain", "not checked")]
    assert frame["evidence"][0].startswith("destructiveHint, idempotentHint count 0, and the scan counted no other "
                                           "spelling (terms: readOnlyHint, destructiveHint, idempotentHint, "
                                           "openWorldHint, annotations)")
    assert frame["evidence"][0].endswith("none of them declared on the 1 MCP tool of this tree")


def test_repo_totals_has_the_terms_then_the_tools_by_role(con: duckdb.DuckDBPyConnection) -> None:
    frame = stats.repo_totals(con, "plain")

    # one column per term of every scanned snapshot (golden's dialects come first)
    assert frame.columns == ["repo", "commit", "status", "regular_files", "skipped_members", *TERM_SETS["dialects"],
                             "server_tools", "annotated_server_tools", "example_tools", "test_tools",
                             "lookalike_tools", "skip_reason"]
    assert frame.select("repo", "regular_files", *TERM_SETS["published"], "server_tools",
                        "annotated_server_tools").row(0) == ("acme/plain", 1, 1, 0, 0, 1, 2, 1, 1)
    assert frame["read_only_hint"].to_list() == [None]  # not counted in this tree
    golden = stats.repo_totals(con, "golden")
    assert rows(golden.head(1), "server_tools", "annotated_server_tools", "example_tools", "test_tools") == [
        (4, 3, 1, 1)]


def test_connect_names_a_missing_or_bad_database(tmp_path: Path) -> None:
    missing, text, empty = tmp_path / "none.duckdb", tmp_path / "text.duckdb", tmp_path / "empty.duckdb"
    text.write_text("not a database\n")
    duckdb.connect(str(empty)).close()

    for path, words in ((missing, "no census database here"), (text, "cannot open the census database"),
                        (empty, "not a census database")):
        with pytest.raises(StoreError) as caught:
            stats.connect(path)
        assert str(caught.value).startswith(f"{path}: {words}")
        assert "\n" not in str(caught.value)


def test_database_path_comes_from_census_db() -> None:
    assert stats.database_path({}) == PROJECT_ROOT / "data" / "census.duckdb"
    assert stats.database_path({"CENSUS_DB": "data/other.duckdb"}) == PROJECT_ROOT / "data" / "other.duckdb"
    assert stats.database_path({"CENSUS_DB": "/srv/c.duckdb"}) == Path("/srv/c.duckdb")
