"""The runtime tables of the census database, and their writes.

Tables (created by :func:`install`, which ``schema.install`` calls):

- ``runtime_captures``: one row per server, its latest capture: ``status`` ``ok`` or
  ``skipped`` with the ``reason``, how it was reached (``transport``, ``command_or_url``),
  how many tools/list ``pages`` arrived and the raw answers (``raw_json``:
  ``{"initialize": ..., "tools/list": [pages]}``);
- ``runtime_tools``: one row per tool of a server's ``ok`` capture, hints in the
  ``true`` / ``false`` / ``unset`` vocabulary of ``tools`` (see ``pipeline.runtime.ingest``);
- ``runtime_servers``: which repository holds each server's source, for
  ``pipeline.analysis.runtime.static_vs_runtime``;
- ``runtime_draws``: the seeded sample ``census probe-registry --sample`` drew (the latest draw);
- ``runtime_built_from``: the commit each package that answered was built from
  (``pipeline.store.built_from``).

A capture replaces the server's previous one in one transaction, except that a skipped
capture never replaces an ``ok`` one (as a scanned snapshot is never replaced by a later
failure): the tools stay readable and :func:`record_capture` says it kept them.
Environment variables and headers given to a server are never written (``pipeline.runtime.probe``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import duckdb

from pipeline.runtime.ingest import OK, Capture
from pipeline.scan.detect.model import HINT_FIELDS
from pipeline.store.timestamps import naive_utc

#: each runtime table's columns
TABLES = {
    "runtime_captures": """
    server VARCHAR NOT NULL,
    captured_at_utc TIMESTAMP NOT NULL,
    status VARCHAR NOT NULL,          -- ok | skipped
    reason VARCHAR,                   -- why skipped; for ok, a note (the mcp client refused a page)
    transport VARCHAR NOT NULL,       -- stdio | http | file | recorded
    command_or_url VARCHAR NOT NULL,
    pages INTEGER NOT NULL,           -- tools/list pages received
    raw_json VARCHAR NOT NULL,        -- {"initialize": ..., "tools/list": [pages]}
    package_registry VARCHAR,         -- npm | pypi: census probe-registry installed the server
    package_name VARCHAR,
    package_requested_version VARCHAR,  -- the version the registry entry names (NULL: none)
    package_version VARCHAR,          -- the version installed (or asked for, when it would not install)
    package_released_at_utc TIMESTAMP,  -- that version's release date, from the package index
    package_repository VARCHAR,       -- the repository the installed package names (owner/name on GitHub)
    install_log VARCHAR,              -- the end of the install's output
    stand_ins VARCHAR[],              -- the variables and arguments given a stand-in (names, not values)
    cause VARCHAR,                    -- answered, or why not (pipeline.runtime.causes.CAUSES)
    cause_line VARCHAR,               -- the line of the install log or the server's stderr that shows it
    package_sdk VARCHAR               -- the MCP SDK installed with the package (tools.sdk's names)
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
    "runtime_draws": """
    server VARCHAR NOT NULL,
    draw_index INTEGER NOT NULL,      -- its place in the seeded draw, from 1
    resolved BOOLEAN NOT NULL,        -- its package version exists on its index
    seed BIGINT NOT NULL,             -- census probe-registry --seed
    wanted INTEGER NOT NULL,          -- --sample: drawn until this many resolved
    offered INTEGER NOT NULL,         -- the npm and PyPI packages the draw was made from
    source VARCHAR NOT NULL           -- the registry file or URL drawn from
""",
    "runtime_servers": """
    server VARCHAR PRIMARY KEY,
    repo VARCHAR NOT NULL,
    subfolder VARCHAR                 -- the folder of repo holding the server (the registry's repository.subfolder)
""",
    "runtime_built_from": """
    server VARCHAR PRIMARY KEY, registry VARCHAR NOT NULL, package VARCHAR NOT NULL, version VARCHAR NOT NULL,
    released_at_utc TIMESTAMP, repo VARCHAR NOT NULL, subfolder VARCHAR,
    rule VARCHAR,                     -- exact-tag, metadata, by-date; NULL: none answered (see reason)
    ref VARCHAR, commit VARCHAR, committed_at_utc TIMESTAMP,
    days_apart DOUBLE,                -- from the commit to the release
    reason VARCHAR NOT NULL,
    names_sent INTEGER,               -- the tool names the capture holds (NULL: not looked for)
    names_absent VARCHAR[]            -- those that occur nowhere in the tree at the commit
""",
}
#: the statements that create them
RUNTIME_SCHEMA = "".join(f"CREATE TABLE IF NOT EXISTS {name} ({columns});\n" for name, columns in TABLES.items())
#: columns added since the tables were first made: a database from before gains them, empty
ADDED = {"runtime_captures": ("package_registry VARCHAR", "package_name VARCHAR",
                              "package_requested_version VARCHAR", "package_version VARCHAR",
                              "package_released_at_utc TIMESTAMP", "package_repository VARCHAR",
                              "install_log VARCHAR", "stand_ins VARCHAR[]", "cause VARCHAR", "cause_line VARCHAR",
                              "package_sdk VARCHAR"),
         "runtime_servers": ("subfolder VARCHAR",),
         "runtime_built_from": ("names_sent INTEGER", "names_absent VARCHAR[]")}
