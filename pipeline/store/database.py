"""The DuckDB database: the writes each stage makes (the schema is in ``schema``).

A repository's scan is written whole, in one transaction with the scans recorded just before it
(``writes.ScanBatch``), so a crash leaves either the old rows or the new ones, and a rerun scans
again what it lost. A row already scanned is never replaced by a later failure.
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
from pipeline.scan.detect.model import HINT_FIELDS, Tool
from pipeline.scan.tree import TreeScan
from pipeline.store import effects, schema
from pipeline.store.timestamps import naive_utc
from pipeline.store.writes import ScanBatch, Transaction

SAME = "repo = ? AND commit IS NOT DISTINCT FROM ?"
#: the tables a scan fills, and a rescan of the same tree empties first
_SCANNED = ("snapshots", "term_counts", "skipped_files", "tree_notes", "tools", "detector_exclusions",
            *effects.TABLES)


class Store:
    """An open census database; use as a context manager."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._con = duckdb.connect(str(path))
            schema.install(self._con)
            self._batch = ScanBatch(self._con, _SCANNED)
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
        """Write the scans still kept, then close the connection."""
        try:
            self._batch.flush()
        finally:
            self._con.close()

    @property
    def connection(self) -> duckdb.DuckDBPyConnection:
        """The DuckDB connection, for queries (every scan recorded is written first)."""
        self._batch.flush()
        return self._con

    @property
    def pending(self) -> int:
        """How many scanned trees are recorded but not yet written."""
        return len(self._batch)

    def flush(self) -> None:
        """Write the scanned trees recorded so far (in one transaction)."""
        self._batch.flush()

    def snapshot(self, repo: str, commit: str | None) -> dict[str, Any] | None:
        """The snapshot row of ``repo`` at ``commit`` as a dict, if any."""
        self._batch.flush()
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
        ``server_paths``): kept with the trees recorded just before it and written with them in one
        transaction (``ScanBatch``), at the latest before the next read of this store."""
        role_of = scan.role_of()
        rows: dict[str, list[list[Any]]] = {
            "snapshots": [[repo, commit, fetched.sha256, fetched.size_bytes, scan.regular_files,
                           scan.skipped_members, scan.content_bytes, naive_utc(fetched.fetched_at_utc),
                           naive_utc(datetime.now(UTC)), version, "scanned", None, None, fetched.root, source,
                           list(terms), list(server_paths), naive_utc(fetched.committed_at_utc)]],
            "term_counts": [[repo, commit, path, term, count, role_of.get(path, "server")]
                            for path, term, count in scan.counts],
            "skipped_files": [[repo, commit, path, kind] for path, kind in scan.skipped],
            "tree_notes": [[repo, commit, *note] for note in scan.notes],
        }
        if scan.detection is not None:
            rows["tools"] = [[repo, commit, *tool_columns(tool)] for tool in scan.detection.tools]
            rows["detector_exclusions"] = [[repo, commit, e.path, e.reason, e.detail]
                                           for e in scan.detection.exclusions]
            rows.update(effects.rows(repo, commit, scan.detection))
        self._batch.add(repo, commit, rows)

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
            self._batch.flush()
            self._con.execute("DELETE FROM snapshots WHERE repo = ? AND commit IS NULL", [repo])

    def _transaction(self) -> Transaction:
        """A transaction of this store's own, after the scans kept are written."""
        self._batch.flush()
        return Transaction(self._con)


def tool_columns(tool: Tool) -> list[Any]:
    """A tool in the column order of ``tools`` (after repo and commit)."""
    a = tool.annotations
    return [tool.path, tool.line, tool.sdk, tool.is_mcp, tool.tool_name, tool.via, a.title,
            *(getattr(a, hint) for hint in HINT_FIELDS), a.source, tool.rule, a.title_state,
            tool.tool_title, tool.sdk_version, tool.role, tool.role_rule, tool.conditional, tool.condition]
