"""The ``timeline_*`` tables: what ``census timeline`` found at each period's commit of each repository.

- ``timeline_grid``: (manifest, every, period, period_end_utc): the periods a timeline covers;
- ``timeline_repos``: per manifest entry, whether its history was walked (``walked``), had no local
  clone (``no-mirror``) or could not be read (``skipped``, with the reason), its tip and birth;
- ``timeline_periods``: per repository and period it existed in, the period's commit and tree and
  ``status``: ``scanned`` (a tree new to the timeline), ``reused`` (the same tree as an earlier
  period's, most often the previous one's: not scanned again) or ``skipped`` (its scan failed);
  ``rows_from`` names the commit whose rows stand for the period. A period before a repository's
  first commit has no row: the repository is absent, not zero;
- ``timeline_scans``: one row per scanned (repository, commit): tree, scanner version, terms and
  server paths, the sizes read, or why the scan failed;
- ``timeline_term_counts`` and ``timeline_tools``: the scan's rows, as ``term_counts`` and ``tools``.

Each scan is written in one transaction, and each repository's periods in one more once its scans
are stored, so a timeline killed at any point (even ``kill -9``) keeps what it finished and a rerun
scans only what is missing (``stored_scan`` finds a tree already scanned).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import duckdb

from pipeline.scan.tree import TreeScan
from pipeline.store.database import tool_columns
from pipeline.store.writes import Transaction, insert_rows

SCHEMA = """
CREATE TABLE IF NOT EXISTS timeline_grid (
    manifest VARCHAR NOT NULL, every VARCHAR NOT NULL, period VARCHAR NOT NULL, period_end_utc TIMESTAMP NOT NULL
);
CREATE TABLE IF NOT EXISTS timeline_repos (
    manifest VARCHAR NOT NULL, every VARCHAR NOT NULL, repo VARCHAR NOT NULL, entry INTEGER NOT NULL,
    tip VARCHAR, born_at_utc TIMESTAMP, line_commits BIGINT,
    status VARCHAR NOT NULL,          -- walked | no-mirror | skipped
    reason VARCHAR
);
CREATE TABLE IF NOT EXISTS timeline_periods (
    manifest VARCHAR NOT NULL, every VARCHAR NOT NULL, period VARCHAR NOT NULL, period_end_utc TIMESTAMP NOT NULL,
    repo VARCHAR NOT NULL, commit VARCHAR NOT NULL, tree VARCHAR NOT NULL, committed_at_utc TIMESTAMP NOT NULL,
    status VARCHAR NOT NULL,          -- scanned | reused | skipped
    rows_from VARCHAR,                -- the commit whose scan rows stand for this period
    reason VARCHAR
);
CREATE TABLE IF NOT EXISTS timeline_scans (
    repo VARCHAR NOT NULL, commit VARCHAR NOT NULL, tree VARCHAR NOT NULL, committed_at_utc TIMESTAMP,
    scanner_version VARCHAR NOT NULL, terms VARCHAR[] NOT NULL, server_paths VARCHAR[] NOT NULL,
    regular_files BIGINT, skipped_members BIGINT, content_bytes BIGINT, scanned_at_utc TIMESTAMP,
    status VARCHAR NOT NULL,          -- scanned | skipped
    reason VARCHAR
);
CREATE TABLE IF NOT EXISTS timeline_term_counts (
    repo VARCHAR NOT NULL, commit VARCHAR NOT NULL, path VARCHAR NOT NULL, term VARCHAR NOT NULL,
    count BIGINT NOT NULL, role VARCHAR
);
CREATE TABLE IF NOT EXISTS timeline_tools (
    repo VARCHAR NOT NULL, commit VARCHAR NOT NULL, path VARCHAR NOT NULL, line INTEGER NOT NULL,
    sdk VARCHAR NOT NULL, is_mcp BOOLEAN NOT NULL, tool_name VARCHAR, via VARCHAR NOT NULL,
    title VARCHAR, read_only_hint VARCHAR NOT NULL, destructive_hint VARCHAR NOT NULL,
    idempotent_hint VARCHAR NOT NULL, open_world_hint VARCHAR NOT NULL,
    annotations_source VARCHAR NOT NULL, rule VARCHAR NOT NULL, title_state VARCHAR NOT NULL,
    tool_title VARCHAR, sdk_version VARCHAR, role VARCHAR, role_rule VARCHAR, conditional BOOLEAN,
    condition VARCHAR
);
"""
#: the tables of one scan's rows, keyed by (repo, commit)
SCAN_TABLES = ("timeline_scans", "timeline_term_counts", "timeline_tools")


@dataclass(frozen=True)
class ScanKey:
    """What makes a stored scan reusable: the same tree read by the same scanner for the same terms
    with the same server paths."""

    terms: tuple[str, ...]
    version: str
    server_paths: tuple[str, ...]


@dataclass(frozen=True)
class TreeAt:
    """A repository's tree at one commit: what a scan row is stored under."""

    repo: str
    commit: str
    tree: str
    committed_at_utc: datetime | None


