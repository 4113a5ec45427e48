"""``pipeline.scan.history.walk`` in one ``git log --raw`` pass (issue 38): every commit's totals, moves and
missing files equal a reference made the slow way, one commit at a time: a fresh count of its whole tree and
its own ``git diff-tree`` against its first parent, over histories with what a one-pass walk could get wrong."""

from __future__ import annotations

import itertools
import os
import subprocess
import threading
from pathlib import Path

import pytest
import synth
from test_history import TERMS, commit, git

from pipeline.errors import SourceError
from pipeline.scan import history
from pipeline.scan.count import TermCounter

Row = tuple[str, str | None, tuple[int, ...], tuple[tuple[str, tuple[int, ...]], ...], tuple[str, ...]]


def lacking(repo: Path) -> set[str]:
    """The objects a (partial) clone lacks, found without asking git to fetch them."""
    listed = subprocess.run(["git", "-C", str(repo), "rev-list", "--objects", "--all", "--missing=print"],
                            check=True, capture_output=True).stdout
    return {line[1:].decode() for line in listed.splitlines() if line.startswith(b"?")}


def counts_of(repo: Path, blob: str, absent: set[str]) -> tuple[int, ...] | None:
    if blob in absent:
        return None
    data = subprocess.run(["git", "-C", str(repo), "cat-file", "blob", blob], check=True, capture_output=True).stdout
    return tuple(TermCounter(TERMS).count_bytes(data))


def reference(repo: Path, **window: bool | str) -> list[Row]:
    """Each commit of the range (``history.commits``) counted alone: its whole tree, and its diff-tree."""
    absent, rows = lacking(repo), []
    zero = (0,) * len(TERMS)
    for sha, _, parents in history.commits(repo, **window):  # type: ignore[arg-type]
        totals = list(zero)
        tree = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "-z", sha], check=True, capture_output=True)
        for line in tree.stdout.decode("utf-8", "replace").split("\0"):
            meta = line.partition("\t")[0].split()
            if len(meta) == 3 and meta[0] in ("100644", "100755") and (found := counts_of(repo, meta[2], absent)):
                totals = [t + c for t, c in zip(totals, found, strict=True)]
        diff = subprocess.run(["git", "-C", str(repo), "diff-tree", "-r", "-z", "--no-renames", "--no-commit-id",
                               "--root", *parents[:1], sha], check=True, capture_output=True).stdout.split(b"\0")
        moved, missing = [], []
        for meta_bytes, raw in zip(diff[0::2], diff[1::2], strict=False):
            old_mode, new_mode, old, new, _ = meta_bytes.decode().lstrip(":").split()
            before = counts_of(repo, old, absent) if old_mode.startswith("100") else zero
            after = counts_of(repo, new, absent) if new_mode.startswith("100") else zero
            path = raw.decode("utf-8", "replace")
            if after is None:
                missing.append(path)
            change = tuple(a - b for a, b in zip(after or zero, before or zero, strict=True))
            if any(change):
                moved.append((path, change))
        rows.append((sha, parents[0] if parents else None, tuple(totals), tuple(moved), tuple(missing)))
    return rows


def walked(repo: Path, **window: bool | str) -> list[Row]:
    return [(c.commit, c.parent, c.totals, c.moved, c.missing)
            for c in history.walk(repo, TERMS, **window)]  # type: ignore[arg-type]


