"""The census database's schema: tables, the SDK catalogue and the views.

Tables (later stages extend these, never rename them):

- ``snapshots``: one row per (repo, commit): what was fetched and scanned, or why not (and the
  commit's date, where the source gives it).
- ``term_counts``: (repo, commit, path, term, count, role), non-zero counts only.
- ``skipped_files``: (repo, commit, path, kind): members that were not read, and why.
- ``tree_notes``: (repo, commit, path, kind, detail): ``.gitattributes`` lines that leave files
  out of archives or put them in LFS, ``.gitmodules`` paths, Git LFS pointer files; evidence of
  what a tree is: the MCP SDKs its manifests declare (``mcp-sdk``, path the manifest's folder)
  and the root README's pointer to the repository the project moved to (``points-elsewhere``).
- ``manifest_entries``: the manifest as last run, with the published figures.
- ``tools``: one row per tool definition the detector found, with its declared annotations,
  its role (``server``, ``example``, ``test``: ``pipeline.scan.roles``) and whether it is
  registered only under a configuration condition (``conditional``, ``condition``:
  ``pipeline.scan.detect.conditions``; NULL in rows scanned before they existed).
- ``detector_exclusions``: files the detector left out on purpose, with the reason.
- ``sdk_catalog``: every library the detector knows (rewritten on open from ``sdks.SDKS``).
- ``runtime_captures``, ``runtime_tools``, ``runtime_servers``: tools/list answers of running
  servers (``pipeline.store.runtime``).

Views:

- ``repo_term_totals``: every term of every scanned snapshot, zeros included.
- ``tool_hints_on_wire``: for each MCP tool, the hints a client receives, by the SDK's
  documented behaviour (``Sdk.wire``); ``tools`` keeps what the source declares.
"""

from __future__ import annotations

import duckdb

from pipeline.scan import roles
from pipeline.scan.detect.model import HINT_FIELDS
from pipeline.scan.detect.sdks import SDKS
from pipeline.store import runtime as runtime_store

