"""The stages of a census, strung together: pin -> fetch -> scan, one repository at a time.

Each stage yields one :class:`Outcome` per manifest entry. A repository that cannot be
pinned, fetched or read is an outcome with status ``skipped`` and a reason, recorded in
the database; it never stops the census. Every tree is held to ``settings.limits`` while
it is read, whatever its source; a tree over a limit is skipped with that reason.

A census killed at any point (even ``kill -9``) loses nothing: each repository's rows are
written in one transaction, downloads are moved into the cache only once verified, and
the next run picks up where it stopped.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from itertools import chain

from pipeline.archive.limits import limited
from pipeline.errors import SourceError
from pipeline.fetch.cache import ArchiveCache
from pipeline.fetch.github import GitHubClient
from pipeline.fetch.mirrors import source_for
from pipeline.fetch.pinning import graphql_pins
from pipeline.fetch.source import ArchiveSource, Fetched
from pipeline.manifest.entries import RepoEntry
from pipeline.manifest.manifests import Manifest, write_commits
from pipeline.progress import SILENT, Observer
from pipeline.run.runner import Executor, LocalExecutor, Task, TaskResult, fetch_and_scan, reason, task_for
from pipeline.scan import SCANNER_VERSION
from pipeline.scan.detect import Detector
from pipeline.scan.roles import RoleRules
from pipeline.scan.tree import scan_tree
from pipeline.settings import Settings
from pipeline.store.database import Store

#: seconds without a finished task after which the scans kept are written: a stalled run holds none
WRITE_PATIENCE = 0.5


@dataclass(frozen=True)
class Outcome:
    """What one stage did with one repository."""

    repo: str
    """``owner/name``."""
    commit: str | None
    """the pinned commit, ``None`` if it could not be pinned."""
    status: str
    """``pinned``, ``fetched``, ``cached``, ``scanned``, ``unchanged`` or ``skipped``."""
    reason: str | None = None
    """why it was skipped."""

    @property
    def skipped(self) -> bool:
        """Whether this repository was skipped."""
        return self.status == "skipped"


class Census:
    """One manifest, run against one set of settings."""

    def __init__(self, manifest: Manifest, settings: Settings, observer: Observer = SILENT) -> None:
        settings.check()
        self.manifest = manifest
        self.settings = settings if settings.run_id else replace(settings, run_id=uuid.uuid4().hex)
        self.observer = observer
        self.client = GitHubClient(self.settings, observer)
        self.cache = ArchiveCache(self.settings.cache_dir, self.settings.api_url)
        self.commits: dict[str, str | None] = {e.repo: e.commit for e in manifest.repos}
        self._pin_failures: dict[str, str] = {}
        self.detector = Detector(effects=True)
        self._entries = {e.repo: e for e in manifest.repos}

    def pin(self, jobs: int = 1) -> list[Outcome]:
        """Resolve entries without a commit and write the commits back into the manifest: the
        GitHub entries 100 to a GraphQL query (with a token), the rest ``jobs`` REST requests at
        once (each thread with its own HTTP session); under ``settings.offline``, from the
        mirrors alone."""
        todo = [e for e in self.manifest.repos if e.commit is None]
        self.observer.stage("pin", len(todo))
        online = [] if self.settings.offline else [e for e in todo if e.source is None]
        settled = {repo: pin for repo, pin in graphql_pins(self.client, online).items()
                   if pin is not None}
        outcomes = [self._pinned(e, settled[e.repo]) for e in todo if e.repo in settled]
        rest = [e for e in todo if e.repo not in settled]
        if jobs == 1 or len(rest) < 2:
            outcomes += [self._pin_one(entry) for entry in rest]
        else:
            outcomes += self._pin_threads(rest, jobs)
        resolved = {e.index: self.commits[e.repo] for e in todo if self.commits[e.repo]}
        if resolved:
            write_commits(self.manifest.path, resolved)  # type: ignore[arg-type]
        return outcomes

    def fetch(self, store: Store) -> Iterator[Outcome]:
        """Fetch every pinned tree into the cache."""
        store.record_manifest(self.manifest, self.commits)
        self.observer.stage("fetch", len(self.manifest.repos))
        for entry in self.manifest.repos:
            outcome, _ = self._fetch_one(entry, store)
            yield self._done(entry, outcome)

    def scan(self, store: Store) -> Iterator[Outcome]:
        """Scan every tree that is available locally."""
        store.record_manifest(self.manifest, self.commits)
        self.observer.stage("scan", len(self.manifest.repos))
        for entry in self.manifest.repos:
            yield self._done(entry, self._scan_one(entry, store, fetched=None))

    def run(self, store: Store, executor: Executor | None = None) -> Iterator[Outcome]:
        """Pin what is unpinned, then fetch and scan every repository not yet scanned.

        ``executor`` (default: one at a time, here) runs the fetch-and-scan tasks; this
        method is the only writer of ``store``, in the order the results come back: scans are
        written a batch at a time, at the latest when no result has come for ``WRITE_PATIENCE``
        seconds, and an outcome is yielded once its rows are written. A tree already scanned
        with these terms by this scanner version is neither fetched nor scanned again.
        """
        runner = executor or LocalExecutor(1)
        self.pin(runner.jobs)
        store.record_manifest(self.manifest, self.commits)
        self.observer.stage("fetch+scan", len(self.manifest.repos))
        tasks: list[Task] = []
        for entry in self.manifest.repos:
            outcome = self._plan(entry, store, tasks)
            if outcome is not None:
                yield self._done(entry, outcome)
        work = partial(fetch_and_scan, client=self.client) if runner.in_process else fetch_and_scan
        recorded: list[tuple[Outcome, int]] = []  # told once written (scans are written in batches)
        for result in chain(runner.run(work, tasks, self.observer, patience=WRITE_PATIENCE), [None]):
            if result is not None:
                recorded.append((self._record(store, result), result.scan.content_bytes if result.scan else 0))
            if result is None or not store.pending:
                store.flush()
                yield from (self._done(self._entries[outcome.repo], outcome, size) for outcome, size in recorded)
                recorded.clear()

    def _plan(self, entry: RepoEntry, store: Store, tasks: list[Task]) -> Outcome | None:
        """The outcome of an entry with nothing to do, else ``None`` with its task added to ``tasks``."""
        commit = self.commits[entry.repo]
        if commit is None:
            return self._unpinned(entry, store)
        scanned = store.scanned_archive(entry.repo, commit, self.manifest.terms, SCANNER_VERSION,
                                        server_paths=entry.server_paths)
        named_by_commit = entry.source is None or entry.source.is_dir()  # a tarball may change under its commit
        if scanned is not None and named_by_commit:
            return Outcome(entry.repo, commit, "unchanged")
        known = scanned[0] if scanned else None
        tasks.append(task_for(entry, commit, self.manifest.terms, self.settings, known_sha256=known,
                              announce_waits=self.observer is not SILENT))
        return None

    def _record(self, store: Store, result: TaskResult) -> Outcome:
        """Store what a task did."""
        if result.status == "skipped":
            store.record_skip(result.repo, result.commit, result.stage or "fetch", result.reason or "")
        elif result.status == "scanned" and result.fetched is not None and result.scan is not None:
            store.record_scan(result.repo, result.commit, fetched=result.fetched, source=result.source,
                              scan=result.scan, terms=self.manifest.terms, version=SCANNER_VERSION,
                              server_paths=self._entries[result.repo].server_paths)
        return Outcome(result.repo, result.commit, result.status, result.reason)

    def close(self) -> None:
        """Release the network session."""
        self.client.close()

    def source(self, entry: RepoEntry) -> ArchiveSource:
        """Where ``entry``'s trees come from."""
        return source_for(entry, self.client, self.cache, self.settings)

    def _pin_threads(self, todo: list[RepoEntry], jobs: int) -> list[Outcome]:
        local, clients = threading.local(), []

        def pin_one(entry: RepoEntry) -> Outcome:
            if not hasattr(local, "client"):
                local.client = GitHubClient(self.settings, self.observer)
                clients.append(local.client)
            return self._pin_one(entry, local.client)

        try:
            with ThreadPoolExecutor(jobs) as pool:
                return list(pool.map(pin_one, todo))
        finally:
            for client in clients:
                client.close()

    def _pin_one(self, entry: RepoEntry, client: GitHubClient | None = None) -> Outcome:
        try:
            source = source_for(entry, client or self.client, self.cache, self.settings)
            commit: str | SourceError = source.resolve(entry.ref)
        except SourceError as exc:
            commit = exc
        return self._pinned(entry, commit)

    def _pinned(self, entry: RepoEntry, commit: str | SourceError) -> Outcome:
        """Record what pinning ``entry`` gave: its commit, or why it cannot be pinned."""
        if not isinstance(commit, str):
            why = self._pin_failures[entry.repo] = f"pin {entry.ref or 'HEAD'}: {self._reason(commit)}"
            return self._done(entry, Outcome(entry.repo, None, "skipped", why))
        self.commits[entry.repo] = commit
        return self._done(entry, Outcome(entry.repo, commit, "pinned"))

    def _fetch_one(self, entry: RepoEntry, store: Store) -> tuple[Outcome, Fetched | None]:
        commit = self.commits[entry.repo]
        if commit is None:
            return self._unpinned(entry, store), None
        source = self.source(entry)
        try:
            fetched = source.fetch(commit)
        except Exception as exc:  # one bad repository never stops a census
            return self._skip(store, entry.repo, commit, "fetch", exc), None
        store.record_fetch(entry.repo, commit, fetched, source.kind)
        return Outcome(entry.repo, commit, "fetched" if fetched.downloaded else "cached"), fetched

    def _scan_one(self, entry: RepoEntry, store: Store, fetched: Fetched | None) -> Outcome:
        commit = self.commits[entry.repo]
        if commit is None:
            return self._unpinned(entry, store)
        source, terms = self.source(entry), self.manifest.terms
        try:
            fetched = fetched or source.locate(commit)
        except Exception as exc:  # not fetched: keep the fetch stage's reason if it gave one
            row = store.snapshot(entry.repo, commit)
            if row is not None and row["status"] == "skipped":
                return Outcome(entry.repo, commit, "skipped", row["skip_reason"])
            return self._skip(store, entry.repo, commit, "scan", exc)
        try:
            if store.is_current(entry.repo, commit, fetched, terms, SCANNER_VERSION, server_paths=entry.server_paths):
                return Outcome(entry.repo, commit, "unchanged")
            scan = scan_tree(limited(source.members(commit, fetched), self.settings.limits), terms, self.detector,
                             RoleRules(entry.server_paths))
        except Exception as exc:  # one bad repository never stops a census
            return self._skip(store, entry.repo, commit, "scan", exc)
        store.record_scan(entry.repo, commit, fetched=fetched, source=source.kind, scan=scan, terms=terms,
                          version=SCANNER_VERSION, server_paths=entry.server_paths)
        return Outcome(entry.repo, commit, "scanned")

    def _unpinned(self, entry: RepoEntry, store: Store) -> Outcome:
        why = self._pin_failures.get(entry.repo, "no commit: run `census pin` first")
        store.record_skip(entry.repo, None, "pin", why)
        return Outcome(entry.repo, None, "skipped", why)

    def _skip(self, store: Store, repo: str, commit: str, stage: str, exc: Exception) -> Outcome:
        why = self._reason(exc)
        store.record_skip(repo, commit, stage, why)
        return Outcome(repo, commit, "skipped", why)

    def _reason(self, exc: Exception) -> str:
        """The skip reason for ``exc`` (``runner.reason``: the token is never in it)."""
        return reason(exc, self.settings)

    def _done(self, entry: RepoEntry, outcome: Outcome, size_bytes: int = 0) -> Outcome:
        label = f"{entry.repo}@{outcome.commit[:12]}" if outcome.commit else entry.repo
        self.observer.advance(label, outcome.status, outcome.reason or "", size_bytes)
        return outcome
