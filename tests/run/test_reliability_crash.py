"""Crashes and concurrency: ``kill -9`` during fetch and during scan, then a rerun; two ``census``
processes on one database. Each run is the real command in a subprocess (its own session,
so the kill takes its worker processes too) against the loopback server, and every table
and view is compared row for row with an uninterrupted run into another database.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from typing import Any

import duckdb
import pytest
import synth
from github_server import PAUSE, GitHubServer
from hostile import Content, member, write_tar_gz

TOKEN = "ghp_CrashSecretToken0123456789abcdefABCDEF"
REPOS = ("acme/alpha", "acme/bravo", "acme/charlie")
#: bravo's big member: long enough to scan that the kill lands inside the scan
BRAVO_ZEROS = 128 << 20

Tables = dict[str, list[tuple[Any, ...]]]


def build_archives(folder: Path) -> dict[str, tuple[str, bytes]]:
    """Three small trees with hints; bravo also holds a large member. repo -> (commit, archive)."""
    served = {}
    for repo in REPOS:
        commit = synth.fake_sha(repo)
        root = f"{repo.replace('/', '-')}-{commit[:7]}"
        tree = {"server.py": synth.FASTMCP_SERVER, "main.go": synth.GO_SERVER, f"{repo}.md": b"annotations\n"}
        if repo != "acme/bravo":
            served[repo] = (commit, synth.tarball(tree, root=root, commit=commit))
            continue
        members: list[tuple[tarfile.TarInfo, Content]] = [(member(root, tarfile.DIRTYPE), b"")]
        members += [(member(f"{root}/{path}"), data) for path, data in tree.items()]
        members.append((member(f"{root}/disk.img"), BRAVO_ZEROS))
        served[repo] = (commit, write_tar_gz(folder / "bravo.tar.gz", members).read_bytes())
    return served


def serve(github: GitHubServer, served: dict[str, tuple[str, bytes]]) -> None:
    """Serve every repository at its commit."""
    for repo, (commit, data) in served.items():
        github.add_repo(repo, {commit: data})


def write_manifest(folder: Path, served: dict[str, tuple[str, bytes]]) -> Path:
    """A pinned manifest of ``served`` (pinned: a run writes nothing into it)."""
    path = folder / "crash.toml"
    path.write_text('[census]\nname = "crash"\n\n' + "".join(
        f'[[repos]]\nrepo = "{repo}"\ncommit = "{commit}"\n\n' for repo, (commit, _) in served.items()))
    return path


def command(manifest: Path, db: Path, cache: Path) -> list[str]:
    """``census run`` of ``manifest`` into ``db`` and ``cache``."""
    return [sys.executable, "-m", "pipeline", "run", str(manifest), "--db", str(db), "--cache", str(cache)]


def env_for(github: GitHubServer) -> dict[str, str]:
    """A clean environment pointed at the loopback server, with the token."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "CENSUS_"))}
    env.update(GITHUB_API_URL=github.api_url, GITHUB_TOKEN=TOKEN, NO_COLOR="1")
    return env


