"""Named statistics over a census database, each returning a polars DataFrame.

This module is the only place numbers are computed: the CLI, the reports and the
notebooks all call these functions (the hint statistics live in ``pipeline.analysis.hints``, the
caveats in ``pipeline.analysis.caveats``, a population's coverage in ``pipeline.analysis.coverage`` and its
per-server figures in ``pipeline.analysis.population``, adoption over time in ``pipeline.analysis.timeline``;
all are re-exported here). Every function takes an optional ``manifest``: its entries at their pinned
commits, or every snapshot when ``None`` (the timeline's: its stored periods, of every manifest when ``None``).

Term counts are case-insensitive byte counts over every regular file of a tree: they say
where strings sit, not how many tools are annotated. Tool counts come from the
registration detector (``tools``: what the source declares).

Every tool and every match has a role (``pipeline.scan.roles``): ``server`` (what a server
ships), ``example``, ``test``, and for matches ``docs``. A function that counts tools over one
set takes ``roles=`` (a role or several; default ``DEFAULT_ROLES``, server tools only), so a
notebook can widen it; ``repo_totals``, ``repositories`` and ``tools_by_role`` give each role
its own column.
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb
import polars as pl

from pipeline.analysis.caveats import caveats
from pipeline.analysis.coverage import coverage, coverage_summary
from pipeline.analysis.effects import effects_by_sdk, findings, has_effects, unlocated
from pipeline.analysis.frames import DEFAULT_ROLES, connect, database_path, frame, manifest_names, role_filter
from pipeline.analysis.hints import HINT_NAMES, effective_hints, effective_summary, hint_coverage
from pipeline.analysis.history import history_findings, history_series
from pipeline.analysis.population import (
    annotation_classes,
    population_by_sdk,
    seed_000_comparison,
    servers_by_annotation,
)
from pipeline.analysis.timeline import (
    timeline_adoption,
    timeline_by_sdk,
    timeline_coverage,
    timeline_events,
    timeline_hints,
    timeline_sdk_summary,
    timeline_servers,
)
from pipeline.scan.roles import DOCS, EXAMPLE, SERVER, TEST, TOOL_ROLES

__all__ = [
    "DEFAULT_ROLES",
    "HINT_NAMES",
    "TOOL_ROLES",
    "annotation_classes",
    "caveats",
    "connect",
    "coverage",
    "coverage_summary",
    "database_path",
    "effective_hints",
    "effective_summary",
    "effects_by_sdk",
    "findings",
    "has_effects",
    "hint_coverage",
    "history_findings",
    "history_series",
    "lookalikes_excluded",
    "manifest_names",
    "population_by_sdk",
    "published_vs_measured",
    "repo_totals",
    "repositories",
    "seed_000_comparison",
    "servers_by_annotation",
    "timeline_adoption",
    "timeline_by_sdk",
    "timeline_coverage",
    "timeline_events",
    "timeline_hints",
    "timeline_sdk_summary",
    "timeline_servers",
    "tools_by_role",
    "tools_by_sdk",
    "unlocated",
]

#: columns of ``repo_totals`` before the per-term columns
TOTALS_COLUMNS = ("repo", "commit", "status", "regular_files", "skipped_members")
#: columns of ``repo_totals`` after the per-term columns: what the detector found, by role
TOOL_COLUMNS = ("server_tools", "annotated_server_tools", "example_tools", "test_tools", "lookalike_tools")
_TOOL_COUNTS = f"""
    SELECT repo, commit, count(*) FILTER (WHERE is_mcp AND role = '{SERVER}') AS server_tools,
           count(*) FILTER (WHERE is_mcp AND role = '{SERVER}' AND annotations_source <> 'none')
               AS annotated_server_tools,
           count(*) FILTER (WHERE is_mcp AND role = '{EXAMPLE}') AS example_tools,
           count(*) FILTER (WHERE is_mcp AND role = '{TEST}') AS test_tools,
           count(*) FILTER (WHERE NOT is_mcp) AS lookalike_tools
    FROM tools GROUP BY repo, commit