CAPTURE_COLUMNS = ("server", "captured_at_utc", "status", "reason", "transport", "command_or_url", "pages", "raw_json",
                   "package_registry", "package_name", "package_requested_version", "package_version",
                   "package_released_at_utc", "package_repository", "install_log", "stand_ins", "cause", "cause_line",
                   "package_sdk")


@dataclass(frozen=True)
class PackageRun:
    """The package a capture's server was installed from (``census probe-registry``)."""

    registry: str
    name: str
    requested: str | None
    """the version the registry entry names (None: it names none)."""
    version: str | None
    """the version installed: ``requested``, or the newest (``--latest``, or none named)."""
    released_at_utc: datetime | None
    install_log: str
    repository: str | None = None
    """the repository the installed package says it was built from (``owner/name`` on GitHub)."""
    stand_ins: tuple[str, ...] = ()
    """the variables and arguments it was started with stand-ins for (``pipeline.runtime.standins``)."""
    cause: str | None = None
    """answered, or why not (``pipeline.runtime.causes``)."""
    cause_line: str | None = None
    """the printed line that shows the cause."""
    sdk: str | None = None
    """the MCP SDK installed with the package."""


def install(con: duckdb.DuckDBPyConnection) -> None:
    """Create the runtime tables that are missing, and the columns a database from before lacks."""
    con.execute(RUNTIME_SCHEMA)
    for table, columns in ADDED.items():
        for column in columns:
            con.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column}")


def record_capture(con: duckdb.DuckDBPyConnection, capture: Capture, package: PackageRun | None = None) -> bool:
    """Replace ``capture.server``'s capture and tools with ``capture``; whether it was written.

    A skipped capture is not written over an ``ok`` one (False is returned). ``package``: what
    the server was installed from.
    """
    install(con)
    con.execute("BEGIN TRANSACTION")
    try:
        written = _replace(con, capture, package)
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")
    return written


