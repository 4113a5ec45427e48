"""The census stages as a library user strings them: one failure never hides another's reason."""

from __future__ import annotations

from pathlib import Path

from github_server import GitHubServer
from synth import FASTMCP_SERVER, fake_sha, tarball

from pipeline.manifest.manifests import load
from pipeline.run.census import Census
from pipeline.settings import Settings
from pipeline.store.database import Store

GONE, HERE = fake_sha("gone"), fake_sha("here")


def _census(tmp_path: Path, github: GitHubServer) -> Census:
    manifest = tmp_path / "m.toml"
    manifest.write_text(
        f'[[repos]]\nrepo = "o/gone"\ncommit = "{GONE}"\n\n[[repos]]\nrepo = "o/here"\ncommit = "{HERE}"\n',
        encoding="utf-8",
    )
    settings = Settings(api_url=github.api_url, cache_dir=tmp_path / "cache", attempts=1, backoff_seconds=0.0)
    return Census(load(manifest), settings)


def test_scan_after_a_failed_fetch_keeps_the_fetch_reason(tmp_path: Path, github: GitHubServer) -> None:
    github.add_repo("o/here", {HERE: tarball({"server.py": FASTMCP_SERVER}, "o-here-1", HERE)})
    census = _census(tmp_path, github)
    try:
        with Store(tmp_path / "c.duckdb") as store:
            fetched = [o.status for o in census.fetch(store)]
            scanned = [(o.status, o.reason) for o in census.scan(store)]
            rows = store.connection.execute(
                "SELECT repo, status, skip_reason, skipped_stage FROM snapshots ORDER BY repo"
            ).fetchall()
    finally:
        census.close()
    assert fetched == ["skipped", "fetched"]
    assert scanned == [("skipped", "repository or commit not found"), ("scanned", None)]
    assert rows == [
        ("o/gone", "skipped", "repository or commit not found", "fetch"),
        ("o/here", "scanned", None, None),
    ]


def test_scan_before_fetch_says_what_to_run(tmp_path: Path, github: GitHubServer) -> None:
    census = _census(tmp_path, github)
    try:
        with Store(tmp_path / "c.duckdb") as store:
            reasons = {o.repo: o.reason for o in census.scan(store)}
    finally:
        census.close()
    assert reasons == dict.fromkeys(["o/gone", "o/here"], "not fetched yet (run `census fetch` first)")
    assert github.requests == []
