"""Census at scale: worker processes, incremental reruns, kill -9 and resume, a Dask cluster.

Every test compares whole databases row for row (the two time columns left out) between
runs that must agree: one job against several, an interrupted run finished by a rerun
against one uninterrupted run, the local executor against Dask.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from github_server import HANG, GitHubServer
from synth import FASTMCP_SERVER, GO_SERVER, fake_sha, tarball

from pipeline.manifest.manifests import load
from pipeline.run.census import Census
from pipeline.run.runner import Executor, LocalExecutor, executor
from pipeline.settings import Settings
from pipeline.store.database import Store

REPOS = 12
TIME_COLUMNS = ("fetched_at_utc", "scanned_at_utc")


def tree(i: int) -> dict[str, bytes | tuple[str, str]]:
    """Repository ``i``: a FastMCP server, sometimes a Go one, and files whose counts vary with ``i``."""
    files: dict[str, bytes | tuple[str, str]] = {"server.py": FASTMCP_SERVER,
                                                  "README.md": b"annotations readOnlyHint\n" * i}
    if i % 3 == 0:
        files["go/main.go"] = GO_SERVER
    if i % 4 == 1:
        files["link"] = ("symlink", "server.py")
    return files


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[GitHubServer, Path]]:
    """``REPOS`` repositories on the loopback server (one of them deleted) and a pinned manifest."""
    root = tmp_path_factory.mktemp("runner")
    lines = ['[census]\nname = "scale"\n']
    with GitHubServer() as github:
        for i in range(REPOS):
            repo, commit = f"acme/r{i:02d}", fake_sha(f"r{i}")
            if i != 7:  # acme/r07 is listed but gone: a skipped row
                github.add_repo(repo, {commit: tarball(tree(i), f"acme-r{i:02d}-{commit[:7]}", commit)})
            lines.append(f'[[repos]]\nrepo = "{repo}"\ncommit = "{commit}"\n')
        (root / "scale.toml").write_text("\n".join(lines))
        yield github, root / "scale.toml"


def run(manifest: Path, github: GitHubServer, db: Path, chosen: Executor | None = None) -> list[str]:
    """One census run through the library; the outcome statuses, sorted."""
    settings = Settings(db_path=db, cache_dir=db.parent / "cache", api_url=github.api_url, attempts=3,
                        backoff_seconds=0.0, timeout_seconds=30.0)  # a loaded 2-core CI machine is slow
    census = Census(load(manifest), settings)
    try:
        with Store(db) as store:
            return sorted(o.status for o in census.run(store, chosen))
    finally:
        census.close()
        if chosen is not None:
            chosen.close()


def tables(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows, sorted, without the time columns."""
    with duckdb.connect(str(db), read_only=True) as con:
        names = [n for (n,) in con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall()]
        found = {}
        for name in names:
            columns = [c for (c,) in con.execute(
                "SELECT column_name FROM duckdb_columns() WHERE table_name = ? ORDER BY column_index", [name]
            ).fetchall() if c not in TIME_COLUMNS]
            found[name] = con.execute(f"SELECT {', '.join(columns)} FROM {name} ORDER BY ALL").fetchall()
    return found


def test_several_jobs_give_the_tables_of_one(served: tuple[GitHubServer, Path], tmp_path: Path) -> None:
    github, manifest = served
    one = run(manifest, github, tmp_path / "one" / "census.duckdb")
    many = run(manifest, github, tmp_path / "many" / "census.duckdb", LocalExecutor(3))
    assert one == many == ["scanned"] * (REPOS - 1) + ["skipped"]
    expected = tables(tmp_path / "one" / "census.duckdb")
    assert tables(tmp_path / "many" / "census.duckdb") == expected
    assert len(expected["tools"]) >= REPOS - 1  # every served repository's FastMCP tools were found


def test_a_rerun_fetches_nothing_and_a_new_scanner_rescans_from_the_cache(
    served: tuple[GitHubServer, Path], tmp_path: Path
) -> None:
    github, manifest = served
    db = tmp_path / "census.duckdb"
    run(manifest, github, db, LocalExecutor(2))
    before = len(github.requests_to("codeload"))
    assert run(manifest, github, db, LocalExecutor(2)) == ["skipped"] + ["unchanged"] * (REPOS - 1)
    assert len(github.requests_to("codeload")) == before  # nothing downloaded again
    expected = tables(db)
    with duckdb.connect(str(db)) as con:  # as if these trees had been scanned by an older scanner
        con.execute("UPDATE snapshots SET scanner_version = '0' WHERE repo IN ('acme/r01', 'acme/r02')")
    assert run(manifest, github, db) == ["scanned"] * 2 + ["skipped"] + ["unchanged"] * (REPOS - 3)
    assert len(github.requests_to("codeload")) == before  # rescanned from the cache
    assert tables(db) == expected


