"""``census timeline`` over four synthetic histories (``timeline_world``): every period's commit is the one
``git rev-list -1 --first-parent --before=END`` names, every period's rows are what a fresh ``census
count`` of that commit finds, a repository is absent before its first commit, an unchanged tree is
reused, a rerun scans nothing, and a ``kill -9`` loses nothing."""

from __future__ import annotations

import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
from functools import cache
from pathlib import Path
from typing import Any

import duckdb
import pytest
from timeline_world import REPOS, SINCE, UNTIL, TimelineWorld, census_env, git, timeline_census

from pipeline.manifest.manifests import load
from pipeline.run.inputs import CountReport, count_paths, entries_of
from pipeline.run.periods import git_date, periods
from pipeline.run.timeline import Timeline, Window
from pipeline.scan.detect import Detector
from pipeline.scan.detect.model import HINT_FIELDS
from pipeline.scan.tree import scan_tree
from pipeline.settings import Settings
from pipeline.store.database import Store

TERMS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "annotations")
PERIODS = periods("month", SINCE, UNTIL)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> TimelineWorld:
    """The histories and their monthly timeline, stored once for the module (read only)."""
    return timeline_census(tmp_path_factory.mktemp("timeline"))


def rows(db: Path, query: str, *params: object) -> list[tuple[Any, ...]]:
    """The rows of ``query`` in ``db``, opened read-only."""
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(query, list(params)).fetchall()


def stored_periods(world: TimelineWorld) -> dict[tuple[str, str], tuple[str, str, str, str]]:
    """(repo, period) -> (commit, tree, status, rows_from)."""
    return {(repo, period): (commit, tree, status, rows_from) for repo, period, commit, tree, status, rows_from in
            rows(world.db, "SELECT repo, period, commit, tree, status, rows_from FROM timeline_periods")}


def test_every_period_is_the_commit_git_rev_list_names(world: TimelineWorld) -> None:
    stored = stored_periods(world)
    pins = {e.repo: e.commit for e in load(world.manifest).repos}
    for repo in REPOS:
        clone = world.mirrors / repo
        for period in PERIODS:
            named = git(clone, "2025-01-01T00:00:00Z", "rev-list", "-1", "--first-parent",
                        f"--before={git_date(period.end_utc)}", pins[repo] or "HEAD").strip()
            assert stored.get((repo, period.label), ("",))[0] == named, (repo, period.label)


def test_a_repository_is_absent_before_its_first_commit(world: TimelineWorld) -> None:
    late = sorted(period for repo, period in stored_periods(world) if repo == "acme/late")
    assert late == ["2025-02", "2025-03", "2025-04", "2025-05", "2025-06"]
    adoption = rows(world.db, "SELECT period, count(*) FROM timeline_periods GROUP BY period ORDER BY period")
    assert adoption[0] == ("2024-11", 3)  # late is not counted as a zero: it is not there
    assert rows(world.db, "SELECT status, count(*) FROM timeline_repos GROUP BY status ORDER BY status") == [
        ("no-mirror", 1), ("walked", 4)]


def test_an_unchanged_tree_is_reused_and_scanned_once(world: TimelineWorld) -> None:
    stored = stored_periods(world)
    for repo in REPOS:
        seen: set[str] = set()
        for period in PERIODS:
            if (repo, period.label) not in stored:
                continue
            commit, tree, status, rows_from = stored[(repo, period.label)]
            assert status == ("reused" if tree in seen else "scanned"), (repo, period.label)
            assert status == "reused" or rows_from == commit
            seen.add(tree)
    still = [stored[("acme/still", p.label)] for p in PERIODS]
    assert {tree for _, tree, _, _ in still} == {still[0][1]}  # one tree, though February holds a new commit
    assert still[2][0] != still[3][0]  # February: the empty commit, a new commit with the same tree
    assert still[3][2] == "reused"
    assert still[-1][0] == still[3][0]  # pinned in February: June's commit after the pin is not read
    scans = rows(world.db, "SELECT repo, count(*) FROM timeline_scans GROUP BY repo ORDER BY repo")
    assert scans == [("acme/hints", 3), ("acme/late", 2), ("acme/merged", 3), ("acme/still", 1)]


def test_a_merge_is_read_from_the_merge_on(world: TimelineWorld) -> None:
    go_tools = dict(rows(world.db, """
        SELECT p.period, count(t.sdk) FROM timeline_periods p
        LEFT JOIN timeline_tools t ON t.repo = p.repo AND t.commit = p.rows_from AND t.sdk = 'go-official'
        WHERE p.repo = 'acme/merged' GROUP BY p.period"""))
    assert [go_tools[p.label] for p in PERIODS] == [0, 0, 0, 1, 1, 1, 1, 1]  # the branch's December commit: not yet