def _replace(con: duckdb.DuckDBPyConnection, capture: Capture, package: PackageRun | None) -> bool:
    if capture.status != OK and _stored_status(con, capture.server) == OK:
        return False
    for table in ("runtime_captures", "runtime_tools"):
        con.execute(f"DELETE FROM {table} WHERE server = ?", [capture.server])
    when = naive_utc(capture.captured_at_utc)
    installed = [None] * 11 if package is None else [
        package.registry, package.name, package.requested, package.version,
        naive_utc(package.released_at_utc), package.repository,
        package.install_log, list(package.stand_ins), package.cause, package.cause_line, package.sdk]
    con.execute(f"INSERT INTO runtime_captures ({', '.join(CAPTURE_COLUMNS)}) "
                f"VALUES ({', '.join('?' * len(CAPTURE_COLUMNS))})",
                [capture.server, when, capture.status, capture.reason, capture.transport,
                 capture.command_or_url, len(capture.pages), capture.raw_json, *installed])
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
        present = {str(name): (str(db), str(schema)) for db, schema, name in con.execute(
            "SELECT database_name, schema_name, table_name FROM duckdb_tables() WHERE NOT temporary").fetchall()}
        stood_in = {str(name) for (name,) in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE temporary UNION ALL "
            "SELECT view_name FROM duckdb_views() WHERE temporary").fetchall()}
        for name, columns in TABLES.items():
            if name in stood_in:
                continue
            if name not in present:
                con.execute(f"CREATE TEMP TABLE {name} ({columns})")
            else:  # a table from before a column was added: a view that shows the column empty
                where = [name, *present[name]]
                have = {str(c) for (c,) in con.execute(
                    "SELECT column_name FROM duckdb_columns() WHERE table_name = ? AND database_name = ? "
                    "AND schema_name = ?", where).fetchall()}
                missing = [c for c in ADDED.get(name, ()) if c.split()[0] not in have]
                if missing:
                    extra = ", ".join(f"NULL::{c.split()[1]} AS {c.split()[0]}" for c in missing)
                    source = f'"{where[1]}"."{where[2]}".{name}'
                    con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT *, {extra} FROM {source}")


def _stored_status(con: duckdb.DuckDBPyConnection, server: str) -> str | None:
    row = con.execute("SELECT status FROM runtime_captures WHERE server = ?", [server]).fetchone()
    return None if row is None else str(row[0])


def set_server_repo(con: duckdb.DuckDBPyConnection, server: str, repo: str, subfolder: str | None = None) -> None:
    """Record that ``server``'s source is the repository ``repo`` (``owner/name``), in its folder
    ``subfolder`` (None: the whole repository), replacing any earlier pair."""
    install(con)
    con.execute("INSERT OR REPLACE INTO runtime_servers (server, repo, subfolder) VALUES (?, ?, ?)",
                [server, repo, subfolder.strip("/") if subfolder else None])


def stored_packages(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[str | None, str | None, str]]:
    """Each stored capture's ``server -> (package_name, package_version, status)``."""
    ensure_readable(con)
    rows = con.execute("SELECT server, package_name, package_version, status FROM runtime_captures").fetchall()
    return {str(s): (n, v, str(st)) for s, n, v, st in rows}


def server_repos(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Every recorded ``server -> repo`` pair."""
    ensure_readable(con)
    return {str(s): str(r) for s, r in con.execute("SELECT server, repo FROM runtime_servers").fetchall()}


def forget_server(con: duckdb.DuckDBPyConnection, server: str) -> None:
    """Remove everything stored about ``server``: capture, tools and repository pair."""
    install(con)
    for table in ("runtime_captures", "runtime_tools", "runtime_servers"):
        con.execute(f"DELETE FROM {table} WHERE server = ?", [server])



def record_draw(con: duckdb.DuckDBPyConnection, rows: list[tuple[str, int, bool]], *, seed: int, wanted: int,
                offered: int, source: str) -> None:
    """Replace the stored draw with ``rows`` (server, draw index, resolved) of one seeded sample."""
    install(con)
    con.execute("BEGIN TRANSACTION")
    con.execute("DELETE FROM runtime_draws")
    if rows:
        con.executemany("INSERT INTO runtime_draws VALUES (?, ?, ?, ?, ?, ?, ?)",
                        [[server, index, resolved, seed, wanted, offered, source] for server, index, resolved in rows])
    con.execute("COMMIT")
