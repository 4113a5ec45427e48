"""Where a tree comes from: GitHub archives, a local tarball, or a local git repository.

All three implement :class:`ArchiveSource`; ``pipeline.fetch.mirrors.source_for`` picks one per
manifest entry (a mirror folder's repository is a ``GitRepoSource``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from pipeline.archive import tarball as archive
from pipeline.archive.entries import Entry, Run
from pipeline.errors import NotFoundError, SourceError
from pipeline.fetch.cache import ArchiveCache, CachedArchive
from pipeline.fetch.github import GitHubClient
from pipeline.fetch.gitrepo import GitRepo


@dataclass(frozen=True)
class Fetched:
    """A tree that is ready to be read without the network."""

    sha256: str | None
    """sha256 of the archive; ``None`` for a git repository (the commit names the content)."""
    size_bytes: int | None
    """size of the archive in bytes; ``None`` for a git repository."""
    root: str | None
    """top folder stripped from member paths."""
    fetched_at_utc: datetime
    """when the archive was downloaded (or found)."""
    downloaded: bool = False
    """whether this call downloaded it (``False``: cache or local)."""
    committed_at_utc: datetime | None = None
    """the commit's committer date, where the source gives it (a git repository)."""


class ArchiveSource(Protocol):
    """Pins, fetches and reads one repository's trees."""

    @property
    def kind(self) -> str:
        """``github``, ``tarball`` or ``git``, as stored in ``snapshots.source``."""

    def resolve(self, ref: str | None) -> str:
        """The commit SHA that ``ref`` names (the default branch when ``None``)."""

    def fetch(self, commit: str) -> Fetched:
        """Make the tree at ``commit`` available locally, downloading it if needed."""

    def locate(self, commit: str) -> Fetched:
        """The tree at ``commit`` if already available locally; raises ``SourceError`` if not."""

    def members(self, commit: str, fetched: Fetched) -> Iterator[Entry | Run]:
        """The tree's members, regular files with their content."""


class GitHubArchiveSource:
    """Tarballs from the GitHub REST API, kept in the content-addressed cache."""

    kind = "github"

    def __init__(self, repo: str, client: GitHubClient, cache: ArchiveCache) -> None:
        self.repo, self._client, self._cache = repo, client, cache

    def resolve(self, ref: str | None) -> str:
        """Ask the API which commit ``ref`` names."""
        return self._client.resolve(self.repo, ref)

    def fetch(self, commit: str) -> Fetched:
        """The cached archive if intact, else a verified download."""
        cached = self._cache.lookup(self.repo, commit)
        if cached is not None:
            return _from_cache(cached, downloaded=False)
        with self._cache.download_file() as part:
            info = self._client.download(self.repo, commit, part)
            return _from_cache(self._cache.store(self.repo, commit, part, info), downloaded=True)

    def locate(self, commit: str) -> Fetched:
        """The cached archive; its checksum is checked while it is read."""
        cached = self._cache.locate(self.repo, commit)
        if cached is None:
            raise SourceError("not fetched yet (run `census fetch` first)")
        return _from_cache(cached, downloaded=False)

    def members(self, commit: str, fetched: Fetched) -> Iterator[Entry | Run]:
        """Members of the cached archive, checked against its recorded sha256."""
        cached = self._cache.locate(self.repo, commit)
        if cached is None:
            raise SourceError("not fetched yet (run `census fetch` first)")
        return _checked(self._cache, self.repo, commit, cached, fetched)


class TarballSource:
    """A local ``.tar.gz`` (a GitHub tarball or ``git archive --prefix=NAME/``)."""

    kind = "tarball"

    def __init__(self, path: Path) -> None:
        self.path = path

    def resolve(self, ref: str | None) -> str:
        """The commit recorded in the archive's pax header (``ref`` cannot apply)."""
        commit = archive.pax_commit(self._existing())
        if commit is None:
            raise NotFoundError(f"{self.path.name} records no commit; add `commit` to the entry")
        return commit

    def fetch(self, commit: str) -> Fetched:
        """Verify the archive end to end."""
        info = archive.verify(self._existing())
        return Fetched(info.sha256, info.size_bytes, info.root, datetime.now(UTC))

    locate = fetch

    def members(self, commit: str, fetched: Fetched) -> Iterator[Entry | Run]:
        """Members of the archive, checked against the sha256 seen at fetch."""
        return archive.stream(self._existing(), fetched.root, fetched.sha256)

    def _existing(self) -> Path:
        if not self.path.is_file():
            raise NotFoundError(f"source not found: {self.path}")
        return self.path


class GitRepoSource:
    """A local git repository, read with git plumbing (partial clones included)."""

    kind = "git"

    def __init__(self, path: Path) -> None:
        self._git = GitRepo(path)

    def resolve(self, ref: str | None) -> str:
        """``git rev-parse`` of ``ref``."""
        return self._git.resolve(ref)

    def fetch(self, commit: str) -> Fetched:
        """Check that the commit is present."""
        self._git.check_commit(commit)
        return Fetched(None, None, None, datetime.now(UTC), committed_at_utc=self._git.committed_at(commit))

    locate = fetch

    def members(self, commit: str, fetched: Fetched) -> Iterator[Entry | Run]:
        """The commit's tree, blob by blob."""
        return self._git.members(commit)


def _from_cache(cached: CachedArchive, downloaded: bool) -> Fetched:
    return Fetched(cached.sha256, cached.size_bytes, cached.root, cached.fetched_at_utc, downloaded)


def _checked(
    cache: ArchiveCache, repo: str, commit: str, cached: CachedArchive, fetched: Fetched
) -> Iterator[Entry | Run]:
    """Read the cached archive; if it turns out corrupt, drop it so the next fetch replaces it."""
    try:
        yield from archive.stream(cached.path, fetched.root, fetched.sha256)
    except SourceError:
        cache.drop(repo, commit)
        raise
