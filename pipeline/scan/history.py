"""Term counts at every commit of a git history, cheap by construction.

``walk`` lists the commits of a range oldest first (``git log --topo-order --reverse``, optionally
``--first-parent``, ``--since``, ``--until``, one ref or every ref) and gives each one's totals:
the scanner's counts (``TermCounter``: case-insensitive bytes, over regular files; symlinks and
submodules left out, as in a scan) summed over its tree. A commit's totals are its first
parent's plus the change its diff makes (``git diff-tree``, renames as a deletion and an
addition), and a blob is read and counted once however many commits hold it, so a walk costs
about the blobs that changed, not one tree per commit. A blob a partial clone lacks counts
nothing and is recorded (``missing``), never fetched. ``matches`` finds the runs of commits whose
totals equal published figures.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pipeline.fetch.gitrepo import GitRepo
from pipeline.scan.count import TermCounter

#: git modes of the entries a scan counts (regular files); symlinks (120000) and submodules (160000) are not
_COUNTED_MODES = (b"100644", b"100755", b"100664")
_NO_BLOB = b"0" * 40


@dataclass(frozen=True)
class CommitCounts:
    """One commit's totals and what moved them."""

    commit: str
    parent: str | None
    """the first parent (``None`` for a root commit)."""
    committed_at_utc: datetime
    totals: tuple[int, ...]
    """per term of the walk, summed over the commit's regular files."""
    moved: tuple[tuple[str, tuple[int, ...]], ...]
    """(path, change per term) of each file whose change moved a count, against the first parent."""
    missing: tuple[str, ...]
    """paths whose blob the repository lacks (a partial clone): counted as nothing."""


def walk(git_dir: Path, terms: Sequence[str], *, ref: str | None = None, all_refs: bool = False,
         first_parent: bool = False, since: str | None = None, until: str | None = None,
         known: Mapping[str, tuple[int, ...]] | None = None) -> Iterator[CommitCounts]:
    """Every commit of the range, oldest first, with its totals (see the module); the commits of
    ``known`` (totals a rerun has stored) are not walked again, their totals serve as bases."""
    repo = GitRepo(git_dir)
    counter = TermCounter(terms)
    lines = commits(git_dir, ref=ref, all_refs=all_refs, first_parent=first_parent, since=since, until=until)
    totals_of: dict[str, tuple[int, ...]] = dict(known or {})
    missing = _missing(repo, _range(repo, ref=ref, all_refs=all_refs, first_parent=first_parent, since=since,
                                    until=until))
    blobs: dict[bytes, tuple[int, ...] | None] = dict.fromkeys(missing)
    with repo.blobs() as cat:
        counts = _Blobs(cat, counter, blobs)
        for commit, stamp, parents in lines:
            if commit in totals_of:
                continue
            parent = parents[0] if parents else None
            base = totals_of.get(parent) if parent else tuple(0 for _ in terms)
            if base is None:  # a parent outside the range: its whole tree, once
                blobs.update(dict.fromkeys(_missing(repo, ["--no-walk", parent or ""]) - blobs.keys()))
                base = _tree_totals(repo, parent or "", counts, len(terms))
            found = _step(repo, parent, commit, base, counts)
            totals_of[commit] = found.totals
            yield CommitCounts(commit, parent, stamp, found.totals, found.moved, found.missing)


def commits(git_dir: Path, *, ref: str | None = None, all_refs: bool = False, first_parent: bool = False,
            since: str | None = None, until: str | None = None) -> list[tuple[str, datetime, list[str]]]:
    """The range's commits oldest first: (commit, committer date, parents)."""
    repo = GitRepo(git_dir)
    args = ["log", "--topo-order", "--reverse", "--format=%H %ct %P", *_range(
        repo, ref=ref, all_refs=all_refs, first_parent=first_parent, since=since, until=until)]
    found = []
    for line in filter(None, repo.output(*args).decode().split("\n")):
        commit, stamp, *parents = line.split()
        found.append((commit, datetime.fromtimestamp(int(stamp), UTC), parents))
    return found


def _range(repo: GitRepo, *, ref: str | None, all_refs: bool, first_parent: bool, since: str | None,
           until: str | None) -> list[str]:
    """The revision arguments of a range, for ``git log`` and ``git rev-list``."""
    args = ["--first-parent"] if first_parent else []
    args += [f"--since={since}"] if since else []
    args += [f"--until={until}"] if until else []
    return [*args, "--all"] if all_refs else [*args, repo.resolve(ref)]