def run(github: GitHubServer, manifest: Path, db: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    """One whole ``census run``."""
    return subprocess.run(command(manifest, db, cache), env=env_for(github), cwd=manifest.parent,
                          capture_output=True, text=True, timeout=300, check=False)


def start(github: GitHubServer, manifest: Path, db: Path, cache: Path) -> subprocess.Popen[bytes]:
    """``census run`` in a session of its own (its workers share its process group)."""
    return subprocess.Popen(command(manifest, db, cache), env=env_for(github), cwd=manifest.parent,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def kill_group(child: subprocess.Popen[bytes]) -> None:
    """``kill -9`` the census and every process of its group."""
    os.killpg(child.pid, signal.SIGKILL)
    assert child.wait(timeout=60) == -signal.SIGKILL


def group_has_open(group: int, target: Path) -> bool:
    """Whether a process of process group ``group`` has ``target`` open (read from /proc)."""
    for proc in Path("/proc").iterdir():
        try:
            stat = (proc / "stat").read_text()
            if not proc.name.isdigit() or int(stat[stat.rindex(")") + 2 :].split()[2]) != group:
                continue
            if any(os.readlink(fd) == str(target) for fd in (proc / "fd").iterdir()):
                return True
        except (OSError, ValueError):  # a process that ended meanwhile, or not a process folder
            continue
    return False


def timeless(db: Path) -> Tables:
    """Every row of every table and view, sorted; ``snapshots`` without its two timestamps."""
    with duckdb.connect(str(db), read_only=True) as con:
        names = [n for (n,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall()]
        tables = {name: con.execute(f'SELECT * FROM "{name}"').fetchall() for name in names}
        tables["snapshots"] = con.execute("SELECT * EXCLUDE (fetched_at_utc, scanned_at_utc) FROM snapshots").fetchall()
    return {name: sorted(rows, key=repr) for name, rows in sorted(tables.items())}


def scanned_in_copy(db: Path, folder: Path) -> set[str]:
    """The repositories scanned in a copy of ``db`` as a crash left it (the original is not touched)."""
    folder.mkdir()
    for path in db.parent.glob(f"{db.name}*"):
        shutil.copy2(path, folder / path.name)
    with duckdb.connect(str(folder / db.name)) as con:
        return {repo for (repo,) in con.execute("SELECT repo FROM snapshots WHERE status = 'scanned'").fetchall()}


def parts(cache: Path) -> list[Path]:
    """Downloads in progress (or left by a killed process) in ``cache``."""
    return sorted((cache / "tmp").glob("*.part"))


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, bytes]]:
    """The three repositories' commits and archives."""
    return build_archives(tmp_path_factory.mktemp("archives"))


@pytest.fixture(scope="module")
def reference(served: dict[str, tuple[str, bytes]], tmp_path_factory: pytest.TempPathFactory) -> Tables:
    """The tables of an uninterrupted run, into a database and cache of its own."""
    folder = tmp_path_factory.mktemp("reference")
    with GitHubServer() as github:
        serve(github, served)
        done = run(github, write_manifest(folder, served), folder / "census.duckdb", folder / "cache")
    assert done.returncode == 0, done.stderr
    with duckdb.connect(str(folder / "census.duckdb"), read_only=True) as con:
        scanned = con.execute("SELECT repo FROM snapshots WHERE status = 'scanned' ORDER BY repo").fetchall()
    assert scanned == [(repo,) for repo in REPOS]
    return timeless(folder / "census.duckdb")


def test_kill_9_during_a_download_then_rerun_gives_the_same_tables(
    github: GitHubServer, tmp_path: Path, served: dict[str, tuple[str, bytes]], reference: Tables
) -> None:
    serve(github, served)
    manifest, db, cache = write_manifest(tmp_path, served), tmp_path / "census.duckdb", tmp_path / "cache"
    commit, data = served["acme/bravo"]
    github.fail(github.codeload_path("acme/bravo", commit), PAUSE)  # half of bravo's body, then it waits
    child = start(github, manifest, db, cache)
    assert github.wait_paused(timeout=120), "the census never reached bravo's download"
    kill_group(child)
    github.release()

    assert parts(cache), "the download cut short is still in tmp/"
    blobs = {p.name for p in (cache / "blobs").rglob("*.tar.gz")}
    assert f"{hashlib.sha256(data).hexdigest()}.tar.gz" not in blobs  # never under a final name
    assert "acme/bravo" not in scanned_in_copy(db, tmp_path / "crashed")

    again = run(github, manifest, db, cache)

    assert again.returncode == 0, again.stderr
    assert timeless(db) == reference
    assert parts(cache) == []  # the killed process's partial download was swept
    assert len(list((cache / "blobs").rglob("*.tar.gz"))) == 3


def test_kill_9_during_a_scan_then_rerun_gives_the_same_tables(
    github: GitHubServer, tmp_path: Path, served: dict[str, tuple[str, bytes]], reference: Tables
) -> None:
    serve(github, served)
    manifest, db, cache = write_manifest(tmp_path, served), tmp_path / "census.duckdb", tmp_path / "cache"
    commit, data = served["acme/bravo"]
    sha = hashlib.sha256(data).hexdigest()
    blob = cache / "blobs" / "sha256" / sha[:2] / f"{sha}.tar.gz"
    child = start(github, manifest, db, cache)
    while not group_has_open(child.pid, blob):  # the blob is opened only to be scanned
        assert child.poll() is None, "the census ended before bravo's scan was seen"
        time.sleep(0.005)  # leave the cores to the census
    kill_group(child)

    assert "acme/bravo" not in scanned_in_copy(db, tmp_path / "crashed")
    assert blob.is_file()

    again = run(github, manifest, db, cache)

    assert again.returncode == 0, again.stderr
    assert timeless(db) == reference
    bravo = [r for r in github.requests_to("codeload") if r.path == github.codeload_path("acme/bravo", commit)]
    assert len(bravo) == 1  # the verified archive in the cache survived the kill and was reused
    assert parts(cache) == []


def test_a_second_census_on_the_same_database_stops_with_a_clear_message(
    github: GitHubServer, tmp_path: Path, served: dict[str, tuple[str, bytes]], reference: Tables
) -> None:
    serve(github, served)
    manifest, db = write_manifest(tmp_path, served), tmp_path / "census.duckdb"
    commit, _ = served["acme/alpha"]
    github.fail(github.codeload_path("acme/alpha", commit), PAUSE)
    first = start(github, manifest, db, tmp_path / "cache")
    try:
        assert github.wait_paused(timeout=120), "the first census never reached alpha's download"
        second = run(github, manifest, db, tmp_path / "other-cache")
        github.release()
        assert first.wait(timeout=300) == 0
    finally:
        github.release()
        if first.poll() is None:  # pragma: no cover - only when an assertion above failed
            kill_group(first)

    assert second.returncode == 1
    assert second.stderr.splitlines() == [
        f"census: error: {db}: the database is in use by another census process",
        "Tip: wait for it to finish, or pass another --db.",
    ]
    assert second.stdout == ""
    assert not (tmp_path / "other-cache").exists()  # it stopped before touching anything
    assert timeless(db) == reference  # the first finished as if alone; the file is whole
