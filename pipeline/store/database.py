"""The DuckDB database: the writes each stage makes (the schema is in ``schema``).

Each repository's scan is written in one transaction, so a crash leaves either the old
rows or the new ones. A row already scanned is never replaced by a later failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import duckdb

from pipeline.errors import StoreError, StoreLockedError
from pipeline.fetch.source import Fetched
from pipeline.manifest.manifests import Manifest
from pipeline.scan.detect import Detection
from pipeline.scan.detect.model import HINT_FIELDS, Tool
from pipeline.scan.tree import TreeScan
from pipeline.store import effects, schema
from pipeline.store.timestamps import naive_utc

SAME = "repo = ? AND commit IS NOT DISTINCT FROM ?"


class Store:
    """An open census database; use as a context manager."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._con = duckdb.connect(str(path))
            schema.install(self._con)
        except duckdb.IOException as exc:
            if "lock" in str(exc).lower():
                raise StoreLockedError(f"{path}: the database is in use by another census process") from exc
            raise StoreError(f"{path}: cannot open the database: {exc}") from exc
        except (duckdb.Error, OSError) as exc:
            raise StoreError(f"{path}: cannot open the database: {exc}") from exc

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection."""
        self._con.close()

    @property
    def connection(self) -> duckdb.DuckDBPyConnection:
        """The DuckDB connection, for queries."""
        return self._con

    def snapshot(self, repo: str, commit: str | None) -> dict[str, Any] | None:
        """The snapshot row of ``repo`` at ``commit`` as a dict, if any."""
        cursor = self._con.execute(f"SELECT * FROM snapshots WHERE {SAME}", [repo, commit])
        rows = cursor.fetchall()  # fetch to the end: DuckDB keeps an unfinished result open
        if not rows:
            return None
        return dict(zip([d[0] for d in cursor.description or ()], rows[0], strict=True))

    def is_current(self, repo: str, commit: str, fetched: Fetched, terms: Sequence[str], version: str, *,
                   server_paths: Sequence[str] = ()) -> bool:
        """Whether this tree, this very archive, was already scanned by ``version`` for ``terms``
        with these ``server_paths`` (they decide roles)."""
        scanned = self.scanned_archive(repo, commit, terms, version, server_paths=server_paths)
        return scanned is not None and scanned[0] == fetched.sha256

    def scanned_archive(self, repo: str, commit: str, terms: Sequence[str], version: str, *,
                        server_paths: Sequence[str] = ()) -> tuple[str | None] | None:
        """``(archive sha256,)`` if this tree was scanned by ``version`` for ``terms`` with these
        ``server_paths``, else ``None``."""
        row = self.snapshot(repo, commit)
        if row is None or row["status"] != "scanned" or row["scanner_version"] != version:
            return None
        same = list(row["terms"] or []) == list(terms) and list(row["server_paths"] or []) == list(server_paths)
        return (row["archive_sha256"],) if same else None

    def record_fetch(self, repo: str, commit: str, fetched: Fetched, source: str) -> None:
        """A tree is available; a scanned row of the same archive is left as it is."""
        self._forget_unpinned(repo, commit)
        row = self.snapshot(repo, commit)
        if row is not None and row["status"] == "scanned" and row["archive_sha256"] == fetched.sha256:
            return
        with self._transaction():
            self._con.execute(f"DELETE FROM snapshots WHERE {SAME}", [repo, commit])
            self._con.execute(
                "INSERT INTO snapshots (repo, commit, archive_sha256, archive_size_bytes, fetched_at_utc,"
                " status, archive_root, source) VALUES (?, ?, ?, ?, ?, 'fetched', ?, ?)",
                [repo, commit, fetched.sha256, fetched.size_bytes, naive_utc(fetched.fetched_at_utc),
                 fetched.root, source],
            )

    def record_skip(self, repo: str, commit: str | None, stage: str, reason: str) -> bool:
        """Record a skipped repository unless it is already scanned; whether it was written."""
        self._forget_unpinned(repo, commit)
        row = self.snapshot(repo, commit)
        if row is not None and row["status"] == "scanned":
            return False
        with self._transaction():
            self._con.execute(f"DELETE FROM snapshots WHERE {SAME}", [repo, commit])
            self._con.execute(
                "INSERT INTO snapshots (repo, commit, status, skip_reason, skipped_stage)"
                " VALUES (?, ?, 'skipped', ?, ?)",
                [repo, commit, reason, stage],
            )
        return True

    def record_scan(
        self, repo: str, commit: str, *, fetched: Fetched, source: str, scan: TreeScan,
        terms: Sequence[str], version: str, server_paths: Sequence[str] = (),
    ) -> None:
        """Replace everything known about this tree with ``scan`` (its roles decided with
        ``server_paths``), in one transaction."""
        paths, kinds = _columns(scan.skipped, 2)
        cpaths, cterms, counts = _columns(scan.counts, 3)
        role_of = scan.role_of()
        croles = [role_of.get(path, "server") for path in cpaths]
        with self._transaction():
            if self._con.execute(f"SELECT 1 FROM snapshots WHERE {SAME} LIMIT 1", [repo, commit]).fetchone():
                for table in ("snapshots", "term_counts", "skipped_files", "tree_notes", "tools",
                              "detector_exclusions", *effects.TABLES):  # a tree seen first has no rows to replace
                    self._con.execute(f"DELETE FROM {table} WHERE {SAME}", [repo, commit])
            self._forget_unpinned(repo, commit)
            self._con.execute(
                "INSERT INTO snapshots VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'scanned', NULL, NULL, ?, ?, ?, ?, ?)",
                [repo, commit, fetched.sha256, fetched.size_bytes, scan.regular_files,
                 scan.skipped_members, scan.content_bytes, naive_utc(fetched.fetched_at_utc),
                 naive_utc(datetime.now(UTC)), version, fetched.root, source, list(terms), list(server_paths),
                 naive_utc(fetched.committed_at_utc)],
            )
            self._con.execute(
                "INSERT INTO term_counts SELECT ?, ?, unnest(?::VARCHAR[]), unnest(?::VARCHAR[]),"
                " unnest(?::BIGINT[]), unnest(?::VARCHAR[])",
                [repo, commit, cpaths, cterms, counts, croles],
            )
            self._con.execute(
                "INSERT INTO skipped_files SELECT ?, ?, unnest(?::VARCHAR[]), unnest(?::VARCHAR[])",
                [repo, commit, paths, kinds],
            )
            insert_rows(self._con, "tree_notes", [[repo, commit, *note] for note in scan.notes])
            if scan.detection is not None:
                self._record_detection(repo, commit, scan.detection)

    def _record_detection(self, repo: str, commit: str, detection: Detection) -> None:
        insert_rows(self._con, "tools", [[repo, commit, *tool_columns(tool)] for tool in detection.tools])
        insert_rows(self._con, "detector_exclusions", [[repo, commit, e.path, e.reason, e.detail]
                                                   for e in detection.exclusions])
        for table, found in effects.rows(repo, commit, detection).items():
            insert_rows(self._con, table, found)

    def record_manifest(self, manifest: Manifest, commits: dict[str, str | None]) -> None:
        """Replace the stored copy of ``manifest`` (entries, pins and published figures)."""
        with self._transaction():
            self._con.execute("DELETE FROM manifest_entries WHERE manifest = ?", [manifest.name])
            for e in manifest.repos:
                published = dict(e.published)
                self._con.execute(
                    "INSERT INTO manifest_entries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, MAP(?::VARCHAR[], ?::BIGINT[]))",
                    [manifest.name, e.index, e.repo, commits.get(e.repo, e.commit), e.ref,
                     list(e.server_paths), e.server_repo, e.note, str(e.source) if e.source else None,
                     list(published), list(published.values())],
                )

    def _forget_unpinned(self, repo: str, commit: str | None) -> None:
        """Drop ``repo``'s "could not be pinned" row (NULL commit) once it is known at a commit."""
        if commit is not None:
            self._con.execute("DELETE FROM snapshots WHERE repo = ? AND commit IS NULL", [repo])

    def _transaction(self) -> Transaction:
        return Transaction(self._con)


