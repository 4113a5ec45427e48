"""Named statistics over a census database, each returning a polars DataFrame.

This module is the only place numbers are computed: the CLI, the reports and the
notebooks all call these functions.
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb
import polars as pl

#: columns of ``repo_totals`` before the per-term columns
TOTALS_COLUMNS = ("repo", "commit", "status", "regular_files", "skipped_members")
#: columns of ``repo_totals`` after the per-term columns: what the detector found
TOOL_COLUMNS = ("mcp_tools", "annotated_tools", "lookalike_tools")
_TOOL_COUNTS = """
    SELECT repo, commit, count(*) FILTER (WHERE is_mcp) AS mcp_tools,
           count(*) FILTER (WHERE is_mcp AND annotations_source <> 'none') AS annotated_tools,
           count(*) FILTER (WHERE NOT is_mcp) AS lookalike_tools
    FROM tools GROUP BY repo, commit
"""


def repo_totals(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """One row per snapshot: status, file counts, one column per term, tool counts, skip reason.

    With ``manifest``, only that manifest's repositories, in manifest order. Term columns
    hold the case-insensitive count over every regular file; ``mcp_tools`` counts MCP tool
    definitions, ``annotated_tools`` those that declare an annotations object in source,
    ``lookalike_tools`` registrations of non-MCP libraries (all NULL when not scanned).
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
