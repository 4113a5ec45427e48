"""One ``census run``, as a person runs it, over archives and answers written to do harm.

Names with ``..``, absolute paths and bytes that are not UTF-8; symlinks and hardlinks that
point outside (and a file planted "through" a symlinked folder); devices, FIFOs, duplicate
names; a gzip bomb and a crowd of members over the limits set in the environment; a 404, a
plain 403 and a redirect loop whose bodies echo the token; a 429 that asks for no wait. The
census must store exactly what the archives hold, skip the rest with reasons, exit 0, write
nothing outside its database and cache, and never show or store ``GITHUB_TOKEN``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import duckdb
import pytest
import synth
from github_server import LOOP, GitHubServer, status
from hostile import crowd, declared_bomb

TOKEN = "ghp_EscapeSecretToken0123456789abcdefABCDEF"
NOT_FOUND = "repository or commit not found"
SECRET = b"destructiveHint " * 5


def census_env(github: GitHubServer, tmp: Path, **extra: str) -> dict[str, str]:
    """A clean environment for ``census``: the loopback API, the token, a home and temp folder in ``tmp``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "CENSUS_"))}
    env.update(GITHUB_API_URL=github.api_url, GITHUB_TOKEN=TOKEN, NO_COLOR="1", HOME=str(tmp / "home"),
               TMPDIR=str(tmp / "tmpdir"), **extra)
    return env


def tree_state(root: Path) -> dict[str, tuple[bool, int, int]]:
    """Every path below ``root``: (is a folder, size, mtime in ns); links are not followed."""
    state = {}
    for path in root.rglob("*"):
        info = path.lstat()
        state[str(path.relative_to(root))] = (path.is_dir() and not path.is_symlink(), info.st_size, info.st_mtime_ns)
    return state


def escape_archive(tmp: Path, root: str) -> bytes:
    """Names that would land outside an extraction folder, and one that is not UTF-8."""
    return synth.raw_tarball([
        synth.tar_member(f"{root}/ok.py", b"readOnlyHint"),
        synth.tar_member(f"{root}/../../escape.txt", b"annotations"),
        synth.tar_member("../../escape-up.txt", b"annotations"),
        synth.tar_member(f"{tmp}/abs-escape.txt", b"annotations"),
        synth.tar_member(f"{root}/caf\xe9-\xff.py".encode("latin-1"), b"openWorldHint"),
    ])


def links_archive(outside: Path, root: str) -> bytes:
    """Links out of the tree, a file planted through a linked folder, devices, a FIFO, a duplicate name."""
    return synth.raw_tarball([
        synth.tar_member(root, kind=tarfile.DIRTYPE),
        synth.tar_member(f"{root}/ok.py", b"readOnlyHint"),
        synth.tar_member(f"{root}/link-out", kind=tarfile.SYMTYPE, linkname=str(outside / "secret.txt")),
        synth.tar_member(f"{root}/dirlink", kind=tarfile.SYMTYPE, linkname=str(outside)),
        synth.tar_member(f"{root}/dirlink/planted.txt", b"idempotentHint"),
        synth.tar_member(f"{root}/hard-out", kind=tarfile.LNKTYPE, linkname=str(outside / "secret.txt")),
        synth.tar_member(f"{root}/hard-in", kind=tarfile.LNKTYPE, linkname=f"{root}/ok.py"),
        synth.tar_member(f"{root}/pipe", kind=tarfile.FIFOTYPE),
        synth.tar_member(f"{root}/tty", kind=tarfile.CHRTYPE),
        synth.tar_member(f"{root}/disk", kind=tarfile.BLKTYPE),
        synth.tar_member(f"{root}/dup.py", b"annotations"),
        synth.tar_member(f"{root}/dup.py", b"annotations annotations"),
    ])