class Transaction:
    """BEGIN ... COMMIT, or ROLLBACK on any error."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con

    def __enter__(self) -> None:
        self._con.execute("BEGIN TRANSACTION")

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        self._con.execute("COMMIT" if kind is None else "ROLLBACK")


def insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[Sequence[Any]], batch: int = 256) -> None:
    """Insert ``rows`` (each a whole row, in the table's column order): many at once through one
    Arrow table (a tenth of the time of SQL values), a few with one statement per ``batch`` rows
    (``executemany`` costs a round per row)."""
    if len(rows) >= _ARROW_ROWS and all(type(v) in _PLAIN for row in rows for v in row) and \
            _insert_arrow(con, table, rows):
        return
    for start in range(0, len(rows), batch):
        chunk = rows[start : start + batch]
        values = ", ".join(f"({', '.join('?' * len(row))})" for row in chunk)
        con.execute(f"INSERT INTO {table} VALUES {values}", [value for row in chunk for value in row])


#: from this many rows, an insert of plain values (no timestamps, lists or bytes) goes through Arrow
_ARROW_ROWS = 64
_PLAIN = frozenset({str, int, float, bool, type(None)})


def _insert_arrow(con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[Sequence[Any]]) -> bool:
    """Insert ``rows`` as one Arrow table; False (nothing inserted) when Arrow cannot type a column
    (values of two kinds), so that the caller inserts them as SQL values."""
    import pyarrow as pa  # only a large insert pays its import

    columns = [c[0] for c in con.execute(f"SELECT * FROM {table} LIMIT 0").description]
    try:
        arrow = pa.table({name: [row[i] for row in rows] for i, name in enumerate(columns)})
    except (pa.ArrowInvalid, pa.ArrowTypeError, IndexError):
        return False
    con.register("_census_rows", arrow)
    try:
        con.execute(f"INSERT INTO {table} SELECT * FROM _census_rows")
    finally:
        con.unregister("_census_rows")
    return True


def tool_columns(tool: Tool) -> list[Any]:
    """A tool in the column order of ``tools`` (after repo and commit)."""
    a = tool.annotations
    return [tool.path, tool.line, tool.sdk, tool.is_mcp, tool.tool_name, tool.via, a.title,
            *(getattr(a, hint) for hint in HINT_FIELDS), a.source, tool.rule, a.title_state,
            tool.tool_title, tool.sdk_version, tool.role, tool.role_rule, tool.conditional, tool.condition]


def _columns(rows: Sequence[tuple[Any, ...]], width: int) -> list[list[Any]]:
    return [list(column) for column in zip(*rows, strict=True)] if rows else [[] for _ in range(width)]

