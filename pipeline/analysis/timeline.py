"""Adoption over time, from the ``timeline_*`` tables ``census timeline`` stores.

Every frame is per period of one manifest's timeline (``every``: month, quarter or year), over the
repositories that existed at the period's end (a repository not born yet is absent, not zero), each
read at its period's commit:

- ``timeline_adoption``: servers alive, read, with server tools, declaring an annotations object on
  at least one of them (tool rows), and whose tree holds ``readOnlyHint`` at all (byte counts, any
  file), with the shares of each; server tools, annotated ones, tools setting readOnlyHint to true or
  false (and through an expression the detector does not resolve) and the readOnlyHint matches; how
  many periods were scanned and how many reused an earlier period's rows;
- ``timeline_hints``: per hint, server tools that set it, set it true, set it false;
- ``timeline_by_sdk``: per SDK (and its language), servers, server tools and annotated ones, and
  ``timeline_sdk_summary`` of it: per SDK, when its first server tool and first annotated one came;
- ``timeline_servers``: per repository, the first period it existed in, had server tools, annotated one;
- ``timeline_coverage``: the manifest's repositories walked, without a mirror, or not readable.

Without the tables (no ``census timeline`` run) every frame is empty, with its columns.
"""

from __future__ import annotations

import duckdb
import polars as pl

from pipeline.analysis.frames import frame
from pipeline.analysis.hints import HINT_NAMES
from pipeline.analysis.timeline_events import timeline_events
from pipeline.scan.detect.model import HINT_FIELDS

__all__ = ["ADOPTION_SCHEMA", "BYTE_TERM", "timeline_adoption", "timeline_by_sdk", "timeline_coverage",
           "timeline_events", "timeline_hints", "timeline_sdk_summary", "timeline_servers"]

#: the term whose byte count is drawn beside the tool rows
BYTE_TERM = "readOnlyHint"
_I, _F, _S = pl.Int64(), pl.Float64(), pl.String()
ADOPTION_SCHEMA: dict[str, pl.DataType] = {
    "period": _S, "period_end_utc": pl.Datetime("us"), "servers_alive": _I, "servers_read": _I, "scanned": _I,
    "reused": _I, "servers_with_tools": _I, "servers_annotating": _I, "annotating_share": _F,
    "servers_read_only_matches": _I, "read_only_match_share": _F, "server_tools": _I, "annotated_tools": _I,
    "annotated_share": _F, "read_only_tools": _I, "read_only_dynamic": _I, "read_only_matches": _I}
HINTS_SCHEMA: dict[str, pl.DataType] = {"period": _S, "hint": _S, "server_tools": _I, "set": _I, "set_true": _I,
                                        "set_false": _I}
BY_SDK_SCHEMA: dict[str, pl.DataType] = {"period": _S, "sdk": _S, "language": _S, "servers": _I,
                                         "servers_annotating": _I, "server_tools": _I, "annotated_tools": _I}
SERVERS_SCHEMA: dict[str, pl.DataType] = {"repo": _S, "first_period": _S, "first_tools_period": _S,
                                          "first_annotated_period": _S, "sdk": _S}
COVERAGE_SCHEMA: dict[str, pl.DataType] = {"status": _S, "repositories": _I}

#: the periods of the timeline, and each repository's rows (the commit whose scan stands for it)
_CTES = """grid AS (
    SELECT DISTINCT period, period_end_utc FROM timeline_grid
    WHERE ($manifest IS NULL OR manifest = $manifest) AND every = $every
),
periods AS (
    SELECT * FROM timeline_periods WHERE ($manifest IS NULL OR manifest = $manifest) AND every = $every
),
served AS (
    SELECT p.period, p.period_end_utc, p.repo, t.* EXCLUDE (repo, commit)
    FROM periods p JOIN timeline_tools t ON t.repo = p.repo AND t.commit = p.rows_from
    WHERE t.is_mcp AND t.role = 'server'
)"""


def _query(con: duckdb.DuckDBPyConnection, select: str, manifest: str | None, every: str,
           schema: dict[str, pl.DataType], **params: object) -> pl.DataFrame:
    """``select`` over the CTEs above, cast to ``schema``; empty (with the columns) without the tables."""
    if not _has_tables(con):
        return pl.DataFrame(schema=schema)
    found = frame(con, select, manifest, _CTES, {"every": every, **params})
    return found.cast(dict(schema.items())) if found.height else pl.DataFrame(schema=schema)


