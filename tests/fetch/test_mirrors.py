"""``--mirrors DIR`` and ``--offline``: repositories read from local git mirrors, GitHub only for what
they lack, and nothing at all sent offline."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import duckdb
from github_server import GitHubServer
from synth import FASTMCP_SERVER, git_env, git_repo, tarball

from pipeline.fetch import mirrors
from pipeline.manifest.manifests import load
from pipeline.run.census import Census
from pipeline.settings import Settings
from pipeline.store.database import Store


def _bare_mirror(work: Path, into: Path, tree: dict[str, bytes]) -> str:
    """A bare clone (``git clone --mirror``) at ``into`` of a one-commit repository; its commit."""
    commit = git_repo(work, tree)
    subprocess.run(["git", "clone", "-q", "--mirror", str(work), str(into)], check=True, env=git_env())
    return commit


def _manifest(path: Path, *entries: tuple[str, str | None]) -> Path:
    path.write_text("".join(f'[[repos]]\nrepo = "{repo}"\n' + (f'commit = "{c}"\n' if c else "") + "\n"
                            for repo, c in entries), encoding="utf-8")
    return path


def _rows(db: Path) -> list[tuple[str, str, str | None, str | None]]:
    with Store(db) as store:
        return store.connection.execute(
            "SELECT repo, status, source, skip_reason FROM snapshots ORDER BY repo").fetchall()


def test_both_layouts_are_found_without_regard_to_case(tmp_path: Path) -> None:
    _bare_mirror(tmp_path / "w1", tmp_path / "m" / "Acme" / "Notes.git", {"a.py": b"x = 1\n"})
    git_repo(tmp_path / "m" / "solo" / "one", {"b.py": b"y = 2\n"})  # a normal clone, no .git suffix
    (tmp_path / "m" / "solo" / "not-a-repo").mkdir()
    mirrors.forget()
    assert mirrors.locate(tmp_path / "m", "acme/notes") == tmp_path / "m" / "Acme" / "Notes.git"
    assert mirrors.locate(tmp_path / "m", "Solo/One") == tmp_path / "m" / "solo" / "one"
    assert mirrors.locate(tmp_path / "m", "solo/not-a-repo") is None
    assert mirrors.locate(tmp_path / "nowhere", "acme/notes") is None


def test_offline_pins_from_mirrors_and_skips_the_rest_sending_nothing(tmp_path: Path, github: GitHubServer) -> None:
    commit = _bare_mirror(tmp_path / "w", tmp_path / "m" / "acme" / "notes.git", {"server.py": FASTMCP_SERVER})
    mirrors.forget()
    manifest = _manifest(tmp_path / "m.toml", ("acme/notes", None), ("acme/absent", None))
    settings = Settings(api_url=github.api_url, cache_dir=tmp_path / "cache", db_path=tmp_path / "c.duckdb",
                        mirrors_dir=tmp_path / "m", offline=True, attempts=1)
    census = Census(load(manifest), settings)
    try:
        with Store(settings.db_path) as store:
            outcomes = {o.repo: (o.status, o.reason) for o in census.run(store)}
    finally:
        census.close()
    assert outcomes["acme/notes"] == ("scanned", None)
    assert outcomes["acme/absent"][0] == "skipped"
    assert "no mirror in" in (outcomes["acme/absent"][1] or "")
    assert "--offline" in (outcomes["acme/absent"][1] or "")
    assert f'commit = "{commit}"' in manifest.read_text()  # pinned from the mirror's HEAD
    assert github.requests == []
    rows = _rows(settings.db_path)
    assert [(r[0], r[1], r[2]) for r in rows] == [("acme/absent", "skipped", None), ("acme/notes", "scanned", "git")]
    stamp = subprocess.run(["git", "--git-dir", str(tmp_path / "m" / "acme" / "notes.git"), "show", "-s",
                            "--format=%ct", commit], check=True, capture_output=True, text=True).stdout.strip()
    with duckdb.connect(str(settings.db_path), read_only=True) as con:
        [(committed,)] = con.execute("SELECT committed_at_utc FROM snapshots WHERE repo = 'acme/notes'").fetchall()
    assert committed == datetime.fromtimestamp(int(stamp), UTC).replace(tzinfo=None)  # the commit's date, as git says


def test_a_commit_the_mirror_lacks_comes_from_github_or_is_skipped_offline(tmp_path: Path,
                                                                          github: GitHubServer) -> None:
    _bare_mirror(tmp_path / "w", tmp_path / "m" / "acme" / "notes.git", {"server.py": b"old = 1\n"})
    newer = "b" * 40
    github.add_repo("acme/notes", {newer: tarball({"server.py": FASTMCP_SERVER}, "acme-notes-b", newer)})
    mirrors.forget()
    manifest = _manifest(tmp_path / "m.toml", ("acme/notes", newer))
    for offline, expected in ((True, "skipped"), (False, "scanned")):
        settings = Settings(api_url=github.api_url, server_url=github.web_url, cache_dir=tmp_path / "cache",
                            mirrors_dir=tmp_path / "m", offline=offline, attempts=1, backoff_seconds=0.0)
        census = Census(load(manifest), settings)
        try:
            with Store(tmp_path / f"{offline}.duckdb") as store:
                outcome = next(iter(census.run(store)))
        finally:
            census.close()
        assert outcome.status == expected, outcome
        if offline:
            assert outcome.reason == f"commit {newer[:12]} not in mirror {tmp_path / 'm' / 'acme' / 'notes.git'} " \
                                     "(--offline: not fetched)"
    assert [r[2] for r in _rows(tmp_path / "False.duckdb")] == ["github"]


def test_the_command_reads_mirrors_offline_and_refuses_a_missing_folder(tmp_path: Path) -> None:
    _bare_mirror(tmp_path / "w", tmp_path / "m" / "acme" / "notes.git", {"server.py": FASTMCP_SERVER})
    manifest = _manifest(tmp_path / "m.toml", ("acme/notes", None))
    env = {"PATH": "/usr/bin:/bin", "GITHUB_API_URL": "http://127.0.0.1:9", "CENSUS_OFFLINE": "1"}
    run = [sys.executable, "-m", "pipeline", "run", str(manifest), "--db", str(tmp_path / "c.duckdb"),
           "--cache", str(tmp_path / "cache"), "--jobs", "1"]
    done = subprocess.run([*run, "--mirrors", str(tmp_path / "m")], check=False, capture_output=True, text=True,
                          env=env)
    assert done.returncode == 0, done.stderr
    assert "acme/notes" in done.stdout
    assert [(r[0], r[1], r[2]) for r in _rows(tmp_path / "c.duckdb")] == [("acme/notes", "scanned", "git")]
    missing = subprocess.run([*run, "--mirrors", str(tmp_path / "none")], check=False, capture_output=True,
                             text=True, env=env)
    assert missing.returncode == 2
    assert "is not a folder" in missing.stderr or "does not exist" in missing.stderr
    bad = subprocess.run(run, check=False, capture_output=True, text=True, env={**env, "CENSUS_OFFLINE": "maybe"})
    assert bad.returncode != 0
    assert "CENSUS_OFFLINE='maybe'" in bad.stderr
