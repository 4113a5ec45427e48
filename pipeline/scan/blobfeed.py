"""The reading side of a history walk: one ``git log`` stream, and every new blob asked for ahead.

A ``Feed`` is a thread. It parses the walk's ``git log --raw`` stream (``rawlog``) as git writes
it and, for each commit, asks the walk's one ``git cat-file --batch`` for every blob no earlier
commit asked for, then hands the commit over (``Step``, through a bounded queue). The walk
takes the answers in the same order, so git inflates blobs on one core while the walk counts on
the other, and never waits for a request.

The thread queues a commit before asking for its blobs: the walk reads their answers as git
writes them, so neither side can fill a pipe the other is not reading, however many blobs one
commit brings. When the walk stops early, ``close`` ends the thread; when the thread fails, it
ends the cat-file requests (the walk's next read then fails) and ``error`` says why.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass

from pipeline.fetch.gitrepo import CatFile, GitRepo
from pipeline.scan.rawlog import COUNTED_MODES, LOG_OPTIONS, Change, Logged, read_log

#: the object name of "no blob" (the old side of an addition, the new side of a deletion)
NO_BLOB = b"0" * 40

#: how many commits the thread may parse ahead of the walk
_AHEAD = 512


@dataclass(frozen=True)
class Step:
    """One commit to count, with what was asked for it."""

    logged: Logged
    asked: tuple[bytes, ...]
    """the blobs asked for first for this commit: their answers are the next ones to take, in this order."""
    absent: tuple[bytes, ...]
    """blobs of ``base`` the clone lacks (a partial clone): never asked for, counted as nothing."""
    base: tuple[bytes, ...] | None
    """the regular files' blobs of the first parent's whole tree, when the parent is outside the range
    and was not met before (``None`` otherwise)."""


def sides(change: Change) -> tuple[bytes | None, bytes | None]:
    """The old and the new blob of a diff entry that a count reads (``None``: not a regular file)."""
    old_mode, new_mode, old_sha, new_sha, _ = change
    return (old_sha if old_mode in COUNTED_MODES and old_sha != NO_BLOB else None,
            new_sha if new_mode in COUNTED_MODES and new_sha != NO_BLOB else None)


class Feed(threading.Thread):
    """Parses the log of ``revisions`` and asks ``cat`` for each blob not in ``asked`` (which it fills).

    ``known`` commits (counted before) are skipped; ``missing`` (given a commit outside the range)
    lists the blobs its tree names that the clone lacks.
    """

    def __init__(self, repo: GitRepo, revisions: Sequence[str], cat: CatFile, *, known: Collection[str],
                 asked: set[bytes], missing: Callable[[str], set[bytes]]) -> None:
        super().__init__(name="history-feed", daemon=True)
        self.repo, self.revisions, self.cat, self.known, self.asked = repo, revisions, cat, known, asked
        self.missing = missing
        self.error: BaseException | None = None
        """why the thread failed (``None``: it read the whole log, or ``close`` stopped it)."""
        self._steps: queue.Queue[Step | None] = queue.Queue(maxsize=_AHEAD)
        self._halt = threading.Event()
        self._seen: set[str] = set()

    def run(self) -> None:
        """Read the log to its end (or until ``close``), handing over each commit."""
        try:
            with self.repo.stream(*LOG_OPTIONS, *self.revisions) as out:
                for logged in read_log(out):
                    if self._halt.is_set():
                        raise _Stopped
                    self._feed(logged)
        except BaseException as exc:  # handed to the walk, which re-raises it (unless the walk stopped first)
            if not self._halt.is_set():
                self.error = exc
        finally:
            self.cat.done()
            self._steps.put(None)

    def __iter__(self) -> Iterator[Step]:
        """The steps in log order, until the log ends (then ``error``, if any, is raised)."""
        while (step := self._steps.get()) is not None:
            yield step
        if self.error is not None:
            raise self.error

    def close(self) -> None:
        """Stop the thread and wait for it (the caller stops cat-file first, which unblocks it)."""
        self._halt.set()
        while self.is_alive():
            with contextlib.suppress(queue.Empty):
                self._steps.get(timeout=0.05)
        self.join()

    def _feed(self, logged: Logged) -> None:
        commit = logged.commit
        if commit in self.known:
            self._seen.add(commit)
            return
        parent = logged.parents[0] if logged.parents else None
        absent: list[bytes] = []
        base: tuple[bytes, ...] | None = None
        if parent is not None and parent not in self._seen and parent not in self.known:
            absent = sorted(self.missing(parent) - self.asked)
            self.asked.update(absent)
            base = tree_blobs(self.repo, parent)
            self._seen.add(parent)
        fresh: list[bytes] = []
        for change in logged.changes:
            for sha in sides(change):
                if sha is not None and sha not in self.asked:
                    self.asked.add(sha)
                    fresh.append(sha)
        for sha in base or ():
            if sha not in self.asked:
                self.asked.add(sha)
                fresh.append(sha)
        self._steps.put(Step(logged, tuple(fresh), tuple(absent), base))
        for sha in fresh:
            self.cat.ask(sha)
        self.cat.flush()
        self._seen.add(commit)


def tree_blobs(repo: GitRepo, commit: str) -> tuple[bytes, ...]:
    """The blobs of the regular files of ``commit``'s whole tree (one for each file)."""
    found = []
    for entry in repo.output("ls-tree", "-r", "-z", commit).split(b"\0"):
        parts = entry.partition(b"\t")[0].split()
        if len(parts) == 3 and parts[0] in COUNTED_MODES:
            found.append(parts[2])
    return tuple(found)


class _Stopped(Exception):
    """The walk stopped reading (``Feed.close``)."""
