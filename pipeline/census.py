"""The stages of a census, strung together: pin -> fetch -> scan, one repository at a time.

Each stage yields one :class:`Outcome` per manifest entry. A repository that cannot be
pinned, fetched or read is an outcome with status ``skipped`` and a reason, recorded in
the database; it never stops the census.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pipeline.cache import ArchiveCache
from pipeline.errors import SourceError
from pipeline.fetch import GitHubClient
from pipeline.manifest import Manifest, RepoEntry, write_commits
from pipeline.progress import SILENT, Observer
from pipeline.scan import SCANNER_VERSION
from pipeline.scan.detect import Detector
from pipeline.scan.tree import scan_tree
from pipeline.settings import Settings
from pipeline.source import ArchiveSource, Fetched, source_for
from pipeline.store import Store


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
        self.manifest = manifest
        self.settings = settings
        self.observer = observer
        self.client = GitHubClient(settings, observer)
        self.cache = ArchiveCache(settings.cache_dir, settings.api_url)
        self.commits: dict[str, str | None] = {e.repo: e.commit for e in manifest.repos}
        self._pin_failures: dict[str, str] = {}
        self.detector = Detector()

    def pin(self) -> list[Outcome]:
        """Resolve entries without a commit and write the commits back into the manifest."""
        todo = [e for e in self.manifest.repos if e.commit is None]
        self.observer.stage("pin", len(todo))
        outcomes = [self._pin_one(entry) for entry in todo]
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

    def run(self, store: Store) -> Iterator[Outcome]:
        """Pin what is unpinned, then fetch and scan each repository in turn."""
        self.pin()
        store.record_manifest(self.manifest, self.commits)
        self.observer.stage("fetch+scan", len(self.manifest.repos))
        for entry in self.manifest.repos:
            outcome, fetched = self._fetch_one(entry, store)
            if fetched is not None:
                outcome = self._scan_one(entry, store, fetched)
            yield self._done(entry, outcome)

    def close(self) -> None:
        """Release the network session."""
        self.client.close()

    def source(self, entry: RepoEntry) -> ArchiveSource:
        """Where ``entry``'s trees come from."""
        return source_for(entry, self.client, self.cache)

    def _pin_one(self, entry: RepoEntry) -> Outcome:
        try:
            commit = self.source(entry).resolve(entry.ref)
        except SourceError as exc:
            reason = self._pin_failures[entry.repo] = f"pin {entry.ref or 'HEAD'}: {self._reason(exc)}"
            return self._done(entry, Outcome(entry.repo, None, "skipped", reason))
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
            if store.is_current(entry.repo, commit, fetched, terms, SCANNER_VERSION):
                return Outcome(entry.repo, commit, "unchanged")
            scan = scan_tree(source.members(commit, fetched), terms, self.detector)
        except Exception as exc:  # one bad repository never stops a census
            return self._skip(store, entry.repo, commit, "scan", exc)
        store.record_scan(
            entry.repo, commit, fetched=fetched, source=source.kind, scan=scan, terms=terms, version=SCANNER_VERSION
        )
        return Outcome(entry.repo, commit, "scanned")

    def _unpinned(self, entry: RepoEntry, store: Store) -> Outcome:
        reason = self._pin_failures.get(entry.repo, "no commit: run `census pin` first")
        store.record_skip(entry.repo, None, "pin", reason)
        return Outcome(entry.repo, None, "skipped", reason)

    def _skip(self, store: Store, repo: str, commit: str, stage: str, exc: Exception) -> Outcome:
        reason = self._reason(exc)
        store.record_skip(repo, commit, stage, reason)
        return Outcome(repo, commit, "skipped", reason)

    def _reason(self, exc: Exception) -> str:
        """The skip reason: a ``SourceError``'s message, or the type of an unexpected error."""
        text = str(exc) if isinstance(exc, SourceError) else f"unexpected {type(exc).__name__}: {exc}"
        return self.settings.redact(text)

    def _done(self, entry: RepoEntry, outcome: Outcome) -> Outcome:
        label = f"{entry.repo}@{outcome.commit[:12]}" if outcome.commit else entry.repo
        self.observer.advance(label, outcome.status, outcome.reason or "")
        return outcome
