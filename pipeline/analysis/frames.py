"""What the statistics share: opening a census database, the scope of one manifest, and the
roles a statistic counts (``pipeline.scan.roles``: server, example, test, docs).

Every statistic is a query that starts from the ``scope`` CTE: the snapshots of one
manifest's entries at their pinned commits (or of every snapshot when no manifest is named),
each with its entry number, ``server_paths``, ``server_repo`` and ``published`` figures.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from pipeline.errors import StoreError
from pipeline.scan.roles import ROLES, SERVER
from pipeline.settings import DEFAULT_DB, ENV

#: the project folder (the one holding ``pipeline/``, ``notebooks/`` and ``data/``)
PROJECT_ROOT = Path(__file__).resolve().parent.parent

#: the roles tool statistics count unless told otherwise: what a server ships
DEFAULT_ROLES: tuple[str, ...] = (SERVER,)

SCOPE = """scope_entries AS (
    SELECT * FROM manifest_entries WHERE $manifest IS NULL OR manifest = $manifest
    QUALIFY row_number() OVER (PARTITION BY repo, commit ORDER BY manifest, entry) = 1
),
scope AS (
    SELECT s.repo, s.commit, s.status, s.source, s.terms, s.skip_reason, s.skipped_stage,
           s.regular_files, s.skipped_members, s.scanner_version,
           coalesce(e.entry, 1000000000) AS entry, coalesce(e.server_paths, []) AS server_paths,
           e.server_repo, e.published, e.note
    FROM snapshots s
    LEFT JOIN scope_entries e ON e.repo = s.repo AND e.commit IS NOT DISTINCT FROM s.commit
    WHERE $manifest IS NULL OR e.repo IS NOT NULL
)"""


def role_filter(column: str, roles: str | Sequence[str]) -> str:
    """SQL: whether ``column`` (a ``role``) is one of ``roles`` (a role or several, of
    ``roles.TOOL_ROLES``); an unknown role raises ``ValueError`` naming it and the choices."""
    wanted = (roles,) if isinstance(roles, str) else tuple(roles)
    unknown = [r for r in wanted if r not in ROLES]
    if unknown or not wanted:
        problem = f"unknown role {unknown[0]!r}" if unknown else "no role named"
        raise ValueError(f"roles: {problem} (choose from {', '.join(ROLES)})")
    return f"{column} IN ({', '.join(repr(r) for r in wanted)})"


def under(path: str, server_paths: str) -> str:
    """SQL: whether ``path`` is one of ``server_paths`` or sits below one."""
    # the lambda's parameter must not be a column name: it would shadow the column
    test = f"{path} = server_path OR starts_with({path}, server_path || '/')"
    return f"len(list_filter({server_paths}, lambda server_path: {test})) > 0"


def frame(con: duckdb.DuckDBPyConnection, select: str, manifest: str | None,
          ctes: str = "", params: Mapping[str, Any] | None = None) -> pl.DataFrame:
    """``select`` (after ``ctes``) run over the ``scope`` of ``manifest``, as a polars DataFrame."""
    query = f"WITH {SCOPE}{',' if ctes else ''}\n{ctes}\n{select}"
    result: pl.DataFrame = con.sql(query, params={"manifest": manifest, **(params or {})}).pl()
    return result


def database_path(environ: Mapping[str, str] | None = None) -> Path:
    """The database the notebooks read: ``CENSUS_DB`` (relative to the project folder), else
    the project's ``data/census.duckdb``."""
    env = os.environ if environ is None else environ
    return PROJECT_ROOT / Path(env.get(ENV["db_path"]) or DEFAULT_DB)


def connect(path: Path) -> duckdb.DuckDBPyConnection:
    """Open a census database read-only; a missing or unusable file raises ``StoreError``
    with one line that names it."""
    if not path.is_file():
        raise StoreError(f"{path}: no census database here (run `census run MANIFEST --db {path}` first)")
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        raise StoreError(f"{path}: cannot open the census database: {_first_line(exc)}") from exc
    tables = {name for (name,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    if not {"snapshots", "term_counts", "tools", "tool_hints_on_wire"} <= tables:
        con.close()
        raise StoreError(f"{path}: not a census database (no census tables in it)")
    if not con.execute("SELECT count(*) FROM information_schema.columns WHERE table_name = 'tools'"
                       " AND column_name = 'role'").fetchall()[0][0]:
        con.close()
        raise StoreError(f"{path}: written by an older census, before tools had roles; "
                         f"run `census scan MANIFEST --db {path}` once to bring it up to date")
    return con


def manifest_names(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The manifests stored in the database, sorted."""
    return [name for (name,) in con.execute("SELECT DISTINCT manifest FROM manifest_entries ORDER BY 1").fetchall()]


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