@dataclass(frozen=True)
class RepoRow:
    """One manifest entry's row of ``timeline_repos``."""

    repo: str
    entry: int
    status: str
    """``walked``, ``no-mirror`` or ``skipped``."""
    tip: str | None = None
    """the commit the first-parent line was read from (the pinned commit, else ``HEAD``)."""
    born_at_utc: datetime | None = None
    """the date of the line's oldest commit."""
    line_commits: int | None = None
    reason: str | None = None


@dataclass(frozen=True)
class PeriodRow:
    """One repository's row of ``timeline_periods`` for one period."""

    period: str
    period_end_utc: datetime
    commit: str
    tree: str
    committed_at_utc: datetime
    status: str
    """``scanned``, ``reused`` or ``skipped``."""
    rows_from: str | None
    reason: str | None = None


def install(con: duckdb.DuckDBPyConnection) -> None:
    """Create the tables when missing."""
    con.execute(SCHEMA)
    for column in ("conditional BOOLEAN", "condition VARCHAR"):  # a timeline stored before them
        con.execute(f"ALTER TABLE timeline_tools ADD COLUMN IF NOT EXISTS {column}")


def stored_scan(con: duckdb.DuckDBPyConnection, repo: str, tree: str, key: ScanKey) -> str | None:
    """The commit of a stored scan of ``repo``'s ``tree`` made with ``key``, if any."""
    found = con.execute("SELECT commit FROM timeline_scans WHERE repo = ? AND tree = ? AND status = 'scanned'"
                        " AND scanner_version = ? AND terms = ?::VARCHAR[] AND server_paths = ?::VARCHAR[]"
                        " ORDER BY commit LIMIT 1",
                        [repo, tree, key.version, list(key.terms), list(key.server_paths)]).fetchall()
    return str(found[0][0]) if found else None


def record_scan(con: duckdb.DuckDBPyConnection, at: TreeAt, key: ScanKey, scan: TreeScan) -> None:
    """Replace the rows of ``at``'s repository and commit with ``scan``'s, in one transaction."""
    repo, commit, role_of = at.repo, at.commit, scan.role_of()
    counts = [[repo, commit, path, term, n, role_of.get(path, "server")] for path, term, n in scan.counts]
    tools = [[repo, commit, *tool_columns(t)] for t in (scan.detection.tools if scan.detection else ())]
    with Transaction(con):
        _forget(con, repo, commit)
        con.execute("INSERT INTO timeline_scans VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'scanned', NULL)",
                    [repo, commit, at.tree, at.committed_at_utc, key.version, list(key.terms), list(key.server_paths),
                     scan.regular_files, scan.skipped_members, scan.content_bytes, _now()])
        insert_rows(con, "timeline_term_counts", counts)
        insert_rows(con, "timeline_tools", tools)


def record_scan_skip(con: duckdb.DuckDBPyConnection, at: TreeAt, key: ScanKey, reason: str) -> None:
    """``at``'s tree could not be scanned, and why (a rerun tries it again)."""
    with Transaction(con):
        _forget(con, at.repo, at.commit)
        con.execute("INSERT INTO timeline_scans VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, ?, 'skipped', ?)",
                    [at.repo, at.commit, at.tree, at.committed_at_utc, key.version, list(key.terms),
                     list(key.server_paths), _now(), reason])


def record_grid(con: duckdb.DuckDBPyConnection, manifest: str, every: str,
                periods: Sequence[tuple[str, datetime]]) -> None:
    """The periods (label, end) a timeline of ``manifest`` covers (those of another range are kept)."""
    with Transaction(con):
        con.execute("DELETE FROM timeline_grid WHERE manifest = ? AND every = ? AND list_contains(?, period)",
                    [manifest, every, [label for label, _ in periods]])
        insert_rows(con, "timeline_grid", [[manifest, every, label, end] for label, end in periods])


def record_repo(con: duckdb.DuckDBPyConnection, manifest: str, every: str, row: RepoRow, *,
                periods: Sequence[str] = (), rows: Sequence[PeriodRow] = ()) -> None:
    """``row`` and the repository's ``rows`` for the ``periods`` walked, replacing what was stored for
    them, in one transaction."""
    with Transaction(con):
        con.execute("DELETE FROM timeline_repos WHERE manifest = ? AND every = ? AND repo = ?",
                    [manifest, every, row.repo])
        con.execute("INSERT INTO timeline_repos VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [manifest, every, row.repo, row.entry, row.tip, row.born_at_utc, row.line_commits, row.status,
                     row.reason])
        con.execute("DELETE FROM timeline_periods WHERE manifest = ? AND every = ? AND repo = ?"
                    " AND list_contains(?, period)", [manifest, every, row.repo, list(periods)])
        insert_rows(con, "timeline_periods", [
            [manifest, every, p.period, p.period_end_utc, row.repo, p.commit, p.tree, p.committed_at_utc, p.status,
             p.rows_from, p.reason] for p in rows])


def _forget(con: duckdb.DuckDBPyConnection, repo: str, commit: str) -> None:
    for table in SCAN_TABLES:
        con.execute(f"DELETE FROM {table} WHERE repo = ? AND commit = ?", [repo, commit])


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)
