"""``census discover --from-captures``: the commit each package that answered was built from, by
exact tag, npm's gitHead or date, read from a real git repository used as a mirror, stored and
written as a manifest that loads."""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest
from package_hosts import serve

from pipeline.cli.main import main
from pipeline.fetch.mirror_history import MirrorHistory
from pipeline.manifest import manifests
from pipeline.runtime.built_from import BY_DATE, EXACT_TAG, METADATA, Release, built_from, tag_names
from pipeline.runtime.ingest import OK, Capture
from pipeline.store.runtime import PackageRun, install, record_capture, set_server_repo

DAY = 86400


def git(repo: Path, *args: str, when: int | None = None) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo)}
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"@{when} +0000"
    return subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


def commit(repo: Path, path: str, day: int) -> str:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(f"changed on day {day}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", f"day {day}", when=1_735_689_600 + day * DAY)  # 2025-01-01 + day
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def mirrors(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """DIR/acme/tools: a monorepo whose notes server lives in servers/notes, with tags of three kinds."""
    repo = tmp_path / "mirrors" / "acme" / "tools"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    made = {"notes-1": commit(repo, "servers/notes/a.ts", 1), "other-5": commit(repo, "servers/other/a.ts", 5),
            "notes-9": commit(repo, "servers/notes/a.ts", 9), "notes-20": commit(repo, "servers/notes/a.ts", 20)}
    git(repo, "tag", "v1.0.0", made["notes-1"])
    git(repo, "tag", "-a", "-m", "release", "@acme/notes@2.0.0", made["notes-9"], when=1_735_689_600 + 9 * DAY)
    return tmp_path / "mirrors", made


def release(version: str, day: float, *, head: str | None = None, package: str = "@acme/notes") -> Release:
    return Release("io.github.acme/notes", "npm", package, version,
                   datetime.fromtimestamp(1_735_689_600 + day * DAY, UTC), "acme/tools", "servers/notes", head)


def test_tag_names_put_the_packages_own_first() -> None:
    assert tag_names("@acme/notes", "2.0.0")[:2] == ["@acme/notes@2.0.0", "@acme/notes-v2.0.0"]
    assert tag_names("acme_notes", "1.2")[-3:] == ["v1.2", "1.2", "v.1.2"]
    assert "acme-notes-v1.2" in tag_names("acme_notes", "1.2")  # PyPI names with - and _ alike


def test_each_rule_in_order(mirrors: tuple[Path, dict[str, str]]) -> None:
    folder, made = mirrors
    history = MirrorHistory(folder / "acme" / "tools")
    tagged = built_from(release("2.0.0", 9.5), history)  # an annotated tag, peeled to its commit
    assert (tagged.rule, tagged.ref, tagged.commit, tagged.days_apart) == (EXACT_TAG, "@acme/notes@2.0.0",
                                                                           made["notes-9"], 0.5)
    assert built_from(release("1.0.0", 3), history).ref == "v1.0.0"
    named = built_from(release("3.0.0", 30, head=made["other-5"].upper()), history)
    assert (named.rule, named.commit) == (METADATA, made["other-5"])
    dated = built_from(release("3.0.0", 12, head="f" * 40), history)  # a gitHead the repository lacks
    assert (dated.rule, dated.commit, dated.days_apart) == (BY_DATE, made["notes-9"], 3.0)
    assert built_from(release("0.1.0", 0.5), history).reason.startswith("no tag names 0.1.0")


def test_the_command_writes_a_pinned_manifest_and_stores_every_row(tmp_path: Path, mirrors: tuple[Path, dict[str, str]],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    folder, made = mirrors
    db = tmp_path / "census.duckdb"
    with serve() as hosts:
        hosts.add_npm("@acme/notes", "4.0.0", {}, released="2025-01-21T00:00:00.000Z")
        hosts.npm["@acme/notes"]["versions"]["4.0.0"]["gitHead"] = made["notes-1"]
        with duckdb.connect(str(db)) as con:
            install(con)
            for server, package, version, day in (("io.github.acme/notes", "@acme/notes", "4.0.0", 20),
                                                  ("io.github.acme/other", "acme-other", "0.3.0", 6),
                                                  ("io.github.zed/gone", "zed", "1.0.0", 6)):
                when = datetime.fromtimestamp(1_735_689_600 + day * DAY, UTC)
                capture = Capture(server, when, OK, None, "stdio", package, ({"tools": []},))
                record_capture(con, capture, PackageRun("npm", package, version, version, when, ""))
                set_server_repo(con, server, "zed/gone" if server.startswith("io.github.zed") else "acme/tools",
                                "servers/notes" if server.endswith("notes") else None)
        out = tmp_path / "built.toml"
        monkeypatch.setenv("CENSUS_NPM_REGISTRY", hosts.npm_registry)
        main(["discover", "--from-captures", "--db", str(db), "--mirrors", str(folder), "--out", str(out)])
    manifest = manifests.load(out)
    (entry,) = manifest.repos  # one commit per repository: gitHead beats a date
    assert (entry.repo, entry.commit, entry.servers) == ("acme/tools", made["notes-1"], ("io.github.acme/notes",))
    assert entry.note is not None
    assert entry.note.startswith("metadata: @acme/notes@4.0.0")
    text = out.read_text()
    assert "io.github.acme/other (acme-other@0.3.0): by-date" in text  # left out, with why
    assert f"no mirror of zed/gone under {folder}" in text
    with duckdb.connect(str(db), read_only=True) as con:
        rows = dict(con.execute("SELECT server, coalesce(rule, reason) FROM runtime_built_from").fetchall())
    assert rows == {"io.github.acme/notes": METADATA, "io.github.acme/other": BY_DATE,
                    "io.github.zed/gone": f"no mirror of zed/gone under {folder}"}


def test_without_mirrors_it_says_what_to_give(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["discover", "--from-captures", "--out", str(tmp_path / "m.toml")])
    assert exited.value.code == 2
    assert "--mirrors DIR" in capsys.readouterr().err
