"""Reading trees from real local git repositories: normal, bare, and partial clones."""

from __future__ import annotations

import gc
import os
import types
import warnings
from pathlib import Path

import pytest
import synth

from pipeline.archive import tarball as archive
from pipeline.archive.entries import Member, entries
from pipeline.archive.tarball import CHUNK_BYTES
from pipeline.errors import NotFoundError
from pipeline.fetch.gitrepo import GitRepo
from pipeline.fetch.source import GitRepoSource
from pipeline.scan.tree import TreeScan, scan_tree

PUBLISHED = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "annotations")

TREE: dict[str, bytes | tuple[str, str]] = {
    "README.md": b"Annotations: see server/main.py\n",
    "server/main.py": synth.FASTMCP_SERVER,
    "server/go/main.go": synth.GO_SERVER,
    "empty.txt": b"",
    "bin/blob.dat": b"\x00\xffREADONLYHINT\x00\x00\n\n",
    "link-to-main": ("symlink", "server/main.py"),
    "link-outside": ("symlink", "/etc/hostname"),
}


class Repos:
    """One normal repository with history, tags and a submodule entry, and a bare clone of it."""

    def __init__(self, base: Path) -> None:
        self.work = base / "work"
        self.first = synth.git_repo(self.work, {"old.txt": b"annotations"}, message="first")
        synth.git(self.work, "tag", "v1")
        synth.git(self.work, "rm", "-q", "old.txt")
        for name, content in TREE.items():
            target = self.work / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, tuple):
                os.symlink(content[1], target)
            else:
                target.write_bytes(content)
        self.submodule_commit = synth.fake_sha("some other repository")
        synth.git(self.work, "add", "-A")
        synth.git(self.work, "update-index", "--add", "--cacheinfo", f"160000,{self.submodule_commit},vendor/lib")
        synth.git(self.work, "commit", "-q", "-m", "second")
        self.second = synth.git(self.work, "rev-parse", "HEAD").strip()
        synth.git(self.work, "tag", "-a", "-m", "annotated", "v2")
        synth.git(self.work, "branch", "old", self.first)
        self.bare = base / "bare.git"
        synth.git(base, "clone", "-q", "--bare", str(self.work), str(self.bare))


@pytest.fixture(scope="module")
def repos(tmp_path_factory: pytest.TempPathFactory) -> Repos:
    return Repos(tmp_path_factory.mktemp("git"))


def read_all(repo: GitRepo, commit: str) -> list[tuple[Member, bytes | None]]:
    return [(m, None if chunks is None else b"".join(chunks)) for m, chunks in repo.members(commit)]


def files_of(tree: dict[str, bytes | tuple[str, str]]) -> dict[str, bytes]:
    return {path: content for path, content in tree.items() if isinstance(content, bytes)}


# --- resolve ---------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["work", "bare"])
def test_resolve(repos: Repos, which: str) -> None:
    repo = GitRepo(repos.work if which == "work" else repos.bare)
    assert repo.resolve(None) == repos.second
    assert repo.resolve("HEAD") == repos.second
    assert repo.resolve("main") == repos.second
    assert repo.resolve("old") == repos.first
    assert repo.resolve("v1") == repos.first  # lightweight tag
    assert repo.resolve("v2") == repos.second  # annotated tag, peeled to its commit
    assert repo.resolve(repos.first) == repos.first
    assert repo.resolve(repos.first[:10]) == repos.first


@pytest.mark.parametrize("which", ["work", "bare"])
@pytest.mark.parametrize("ref", ["no-such-branch", "v3", synth.fake_sha("never committed"), "HEAD~5"])
def test_unknown_ref(repos: Repos, which: str, ref: str) -> None:
    repo = GitRepo(repos.work if which == "work" else repos.bare)
    with pytest.raises(NotFoundError, match="not found"):
        repo.resolve(ref)


def test_a_blob_is_not_a_commit(repos: Repos) -> None:
    blob = synth.blob_sha(synth.FASTMCP_SERVER)
    assert synth.git(repos.work, "cat-file", "-t", blob).strip() == "blob"
    with pytest.raises(NotFoundError):
        GitRepo(repos.work).resolve(blob)


def test_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="not a git repository"):
        GitRepo(tmp_path).resolve(None)
    with pytest.raises(NotFoundError):
        GitRepo(tmp_path / "absent").resolve("main")


def test_check_commit(repos: Repos) -> None:
    repo = GitRepo(repos.bare)
    repo.check_commit(repos.first)
    repo.check_commit(repos.second)
    with pytest.raises(NotFoundError):
        repo.check_commit(synth.fake_sha("absent"))


