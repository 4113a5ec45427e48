"""Hostile archives (``tests/hostile.py`` builds them): bombs, huge members, too many members, broken
framing, refused by the reader and skipped by a census with their reasons."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tarfile
import zlib
from pathlib import Path

import pytest
import synth
from github_server import GitHubServer
from hostile import (
    BLOCK,
    LIMITS,
    MEASURED_CENSUS,
    PUBLISHED,
    GiB,
    MiB,
    crc_after_zero_mibs,
    crowd,
    cut_tar,
    declared_bomb,
    hidden_bomb,
    member,
    not_gzip,
    read_all,
    sparse_bomb,
    write_tar_gz,
)

from pipeline.archive import tarball as archive
from pipeline.archive.entries import Member
from pipeline.archive.limits import limited
from pipeline.errors import ArchiveError, ArchiveLimitError
from pipeline.manifest.manifests import load
from pipeline.run.census import Census
from pipeline.settings import Limits, Settings
from pipeline.store.database import Store

# --- the builder is right ----------------------------------------------------------------


def test_the_builder_writes_valid_gzip_and_tar(tmp_path: Path) -> None:
    assert crc_after_zero_mibs(zlib.crc32(b"abc"), 3) == zlib.crc32(bytes(3 * MiB), zlib.crc32(b"abc"))
    path = write_tar_gz(tmp_path / "a.tar.gz", [(member("r/a"), b"readOnlyHint"), (member("r/z"), 3 * MiB + 5)])
    with tarfile.open(path) as tar:
        assert [(m.name, m.size) for m in tar] == [("r/a", 12), ("r/z", 3 * MiB + 5)]
        assert tar.extractfile("r/z").read() == bytes(3 * MiB + 5)  # type: ignore[union-attr]
    assert archive.verify(path).root == "r"


# --- limits, archive by archive ------------------------------------------------------------


@pytest.mark.parametrize(
    ("build", "reason"),
    [
        (declared_bomb, "over a limit: its files hold more than 67108864 bytes (CENSUS_MAX_ARCHIVE_BYTES)"),
        (hidden_bomb, "over a limit: the archive decompresses to more than 67108864 bytes (CENSUS_MAX_ARCHIVE_BYTES)"),
        (sparse_bomb, "over a limit: its files hold more than 67108864 bytes (CENSUS_MAX_ARCHIVE_BYTES)"),
        (crowd, "over a limit: the tree has more than 200 members (CENSUS_MAX_MEMBERS)"),
    ],
    ids=["declared-bomb", "hidden-bomb", "sparse-bomb", "crowd"],
)
def test_an_archive_over_a_limit_is_refused_by_verify_and_members(tmp_path: Path, build: object, reason: str) -> None:
    path = build(tmp_path / "a.tar.gz")  # type: ignore[operator]
    assert path.stat().st_size < 3 * MiB
    with pytest.raises(ArchiveLimitError) as caught:
        archive.verify(path, LIMITS)
    assert str(caught.value) == reason
    with pytest.raises(ArchiveLimitError, match=r"^over a limit: "):
        read_all(archive.members(path, "r", limits=LIMITS))


def test_the_default_limits_refuse_the_sparse_bomb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CENSUS_MAX_ARCHIVE_BYTES", raising=False)
    with pytest.raises(ArchiveLimitError, match=f"more than {Limits().max_archive_bytes} bytes"):
        archive.verify(sparse_bomb(tmp_path / "a.tar.gz"))


def test_limits_come_from_the_environment_when_none_are_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = crowd(tmp_path / "a.tar.gz", count=10)
    monkeypatch.setenv("CENSUS_MAX_MEMBERS", "10")
    with pytest.raises(ArchiveLimitError, match="more than 10 members"):
        archive.verify(path)
    monkeypatch.setenv("CENSUS_MAX_MEMBERS", "11")
    assert archive.verify(path).root == "r"  # the folder and ten files: exactly at the limit
    assert len(list(archive.members(path, "r"))) == 10
    monkeypatch.setenv("CENSUS_MAX_MEMBERS", "lots")
    with pytest.raises(ArchiveError, match=r"^CENSUS_MAX_MEMBERS='lots' is not a positive whole number$"):
        archive.verify(path)  # one line, as `census count` shows it


def test_exactly_at_the_limits_is_accepted(tmp_path: Path) -> None:
    path = write_tar_gz(tmp_path / "a.tar.gz", [(member("r/a.bin"), 1000), (member("r/b.py"), b"annotations")])
    content = 1000 + len(b"annotations")
    archive.verify(path, Limits(max_archive_bytes=4 * BLOCK + 1024 + 1024, max_members=2))  # the stream's size
    assert len(list(archive.members(path, "r", limits=Limits(max_archive_bytes=5 * MiB, max_members=2)))) == 2
    entries = [(Member("a.bin", "file", 1000), None), (Member("b.py", "file", 11), None)]
    assert len(list(limited(entries, Limits(max_archive_bytes=content, max_members=2)))) == 2
    with pytest.raises(ArchiveLimitError, match="its files hold more than"):
        list(limited(entries, Limits(max_archive_bytes=content - 1, max_members=2)))
    with pytest.raises(ArchiveLimitError, match="more than 1 members"):
        list(limited(entries, Limits(max_archive_bytes=content, max_members=1)))


@pytest.mark.parametrize("build", [cut_tar, not_gzip], ids=["truncated-tar", "not-gzip"])
def test_broken_framing_is_an_archive_error_not_a_limit(tmp_path: Path, build: object) -> None:
    path = build(tmp_path / "a.tar.gz")  # type: ignore[operator]
    with pytest.raises(ArchiveError) as caught:
        archive.verify(path, LIMITS)
    assert not isinstance(caught.value, ArchiveLimitError)
    assert str(caught.value).startswith("archive a.tar.gz is not a whole tar")
    assert len(str(caught.value).splitlines()) == 1


# --- a census over all of them: each bad one is a skipped row, nothing else is lost ---------------


def good_tree(repo: str) -> tuple[str, bytes]:
    """A small GitHub-style archive of ``repo`` with one hint of each kind; its commit and bytes."""
    commit = synth.fake_sha(repo)
    tree = {"server.py": synth.FASTMCP_SERVER, "docs/a.md": b"readOnlyHint and annotations\n"}
    return commit, synth.tarball(tree, root=f"{repo.replace('/', '-')}-{commit[:7]}", commit=commit)


def test_a_census_skips_each_hostile_archive_with_its_reason_and_keeps_the_rest(
    github: GitHubServer, tmp_path: Path
) -> None:
    builders = {"acme/declared-bomb": declared_bomb, "acme/hidden-bomb": hidden_bomb, "acme/sparse-bomb": sparse_bomb,
                "acme/crowd": crowd, "acme/cut": cut_tar, "acme/not-gzip": not_gzip}
    served: dict[str, tuple[str, bytes]] = {"acme/good": good_tree("acme/good")}
    for repo, build in builders.items():
        served[repo] = (synth.fake_sha(repo), build(tmp_path / f"{repo.split('/')[1]}.tar.gz").read_bytes())
    served["acme/good-too"] = good_tree("acme/good-too")
    for repo, (commit, data) in served.items():
        github.add_repo(repo, {commit: data})
    manifest = tmp_path / "hostile.toml"
    manifest.write_text("".join(f'[[repos]]\nrepo = "{r}"\ncommit = "{c}"\n' for r, (c, _) in served.items()))
    settings = Settings(api_url=github.api_url, cache_dir=tmp_path / "cache", db_path=tmp_path / "c.duckdb",
                        attempts=2, backoff_seconds=0.01, timeout_seconds=10.0,
                        max_archive_bytes=LIMITS.max_archive_bytes, max_members=LIMITS.max_members)
    census = Census(load(manifest), settings)
    with Store(settings.db_path) as store:
        outcomes = {o.repo: o for o in census.run(store)}
        rows = store.connection.execute(
            "SELECT repo, status, skipped_stage, skip_reason FROM snapshots ORDER BY repo").fetchall()
        counts = store.connection.execute("SELECT repo, sum(count) FROM term_counts GROUP BY repo").fetchall()
    census.close()

    reasons = {repo: reason for repo, status, stage, reason in rows if status == "skipped" and stage == "fetch"}
    assert {repo for repo, status, _, _ in rows if status == "scanned"} == {"acme/good", "acme/good-too"}
    assert set(reasons) == set(builders)
    assert all(outcomes[repo].reason == reasons[repo] for repo in builders)
    limit_bytes = "over a limit: {} more than 67108864 bytes (CENSUS_MAX_ARCHIVE_BYTES)"
    assert reasons["acme/declared-bomb"] == limit_bytes.format("its files hold")
    assert reasons["acme/sparse-bomb"] == limit_bytes.format("its files hold")
    assert reasons["acme/hidden-bomb"] == limit_bytes.format("the archive decompresses to")
    assert reasons["acme/crowd"] == "over a limit: the tree has more than 200 members (CENSUS_MAX_MEMBERS)"
    for repo in ("acme/cut", "acme/not-gzip"):
        assert reasons[repo].startswith("gave up after 2 attempts: the downloaded body is not a valid archive")
    codeload = [r.path for r in github.requests_to("codeload")]
    for repo, (commit, _) in served.items():  # a limit is final; broken framing is tried again
        assert codeload.count(github.codeload_path(repo, commit)) == (2 if repo in ("acme/cut", "acme/not-gzip") else 1)
    per_tree = sum((synth.FASTMCP_SERVER + b"readOnlyHint and annotations").lower().count(t.lower().encode())
                   for t in PUBLISHED)
    assert sorted(counts) == [("acme/good", per_tree), ("acme/good-too", per_tree)]
    blobs = sorted(p.name for p in (tmp_path / "cache" / "blobs").rglob("*.tar.gz"))
    assert blobs == sorted(f"{hashlib.sha256(served[r][1]).hexdigest()}.tar.gz" for r in ("acme/good", "acme/good-too"))
    assert list((tmp_path / "cache" / "tmp").iterdir()) == []


# --- a multi-gigabyte member streams in bounded memory --------------------------------------


def test_a_multi_gigabyte_member_is_counted_in_bounded_memory(tmp_path: Path) -> None:
    size = 2 * GiB + MiB + 3  # past 2**31: no 32-bit size or offset survives it
    path = write_tar_gz(tmp_path / "big.tar.gz", [
        (member("r", tarfile.DIRTYPE), b""),
        (member("r/disk.img"), size),
        (member("r/after.py"), b"readOnlyHint annotations"),
    ])
    assert path.stat().st_size < 4 * MiB
    env = {**os.environ, "CENSUS_MAX_ARCHIVE_BYTES": str(4 * GiB)}
    code, out, err, peak_rss = census_measured(["count", "--json", str(path)], env, tmp_path)
    assert code == 0, err
    report = json.loads(out)
    assert report["content_bytes"] == size + len(b"readOnlyHint annotations")
    assert report["regular_files"] == 2
    assert report["totals"]["readOnlyHint"] == report["totals"]["annotations"] == 1
    assert 0 < peak_rss < 256 * MiB  # the member alone is eight times that


def census_measured(args: list[str], env: dict[str, str], folder: Path) -> tuple[int, str, str, int]:
    """``census ARGS``: exit code, stdout, stderr, and the peak RSS in bytes of its own memory.

    The peak is the process's ``VmHWM`` (Linux), read as it exits: the peak of its memory since
    it started Python, unlike ``ru_maxrss``, which also counts the parent's memory at fork.
    """
    peak = folder / "peak-rss-kb"
    done = subprocess.run([sys.executable, "-c", MEASURED_CENSUS, str(peak), *args], env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    return done.returncode, done.stdout, done.stderr, int(peak.read_text()) * 1024


# --- the scan holds every source to the limits (a git repository too) ------------------------


def test_census_scan_holds_a_git_tree_to_the_settings_limits(tmp_path: Path) -> None:
    commit = synth.git_repo(tmp_path / "repo", {f"f{n}.py": b"readOnlyHint" for n in range(5)})
    manifest = tmp_path / "git.toml"
    manifest.write_text(f'[[repos]]\nrepo = "acme/local"\ncommit = "{commit}"\nsource = "repo"\n')
    for limit, status in ((4, "skipped"), (5, "scanned")):
        settings = Settings(cache_dir=tmp_path / "cache", db_path=tmp_path / f"{limit}.duckdb", max_members=limit)
        census = Census(load(manifest), settings)
        with Store(settings.db_path) as store:
            assert [o.status for o in census.fetch(store)] == ["cached"]  # a local source: nothing to download
            [outcome] = census.scan(store)
            row = store.snapshot("acme/local", commit)
        census.close()
        assert outcome.status == status
        assert row is not None
        assert row["status"] == status
        if status == "skipped":
            assert row["skipped_stage"] == "scan"
            assert row["skip_reason"] == "over a limit: the tree has more than 4 members (CENSUS_MAX_MEMBERS)"