SCHEMA = """
CREATE TABLE IF NOT EXISTS snapshots (
    repo VARCHAR NOT NULL,
    commit VARCHAR,
    archive_sha256 VARCHAR,
    archive_size_bytes BIGINT,
    regular_files BIGINT,
    skipped_members BIGINT,
    content_bytes BIGINT,
    fetched_at_utc TIMESTAMP,
    scanned_at_utc TIMESTAMP,
    scanner_version VARCHAR,
    status VARCHAR NOT NULL,          -- fetched | scanned | skipped
    skip_reason VARCHAR,
    skipped_stage VARCHAR,            -- pin | fetch | scan
    archive_root VARCHAR,
    source VARCHAR,                   -- github | tarball | git
    terms VARCHAR[],
    server_paths VARCHAR[],           -- the entry's server_paths its roles were decided with
    committed_at_utc TIMESTAMP        -- the commit's date, where the source gives it (a git repository)
);
CREATE TABLE IF NOT EXISTS term_counts (
    repo VARCHAR NOT NULL, commit VARCHAR NOT NULL, path VARCHAR NOT NULL,
    term VARCHAR NOT NULL, count BIGINT NOT NULL,
    role VARCHAR                      -- server | example | test | docs
);
CREATE TABLE IF NOT EXISTS skipped_files (
    repo VARCHAR NOT NULL, commit VARCHAR NOT NULL, path VARCHAR NOT NULL, kind VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS tree_notes (
    repo VARCHAR NOT NULL, commit VARCHAR NOT NULL, path VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,            -- gitattributes | gitmodules | lfs-pointer | mcp-sdk | points-elsewhere
    detail VARCHAR NOT NULL           -- the export-ignore / filter=lfs lines, the submodule paths, the oid
);
CREATE TABLE IF NOT EXISTS manifest_entries (
    manifest VARCHAR NOT NULL, entry INTEGER NOT NULL, repo VARCHAR NOT NULL, commit VARCHAR,
    ref VARCHAR, server_paths VARCHAR[], server_repo VARCHAR, note VARCHAR, source VARCHAR,
    published MAP(VARCHAR, BIGINT)
);
CREATE TABLE IF NOT EXISTS tools (
    repo VARCHAR NOT NULL, commit VARCHAR NOT NULL, path VARCHAR NOT NULL, line INTEGER NOT NULL,
    sdk VARCHAR NOT NULL, is_mcp BOOLEAN NOT NULL, tool_name VARCHAR, via VARCHAR NOT NULL,
    title VARCHAR, read_only_hint VARCHAR NOT NULL, destructive_hint VARCHAR NOT NULL,
    idempotent_hint VARCHAR NOT NULL, open_world_hint VARCHAR NOT NULL,
    annotations_source VARCHAR NOT NULL, rule VARCHAR NOT NULL,
    title_state VARCHAR NOT NULL,     -- true | unset | dynamic (annotations.title)
    tool_title VARCHAR,               -- Tool.title, when a literal
    sdk_version VARCHAR,              -- from the nearest package manifest
    role VARCHAR,                     -- server | example | test
    role_rule VARCHAR,                -- the rule of pipeline.scan.roles that decided role
    conditional BOOLEAN,              -- registered only under a configuration condition (NULL: scanned before)
    condition VARCHAR                 -- that condition as written, one line
);
CREATE TABLE IF NOT EXISTS detector_exclusions (
    repo VARCHAR NOT NULL, commit VARCHAR NOT NULL, path VARCHAR NOT NULL,
    reason VARCHAR NOT NULL, detail VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS tool_handlers (
    repo VARCHAR NOT NULL, commit VARCHAR NOT NULL, path VARCHAR NOT NULL, line INTEGER NOT NULL,
    tool_name VARCHAR,                -- the tools row (repo, commit, path, line, tool_name)
    handler_path VARCHAR, handler_line INTEGER,   -- NULL when not located
    handler_kind VARCHAR NOT NULL,    -- inline | named | reference | decorated | member | branch | generic
                                      -- | mapped | none
    reason VARCHAR,                   -- why not located
    functions_read INTEGER NOT NULL   -- the repository's own functions read from the handler
);
CREATE TABLE IF NOT EXISTS tool_effects (
    repo VARCHAR NOT NULL, commit VARCHAR NOT NULL, path VARCHAR NOT NULL, line INTEGER NOT NULL,
    tool_name VARCHAR, effect VARCHAR NOT NULL,   -- none | read-local | ... | exec | egress-open | unknown
    evidence_path VARCHAR NOT NULL, evidence_line INTEGER NOT NULL, call VARCHAR NOT NULL,
    rule VARCHAR NOT NULL, depth INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS tool_verdicts (
    repo VARCHAR NOT NULL, commit VARCHAR NOT NULL, path VARCHAR NOT NULL, line INTEGER NOT NULL,
    tool_name VARCHAR, verdict VARCHAR NOT NULL,  -- contradiction | doubt | suggestion
    hint VARCHAR NOT NULL, declared VARCHAR NOT NULL, detail VARCHAR NOT NULL,
    evidence_path VARCHAR, evidence_line INTEGER
);
CREATE OR REPLACE TABLE sdk_catalog (
    sdk VARCHAR NOT NULL, language VARCHAR NOT NULL, is_mcp BOOLEAN NOT NULL, wire VARCHAR NOT NULL
);
-- true when a version string (v0.27.1, ^1.2, 0.7.7) is at least major.minor; NULL if unknown
CREATE OR REPLACE MACRO version_at_least(v, major, minor) AS (
    CASE WHEN regexp_matches(v, '(\\d+)\\.(\\d+)') THEN
        TRY_CAST(regexp_extract(v, '(\\d+)\\.(\\d+)', 1) AS INTEGER) > major
        OR (TRY_CAST(regexp_extract(v, '(\\d+)\\.(\\d+)', 1) AS INTEGER) = major
            AND TRY_CAST(regexp_extract(v, '(\\d+)\\.(\\d+)', 2) AS INTEGER) >= minor)
    END
);
CREATE OR REPLACE VIEW repo_term_totals AS
WITH scanned AS (
    SELECT repo, commit, unnest(terms) AS term FROM snapshots WHERE status = 'scanned'
)
SELECT s.repo, s.commit, s.term, coalesce(sum(c.count), 0)::BIGINT AS count
FROM scanned s
LEFT JOIN term_counts c ON c.repo = s.repo AND c.commit = s.commit AND c.term = s.term
GROUP BY s.repo, s.commit, s.term;;
"""

#: spec defaults a client applies to a hint that is absent (spec-semantics.md)
SPEC_DEFAULTS = {"read_only_hint": "false", "destructive_hint": "true", "idempotent_hint": "false",
                 "open_world_hint": "true"}

#: when the SDK fills every unset hint with the spec default, per ``Sdk.wire``
_FILLS_ALL = """(
    c.wire = 'defaults-always'
    OR (c.wire = 'defaults-if-declared' AND t.annotations_source <> 'none')
    OR (c.wire = 'mcp-go' AND t.rule IN ('go.go-mcp-go.new-tool', 'go.go-mcp-go.wrapper')
        AND t.annotations_source IN ('none', 'options')
        AND coalesce(version_at_least(t.sdk_version, 0, 27), true))
    OR (c.wire = 'kotlin' AND t.annotations_source <> 'none'
        AND NOT coalesce(version_at_least(t.sdk_version, 0, 8), true))
)"""