def timeline_adoption(con: duckdb.DuckDBPyConnection, manifest: str | None = None,
                      every: str = "month") -> pl.DataFrame:
    """Per period, oldest first: the columns the module names (``ADOPTION_SCHEMA``); a share is NULL
    when no repository was read, ``annotated_share`` when there is no server tool."""
    return _query(con, """
        , per_repo AS (
            SELECT period, repo, count(*) AS tools, count(*) FILTER (WHERE annotations_source <> 'none') AS annotated,
                   count(*) FILTER (WHERE read_only_hint IN ('true', 'false')) AS read_only,
                   count(*) FILTER (WHERE read_only_hint = 'dynamic') AS read_only_dynamic
            FROM served GROUP BY ALL
        ), matched AS (
            SELECT p.period, p.repo, sum(c.count) AS matches
            FROM periods p JOIN timeline_term_counts c ON c.repo = p.repo AND c.commit = p.rows_from
            WHERE c.term = $term GROUP BY ALL
        )
        SELECT g.period, g.period_end_utc, count(p.repo) AS servers_alive, count(p.rows_from) AS servers_read,
               count(p.repo) FILTER (WHERE p.status = 'scanned') AS scanned,
               count(p.repo) FILTER (WHERE p.status = 'reused') AS reused,
               count(r.repo) FILTER (WHERE r.tools > 0) AS servers_with_tools,
               count(r.repo) FILTER (WHERE r.annotated > 0) AS servers_annotating,
               count(r.repo) FILTER (WHERE r.annotated > 0) / nullif(count(p.rows_from), 0) AS annotating_share,
               count(m.repo) FILTER (WHERE m.matches > 0) AS servers_read_only_matches,
               count(m.repo) FILTER (WHERE m.matches > 0) / nullif(count(p.rows_from), 0) AS read_only_match_share,
               coalesce(sum(r.tools), 0) AS server_tools, coalesce(sum(r.annotated), 0) AS annotated_tools,
               coalesce(sum(r.annotated), 0) / nullif(sum(r.tools), 0) AS annotated_share,
               coalesce(sum(r.read_only), 0) AS read_only_tools,
               coalesce(sum(r.read_only_dynamic), 0) AS read_only_dynamic,
               coalesce(sum(m.matches), 0) AS read_only_matches
        FROM grid g LEFT JOIN periods p ON p.period = g.period
        LEFT JOIN per_repo r ON r.period = p.period AND r.repo = p.repo
        LEFT JOIN matched m ON m.period = p.period AND m.repo = p.repo
        GROUP BY g.period, g.period_end_utc ORDER BY g.period_end_utc""",
                  manifest, every, ADOPTION_SCHEMA, term=BYTE_TERM)


def timeline_hints(con: duckdb.DuckDBPyConnection, manifest: str | None = None, every: str = "month") -> pl.DataFrame:
    """Per period and hint (the spec's order): server tools, and those that set the hint, set it true,
    set it false (in source; the rest of ``set`` is not a literal)."""
    counts = ", ".join(f"count(s.repo) FILTER (WHERE s.{f} <> 'unset') AS \"{n} set\", "
                       f"count(s.repo) FILTER (WHERE s.{f} = 'true') AS \"{n} true\", "
                       f"count(s.repo) FILTER (WHERE s.{f} = 'false') AS \"{n} false\""
                       for f, n in zip(HINT_FIELDS, HINT_NAMES, strict=True))
    wide = _query(con, f"SELECT g.period, g.period_end_utc, count(s.repo) AS server_tools, {counts} "
                       "FROM grid g LEFT JOIN served s ON s.period = g.period "
                       "GROUP BY g.period, g.period_end_utc ORDER BY g.period_end_utc", manifest, every,
                  {"period": _S, "period_end_utc": pl.Datetime("us"), "server_tools": _I,
                   **{f"{n} {k}": _I for n in HINT_NAMES for k in ("set", "true", "false")}})
    if wide.is_empty():
        return pl.DataFrame(schema=HINTS_SCHEMA)
    rows = [{"period": row["period"], "hint": hint, "server_tools": row["server_tools"], "set": row[f"{hint} set"],
             "set_true": row[f"{hint} true"], "set_false": row[f"{hint} false"]}
            for row in wide.iter_rows(named=True) for hint in HINT_NAMES]
    return pl.DataFrame(rows, schema=HINTS_SCHEMA)