@pytest.fixture
def tangled(tmp_path: Path) -> Path:
    """Branches, merges (one with an empty first-parent diff), renames, a file turned into a symlink and
    back, a submodule, an executable bit, an empty commit, odd path names, a tag and an unmerged branch."""
    repo = tmp_path / "tangled"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "a.py").write_text("readOnlyHint destructiveHint\n")
    (repo / "c.py").write_text("READONLYHINT\n")
    (repo / ":colon.py").write_text("readOnlyHint\n")  # a path that looks like the start of an entry
    commit(repo, "root", 1_700_000_000)
    (repo / "dir").mkdir()
    os.rename(repo / "a.py", repo / "dir" / "a.py")
    (repo / "c.py").unlink()
    (repo / "c.py").symlink_to("dir/a.py")  # a regular file becomes a symlink: its counts leave
    (repo / "line\nbreak.py").write_text("destructiveHint\n")
    (repo / os.fsdecode(b"\xff-latin.py")).write_bytes(b"readonlyhint\x00\xff")
    commit(repo, "rename, symlink", 1_700_000_100)
    git(repo, "checkout", "-q", "-b", "side")
    (repo / "side.py").write_text("destructiveHint " * 3)
    os.chmod(repo / ":colon.py", 0o755)  # the executable bit: a mode change that moves nothing
    commit(repo, "side", 1_700_000_200)
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{'2' * 40},vendor/sub")  # a submodule
    commit(repo, "submodule", 1_700_000_250)
    git(repo, "tag", "v1")
    git(repo, "checkout", "-q", "main")
    (repo / "c.py").unlink()
    (repo / "c.py").write_text("READONLYHINT readOnlyHint\n")  # the symlink becomes a regular file again
    commit(repo, "back to a file", 1_700_000_300)
    commit(repo, "empty", 1_700_000_350)
    git(repo, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    git(repo, "merge", "-q", "-s", "ours", "-m", "nothing new", "v1")  # a first-parent diff with no entries
    git(repo, "checkout", "-q", "-b", "unmerged", "v1")
    (repo / "side.py").write_text("readOnlyHint")
    commit(repo, "unmerged", 1_700_000_400)
    git(repo, "checkout", "-q", "main")
    (repo / "dir" / "a.py").write_text("readOnlyHint destructiveHint\n")  # a blob met before, in a new commit
    commit(repo, "restore", 1_700_000_500)
    return repo


@pytest.mark.parametrize("window", [{}, {"all_refs": True}, {"first_parent": True}, {"all_refs": True,
                                                                                   "first_parent": True},
                                    {"ref": "side"}])
def test_the_one_pass_walk_equals_each_commit_counted_alone(tangled: Path, window: dict[str, bool | str]) -> None:
    expected = reference(tangled, **window)
    assert walked(tangled, **window) == expected
    assert any(missing == () and moved for *_, moved, missing in expected)
    if window.get("all_refs"):
        assert {row[0] for row in expected} >= {git(tangled, "rev-parse", "unmerged", "v1").split("\n")[0]}


@pytest.mark.parametrize("promisor", [True, False])
def test_a_partial_clone_of_every_ref_counts_its_missing_blobs_as_nothing(tangled: Path, tmp_path: Path,
                                                                          promisor: bool) -> None:
    (tangled / "big.py").write_text("readOnlyHint " * 2000)
    commit(tangled, "big", 1_700_000_600)
    git(tangled, "checkout", "-q", "unmerged")
    (tangled / "big.py").write_text("destructiveHint " * 2000)
    commit(tangled, "big on a branch", 1_700_000_700)
    clone = synth.partial_clone(tangled, tmp_path / "partial")
    if not promisor:  # a mirror copied without its configuration: git cannot fetch, cat-file says "missing"
        git(clone, "config", "--unset", "remote.origin.promisor")
    assert len(lacking(clone)) == 2
    expected = reference(clone, all_refs=True)
    assert walked(clone, all_refs=True) == expected
    assert sum(1 for *_, missing in expected if missing == ("big.py",)) == 2
    assert len(lacking(clone)) == 2  # nothing was fetched


def test_a_rerun_and_a_range_past_the_root_walk_from_the_totals_they_are_given(tangled: Path) -> None:
    every = walked(tangled, all_refs=True)
    known = {sha: totals for sha, _, totals, _, _ in every[:5]}
    later = [(c.commit, c.parent, c.totals, c.moved, c.missing)
             for c in history.walk(tangled, TERMS, all_refs=True, known=known)]
    assert later == every[5:]
    since = walked(tangled, all_refs=True, since="@1700000150")  # two branches grow from one commit outside
    assert since == [row for row in every if row[0] in {s[0] for s in since}]
    assert len({row[1] for row in since} - {row[0] for row in since}) == 1


def test_a_walk_stopped_early_ends_its_thread(tangled: Path) -> None:
    walk = history.walk(tangled, TERMS, all_refs=True)
    assert len(list(itertools.islice(walk, 2))) == 2
    walk.close()
    assert not [t for t in threading.enumerate() if t.name == "history-feed"]


def test_a_history_git_cannot_read_is_a_source_error(tangled: Path) -> None:
    tree = git(tangled, "rev-parse", "HEAD~1^{tree}")
    (tangled / ".git" / "objects" / tree[:2] / tree[2:]).unlink()
    with pytest.raises(SourceError, match="git log failed"):
        list(history.walk(tangled, TERMS))
    assert not [t for t in threading.enumerate() if t.name == "history-feed"]
