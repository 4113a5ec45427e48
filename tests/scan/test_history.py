"""``pipeline.scan.history``: term counts at every commit of a synthetic git history, equal to a fresh
count of each commit's tree, with each blob read once."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from pipeline.scan import history
from pipeline.scan.count import TermCounter

TERMS = ("readOnlyHint", "destructiveHint")
ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@example.invalid"}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=ENV).stdout.strip()


def commit(repo: Path, message: str, when: int) -> str:
    git(repo, "add", "-A")
    stamp = f"{when} +0000"
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "--allow-empty", "-m", message], check=True,
                   env={**ENV, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    return git(repo, "rev-parse", "HEAD")


def fresh(repo: Path, sha: str) -> tuple[int, ...]:
    """The totals of ``sha`` counted from scratch: every regular file of its tree."""
    counter, totals = TermCounter(TERMS), [0] * len(TERMS)
    for line in git(repo, "ls-tree", "-r", sha).splitlines():
        mode, _, blob = line.split("\t")[0].split()
        if mode in ("100644", "100755"):
            data = subprocess.run(["git", "-C", str(repo), "cat-file", "blob", blob], check=True,
                                  capture_output=True).stdout
            totals = [t + c for t, c in zip(totals, counter.count_bytes(data), strict=True)]
    return tuple(totals)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "r"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    return path


def test_a_history_with_renames_deletions_merges_and_files_left_out(repo: Path) -> None:
    (repo / "a.py").write_text("readOnlyHint = True\nREADONLYHINT\n")
    first = commit(repo, "one", 1_700_000_000)
    os.rename(repo / "a.py", repo / "b.py")  # a rename: the same blob, counted once
    (repo / "logo.bin").write_bytes(b"\x00\xffdestructiveHint\x00")
    (repo / "link.py").symlink_to("b.py")  # a symlink is not counted
    second = commit(repo, "two", 1_700_000_100)
    git(repo, "checkout", "-q", "-b", "side")
    (repo / "c.py").write_text("destructiveHint destructiveHint\n")
    side = commit(repo, "side", 1_700_000_200)
    git(repo, "checkout", "-q", "main")
    (repo / "b.py").unlink()  # deleted on main ...
    third = commit(repo, "three", 1_700_000_300)
    git(repo, "merge", "-q", "--no-ff", "-m", "merge", "side")
    merged = git(repo, "rev-parse", "HEAD")
    (repo / "b.py").write_text("readOnlyHint = True\nREADONLYHINT\n")  # ... and restored: the blob is known
    restored = commit(repo, "restored", 1_700_000_500)

    walked = list(history.walk(repo, TERMS))
    assert next(c.commit for c in walked) == first
    assert walked[-1].commit == restored
    for c in walked:
        assert c.totals == fresh(repo, c.commit), c.commit
    by_sha = {c.commit: c for c in walked}
    assert by_sha[first].totals == (2, 0)
    assert by_sha[second].totals == (2, 1)  # the binary file counts, the symlink does not
    assert by_sha[second].moved == (("a.py", (-2, 0)), ("b.py", (2, 0)), ("logo.bin", (0, 1)))  # a rename: out, in
    assert by_sha[third].totals == (0, 1)
    assert by_sha[merged].parent == third  # the first parent
    assert by_sha[merged].totals == (0, 3)
    assert side in by_sha
    first_parent = [c.commit for c in history.walk(repo, TERMS, first_parent=True)]
    assert side not in first_parent
    assert first_parent[-2:] == [merged, restored]


def test_a_range_that_starts_past_the_root_counts_its_first_parent_once(repo: Path) -> None:
    (repo / "a.py").write_text("readOnlyHint\n")
    commit(repo, "old", 1_600_000_000)
    (repo / "b.py").write_text("readOnlyHint destructiveHint\n")
    late = commit(repo, "new", 1_700_000_000)
    [only] = list(history.walk(repo, TERMS, since="2023-01-01"))
    assert (only.commit, only.totals) == (late, (2, 1))
    assert only.committed_at_utc.year == 2023


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_walk_equals_a_fresh_count_of_every_commit_on_random_histories(repo: Path, seed: int) -> None:
    rng = random.Random(seed)
    words = ["readOnlyHint", "destructivehint", "READONLYHINT", "x", "\n"]
    for step in range(12):
        for _ in range(rng.randint(1, 3)):
            name = repo / f"f{rng.randint(0, 5)}.txt"
            if name.exists() and rng.random() < 0.3:
                name.unlink()
            else:
                name.write_text(" ".join(rng.choice(words) for _ in range(rng.randint(0, 8))))
        commit(repo, f"c{step}", 1_700_000_000 + step)
    for c in history.walk(repo, TERMS):
        assert c.totals == fresh(repo, c.commit)


def test_matches_are_the_runs_of_commits_with_the_figures(repo: Path) -> None:
    shas = []
    for step, text in enumerate(["readOnlyHint", "readOnlyHint x", "readOnlyHint readOnlyHint", "readOnlyHint"]):
        (repo / "a.py").write_text(text)
        shas.append(commit(repo, f"c{step}", 1_700_000_000 + step))
    walked = list(history.walk(repo, TERMS))
    runs = history.matches(walked, TERMS, {"readOnlyHint": 1})
    assert [(r.first.commit, r.last.commit, r.commits) for r in runs] == [(shas[0], shas[1], 2), (shas[3], shas[3], 1)]
    assert history.matches(walked, TERMS, {"readOnlyHint": 5}) == []


def census(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pipeline", *args], check=False, capture_output=True, text=True)


def test_the_command_prints_change_points_matches_and_stores_only_new_commits(repo: Path, tmp_path: Path) -> None:
    shas = []
    for step, text in enumerate(["x", "readOnlyHint", "readOnlyHint readOnlyHint", "readOnlyHint"]):
        (repo / "a.py").write_text(text)
        shas.append(commit(repo, f"c{step}", 1_700_000_000 + 86_400 * step))
    db = tmp_path / "h.duckdb"
    base = ["history", "acme/notes", "--source", str(repo), "--db", str(db), "--terms", "readOnlyHint"]
    done = census(*base, "--match", "readOnlyHint=1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("acme/notes: 4 commits from 2023-11-14 to 2023-11-17 (4 walked now")
    assert f"2023-11-15  {shas[1][:12]}  readOnlyHint 0 -> 1  (a.py +1)" in lines
    assert f"2023-11-16  {shas[2][:12]}  readOnlyHint 1 -> 2  (a.py +1)" in lines
    assert f"readOnlyHint=1: matched at {shas[1][:12]}..{shas[1][:12]} (2023-11-15 .. 2023-11-15), 1 commits" in lines
    assert f"readOnlyHint=1: matched at {shas[3][:12]}..{shas[3][:12]} (2023-11-17 .. 2023-11-17), 1 commits" in lines

    (repo / "b.py").write_text("readOnlyHint")
    newest = commit(repo, "c4", 1_700_000_000 + 86_400 * 4)
    again = census(*base, "--match", "readOnlyHint=9", "--json")
    assert again.returncode == 0, again.stderr
    found = json.loads(again.stdout)
    assert [c["totals"]["readOnlyHint"] for c in found["commits"]] == [0, 1, 2, 1, 2]
    assert found["commits"][-1]["commit"] == newest
    assert found["matches"] == []
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM history").fetchone() == (5,)  # one new commit added, none again
    text = census(*base, "--match", "readOnlyHint=9").stdout
    assert "readOnlyHint=9: no commit in this range gives these figures" in text
    assert f"  nearest by readOnlyHint: 2 at {newest[:12]} (2023-11-18)" in text  # the newest of the nearest


def test_bad_figures_are_a_usage_error(repo: Path, tmp_path: Path) -> None:
    (repo / "a.py").write_text("x")
    commit(repo, "c", 1_700_000_000)
    done = census("history", "acme/notes", "--source", str(repo), "--db", str(tmp_path / "h.duckdb"),
                  "--terms", "readOnlyHint", "--match", "title=3")
    assert done.returncode == 2
    assert "argument --match: 'title=3': give TERM=N with TERM one of readOnlyHint" in done.stderr


def partial_clone(repo: Path, tmp_path: Path) -> Path:
    """A bare clone of ``repo`` without its blobs over 1 KiB (small.py and big.py, one commit)."""
    (repo / "small.py").write_text("readOnlyHint")
    (repo / "big.py").write_text("readOnlyHint " * 2000)
    commit(repo, "c", 1_700_000_000)
    git(repo, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "partial"
    subprocess.run(["git", "clone", "-q", "--bare", "--filter=blob:limit=1k", f"file://{repo}", str(clone)],
                   check=True, env=ENV)
    return clone


def test_a_partial_clone_counts_a_missing_blob_as_nothing_and_says_so(repo: Path, tmp_path: Path) -> None:
    [only] = list(history.walk(partial_clone(repo, tmp_path), TERMS))
    assert only.totals == (1, 0)
    assert only.missing == ("big.py",)


def test_one_commit_counted_whole_equals_the_walk_and_a_term_across_chunks_counts_once(repo: Path) -> None:
    from pipeline.archive.tarball import CHUNK_BYTES

    (repo / "big.txt").write_bytes(b"x" * (CHUNK_BYTES - 5) + b"readOnlyHint" + b"x" * 10)
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},vendor/sub")  # a submodule: left out
    sha = commit(repo, "c", 1_700_000_000)
    [only] = list(history.walk(repo, TERMS))
    assert only.totals == history.tree_totals(repo, sha, TERMS) == fresh(repo, sha) == (1, 0)


def test_the_command_says_which_blobs_a_partial_clone_lacks(repo: Path, tmp_path: Path) -> None:
    clone = partial_clone(repo, tmp_path)
    done = census("history", "acme/notes", "--source", str(clone), "--db", str(tmp_path / "h.duckdb"))
    assert done.returncode == 0, done.stderr
    assert "note: 1 files' blobs are missing from this clone and count as nothing: big.py" in done.stdout


def test_a_manifest_s_published_figures_are_checked_over_each_history(tmp_path: Path) -> None:
    sources = tmp_path / "clones"
    for name, texts in {"matches": ["x", "annotations", "annotations annotations"], "never": ["x", "x"]}.items():
        clone = sources / "acme" / name
        clone.mkdir(parents=True)
        git(clone, "init", "-q", "-b", "main")
        for step, text in enumerate(texts):
            (clone / "a.py").write_text(text)
            commit(clone, f"c{step}", 1_700_000_000 + 86_400 * step)
    entries = "".join(f'[[repos]]\nrepo = "acme/{name}"\ncommit = "{"a" * 40}"\n'
                      f"published = {{ annotations = {figure} }}\n\n"
                      for name, figure in (("matches", 1), ("never", 4), ("absent", 2)))
    manifest = tmp_path / "m.toml"
    manifest.write_text('[census]\nname = "pub"\nterms = "published"\n\n' + entries)
    db = tmp_path / "h.duckdb"
    done = census("history", "--manifest", str(manifest), "--source-dir", str(sources), "--db", str(db))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("acme/matches annotations=1: matched at ") and "(2023-11-15 .. 2023-11-15, 1 commits)"
               in line for line in lines)
    assert any(line.startswith("acme/never annotations=4: matched by no commit from 2023-11-14 to 2023-11-15 "
                               "(nearest: 0 at ") for line in lines)
    assert f"acme/absent: no clone under {sources}: not checked" in lines
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT repo, term, figure, first IS NULL, commits FROM history_matches"
                           " ORDER BY repo").fetchall()
    assert rows == [("acme/matches", "annotations", 1, False, 1), ("acme/never", "annotations", 4, True, 0)]
    bad = census("history", "acme/x", "--manifest", str(manifest), "--source-dir", str(sources), "--db", str(db))
    assert bad.returncode == 2
    assert "give --manifest FILE with --source-dir DIR, or OWNER/NAME with --source GITDIR" in bad.stderr


def test_the_report_draws_each_published_tree_over_its_history(tmp_path: Path) -> None:
    from pipeline.analysis import stats
    from pipeline.manifest.manifests import load
    from pipeline.report import census as report
    from pipeline.run.census import Census
    from pipeline.settings import Settings
    from pipeline.store.database import Store

    clone = tmp_path / "clones" / "acme" / "notes"
    clone.mkdir(parents=True)
    git(clone, "init", "-q", "-b", "main")
    shas = []
    for step, text in enumerate(["x", "annotations", "annotations annotations"]):
        (clone / "a.py").write_text(text)
        shas.append(commit(clone, f"c{step}", 1_700_000_000 + 86_400 * step))
    manifest = tmp_path / "m.toml"
    manifest.write_text(f'[census]\nname = "pub"\nterms = "published"\n\n[[repos]]\nrepo = "acme/notes"\n'
                        f'commit = "{shas[1]}"\nsource = "clones/acme/notes"\npublished = {{ annotations = 2 }}\n')
    settings = Settings(db_path=tmp_path / "c.duckdb", cache_dir=tmp_path / "cache", api_url="http://127.0.0.1:9")
    census_run = Census(load(manifest), settings)
    with Store(settings.db_path) as store:
        assert [o.status for o in census_run.run(store)] == ["scanned"]
    census_run.close()
    done = census("history", "--manifest", str(manifest), "--source-dir", str(tmp_path / "clones"),
                  "--db", str(settings.db_path))
    assert done.returncode == 0, done.stderr
    con = stats.connect(settings.db_path)
    series = stats.history_series(con, "pub")
    assert series.select("commit", "term", "count", "published", "pinned").rows() == [
        (shas[0], "annotations", 0, 2, False), (shas[1], "annotations", 1, 2, True),
        (shas[2], "annotations", 2, 2, False)]
    report.write(report.collect(con, "pub"), tmp_path / "out")
    con.close()
    text = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert "### Over time" in text
    run = f"{shas[2][:12]}..{shas[2][:12]} (2023-11-16 .. 2023-11-16, 1 commits)"
    assert f"- acme/notes annotations=2: matched at {run}" in text
    assert "(history.png)" in text
    assert (tmp_path / "out" / "history.png").read_bytes().startswith(b"\x89PNG")