def timeline_by_sdk(con: duckdb.DuckDBPyConnection, manifest: str | None = None,
                    every: str = "month") -> pl.DataFrame:
    """Per period and SDK with a server tool, most tools first: its language, the servers using it, those
    with an annotated tool through it, its server tools and annotated ones."""
    return _query(con, """
        SELECT s.period, s.sdk, c.language, count(DISTINCT s.repo) AS servers,
               count(DISTINCT s.repo) FILTER (WHERE s.annotations_source <> 'none') AS servers_annotating,
               count(*) AS server_tools, count(*) FILTER (WHERE s.annotations_source <> 'none') AS annotated_tools
        FROM served s LEFT JOIN sdk_catalog c ON c.sdk = s.sdk
        GROUP BY s.period, s.period_end_utc, s.sdk, c.language
        ORDER BY s.period_end_utc, server_tools DESC, s.sdk""", manifest, every, BY_SDK_SCHEMA)


def timeline_sdk_summary(by_sdk: pl.DataFrame) -> pl.DataFrame:
    """``timeline_by_sdk`` per SDK, most server tools at the last period first: the first period a
    server tool came through it, the first one an annotated one did, and the last period's figures."""
    if by_sdk.is_empty():
        counts = dict.fromkeys(("servers", "servers_annotating", "server_tools", "annotated_tools"), _I)
        return pl.DataFrame(schema={"sdk": _S, "language": _S, "first_period": _S, "first_annotated_period": _S,
                                    **counts})
    last = by_sdk.filter(pl.col("period") == by_sdk["period"].max()).drop("period", "language")
    firsts = by_sdk.group_by("sdk", "language", maintain_order=True).agg(
        pl.col("period").min().alias("first_period"),
        pl.col("period").filter(pl.col("annotated_tools") > 0).min().alias("first_annotated_period"))
    return firsts.join(last, on="sdk", how="left").with_columns(
        pl.col("servers", "servers_annotating", "server_tools", "annotated_tools").fill_null(0)).sort(
        ["server_tools", "first_period", "sdk"], descending=[True, False, False])


def timeline_servers(con: duckdb.DuckDBPyConnection, manifest: str | None = None,
                     every: str = "month") -> pl.DataFrame:
    """Per repository walked, the first annotating first: the first period it existed in, had a server
    tool, had one declaring an annotations object, and the SDK of most of its server tools at the end."""
    return _query(con, """
        , firsts AS (
            SELECT p.repo, min(p.period_end_utc) AS born, min(s.period_end_utc) AS tools,
                   min(s.period_end_utc) FILTER (WHERE s.annotations_source <> 'none') AS annotated
            FROM periods p LEFT JOIN served s ON s.repo = p.repo AND s.period = p.period GROUP BY p.repo
        ), main_sdk AS (
            SELECT repo, sdk FROM served WHERE period_end_utc = (SELECT max(period_end_utc) FROM grid)
            GROUP BY repo, sdk QUALIFY row_number() OVER (PARTITION BY repo ORDER BY count(*) DESC, sdk) = 1
        )
        SELECT f.repo, gb.period AS first_period, gt.period AS first_tools_period,
               ga.period AS first_annotated_period, m.sdk
        FROM firsts f JOIN grid gb ON gb.period_end_utc = f.born
        LEFT JOIN grid gt ON gt.period_end_utc = f.tools LEFT JOIN grid ga ON ga.period_end_utc = f.annotated
        LEFT JOIN main_sdk m ON m.repo = f.repo
        ORDER BY f.annotated NULLS LAST, f.tools NULLS LAST, lower(f.repo)""", manifest, every, SERVERS_SCHEMA)


def timeline_coverage(con: duckdb.DuckDBPyConnection, manifest: str | None = None,
                      every: str = "month") -> pl.DataFrame:
    """How many of the manifest's repositories were walked, had no mirror, or could not be read."""
    return _query(con, """
        SELECT status, count(*) AS repositories FROM timeline_repos
        WHERE ($manifest IS NULL OR manifest = $manifest) AND every = $every
        GROUP BY status ORDER BY CASE status WHEN 'walked' THEN 0 WHEN 'no-mirror' THEN 1 ELSE 2 END""",
                  manifest, every, COVERAGE_SCHEMA)


def _has_tables(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether ``census timeline`` made its tables in this database."""
    [(found,)] = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name IN "
                             "('timeline_grid', 'timeline_periods', 'timeline_tools', 'timeline_repos', "
                             "'timeline_term_counts')").fetchall()
    return bool(found == 5)