"""


def repo_totals(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """One row per snapshot: status, file counts, one column per term, tool counts, skip reason.

    With ``manifest``, only that manifest's repositories, in manifest order. Term columns
    hold the case-insensitive count over every regular file; ``server_tools`` counts the MCP
    tool definitions a server ships (role ``server``), ``annotated_server_tools`` those of them
    that declare an annotations object in source, ``example_tools`` and ``test_tools`` the MCP
    tools of examples and tests, ``lookalike_tools`` registrations of non-MCP libraries in any
    role (all NULL when not scanned).
    """
    where, params = ("WHERE m.manifest = ?", [manifest]) if manifest else ("", [])
    snapshots = _frame(
        con,
        f"""
        SELECT s.repo, s.commit, s.status, s.regular_files, s.skipped_members, s.skip_reason,
               coalesce(min(m.entry), 1e9) AS entry,
               {", ".join(f"CASE WHEN s.status = 'scanned' THEN coalesce(t.{c}, 0) END AS {c}" for c in TOOL_COLUMNS)}
        FROM snapshots s
        LEFT JOIN ({_TOOL_COUNTS}) t ON t.repo = s.repo AND t.commit = s.commit
        {"JOIN" if manifest else "LEFT JOIN"} manifest_entries m
          ON m.repo = s.repo AND m.commit IS NOT DISTINCT FROM s.commit {where.replace("WHERE", "AND")}
        GROUP BY ALL ORDER BY entry, s.repo
        """,
        params,
    )
    totals = _frame(con, "SELECT repo, commit, term, count FROM repo_term_totals")
    if totals.is_empty():
        return snapshots.drop("entry").select(*TOTALS_COLUMNS, *TOOL_COLUMNS, "skip_reason")
    terms = _term_order(con)
    wide = totals.pivot(on="term", index=["repo", "commit"], values="count")
    joined = snapshots.join(wide, on=["repo", "commit"], how="left", nulls_equal=True)
    return joined.sort("entry", "repo").select(*TOTALS_COLUMNS, *terms, *TOOL_COLUMNS, "skip_reason")


def repositories(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """One row per snapshot in scope, in manifest order: where it was read from, how many files,
    the detector's tool counts by role (as ``repo_totals``), and what the manifest says about it
    (``server_paths``, ``server_repo``, ``note``)."""
    return frame(con, f"""
        SELECT s.repo, s.commit, s.status, s.source, s.regular_files, s.skipped_members,
               {", ".join(f"CASE WHEN s.status = 'scanned' THEN coalesce(t.{c}, 0) END AS {c}" for c in TOOL_COLUMNS)},
               s.server_paths, s.server_repo, s.note, s.skip_reason, s.scanner_version, s.terms
        FROM scope s LEFT JOIN ({_TOOL_COUNTS}) t ON t.repo = s.repo AND t.commit = s.commit
        ORDER BY s.entry, s.repo""", manifest)


#: the places of ``published_vs_measured``: a column per role of a match
PLACES = {"in_server": SERVER, "in_examples": EXAMPLE, "in_tests": TEST, "in_docs": DOCS}
_PLACED = f"""placed AS (
    SELECT c.repo, c.commit, c.term,
           {", ".join(f"sum(c.count) FILTER (WHERE c.role = '{role}')::BIGINT AS {column}"
                      for column, role in PLACES.items())}
    FROM term_counts c JOIN scope s ON s.repo = c.repo AND s.commit = c.commit
    GROUP BY ALL
),
wanted AS (
    SELECT DISTINCT repo, commit, term FROM (
        SELECT repo, commit, unnest(terms) AS term FROM scope WHERE status = 'scanned'
        UNION ALL SELECT repo, commit, unnest(map_keys(published)) FROM scope WHERE published IS NOT NULL)
)"""


def published_vs_measured(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """Per repository and term: the ``published`` figure (from the manifest, NULL if none),
    ours (``measured``: the byte count, NULL if the tree was not scanned for that term),
    ``difference`` (measured - published), and where our matches sit, by the role of their file:
    ``in_server``, ``in_examples``, ``in_tests``, ``in_docs``."""
    places = ", ".join(f"CASE WHEN r.count IS NOT NULL THEN coalesce(p.{c}, 0) END AS {c}" for c in PLACES)
    return frame(con, f"""
        SELECT w.repo, w.commit, w.term, s.published[w.term] AS published, r.count AS measured,
               r.count - s.published[w.term] AS difference, {places}
        FROM wanted w JOIN scope s ON s.repo = w.repo AND s.commit IS NOT DISTINCT FROM w.commit
        LEFT JOIN repo_term_totals r ON r.repo = w.repo AND r.commit = w.commit AND r.term = w.term
        LEFT JOIN placed p ON p.repo = w.repo AND p.commit = w.commit AND p.term = w.term
        ORDER BY s.entry, w.repo,
                 coalesce(list_position(s.terms, w.term), 1000 + list_position(map_keys(s.published), w.term))
        """, manifest, _PLACED)


def tools_by_role(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """Per repository and role (server, example, test) with a tool: MCP tool definitions, those
    that declare an annotations object in source, look-alike registrations, and the rules that
    placed them (``rules``: each ``role_rule`` with its number of tools, most used first)."""
    return frame(con, f"""
        SELECT r.repo, r.commit, r.role, sum(r.mcp_tools)::BIGINT AS mcp_tools,
               sum(r.annotated_tools)::BIGINT AS annotated_tools, sum(r.lookalike_tools)::BIGINT AS lookalike_tools,
               list(r.role_rule || ' (' || (r.mcp_tools + r.lookalike_tools) || ')'
                    ORDER BY r.mcp_tools + r.lookalike_tools DESC, r.role_rule) AS rules
        FROM (SELECT t.repo, t.commit, t.role, t.role_rule, min(s.entry) AS entry,
                     count(*) FILTER (WHERE t.is_mcp) AS mcp_tools,
                     count(*) FILTER (WHERE t.is_mcp AND t.annotations_source <> 'none') AS annotated_tools,
                     count(*) FILTER (WHERE NOT t.is_mcp) AS lookalike_tools
              FROM tools t JOIN scope s ON s.repo = t.repo AND s.commit = t.commit GROUP BY ALL) r
        GROUP BY r.entry, r.repo, r.commit, r.role
        ORDER BY r.entry, r.repo, list_position({list(TOOL_ROLES)}, r.role)""", manifest)


def tools_by_sdk(con: duckdb.DuckDBPyConnection, manifest: str | None = None,
                 roles: str | Sequence[str] = DEFAULT_ROLES) -> pl.DataFrame:
    """Per repository and library, over the tools of ``roles`` (default: server): the tool
    definitions the detector found (``is_mcp`` false for look-alikes), how many declare an
    annotations object in source (``annotated_tools``), and how many are registered through the
    project's own wrapper."""
    return frame(con, f"""
        SELECT t.repo, t.commit, t.sdk, c.language, t.is_mcp, count(*) AS tools,
               count(*) FILTER (WHERE t.annotations_source <> 'none') AS annotated_tools,
               count(*) FILTER (WHERE t.via LIKE 'wrapper:%') AS via_wrapper
        FROM tools t JOIN scope s ON s.repo = t.repo AND s.commit = t.commit
        LEFT JOIN sdk_catalog c ON c.sdk = t.sdk
        WHERE {role_filter("t.role", roles)}
        GROUP BY s.entry, t.repo, t.commit, t.sdk, c.language, t.is_mcp
        ORDER BY s.entry, t.repo, t.is_mcp DESC, t.sdk""", manifest)


