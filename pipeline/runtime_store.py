"""The runtime tables of the census database, and their writes.

Tables (created by :func:`install`, which ``schema.install`` calls):

- ``runtime_captures``: one row per server, its latest capture: ``status`` ``ok`` or
  ``skipped`` with the ``reason``, how it was reached (``transport``, ``command_or_url``),
  how many tools/list ``pages`` arrived and the raw answers (``raw_json``:
  ``{"initialize": ..., "tools/list": [pages]}``);
- ``runtime_tools``: one row per tool of a server's ``ok`` capture, hints in the
  ``true`` / ``false`` / ``unset`` vocabulary of ``tools`` (see ``pipeline.runtime``);
- ``runtime_servers``: which repository holds each server's source, for
  ``runtime_stats.static_vs_runtime``.

A capture replaces the server's previous one in one transaction, except that a skipped
capture never replaces an ``ok`` one (as a scanned snapshot is never replaced by a later
failure): the tools stay readable and :func:`record_capture` says it kept them.
Environment variables and headers given to a server are never written (``pipeline.probe``).
"""

from __future__ import annotations

from datetime import UTC, datetime

import duckdb

from pipeline.runtime import OK, Capture
from pipeline.scan.detect.model import HINT_FIELDS

#: each runtime table's columns
TABLES = {
    "runtime_captures": """
    server VARCHAR NOT NULL,
    captured_at_utc TIMESTAMP NOT NULL,
    status VARCHAR NOT NULL,          -- ok | skipped
    reason VARCHAR,                   -- why skipped; for ok, a note (the mcp client refused a page)
    transport VARCHAR NOT NULL,       -- stdio | http | file
    command_or_url VARCHAR NOT NULL,
    pages INTEGER NOT NULL,           -- tools/list pages received
    raw_json VARCHAR NOT NULL         -- {"initialize": ..., "tools/list": [pages]}
""",
    "runtime_tools": """
    server VARCHAR NOT NULL,
    captured_at_utc TIMESTAMP NOT NULL,
    tool_name VARCHAR,
    title VARCHAR,                    -- annotations.title
    read_only_hint VARCHAR NOT NULL,  -- true | false | unset | JSON text of a non-boolean
    destructive_hint VARCHAR NOT NULL,
    idempotent_hint VARCHAR NOT NULL,
    open_world_hint VARCHAR NOT NULL,
    annotations_json VARCHAR,         -- NULL: no annotations key
    raw_json VARCHAR NOT NULL
""",
    "runtime_servers": """
    server VARCHAR PRIMARY KEY,
    repo VARCHAR NOT NULL
""",
}
#: the statements that create them
RUNTIME_SCHEMA = "".join(f"CREATE TABLE IF NOT EXISTS {name} ({columns});\n" for name, columns in TABLES.items())


def install(con: duckdb.DuckDBPyConnection) -> None:
    """Create the runtime tables that are missing."""
    con.execute(RUNTIME_SCHEMA)


def record_capture(con: duckdb.DuckDBPyConnection, capture: Capture) -> bool:
    """Replace ``capture.server``'s capture and tools with ``capture``; whether it was written.

    A skipped capture is not written over an ``ok`` one (False is returned).
    """
    install(con)
    con.execute("BEGIN TRANSACTION")
    try:
        written = _replace(con, capture)
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")
    return written


def _replace(con: duckdb.DuckDBPyConnection, capture: Capture) -> bool:
    if capture.status != OK and _stored_status(con, capture.server) == OK:
        return False
    for table in ("runtime_captures", "runtime_tools"):
        con.execute(f"DELETE FROM {table} WHERE server = ?", [capture.server])
    when = _naive(capture.captured_at_utc)
    con.execute("INSERT INTO runtime_captures VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [capture.server, when, capture.status, capture.reason, capture.transport,
                 capture.command_or_url, len(capture.pages), capture.raw_json])
    rows = [[capture.server, when, t.tool_name, t.title, *(getattr(t, h) for h in HINT_FIELDS),
             t.annotations_json, t.raw_json] for t in capture.tools]
    if rows:
        con.executemany(f"INSERT INTO runtime_tools VALUES ({', '.join('?' * 10)})", rows)
    return True


def ensure_readable(con: duckdb.DuckDBPyConnection) -> None:
    """Make the runtime tables queryable: created if missing, or, on a read-only connection to a
    database from before them, stood in for by empty temporary tables."""
    try:
        install(con)
    except duckdb.Error:
        present = {str(name) for (name,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        for name, columns in TABLES.items():
            if name not in present:
                con.execute(f"CREATE TEMP TABLE {name} ({columns})")


def _stored_status(con: duckdb.DuckDBPyConnection, server: str) -> str | None:
    row = con.execute("SELECT status FROM runtime_captures WHERE server = ?", [server]).fetchone()
    return None if row is None else str(row[0])


def set_server_repo(con: duckdb.DuckDBPyConnection, server: str, repo: str) -> None:
    """Record that ``server``'s source is the repository ``repo`` (``owner/name``), replacing any earlier one."""
    install(con)
    con.execute("INSERT OR REPLACE INTO runtime_servers VALUES (?, ?)", [server, repo])


def server_repos(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Every recorded ``server -> repo`` pair."""
    ensure_readable(con)
    return {str(s): str(r) for s, r in con.execute("SELECT server, repo FROM runtime_servers").fetchall()}


def forget_server(con: duckdb.DuckDBPyConnection, server: str) -> None:
    """Remove everything stored about ``server``: capture, tools and repository pair."""
    install(con)
    for table in ("runtime_captures", "runtime_tools", "runtime_servers"):
        con.execute(f"DELETE FROM {table} WHERE server = ?", [server])


def _naive(moment: datetime) -> datetime:
    """UTC as a naive timestamp (the ``_utc`` suffix of the column says the zone)."""
    return moment.astimezone(UTC).replace(tzinfo=None)