def serve_everything(github: GitHubServer, tmp: Path) -> dict[str, str]:
    """Serve every repository of the run (with its faults); repo -> commit."""
    commits = {repo: synth.fake_sha(repo) for repo in
               ("acme/escape", "acme/links", "acme/bomb", "acme/crowd", "acme/gone", "acme/denied", "acme/waits",
                "acme/loopy")}
    archives = {
        "acme/escape": escape_archive(tmp, "acme-escape-1"),
        "acme/links": links_archive(tmp / "outside", "acme-links-1"),
        "acme/bomb": declared_bomb(tmp / "bomb.tar.gz").read_bytes(),
        "acme/crowd": crowd(tmp / "crowd.tar.gz").read_bytes(),
        "acme/denied": synth.tarball({"a.py": b"x"}),
        "acme/waits": synth.tarball({"a.py": b"annotations"}),
        "acme/loopy": synth.tarball({"a.py": b"x"}),
    }
    for repo, data in archives.items():
        github.add_repo(repo, {commits[repo]: data})
    (tmp / "bomb.tar.gz").unlink()
    (tmp / "crowd.tar.gz").unlink()
    github.fail(github.tarball_path("acme/denied", commits["acme/denied"]), status(403))
    github.fail(github.tarball_path("acme/waits", commits["acme/waits"]), status(429, {"Retry-After": "0"}))
    github.fail(github.tarball_path("acme/loopy", commits["acme/loopy"]), LOOP, times=6)
    return commits


def rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` over ``db``, sorted."""
    with duckdb.connect(str(db), read_only=True) as con:
        return sorted(con.execute(sql).fetchall(), key=repr)


@pytest.fixture
def world(github: GitHubServer, tmp_path: Path) -> dict[str, str]:
    """The folders of the run, the outside file the links point at, and the served repositories."""
    for folder in ("work", "home", "tmpdir", "manifests", "outside"):
        (tmp_path / folder).mkdir()
    (tmp_path / "outside" / "secret.txt").write_bytes(SECRET)
    commits = serve_everything(github, tmp_path)
    text = "".join(f'[[repos]]\nrepo = "{repo}"\ncommit = "{commit}"\n\n' for repo, commit in commits.items())
    (tmp_path / "manifests" / "hostile.toml").write_text(text)
    return commits


def test_a_hostile_census_stores_what_the_archives_hold_and_writes_nowhere_else(
    github: GitHubServer, tmp_path: Path, world: dict[str, str]
) -> None:
    before = tree_state(tmp_path)
    out = tmp_path / "out"
    env = census_env(github, tmp_path, CENSUS_MAX_ARCHIVE_BYTES=str(64 << 20), CENSUS_MAX_MEMBERS="200")
    done = subprocess.run(
        [sys.executable, "-m", "pipeline", "run", str(tmp_path / "manifests" / "hostile.toml"),
         "--db", str(out / "census.duckdb"), "--cache", str(out / "cache")],
        cwd=tmp_path / "work", env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    after = tree_state(tmp_path)
    db = out / "census.duckdb"

    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    changed = {path for path, state in after.items() if before.get(path) != state}
    assert changed, "the run wrote its database and cache"
    assert {path.split(os.sep)[0] for path in changed} == {"out"}  # nothing but the database and the cache
    assert set(before) <= set(after)
    for base in (tmp_path / "work", out, out / "cache", out / "cache" / "tmp"):
        for name in ("../../escape.txt", "../../escape-up.txt", "acme-escape-1/../../escape.txt", "planted.txt"):
            assert not (base / name).exists()
    assert not (tmp_path / "abs-escape.txt").exists()
    assert (tmp_path / "outside" / "secret.txt").read_bytes() == SECRET
    assert sorted(p.name for p in (tmp_path / "outside").iterdir()) == ["secret.txt"]

    assert rows(db, "SELECT repo, path, term, count FROM term_counts") == sorted([
        ("acme/escape", "acme-escape-1/ok.py", "readOnlyHint", 1),
        ("acme/escape", "acme-escape-1/../../escape.txt", "annotations", 1),
        ("acme/escape", "../../escape-up.txt", "annotations", 1),
        ("acme/escape", f"{tmp_path}/abs-escape.txt", "annotations", 1),
        ("acme/escape", "acme-escape-1/caf\\xe9-\\xff.py", "openWorldHint", 1),
        ("acme/links", "ok.py", "readOnlyHint", 1),
        ("acme/links", "dirlink/planted.txt", "idempotentHint", 1),  # a name in the tree, never a path on disk
        ("acme/links", "dup.py", "annotations", 1),  # both members of a duplicated name are read
        ("acme/links", "dup.py", "annotations", 2),
        ("acme/waits", "a.py", "annotations", 1),
    ], key=repr)
    assert rows(db, "SELECT path, kind FROM skipped_files WHERE repo = 'acme/links'") == sorted([
        ("link-out", "symlink"), ("dirlink", "symlink"), ("hard-out", "hardlink"), ("hard-in", "hardlink"),
        ("pipe", "fifo"), ("tty", "device"), ("disk", "device"),
    ])
    assert rows(db, "SELECT repo, regular_files, skipped_members FROM snapshots WHERE status = 'scanned'") == [
        ("acme/escape", 5, 0), ("acme/links", 4, 7), ("acme/waits", 1, 0)]
    skipped = rows(db, "SELECT repo, skipped_stage, skip_reason FROM snapshots WHERE status = 'skipped'")
    port = github.api_url.rsplit(":", 1)[1]
    assert skipped == [
        ("acme/bomb", "fetch",
         "over a limit: its files hold more than 67108864 bytes (CENSUS_MAX_ARCHIVE_BYTES)"),
        ("acme/crowd", "fetch", "over a limit: the tree has more than 200 members (CENSUS_MAX_MEMBERS)"),
        ("acme/denied", "fetch", f"HTTP 403 from 127.0.0.1:{port}"),
        ("acme/gone", "fetch", NOT_FOUND),
        ("acme/loopy", "fetch", "more than 5 redirects (a redirect loop?)"),
    ]
    for repo, _, reason in skipped:
        assert f"{repo}@{world[repo][:12]}: skipped: {reason}" in done.stderr.splitlines()

    assert TOKEN not in done.stdout + done.stderr
    for path in (tmp_path / p for p in after):
        if path.is_file() and not path.is_symlink():
            assert TOKEN.encode() not in path.read_bytes(), path
    with duckdb.connect(str(db), read_only=True) as con:
        tables = [name for (name,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall()]
        assert TOKEN not in repr([con.execute(f'SELECT * FROM "{name}"').fetchall() for name in tables])
    assert {r.headers.get("authorization") for r in github.requests_to("api")} == {f"Bearer {TOKEN}"}
    assert all("authorization" not in r.headers for r in github.requests_to("codeload"))


def test_an_unusable_limit_in_the_environment_is_one_line_and_exit_1(
    github: GitHubServer, tmp_path: Path, world: dict[str, str]
) -> None:
    env = census_env(github, tmp_path, CENSUS_MAX_MEMBERS="lots")
    done = subprocess.run(
        [sys.executable, "-m", "pipeline", "fetch", str(tmp_path / "manifests" / "hostile.toml"),
         "--db", str(tmp_path / "out" / "census.duckdb"), "--cache", str(tmp_path / "out" / "cache")],
        cwd=tmp_path / "work", env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 1
    assert done.stderr.splitlines() == ["census: error: CENSUS_MAX_MEMBERS='lots' is not a positive whole number"]
    assert github.requests == []
    assert not (tmp_path / "out").exists()


def test_a_report_of_a_census_run_with_a_token_holds_no_token(
    github: GitHubServer, tmp_path: Path, world: dict[str, str]
) -> None:
    env = census_env(github, tmp_path, CENSUS_MAX_ARCHIVE_BYTES=str(64 << 20), CENSUS_MAX_MEMBERS="200")
    db = tmp_path / "out" / "census.duckdb"
    base = [sys.executable, "-m", "pipeline"]
    done = subprocess.run([*base, "run", str(tmp_path / "manifests" / "hostile.toml"), "--db", str(db), "--cache",
                           str(tmp_path / "out" / "cache")], cwd=tmp_path / "work", env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    report = subprocess.run([*base, "report", "--manifest", "hostile", "--db", str(db), "--out",
                             str(tmp_path / "report")], cwd=tmp_path / "work", env=env, capture_output=True,
                            text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert report.returncode == 0, report.stderr
    written = [path for path in (tmp_path / "report").rglob("*") if path.is_file()]
    assert len(written) > 2
    assert any("acme/denied" in path.read_text(errors="replace") for path in written if path.suffix == ".md")
    for path in written:
        assert TOKEN.encode() not in path.read_bytes(), path
    assert TOKEN not in report.stdout + report.stderr
