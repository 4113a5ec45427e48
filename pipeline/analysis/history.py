"""A manifest's published trees over time, from the ``history`` tables ``census history`` stores.

``history_series`` gives, per repository of a manifest with published figures and a stored
history, each commit's count of each published term, the figure, and which commit the manifest
pins: what the report's and notebook 01's chart per published tree draws; ``history_findings``
gives what ``census history --manifest`` found for each published figure (``history_matches``).
Without those tables (no ``census history`` run), the frames are empty.
"""

from __future__ import annotations

import duckdb
import polars as pl

from pipeline.analysis.frames import frame

SCHEMA: dict[str, pl.DataType] = {"repo": pl.String(), "commit": pl.String(), "committed_at_utc": pl.Datetime("us"),
                                   "term": pl.String(), "count": pl.Int64(), "published": pl.Int64(),
                                   "pinned": pl.Boolean()}


def history_series(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """Per repository, published term and stored commit (oldest first): the count, the figure and
    whether the manifest pins that commit."""
    if not _has_table(con, "history"):
        return pl.DataFrame(schema=SCHEMA)
    found = frame(con, """
        SELECT h.repo, h.commit, h.committed_at_utc, h.term, h.count, f.figure AS published,
               h.commit = any_value(s.commit) OVER (PARTITION BY h.repo) AS pinned
        FROM (SELECT DISTINCT repo, commit, entry FROM scope WHERE published IS NOT NULL) s
        JOIN (SELECT repo, unnest(map_keys(published)) AS term, unnest(map_values(published)) AS figure
              FROM scope WHERE published IS NOT NULL) f ON f.repo = s.repo
        JOIN history h ON h.repo = s.repo AND h.term = f.term
        ORDER BY s.entry, h.repo, h.term, h.committed_at_utc, h.commit""", manifest)
    return found.cast({k: v for k, v in SCHEMA.items() if k in found.columns}) if found.height else pl.DataFrame(
        schema=SCHEMA)


FINDINGS_SCHEMA: dict[str, pl.DataType] = {"repo": pl.String(), "term": pl.String(), "figure": pl.Int64(),
                                            "first": pl.String(), "last": pl.String(),
                                            "first_at_utc": pl.Datetime("us"), "last_at_utc": pl.Datetime("us"),
                                            "commits": pl.Int64()}


def history_findings(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """Per published figure of the manifest's repositories: each run of commits that gives it
    (``first`` .. ``last``), or one row with ``first`` NULL over the dates walked when none does."""
    if not _has_table(con, "history_matches"):
        return pl.DataFrame(schema=FINDINGS_SCHEMA)
    found = frame(con, """
        SELECT m.repo, m.term, m.figure, m.first, m.last, m.first_at_utc, m.last_at_utc, m.commits
        FROM history_matches m JOIN (SELECT DISTINCT repo, entry FROM scope) s ON s.repo = m.repo
        ORDER BY s.entry, m.repo, m.term, m.first_at_utc""", manifest)
    return found.cast(dict(FINDINGS_SCHEMA.items())) if found.height else pl.DataFrame(schema=FINDINGS_SCHEMA)


def _has_table(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether the database holds table ``name`` (``census history`` makes its tables on first use)."""
    [(found,)] = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = ?", [name]).fetchall()
    return bool(found)