# --- members ---------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["work", "bare"])
def test_members(repos: Repos, which: str) -> None:
    repo = GitRepo(repos.work if which == "work" else repos.bare)
    got = {m.path: (m.kind, m.size_bytes, content) for m, content in read_all(repo, repos.second)}
    expected: dict[str, tuple[str, int, bytes | None]] = {
        path: ("symlink", 0, None) if isinstance(c, tuple) else ("file", len(c), c) for path, c in TREE.items()
    }
    expected["vendor/lib"] = ("submodule", 0, None)
    assert got == expected


def test_members_of_an_older_commit(repos: Repos) -> None:
    got = read_all(GitRepo(repos.bare), repos.first)
    assert [(m.path, m.kind, c) for m, c in got] == [("old.txt", "file", b"annotations")]


def test_scan_of_a_repository(repos: Repos) -> None:
    scan = scan_tree(GitRepo(repos.bare).members(repos.second), PUBLISHED)
    files = files_of(TREE)
    assert scan.regular_files == len(files)
    assert scan.content_bytes == sum(len(c) for c in files.values())
    assert sorted(scan.skipped) == [
        ("link-outside", "symlink"), ("link-to-main", "symlink"), ("vendor/lib", "submodule"),
    ]
    assert scan.skipped_members == 3
    # counted by hand from TREE
    assert sorted(scan.counts) == sorted([
        ("README.md", "annotations", 1),
        ("server/main.py", "readOnlyHint", 1),
        ("server/main.py", "destructiveHint", 1),
        ("server/main.py", "idempotentHint", 1),
        ("server/main.py", "openWorldHint", 1),
        ("server/main.py", "annotations", 4),
        ("server/go/main.go", "readOnlyHint", 1),
        ("server/go/main.go", "openWorldHint", 1),
        ("server/go/main.go", "annotations", 2),
        ("bin/blob.dat", "readOnlyHint", 1),
    ])


def test_same_counts_as_a_tarball_of_the_tree(repos: Repos, tmp_path: Path) -> None:
    tar = tmp_path / "tree.tar.gz"
    tar.write_bytes(synth.tarball(TREE, root="o-r-1234567"))
    from_tar = scan_tree(archive.members(tar, "o-r-1234567"), PUBLISHED)
    from_git = scan_tree(GitRepo(repos.bare).members(repos.second), PUBLISHED)
    assert sorted(from_git.counts) == sorted(from_tar.counts)
    assert (from_git.regular_files, from_git.content_bytes) == (from_tar.regular_files, from_tar.content_bytes)


def test_executable_and_non_utf8_names(tmp_path: Path) -> None:
    weird = os.fsdecode(b"caf\xe9.py")  # not UTF-8: a surrogate escape on a UTF-8 filesystem
    commit = synth.git_repo(tmp_path / "r", {"run.sh": b"#!/bin/sh\necho annotations\n", weird: b"readOnlyHint"})
    (tmp_path / "r" / "run.sh").chmod(0o755)
    synth.git(tmp_path / "r", "add", "-A")
    synth.git(tmp_path / "r", "commit", "-q", "-m", "exec")
    head = synth.git(tmp_path / "r", "rev-parse", "HEAD").strip()
    assert head != commit
    assert "100755" in synth.git(tmp_path / "r", "ls-tree", head, "run.sh")
    got = sorted((m.path, m.kind, c) for m, c in read_all(GitRepo(tmp_path / "r"), head))
    assert got == [("caf\\xe9.py", "file", b"readOnlyHint"), ("run.sh", "file", b"#!/bin/sh\necho annotations\n")]