def test_kill_9_mid_run_then_a_rerun_equals_an_uninterrupted_run(
    served: tuple[GitHubServer, Path], tmp_path: Path
) -> None:
    github, manifest = served
    uninterrupted = tmp_path / "whole" / "census.duckdb"
    run(manifest, github, uninterrupted)
    stuck = f"/repos/acme/r01/tarball/{fake_sha('r1')}"
    github.fail(stuck, HANG, times=1)  # one worker stuck from the start
    db = tmp_path / "killed" / "census.duckdb"
    command = [sys.executable, "-m", "pipeline", "run", str(manifest), "--db", str(db), "--cache",
               str(tmp_path / "killed" / "cache"), "--api-url", github.api_url, "--jobs", "2"]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                               start_new_session=True)
    try:
        _wait_for_scans(process, 3)  # by the other worker
        _wait_until(lambda: github.faults_left(stuck) == 0)  # and r01's worker hangs (it may start late)
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # the driver and its workers, at once
        process.wait(timeout=30)
        assert process.stderr is not None
        process.stderr.close()
    assert github.faults_left(stuck) == 0  # the rerun will not meet it
    with duckdb.connect(str(db), read_only=True) as con:  # consistent: whole repositories or none
        (partial,) = con.execute("SELECT count(*) FROM snapshots WHERE status = 'scanned'").fetchone() or (0,)
    assert 3 <= partial <= REPOS - 1  # r01 hung to the end; the other worker may have raced on
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert tables(db) == tables(uninterrupted)


def _wait_until(condition: Callable[[], bool], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)


def _wait_for_scans(process: subprocess.Popen[str], count: int) -> None:
    """Read the run's log until ``count`` repositories are scanned (it then hangs on the last)."""
    assert process.stderr is not None
    seen, deadline = 0, time.monotonic() + 60
    while seen < count and time.monotonic() < deadline:
        line = process.stderr.readline()
        seen += line.rstrip().endswith(": scanned")
    assert seen >= count, "the run did not get far enough"


def test_dask_gives_the_tables_of_the_local_executor(served: tuple[GitHubServer, Path], tmp_path: Path) -> None:
    from dask.distributed import LocalCluster

    github, manifest = served
    run(manifest, github, tmp_path / "local" / "census.duckdb")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        statuses = run(manifest, github, tmp_path / "dask" / "census.duckdb", executor(cluster.scheduler_address, 2))
        done = subprocess.run(  # as a user runs it
            [sys.executable, "-m", "pipeline", "run", str(manifest), "--db", str(tmp_path / "cli" / "census.duckdb"),
             "--cache", str(tmp_path / "cli" / "cache"), "--api-url", github.api_url,
             "--executor", f"dask://{cluster.scheduler_address.removeprefix('tcp://')}"],
            capture_output=True, text=True, timeout=120, check=False)
    assert statuses == ["scanned"] * (REPOS - 1) + ["skipped"]
    assert done.returncode == 0, done.stderr
    expected = tables(tmp_path / "local" / "census.duckdb")
    assert tables(tmp_path / "dask" / "census.duckdb") == expected
    assert tables(tmp_path / "cli" / "census.duckdb") == expected


def test_bad_executor_settings_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="unknown executor 'spark://x'"):
        executor("spark://x", 2)
    with pytest.raises(ValueError, match="at least 1"):
        executor("local", 0)


def test_a_pool_that_has_nothing_finished_for_a_while_gives_a_beat() -> None:
    from concurrent.futures import ThreadPoolExecutor
    from threading import Event

    from pipeline.run.inflight import in_flight

    release = Event()
    with ThreadPoolExecutor(2) as pool:
        results = in_flight(pool, lambda n: release.wait(30) and n * 10, [1, 2, 3], limit=2, patience=0.01)
        assert next(results) is None  # nothing can finish before the release: the driver may write now
        release.set()
        rest = list(results)
    assert sorted(r for r in rest if r is not None) == [10, 20, 30]
