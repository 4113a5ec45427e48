"""Term counts at every commit of a git history, cheap by construction.

``walk`` lists the commits of a range oldest first (``git log --topo-order --reverse``, optionally
``--first-parent``, ``--since``, ``--until``, one ref or every ref) and gives each one's totals:
the scanner's counts (``TermCounter``: case-insensitive bytes, over regular files; symlinks and
submodules left out, as in a scan) summed over its tree. A commit's totals are its first
parent's plus the change its diff makes (renames as a deletion and an addition), and a blob is
read and counted once however many commits hold it, so a walk costs about the blobs that
changed, not one tree per commit. The whole range is one ``git log --raw`` stream (``rawlog``)
and every blob comes through one ``git cat-file --batch``, asked for ahead by a thread
(``blobfeed``) while this one counts. A blob a partial clone lacks counts nothing and is
recorded (``missing``), never fetched. ``matches`` finds the runs of commits whose totals equal
published figures.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

from pipeline.errors import SourceError
from pipeline.fetch.gitrepo import CatFile, GitRepo
from pipeline.scan.blobfeed import Feed, sides, tree_blobs
from pipeline.scan.count import TermCounter
from pipeline.scan.rawlog import Change


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
         known: Mapping[str, tuple[int, ...]] | None = None) -> Generator[CommitCounts, None, None]:
    """Every commit of the range, oldest first, with its totals (see the module); the commits of
    ``known`` (totals a rerun has stored) are not walked again, their totals serve as bases."""
    repo = GitRepo(git_dir)
    revisions = _range(repo, ref=ref, all_refs=all_refs, first_parent=first_parent, since=since, until=until)
    missing = _missing(repo, revisions)
    counts: dict[bytes, tuple[int, ...] | None] = dict.fromkeys(missing)
    totals_of: dict[str, tuple[int, ...]] = dict(known or {})
    with repo.blobs() as cat:
        feed = Feed(repo, revisions, cat, known=frozenset(totals_of), asked=set(missing),
                    missing=lambda commit: _missing(repo, ["--no-walk", commit]))
        feed.start()
        try:
            yield from _counted(feed, cat, TermCounter(terms), counts, totals_of)
        except SourceError:
            cat.close()
            feed.close()
            if feed.error is not None:  # cat-file ended because the feed failed: say why
                raise feed.error from None
            raise
        finally:
            cat.close()  # first: the feed may be waiting for git to take a request
            feed.close()


def _counted(feed: Feed, cat: CatFile, counter: TermCounter, counts: dict[bytes, tuple[int, ...] | None],
             totals_of: dict[str, tuple[int, ...]]) -> Iterator[CommitCounts]:
    """The feed's commits with their totals: each new blob counted as cat-file answers, in order."""
    size = len(counter.terms)
    for step in feed:
        for sha in step.asked:
            counts[sha] = _count(cat, counter)
        counts.update(dict.fromkeys(step.absent))
        logged = step.logged
        parent = logged.parents[0] if logged.parents else None
        if step.base is not None and parent is not None:  # a parent outside the range: its whole tree, once
            totals_of[parent] = _sum(counts, step.base, size)
        found = _step(logged.changes, totals_of[parent] if parent else (0,) * size, counts)
        totals_of[logged.commit] = found.totals
        yield CommitCounts(logged.commit, parent, logged.committed_at_utc, *found)


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


class _Step(NamedTuple):
    totals: tuple[int, ...]
    moved: tuple[tuple[str, tuple[int, ...]], ...]
    missing: tuple[str, ...]


def _step(changes: Sequence[Change], base: tuple[int, ...], counts: Mapping[bytes, tuple[int, ...] | None]) -> _Step:
    """The commit's totals from its first parent's and the diff between them."""
    totals, moved, missing = list(base), [], []
    zero = (0,) * len(base)
    for change in changes:
        old_sha, new_sha = sides(change)
        old = zero if old_sha is None else counts[old_sha]
        new = zero if new_sha is None else counts[new_sha]
        path = change[4].decode("utf-8", "replace")
        if new is None:
            missing.append(path)
        delta = tuple(n - o for n, o in zip(new or zero, old or zero, strict=True))
        if any(delta):
            moved.append((path, delta))
            totals = [t + c for t, c in zip(totals, delta, strict=True)]
    return _Step(tuple(totals), tuple(moved), tuple(missing))


def _count(cat: CatFile, counter: TermCounter) -> tuple[int, ...] | None:
    """The counts of the next blob ``cat`` answers with (``None``: the repository lacks it)."""
    size, chunks = cat.take()
    if size is None:
        return None
    found = tuple(counter.count_chunks(chunks))
    cat.finish()
    return found


def _sum(counts: Mapping[bytes, tuple[int, ...] | None], blobs: Sequence[bytes], size: int) -> tuple[int, ...]:
    """The totals of a tree's regular files, given their blobs (a blob the clone lacks counts nothing)."""
    totals = [0] * size
    for sha in blobs:
        if (found := counts[sha]) is not None:
            totals = [t + c for t, c in zip(totals, found, strict=True)]
    return tuple(totals)


def tree_totals(git_dir: Path, commit: str, terms: Sequence[str]) -> tuple[int, ...]:
    """One commit's totals counted from its whole tree (a blob the clone lacks counts nothing)."""
    repo = GitRepo(git_dir)
    counter = TermCounter(terms)
    counts: dict[bytes, tuple[int, ...] | None] = dict.fromkeys(_missing(repo, ["--no-walk", commit]))
    blobs = tree_blobs(repo, commit)
    with repo.blobs() as cat:
        for sha in blobs:
            if sha not in counts:
                cat.ask(sha)
                cat.flush()
                counts[sha] = _count(cat, counter)
    return _sum(counts, blobs, len(terms))


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
