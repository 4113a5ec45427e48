"""``census timeline`` with no mirror at all: each history fetched from a loopback git host (git's own
``http-backend``), commits and trees, then the files of the period trees only, and the same
``timeline_*`` rows as the timeline read from local mirrors; a fault of the git host is a repository's
reason, not a stop."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest
from git_host import GitHost
from synth import git
from timeline_world import REPOS, SINCE, UNTIL, TimelineWorld, census_env, timeline_census

from pipeline.manifest.manifests import load
from pipeline.run.timeline import Timeline, Window
from pipeline.settings import Settings
from pipeline.store.database import Store


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> TimelineWorld:
    return timeline_census(tmp_path_factory.mktemp("timeline-fetched"))


def serve(world: TimelineWorld, root: Path) -> None:
    """Each history as a bare repository under ``root`` (the git host's)."""
    for repo in REPOS:
        bare = root / f"{repo}.git"
        bare.parent.mkdir(parents=True, exist_ok=True)
        git(root, "clone", "-q", "--bare", str(world.mirrors / repo), str(bare))
        for key in ("uploadpack.allowFilter", "uploadpack.allowAnySHA1InWant"):
            git(bare, "config", key, "true")


def walked_rows(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """The timeline tables' rows of the four histories, sorted, without the times scans were made."""
    with duckdb.connect(str(db), read_only=True) as con:
        names = [n for (n,) in con.execute("SELECT table_name FROM information_schema.tables WHERE table_name LIKE "
                                           "'timeline_%' AND table_name <> 'timeline_repos' ORDER BY 1").fetchall()]
        found = {}
        for name in names:
            columns = [c for (c,) in con.execute("SELECT column_name FROM information_schema.columns "
                                                 "WHERE table_name = ?", [name]).fetchall()]
            where = f"WHERE repo IN {REPOS}" if "repo" in columns else ""
            skip = "EXCLUDE (scanned_at_utc)" if "scanned_at_utc" in columns else ""
            found[name] = sorted(con.execute(f"SELECT * {skip} FROM {name} {where}").fetchall(), key=repr)
        return found


def test_from_an_empty_folder_the_timeline_fetches_what_it_needs_and_stores_the_mirrors_rows(
        world: TimelineWorld, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with GitHost(tmp_path / "host") as host:
        serve(world, tmp_path / "host")
        env = {**census_env(), "CENSUS_GIT_URL": host.url, "GITHUB_TOKEN": "ghp_never_to_git",
               "GITHUB_API_URL": "http://127.0.0.1:9", "GITHUB_SERVER_URL": "http://127.0.0.1:9"}  # never asked
        done = subprocess.run([sys.executable, "-m", "pipeline", "timeline", str(world.manifest), "--since", SINCE,
                               "--until", UNTIL, "--jobs", "2"], cwd=empty, env=env, capture_output=True, text=True,
                              check=False)
        assert done.returncode == 0, done.stderr
        assert all("authorization" not in seen.headers for seen in host.seen)
        assert any(seen.method == "POST" for seen in host.seen)
    db = empty / "data" / "census.duckdb"
    assert walked_rows(db) == walked_rows(world.db)
    with duckdb.connect(str(db), read_only=True) as con:
        gone = con.execute("SELECT status, reason FROM timeline_repos WHERE repo = 'acme/elsewhere'").fetchone()
    assert gone is not None
    assert gone[0] == "skipped"
    assert "not on http://127.0.0.1" in gone[1]  # the host has no such repository: its reason, in the row
    assert (empty / "data" / "archives" / "histories" / "acme" / "hints.git" / "HEAD").is_file()


def test_each_fault_of_the_git_host_is_a_reason_in_the_rows(world: TimelineWorld, tmp_path: Path) -> None:
    manifest = tmp_path / "faulty.toml"
    text = world.manifest.read_text(encoding="utf-8")
    lost = "f" * 40
    manifest.write_text(text.replace('repo = "acme/merged"\n', f'repo = "acme/merged"\ncommit = "{lost}"\n'),
                        encoding="utf-8")  # a pin a force-push took off the host
    with GitHost(tmp_path / "host") as host:
        serve(world, tmp_path / "host")
        host.fail("acme/hints.git/git-upload-pack", "cut")  # once: fetched again, walked
        host.fail("acme/late.git/git-upload-pack", "429")  # once: waited out, walked
        host.fail("acme/still.git/info/refs", "503", times=10)  # every time: a reason
        settings = Settings(db_path=tmp_path / "t.duckdb", cache_dir=tmp_path / "cache", git_url=host.url,
                            api_url="http://127.0.0.1:9", attempts=3, backoff_seconds=0.01)
        timeline = Timeline(load(manifest), settings, Window("month", SINCE, UNTIL))
        try:
            with Store(settings.db_path) as store:
                outcomes = {o.repo: o for o in timeline.run(store)}
        finally:
            timeline.close()
    assert (outcomes["acme/hints"].status, outcomes["acme/late"].status) == ("walked", "walked")
    assert outcomes["acme/hints"].periods == 8
    assert outcomes["acme/still"].status == "skipped"
    assert "git clone failed after 3 tries" in (outcomes["acme/still"].reason or "")
    assert outcomes["acme/merged"].status == "skipped"
    assert "commit ffffffffffff is not on" in (outcomes["acme/merged"].reason or "")
    assert "(deleted, renamed or private)" in (outcomes["acme/elsewhere"].reason or "")
