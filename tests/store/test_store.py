"""The DuckDB store: real database files, real transactions, a real second process."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest

from pipeline.analysis import stats
from pipeline.errors import StoreLockedError
from pipeline.fetch.source import Fetched
from pipeline.manifest.entries import RepoEntry
from pipeline.manifest.manifests import Manifest
from pipeline.scan.tree import TreeScan
from pipeline.store.database import Store

TERMS = ("readOnlyHint", "annotations", "openWorldHint")
FETCHED = Fetched("a" * 64, 1234, "o-n-1", datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))


def _scan(*counts: tuple[str, str, int]) -> TreeScan:
    return TreeScan(
        regular_files=3, skipped_members=1, content_bytes=99, counts=counts, skipped=(("link", "symlink"),)
    )


def _record(store: Store, repo: str, commit: str, scan: TreeScan) -> None:
    store.record_scan(repo, commit, fetched=FETCHED, source="github", scan=scan, terms=TERMS, version="1")


def test_totals_view_lists_every_term_with_zeros(tmp_path: Path) -> None:
    with Store(tmp_path / "c.duckdb") as store:
        _record(store, "o/n", "1" * 40, _scan(("a.py", "annotations", 2), ("b/c.go", "annotations", 3)))
        rows = store.connection.execute(
            "SELECT term, count FROM repo_term_totals WHERE repo = 'o/n' ORDER BY term"
        ).fetchall()
    assert rows == [("annotations", 5), ("openWorldHint", 0), ("readOnlyHint", 0)]


def test_rescan_replaces_rows_and_failures_never_erase_a_scan(tmp_path: Path) -> None:
    commit = "2" * 40
    with Store(tmp_path / "c.duckdb") as store:
        _record(store, "o/n", commit, _scan(("old.py", "annotations", 7)))
        _record(store, "o/n", commit, _scan(("new.py", "readOnlyHint", 1)))
        assert store.record_skip("o/n", commit, "fetch", "repository or commit not found") is False
        store.record_fetch("o/n", commit, FETCHED, "github")
        paths = store.connection.execute("SELECT path, term, count FROM term_counts").fetchall()
        row = store.snapshot("o/n", commit)
    assert paths == [("new.py", "readOnlyHint", 1)]
    assert row is not None
    assert (row["status"], row["skip_reason"], row["regular_files"]) == ("scanned", None, 3)


def test_skip_of_an_unpinned_entry_is_stored_with_null_commit(tmp_path: Path) -> None:
    with Store(tmp_path / "c.duckdb") as store:
        assert store.record_skip("o/gone", None, "pin", "pin HEAD: repository or commit not found")
        assert store.record_skip("o/gone", None, "pin", "pin HEAD: again")
        rows = store.connection.execute("SELECT commit, status, skip_reason, skipped_stage FROM snapshots").fetchall()
    assert rows == [(None, "skipped", "pin HEAD: again", "pin")]


def test_is_current_depends_on_version_terms_and_archive(tmp_path: Path) -> None:
    commit = "3" * 40
    with Store(tmp_path / "c.duckdb") as store:
        _record(store, "o/n", commit, _scan())
        assert store.is_current("o/n", commit, FETCHED, TERMS, "1")
        assert not store.is_current("o/n", commit, FETCHED, TERMS, "2")
        assert not store.is_current("o/n", commit, FETCHED, TERMS[:2], "1")
        other = Fetched("b" * 64, 1, None, FETCHED.fetched_at_utc)
        assert not store.is_current("o/n", commit, other, TERMS, "1")


def test_repo_totals_follow_manifest_order(tmp_path: Path) -> None:
    entries = (
        RepoEntry(index=1, repo="z/last-alphabetically", commit="4" * 40, ref=None, published=(("annotations", 5),)),
        RepoEntry(index=2, repo="a/first-alphabetically", commit="5" * 40, ref=None),
    )
    manifest = Manifest(tmp_path / "m.toml", "m", "", TERMS, entries)
    with Store(tmp_path / "c.duckdb") as store:
        store.record_manifest(manifest, {})
        for entry in entries:
            assert entry.commit is not None
            _record(store, entry.repo, entry.commit, _scan(("x", "annotations", entry.index)))
        frame = stats.repo_totals(store.connection, "m")
        published = store.connection.execute("SELECT repo, published FROM manifest_entries ORDER BY entry").fetchall()
    assert frame["repo"].to_list() == ["z/last-alphabetically", "a/first-alphabetically"]
    assert frame["annotations"].to_list() == [1, 2]
    assert frame.columns[5:8] == list(TERMS)
    assert published == [("z/last-alphabetically", {"annotations": 5}), ("a/first-alphabetically", {})]


def test_a_second_process_gets_a_clear_lock_error(tmp_path: Path) -> None:
    db = tmp_path / "c.duckdb"
    Store(db).close()
    holder = subprocess.Popen(
        [sys.executable, "-c", f"import duckdb, sys; c = duckdb.connect({str(db)!r}); print('ready', flush=True); "
         "sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreLockedError, match="in use by another census process"):
            Store(db)
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)
        holder.stdout.close()  # type: ignore[union-attr]
    with Store(db) as store:  # the file is intact once the other process is gone
        assert store.connection.execute("SELECT count(*) FROM snapshots").fetchall() == [(0,)]


def test_a_failed_transaction_leaves_the_old_rows(tmp_path: Path) -> None:
    commit = "6" * 40
    with Store(tmp_path / "c.duckdb") as store:
        _record(store, "o/n", commit, _scan(("keep.py", "annotations", 1)))
        broken = TreeScan(1, 0, 1, (("p", "annotations", 1),), (("q", "symlink"), ("r", "x")))
        object.__setattr__(broken, "counts", (("p", "annotations", "not a number"),))
        _record(store, "o/n", commit, broken)
        with pytest.raises(duckdb.Error):  # raised where the scan is written (at the next read at the latest)
            store.flush()
        rows = store.connection.execute("SELECT path FROM term_counts").fetchall()
    assert rows == [("keep.py",)]


def test_scans_are_kept_then_written_together_before_anything_reads_them(tmp_path: Path) -> None:
    path = tmp_path / "c.duckdb"
    with Store(path) as store:
        store.record_skip("o/a", None, "pin", "pin HEAD: rate limited")  # known at a commit below: forgotten
        for index, repo in enumerate(("o/a", "o/b", "o/c")):
            _record(store, repo, str(index) * 40, _scan((f"{repo}.py", "annotations", index + 1)))
        assert store.pending == 3  # recorded, not yet written
        _record(store, "o/b", "1" * 40, _scan(("again.py", "annotations", 9)))  # the same tree again: the
        assert store.pending == 1  # three before it are written, then it is kept; it replaces the first
        row = store.snapshot("o/c", "2" * 40)  # a read writes them first
        assert store.pending == 0
        assert row is not None
        assert row["status"] == "scanned"
        counts = store.connection.execute("SELECT repo, path, count FROM term_counts ORDER BY repo").fetchall()
        snapshots = store.connection.execute("SELECT repo, commit, status FROM snapshots ORDER BY repo").fetchall()
    assert counts == [("o/a", "o/a.py", 1), ("o/b", "again.py", 9), ("o/c", "o/c.py", 3)]
    assert snapshots == [("o/a", "0" * 40, "scanned"), ("o/b", "1" * 40, "scanned"), ("o/c", "2" * 40, "scanned")]


def test_scans_kept_at_close_are_written(tmp_path: Path) -> None:
    with Store(tmp_path / "c.duckdb") as store:
        _record(store, "o/n", "7" * 40, _scan(("kept.py", "annotations", 4)))
        assert store.pending == 1
    with duckdb.connect(str(tmp_path / "c.duckdb"), read_only=True) as con:
        assert con.execute("SELECT repo, path, count FROM term_counts").fetchall() == [("o/n", "kept.py", 4)]