def _tree(clone: Path, commit: str, folder: Path) -> Path:
    """``commit``'s files, as ``git archive`` gives them, in ``folder``."""
    data = subprocess.run(["git", "-C", str(clone), "archive", "--format=tar", commit], capture_output=True,
                          check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        archive.extractall(folder, filter="data")
    return folder


def test_every_period_holds_what_a_fresh_census_count_of_its_commit_finds(world: TimelineWorld,
                                                                          tmp_path: Path) -> None:
    fresh: dict[tuple[str, str], tuple[Path, CountReport]] = {}
    for (repo, period), (commit, _, _, rows_from) in sorted(stored_periods(world).items()):
        if (repo, commit) not in fresh:  # the period's own commit, counted afresh as `census count` counts
            folder = _tree(world.mirrors / repo, commit, tmp_path / repo / commit)
            fresh[(repo, commit)] = folder, count_paths([folder], TERMS, detect=True)
        folder, counted = fresh[(repo, commit)]
        counts = rows(world.db, "SELECT path, term, count FROM timeline_term_counts WHERE repo = ? AND commit = ?",
                      repo, rows_from)
        assert {f"{folder}:{path}" for path, _, _ in counts} == set(counted.per_file), (repo, period)
        for path, term, count in counts:
            assert counted.per_file[f"{folder}:{path}"][term] == count, (repo, period, path, term)
        by_role = rows(world.db, """SELECT count(*) FILTER (WHERE is_mcp AND role = 'server'),
                       count(*) FILTER (WHERE is_mcp AND role = 'server' AND annotations_source <> 'none')
                       FROM timeline_tools WHERE repo = ? AND commit = ?""", repo, rows_from)[0]
        assert counted.tools is not None
        assert by_role == (counted.tools["server_tools"], counted.tools["annotated_server_tools"]), (repo, period)
        tools = rows(world.db, f"""SELECT path, line, sdk, tool_name, role, annotations_source, {', '.join(HINT_FIELDS)}
                     FROM timeline_tools WHERE repo = ? AND commit = ? ORDER BY path, line""", repo, rows_from)
        assert tools == _tool_rows(folder), (repo, period)
    assert len(fresh) == 10  # the periods' distinct commits: 9 trees, and acme/still's empty commit


@cache
def _tool_rows(folder: Path) -> list[tuple[Any, ...]]:
    """Every tool of ``folder`` with its role and hints, from the same scan pass ``census count --detect`` runs."""
    scan = scan_tree(entries_of(folder), TERMS, Detector())
    assert scan.detection is not None
    return sorted((t.path, t.line, t.sdk, t.tool_name, t.role, t.annotations.source,
                   *(getattr(t.annotations, h) for h in HINT_FIELDS)) for t in scan.detection.tools)


def _tables(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every timeline table, rows sorted, without the times scans were made."""
    with duckdb.connect(str(db), read_only=True) as con:
        names = [n for (n,) in con.execute("SELECT table_name FROM information_schema.tables WHERE table_name "
                                           "LIKE 'timeline_%' ORDER BY 1").fetchall()]
        return {name: sorted(con.execute(f"SELECT * {'EXCLUDE (scanned_at_utc)' if name == 'timeline_scans' else ''}"
                                         f" FROM {name}").fetchall(), key=repr) for name in names}


def test_a_rerun_scans_nothing_and_changes_nothing(world: TimelineWorld, tmp_path: Path) -> None:
    db = tmp_path / "again.duckdb"
    shutil.copy2(world.db, db)
    timeline = Timeline(load(world.manifest), Settings(db_path=db, mirrors_dir=world.mirrors, offline=True),
                        Window("month", SINCE, UNTIL))
    with Store(db) as store:
        outcomes = list(timeline.run(store))
    timeline.close()

    assert sum(o.scans_run for o in outcomes) == 0
    assert sum(o.reused for o in outcomes) == 20
    assert _tables(db) == _tables(world.db)


def test_kill_9_then_rerun_gives_the_same_tables(world: TimelineWorld, tmp_path: Path) -> None:
    db = tmp_path / "killed.duckdb"
    command = [sys.executable, "-m", "pipeline", "timeline", str(world.manifest), "--mirrors", str(world.mirrors),
               "--since", SINCE, "--until", UNTIL, "--jobs", "2", "--db", str(db), "--offline"]
    child = subprocess.Popen(command, env=census_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    assert child.stderr is not None
    for line in child.stderr:  # the first repository whose periods are stored: kill everything now
        if ": walked: " in line:
            break
    os.killpg(child.pid, signal.SIGKILL)
    child.wait(timeout=60)
    child.stderr.close()

    command[command.index("--jobs") + 1] = "1"  # the rest, in this process
    again = subprocess.run(command, env=census_env(), capture_output=True, text=True, timeout=300, check=False)

    assert again.returncode == 0, again.stderr
    assert "4 of 5 repositories walked (1 with no mirror, 0 not readable); 29 repository-periods: 9 scanned, " \
           "20 reused" in again.stdout
    scanned_now = re.search(r"; (\d+) trees scanned now", again.stdout)
    assert scanned_now is not None
    assert int(scanned_now.group(1)) < 9  # the first repository's trees were kept through the kill
    assert _tables(db) == _tables(world.db)