def _missing(repo: GitRepo, revisions: list[str]) -> set[bytes]:
    """The objects the range's trees name that the repository lacks (a partial clone): never asked for."""
    listed = repo.output("rev-list", "--objects", "--missing=print", *revisions)
    return {line[1:] for line in listed.split(b"\n") if line.startswith(b"?")}


@dataclass(frozen=True)
class _Step:
    totals: tuple[int, ...]
    moved: tuple[tuple[str, tuple[int, ...]], ...]
    missing: tuple[str, ...]


class _Blobs:
    """Blob counts, each blob read once (``None``: the repository lacks it)."""

    def __init__(self, cat: Any, counter: TermCounter, cache: dict[bytes, tuple[int, ...] | None]) -> None:
        self.cat, self.counter, self.cache = cat, counter, cache

    def of(self, sha: bytes) -> tuple[int, ...] | None:
        if sha not in self.cache:
            size, chunks = self.cat.open(sha)
            self.cache[sha] = None if size is None else tuple(self.counter.count_chunks(chunks))
            if size is not None:
                self.cat.finish()
        return self.cache[sha]


def _step(repo: GitRepo, parent: str | None, commit: str, base: tuple[int, ...], blobs: _Blobs) -> _Step:
    """The commit's totals from its first parent's and the diff between them."""
    args = ["diff-tree", "-r", "-z", "--raw", "--no-renames", "--no-commit-id"]
    raw = repo.output(*args, parent, commit) if parent else repo.output(*args, "--root", commit)
    totals, moved, missing = list(base), [], []
    fields = raw.split(b"\0")
    for at in range(0, len(fields) - 1, 2):
        meta, path = fields[at].split(), fields[at + 1].decode("utf-8", "replace")
        if len(meta) < 5:
            continue
        old_mode, new_mode, old_sha, new_sha = meta[0].lstrip(b":"), meta[1], meta[2], meta[3]
        zero = (0,) * len(base)
        old = blobs.of(old_sha) if old_mode in _COUNTED_MODES and old_sha != _NO_BLOB else zero
        new = blobs.of(new_sha) if new_mode in _COUNTED_MODES and new_sha != _NO_BLOB else zero
        if new is None:
            missing.append(path)
        change = tuple(n - o for n, o in zip(new or zero, old or zero, strict=True))
        if any(change):
            moved.append((path, change))
            totals = [t + c for t, c in zip(totals, change, strict=True)]
    return _Step(tuple(totals), tuple(moved), tuple(missing))


def tree_totals(git_dir: Path, commit: str, terms: Sequence[str]) -> tuple[int, ...]:
    """One commit's totals counted from its whole tree (a blob the clone lacks counts nothing)."""
    repo = GitRepo(git_dir)
    with repo.blobs() as cat:
        cache: dict[bytes, tuple[int, ...] | None] = dict.fromkeys(_missing(repo, ["--no-walk", commit]))
        return _tree_totals(repo, commit, _Blobs(cat, TermCounter(terms), cache), len(terms))


def _tree_totals(repo: GitRepo, commit: str, blobs: _Blobs, size: int) -> tuple[int, ...]:
    """A commit's totals counted from its whole tree (a parent the walk did not reach)."""
    totals = [0] * size
    for entry in repo.output("ls-tree", "-r", "-z", commit).split(b"\0"):
        meta, _, _ = entry.partition(b"\t")
        parts = meta.split()
        if len(parts) == 3 and parts[0] in _COUNTED_MODES and (counts := blobs.of(parts[2])) is not None:
            totals = [t + c for t, c in zip(totals, counts, strict=True)]
    return tuple(totals)


@dataclass(frozen=True)
class Match:
    """A run of consecutive walked commits whose totals equal every figure asked for."""

    first: CommitCounts
    last: CommitCounts
    commits: int


def matches(walked: Sequence[CommitCounts], terms: Sequence[str], figures: Mapping[str, int]) -> list[Match]:
    """The runs of ``walked`` (in walk order) where each term of ``figures`` has its figure."""
    index = {term: terms.index(term) for term in figures}
    runs: list[Match] = []
    start: int | None = None
    for at, commit in enumerate([*walked, None]):
        hit = commit is not None and all(commit.totals[index[t]] == n for t, n in figures.items())
        if hit and start is None:
            start = at
        elif not hit and start is not None:
            runs.append(Match(walked[start], walked[at - 1], at - start))
            start = None
    return runs


def nearest(walked: Sequence[CommitCounts], terms: Sequence[str], term: str, figure: int) -> CommitCounts | None:
    """The walked commit whose count of ``term`` is nearest ``figure`` (the newest among equals)."""
    at = list(terms).index(term)
    return min(walked, key=lambda c: (abs(c.totals[at] - figure), -c.committed_at_utc.timestamp()), default=None)
