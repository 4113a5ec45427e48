"""Histories the census fetches itself: a commits-only partial clone from a loopback git host (git's own
``http-backend``), made whole or not at all, brought up to date, and each fault a reason."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from git_host import GitHost
from synth import git
from timeline_world import commit

from pipeline.errors import NotFoundError, SourceError
from pipeline.fetch.first_parent import first_parent_line
from pipeline.fetch.histories import PARTIAL, fetch_history, history_path
from pipeline.settings import Settings


@pytest.fixture
def served(tmp_path: Path) -> tuple[Path, list[str]]:
    """A bare ``acme/notes.git`` with three commits, under a root a git host serves."""
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    made = [commit(work, f"2025-0{n}-15T12:00:00+00:00", {"server.ts": f"version {n}\n".encode()}) for n in (1, 2, 3)]
    root = tmp_path / "host"
    (root / "acme").mkdir(parents=True)
    git(tmp_path, "clone", "-q", "--bare", str(work), str(root / "acme" / "notes.git"))
    bare = root / "acme" / "notes.git"
    for key, value in (("uploadpack.allowFilter", "true"), ("uploadpack.allowAnySHA1InWant", "true"),
                       ("http.receivepack", "false")):
        git(bare, "config", key, value)
    return root, made


def settings_for(tmp_path: Path, host: GitHost, **more: object) -> Settings:
    return Settings(cache_dir=tmp_path / "cache", git_url=host.url, token="ghp_secret_not_for_git",
                    backoff_seconds=0.01, **more)  # type: ignore[arg-type]


def test_a_commits_only_clone_holds_the_first_parent_line_and_no_token_goes_to_git(
        served: tuple[Path, list[str]], tmp_path: Path) -> None:
    root, made = served
    with GitHost(root) as host:
        settings = settings_for(tmp_path, host)
        place = fetch_history("acme/notes", made[-1], settings)
        assert place == history_path(settings, "acme/notes")
        assert [c.commit for c in first_parent_line(place, made[-1])] == made[::-1]
        assert git(place, "config", "remote.origin.partialclonefilter").strip() == "blob:none"
        assert all("authorization" not in s.headers for s in host.seen)  # public: no token, to no host
        asked = len(host.seen)
        assert fetch_history("acme/notes", made[-1], settings) == place  # held already: nothing asked
        assert len(host.seen) == asked


def test_a_clone_killed_halfway_starts_again_cleanly_and_an_unpinned_entry_is_brought_up_to_date(
        served: tuple[Path, list[str]], tmp_path: Path) -> None:
    root, _ = served
    with GitHost(root) as host:
        settings = settings_for(tmp_path, host)
        place = history_path(settings, "acme/notes")
        left = place.with_name(place.name + PARTIAL)
        (left / "objects").mkdir(parents=True)  # what a killed clone leaves
        (left / "junk").write_text("half a pack")
        fetch_history("acme/notes", None, settings)
        assert not left.exists()
        work = tmp_path / "more"
        git(tmp_path, "clone", "-q", str(root / "acme" / "notes.git"), str(work))
        newer = commit(work, "2025-04-15T12:00:00+00:00", {"server.ts": b"version 4\n"})
        git(work, "push", "-q", "origin", "main")
        fetch_history("acme/notes", None, settings)  # unpinned: the branch moved
        assert first_parent_line(place, "HEAD")[0].commit == newer  # the branch the clone keeps moved too


@pytest.mark.parametrize("kind", ["503", "429", "cut"])
def test_a_failing_host_is_asked_again(served: tuple[Path, list[str]], tmp_path: Path, kind: str) -> None:
    root, made = served
    with GitHost(root) as host:
        host.fail("git-upload-pack", kind)
        place = fetch_history("acme/notes", made[-1], settings_for(tmp_path, host))
        assert [c.commit for c in first_parent_line(place, made[-1])] == made[::-1]
        assert sum("git-upload-pack" in s.path and s.method == "POST" for s in host.seen) >= 2


def test_a_host_that_keeps_failing_is_a_reason_not_a_crash(served: tuple[Path, list[str]], tmp_path: Path) -> None:
    root, made = served
    with GitHost(root) as host:
        host.fail("info/refs", "503", times=10)
        with pytest.raises(SourceError, match=r"acme/notes: git clone failed after 3 tries"):
            fetch_history("acme/notes", made[-1], settings_for(tmp_path, host, attempts=3))
        assert not any(p.name.endswith(PARTIAL) for p in (tmp_path / "cache" / "histories" / "acme").iterdir())


def test_a_deleted_repository_and_a_lost_pin_are_each_their_reason(served: tuple[Path, list[str]],
                                                                    tmp_path: Path) -> None:
    root, made = served
    with GitHost(root) as host:
        settings = settings_for(tmp_path, host)
        with pytest.raises(NotFoundError, match=r"acme/gone: not on http://127\.0\.0\.1:\d+ \(deleted"):
            fetch_history("acme/gone", None, settings)
        fetch_history("acme/notes", made[0], settings)
        bare = root / "acme" / "notes.git"
        lost = "f" * 40  # a pin the host does not have (a force-push dropped it)
        with pytest.raises(NotFoundError, match=r"commit ffffffffffff is not on"):
            fetch_history("acme/notes", lost, settings)
        shutil.rmtree(bare)
        with pytest.raises(NotFoundError, match="deleted, renamed or private"):
            fetch_history("acme/notes", "e" * 40, settings)


def test_offline_fetches_no_history(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="--offline fetches no history"):
        fetch_history("acme/notes", None, Settings(cache_dir=tmp_path, offline=True))


def test_census_history_clones_what_no_source_holds_and_counts_as_from_the_source(
        served: tuple[Path, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pipeline.cli.main import main

    root, made = served
    with GitHost(root) as host:
        main(["history", "acme/notes", "--git-url", host.url, "--cache", str(tmp_path / "cache"), "--db",
              str(tmp_path / "cloned.duckdb"), "--terms", "version"])
        cloned = capsys.readouterr().out
    main(["history", "acme/notes", "--source", str(root / "acme" / "notes.git"), "--db", str(tmp_path / "local.duckdb"),
          "--terms", "version"])
    local = capsys.readouterr().out
    assert cloned == local
    assert "acme/notes: 3 commits" in cloned
    whole = tmp_path / "cache" / "clones" / "acme" / "notes.git"
    assert git(whole, "cat-file", "-t", f"{made[0]}:server.ts").strip() == "blob"  # every file: counted, not missing