#: go-sdk: readOnlyHint and idempotentHint are plain bools, sent as false once annotations exist
_GO_PLAIN_BOOLS = ("read_only_hint", "idempotent_hint")


def _wire_column(hint: str) -> str:
    fill = f"WHEN {_FILLS_ALL} AND t.{hint} = 'unset' THEN '{SPEC_DEFAULTS[hint]}'"
    if hint in _GO_PLAIN_BOOLS:
        go = "c.wire = 'go-official' AND t.annotations_source <> 'none'"
        fill += f"\n        WHEN {go} AND t.{hint} = 'unset' THEN 'false'"
    return f"CASE\n        {fill}\n        ELSE t.{hint} END AS {hint}"


def wire_view() -> str:
    """``tool_hints_on_wire``: per MCP tool, the hints a client receives."""
    hints = ",\n    ".join(_wire_column(h) for h in HINT_FIELDS)
    title = "CASE WHEN c.wire = 'defaults-always' THEN coalesce(t.title, t.tool_name) ELSE t.title END AS title"
    return f"""CREATE OR REPLACE VIEW tool_hints_on_wire AS
SELECT t.repo, t.commit, t.path, t.line, t.sdk, t.sdk_version, t.tool_name, {title},
    {hints},
    c.wire AS wire_rule, t.role
FROM tools t JOIN sdk_catalog c ON c.sdk = t.sdk
WHERE t.is_mcp"""


#: columns added after a table first shipped: (table, column, type); ``install`` adds them
ADDED_COLUMNS = (("snapshots", "server_paths", "VARCHAR[]"), ("term_counts", "role", "VARCHAR"),
                 ("tools", "role", "VARCHAR"), ("tools", "role_rule", "VARCHAR"),
                 ("snapshots", "committed_at_utc", "TIMESTAMP"), ("tools", "conditional", "BOOLEAN"),
                 ("tools", "condition", "VARCHAR"))


def install(con: duckdb.DuckDBPyConnection) -> None:
    """Create what is missing (columns of a database an older census wrote included, their rows
    given roles by ``roles.backfill``), refresh the SDK catalogue and the views."""
    con.execute(SCHEMA)
    missing = [(t, c, kind) for t, c, kind in ADDED_COLUMNS if not _has_column(con, t, c)]
    for table, column, kind in missing:
        con.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
    if any(column in ("role", "server_paths") for _, column, _ in missing):
        backfill_roles(con)
    rows = [(s.key, s.language, s.is_mcp, s.wire) for s in SDKS.values()]
    con.executemany("INSERT INTO sdk_catalog VALUES (?, ?, ?, ?)", rows)
    con.execute(wire_view())
    runtime_store.install(con)


def _has_column(con: duckdb.DuckDBPyConnection, table: str, column: str) -> bool:
    found = con.execute("SELECT count(*) FROM information_schema.columns WHERE table_name = ? AND column_name = ?",
                        [table, column]).fetchone()
    return bool(found and found[0])


def backfill_roles(con: duckdb.DuckDBPyConnection) -> None:
    """Give rows stored before roles existed their role by the path rules (``roles.classify``;
    the project files and server paths of their trees are not stored, so the rule says
    ``path-only``). ``census run`` rescans such trees: their scanner version is older."""
    for table in ("term_counts", "tools"):
        paths = [p for (p,) in con.execute(f"SELECT DISTINCT path FROM {table} WHERE role IS NULL").fetchall()]
        if not paths:
            continue
        placed = [(path, *_path_only(path, table == "tools")) for path in paths]
        con.execute("CREATE OR REPLACE TEMP TABLE placed (path VARCHAR, role VARCHAR, rule VARCHAR)")
        con.executemany("INSERT INTO placed VALUES (?, ?, ?)", placed)
        rule = ", role_rule = placed.rule" if table == "tools" else ""
        con.execute(f"UPDATE {table} SET role = placed.role{rule} FROM placed "
                    f"WHERE {table}.path = placed.path AND {table}.role IS NULL")
        con.execute("DROP TABLE placed")


def _path_only(path: str, tool: bool) -> tuple[str, str]:
    found = roles.RoleRules().of_tool(path, 0) if tool else roles.classify(path)
    return found.role, f"path-only:{found.rule}"