def lookalikes_excluded(con: duckdb.DuckDBPyConnection, manifest: str | None = None,
                        roles: str | Sequence[str] = TOOL_ROLES) -> pl.DataFrame:
    """Per repository and library: registrations of "tools" that are not MCP (agent frameworks,
    plugins), left out of every MCP count, with the files they sit in (``roles``: every role
    unless told otherwise, since none of them is counted)."""
    return frame(con, f"""
        SELECT t.repo, t.commit, t.sdk, c.language, count(*) AS tools, count(DISTINCT t.path) AS files,
               list_sort(list_distinct(list(t.path))) AS paths
        FROM tools t JOIN scope s ON s.repo = t.repo AND s.commit = t.commit
        LEFT JOIN sdk_catalog c ON c.sdk = t.sdk
        WHERE NOT t.is_mcp AND {role_filter("t.role", roles)}
        GROUP BY s.entry, t.repo, t.commit, t.sdk, c.language
        ORDER BY s.entry, t.repo, t.sdk""", manifest)


def _term_order(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every scanned term, in the order the manifests list them."""
    order: dict[str, None] = {}
    for (terms,) in con.execute("SELECT terms FROM snapshots WHERE status = 'scanned'").fetchall():
        order.update(dict.fromkeys(terms))
    return list(order)


def _frame(con: duckdb.DuckDBPyConnection, query: str, params: Sequence[object] = ()) -> pl.DataFrame:
    """A query's result as a polars DataFrame."""
    frame: pl.DataFrame = con.sql(query, params=list(params) or None).pl()
    return frame