def test_unread_and_partly_read_blobs_are_skipped_over(tmp_path: Path) -> None:
    big = b"annotations\n" * (CHUNK_BYTES // 6)  # two chunks and more
    tree: dict[str, bytes | tuple[str, str]] = {
        "a.bin": big, "b.txt": b"readOnlyHint", "c.bin": big + b"x", "d.txt": b"", "e.txt": b"openWorldHint",
    }
    commit = synth.git_repo(tmp_path / "r", tree)
    read: dict[str, bytes] = {}
    for member, chunks in GitRepo(tmp_path / "r").members(commit):
        assert chunks is not None
        if member.path == "a.bin":
            assert len(next(iter(chunks))) == CHUNK_BYTES  # read one chunk, leave the rest
        elif member.path == "c.bin":
            pass  # not read at all
        else:
            read[member.path] = b"".join(chunks)
    assert read == {"b.txt": b"readOnlyHint", "d.txt": b"", "e.txt": b"openWorldHint"}


def test_no_pipes_left_open(repos: Repos) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        read_all(GitRepo(repos.bare), repos.second)
        members = GitRepo(repos.bare).members(repos.second)
        next(members)
        assert isinstance(members, types.GeneratorType)
        members.close()  # a consumer that stops early
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []


def test_local_git_source(repos: Repos) -> None:
    source = GitRepoSource(repos.bare)
    assert source.kind == "git"
    assert source.resolve(None) == repos.second
    assert source.resolve("v1") == repos.first
    fetched = source.fetch(repos.second)
    assert (fetched.sha256, fetched.size_bytes, fetched.root, fetched.downloaded) == (None, None, None, False)
    assert source.locate(repos.first).sha256 is None
    paths = [m.path for m, _ in entries(source.members(repos.first, fetched))]
    assert paths == ["old.txt"]
    with pytest.raises(NotFoundError):
        source.fetch(synth.fake_sha("nope"))
    with pytest.raises(NotFoundError):
        source.resolve("nope")


# --- partial clones --------------------------------------------------------------------

BIG = b"# big generated file\n" + b"readOnlyHint annotations\n" * 200  # about 5 kB, over the 1k limit
PARTIAL_TREE: dict[str, bytes | tuple[str, str]] = {
    "big/generated.py": BIG,
    "small.py": b"@tool(annotations={'readOnlyHint': True})\n",
    "docs/notes.md": b"ANNOTATIONS and DestructiveHint\n",
    "empty": b"",
    "link": ("symlink", "small.py"),
}


@pytest.fixture(scope="module")
def partial(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    base = tmp_path_factory.mktemp("partial")
    commit = synth.git_repo(base / "source", PARTIAL_TREE)
    clone = synth.partial_clone(base / "source", base / "clone.git", limit="1k")
    return clone, commit


def test_partial_clone_really_lacks_the_big_blob(partial: tuple[Path, str]) -> None:
    clone, commit = partial
    assert synth.missing_objects(clone, commit) == {synth.blob_sha(BIG)}


def test_partial_clone_members(partial: tuple[Path, str]) -> None:
    clone, commit = partial
    repo = GitRepo(clone)
    assert repo.resolve(None) == commit
    got = {m.path: (m.kind, m.size_bytes, c) for m, c in read_all(repo, commit)}
    assert got == {
        "big/generated.py": ("missing", 0, None),
        "small.py": ("file", len(PARTIAL_TREE["small.py"]), PARTIAL_TREE["small.py"]),
        "docs/notes.md": ("file", len(PARTIAL_TREE["docs/notes.md"]), PARTIAL_TREE["docs/notes.md"]),
        "empty": ("file", 0, b""),
        "link": ("symlink", 0, None),
    }
    # git was never asked for the missing blob, so it did not fetch it from the source
    assert synth.missing_objects(clone, commit) == {synth.blob_sha(BIG)}


def test_partial_clone_scan(partial: tuple[Path, str], tmp_path: Path) -> None:
    clone, commit = partial
    scan = scan_tree(GitRepo(clone).members(commit), PUBLISHED)
    assert synth.missing_objects(clone, commit) == {synth.blob_sha(BIG)}
    assert sorted(scan.skipped) == [("big/generated.py", "missing"), ("link", "symlink")]
    assert scan.skipped_members == 2
    assert scan.regular_files == 3
    present = {p: c for p, c in files_of(PARTIAL_TREE).items() if p != "big/generated.py"}
    assert scan.content_bytes == sum(len(c) for c in present.values())
    assert sorted(scan.counts) == [
        ("docs/notes.md", "annotations", 1),
        ("docs/notes.md", "destructiveHint", 1),
        ("small.py", "annotations", 1),
        ("small.py", "readOnlyHint", 1),
    ]

    # the same tree read from a tarball: equal counts for every file the clone has
    tar = tmp_path / "tree.tar.gz"
    tar.write_bytes(synth.tarball(PARTIAL_TREE, root="o-r-abcdef0"))
    whole: TreeScan = scan_tree(archive.members(tar, "o-r-abcdef0"), PUBLISHED)
    assert sorted(c for c in whole.counts if c[0] != "big/generated.py") == sorted(scan.counts)
    assert ("big/generated.py", "readOnlyHint", 200) in whole.counts  # the tarball has what the clone lacks
    assert whole.content_bytes - len(BIG) == scan.content_bytes


def test_partial_clone_through_the_local_source(partial: tuple[Path, str]) -> None:
    clone, commit = partial
    source = GitRepoSource(clone)
    fetched = source.fetch(commit)
    kinds = {m.path: m.kind for m, _ in entries(source.members(commit, fetched))}
    assert kinds["big/generated.py"] == "missing"
    assert synth.missing_objects(clone, commit) == {synth.blob_sha(BIG)}
