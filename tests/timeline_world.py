"""Four small synthetic histories for ``census timeline``, under a mirrors folder, each commit dated:

- ``acme/late`` is born mid-range (February 2025) with annotated tools;
- ``acme/hints`` serves a tool without hints from November 2024, names readOnlyHint in its README in
  January 2025 (a byte count, no tool), and annotates its tools in March 2025;
- ``acme/still`` is unchanged for months: one tree from October 2024, an empty commit in February
  2025 (a new commit, the same tree), pinned there while its branch moved on in June;
- ``acme/merged`` merges a branch in February 2025 whose commits are dated December and January: the
  first-parent line sees them only from the merge on.

Nothing here comes from another repository: every tree is written here (``synth``'s servers).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from synth import FASTMCP_SERVER, GO_SERVER, SILENT_SERVER, git_env

from pipeline.manifest.manifests import load
from pipeline.run.timeline import Timeline, Window
from pipeline.settings import Settings
from pipeline.store.database import Store

REPOS = ("acme/late", "acme/hints", "acme/still", "acme/merged")
SINCE, UNTIL = "2024-11", "2025-06"
README_HINT = b"# hints\n\nPlanned: readOnlyHint on every read tool.\n"
GO_MOD = b"module example.com/s\n\nrequire github.com/modelcontextprotocol/go-sdk v0.2.0\n"


@dataclass(frozen=True)
class TimelineWorld:
    """The mirrors, the manifest over them, and the database a timeline of it was stored in."""

    mirrors: Path
    manifest: Path
    db: Path


def commit(repo: Path, when: str, files: dict[str, bytes] | None = None, message: str = "change") -> str:
    """Write ``files`` into ``repo`` and commit them (none: an empty commit) dated ``when`` (ISO, UTC)."""
    for name, content in (files or {}).items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_bytes(content)
    git(repo, when, "add", "-A")
    git(repo, when, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, when, "rev-parse", "HEAD").strip()


def git(repo: Path, when: str, *args: str) -> str:
    """``git -C repo args`` with both dates set to ``when`` and a test identity."""
    env = {**git_env(), "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-C", str(repo), *args],
                          capture_output=True, check=True, env=env)
    return done.stdout.decode()


def init(repo: Path) -> Path:
    """An empty repository at ``repo``, its branch ``main``."""
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=git_env())
    return repo


def histories(mirrors: Path) -> dict[str, str]:
    """The four histories under ``mirrors`` (``DIR/OWNER/NAME``); the commit each manifest entry pins."""
    late = init(mirrors / "acme" / "late")
    commit(late, "2025-02-14T09:00:00Z", {"server.py": FASTMCP_SERVER}, "born")
    commit(late, "2025-04-02T09:00:00Z", {"README.md": b"# late\n"})
    hints = init(mirrors / "acme" / "hints")
    commit(hints, "2024-11-05T09:00:00Z", {"server.py": SILENT_SERVER})
    commit(hints, "2025-01-07T09:00:00Z", {"README.md": README_HINT})
    commit(hints, "2025-03-10T09:00:00Z", {"server.py": FASTMCP_SERVER}, "annotate")
    still = init(mirrors / "acme" / "still")
    commit(still, "2024-10-01T09:00:00Z", {"main.go": GO_SERVER, "go.mod": GO_MOD})
    pinned = commit(still, "2025-02-20T09:00:00Z", message="an empty commit: the same tree")
    commit(still, "2025-06-03T09:00:00Z", {"README.md": b"# after the pin\n"})
    merged = init(mirrors / "acme" / "merged")
    commit(merged, "2024-11-10T09:00:00Z", {"server.py": SILENT_SERVER})
    git(merged, "2024-12-05T09:00:00Z", "checkout", "-q", "-b", "feature")
    commit(merged, "2024-12-05T09:00:00Z", {"main.go": GO_SERVER, "go.mod": GO_MOD}, "go server")
    commit(merged, "2025-01-20T09:00:00Z", {"docs/go.md": b"readOnlyHint\n"}, "docs")
    git(merged, "2025-01-10T09:00:00Z", "checkout", "-q", "main")
    commit(merged, "2025-01-10T09:00:00Z", {"README.md": b"# merged\n"})
    git(merged, "2025-02-05T09:00:00Z", "merge", "-q", "--no-ff", "-m", "merge feature", "feature")
    return {"acme/still": pinned}


def write_manifest(path: Path, name: str, pins: dict[str, str]) -> Path:
    """A manifest of ``REPOS`` named ``name`` (``pins``: the commits some entries pin), and one entry no
    mirror holds."""
    entries = "".join(f'[[repos]]\nrepo = "{repo}"\n' + (f'commit = "{pins[repo]}"\n' if repo in pins else "") + "\n"
                      for repo in (*REPOS, "acme/elsewhere"))
    path.write_text(f'[census]\nname = "{name}"\nterms = "published"\n\n{entries}', encoding="utf-8")
    return path


def timeline_census(root: Path, name: str = "timeline", db: Path | None = None) -> TimelineWorld:
    """The histories, a manifest named ``name`` over them, and its monthly timeline from ``SINCE`` to
    ``UNTIL`` stored into ``db`` (default ``root/timeline.duckdb``), in this process."""
    mirrors = root / "mirrors"
    manifest = write_manifest(root / f"{name}.toml", name, histories(mirrors))
    db = db or root / "timeline.duckdb"
    timeline = Timeline(load(manifest), Settings(db_path=db, mirrors_dir=mirrors, offline=True),
                        Window("month", SINCE, UNTIL))  # offline: the repository with no mirror fetches nothing
    try:
        with Store(db) as store:
            outcomes = list(timeline.run(store))
    finally:
        timeline.close()
    assert sorted(o.status for o in outcomes) == ["no-mirror", *["walked"] * 4], outcomes
    return TimelineWorld(mirrors, manifest, db)


def census_env() -> dict[str, str]:
    """The environment for a ``census`` subprocess: this one's, less every census and GitHub setting."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "CENSUS_"))}
