"""Which source serves a manifest entry: its own ``source``, a local git mirror, or GitHub.

``--mirrors DIR`` reads repositories from a folder of local git mirrors instead of GitHub. A
mirror is any git repository, bare or with a work tree, at one of::

    DIR/OWNER/NAME.git      (what ``git clone --mirror URL DIR/OWNER/NAME.git`` makes)
    DIR/OWNER/NAME          (a bare repository or a normal clone)

Owners and names are matched without regard to case, as GitHub matches them. An entry whose
mirror holds its pinned commit is read from the mirror (``snapshots.source`` is ``git``); an
entry with no mirror, or whose mirror lacks the commit, is fetched from GitHub as usual, or
skipped with the reason under ``--offline``, which sends no request at all: pins come from the
mirrors' ``HEAD`` (or the entry's ``ref``) then.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from functools import lru_cache
from pathlib import Path

from pipeline.archive.entries import Entry, Run
from pipeline.errors import NotFoundError, SourceError
from pipeline.fetch.cache import ArchiveCache
from pipeline.fetch.github import GitHubClient
from pipeline.fetch.source import ArchiveSource, Fetched, GitHubArchiveSource, GitRepoSource, TarballSource
from pipeline.manifest.entries import RepoEntry
from pipeline.settings import Settings


def source_for(entry: RepoEntry, client: GitHubClient, cache: ArchiveCache, settings: Settings) -> ArchiveSource:
    """The source that serves ``entry``: its local ``source`` if given, else its mirror under
    ``settings.mirrors_dir`` if there is one, else GitHub (nothing under ``settings.offline``)."""
    if entry.source is not None:
        return GitRepoSource(entry.source) if entry.source.is_dir() else TarballSource(entry.source)
    github = None if settings.offline else GitHubArchiveSource(entry.repo, client, cache)
    mirror = locate(settings.mirrors_dir, entry.repo) if settings.mirrors_dir is not None else None
    if mirror is not None:
        return MirrorSource(entry.repo, mirror, github)
    return github or OfflineSource(entry.repo, settings.mirrors_dir)


def locate(mirrors: Path, repo: str) -> Path | None:
    """The mirror of ``repo`` (``owner/name``) under ``mirrors``, or ``None``."""
    owner, _, name = repo.partition("/")
    return _index(str(mirrors)).get((owner.lower(), name.lower()))


@lru_cache(maxsize=8)
def _index(mirrors: str) -> dict[tuple[str, str], Path]:
    """(owner, name) lower-cased -> mirror path, for every git repository two levels down."""
    found: dict[tuple[str, str], Path] = {}
    for owner in _folders(Path(mirrors)):
        for repo in _folders(owner):
            if _is_git(repo):
                key = (owner.name.lower(), repo.name.lower().removesuffix(".git"))
                if key not in found or repo.name.endswith(".git"):  # NAME.git wins over NAME
                    found[key] = repo
    return found


def _folders(path: Path) -> Iterator[Path]:
    try:
        with os.scandir(path) as entries:
            yield from sorted((Path(e.path) for e in entries if e.is_dir()), key=lambda p: p.name)
    except OSError:
        return


def _is_git(path: Path) -> bool:
    return ((path / "HEAD").is_file() and (path / "objects").is_dir()) or (path / ".git").exists()


def forget() -> None:
    """Drop what is known of mirror folders (they changed on disk)."""
    _index.cache_clear()


class MirrorSource:
    """A repository's mirror first; GitHub (``fallback``) for a commit the mirror lacks, unless
    ``fallback`` is ``None`` (``--offline``)."""

    def __init__(self, repo: str, path: Path, fallback: ArchiveSource | None) -> None:
        self.repo, self.path = repo, path
        self._mirror, self._fallback = GitRepoSource(path), fallback
        self._chosen: ArchiveSource = self._mirror

    @property
    def kind(self) -> str:
        """``git`` while the mirror serves, else the fallback's kind."""
        return self._chosen.kind

    def resolve(self, ref: str | None) -> str:
        """GitHub's answer when online (the mirror may be behind), else the mirror's."""
        if self._fallback is not None:
            return self._fallback.resolve(ref)
        try:
            return self._mirror.resolve(ref)
        except SourceError as exc:
            raise NotFoundError(f"{exc} (--offline: mirror {self.path})") from None

    def fetch(self, commit: str) -> Fetched:
        """The mirror if it holds ``commit``, else the fallback's fetch."""
        return self._serve(commit, lambda source: source.fetch(commit))

    def locate(self, commit: str) -> Fetched:
        """The mirror if it holds ``commit``, else the fallback's locally cached tree."""
        return self._serve(commit, lambda source: source.locate(commit))

    def members(self, commit: str, fetched: Fetched) -> Iterator[Entry | Run]:
        """The members of whichever served the last ``fetch`` or ``locate``."""
        return self._chosen.members(commit, fetched)

    def _serve(self, commit: str, get: Callable[[ArchiveSource], Fetched]) -> Fetched:
        try:
            fetched = get(self._mirror)  # checks that the mirror holds the commit
        except NotFoundError:
            if self._fallback is None:
                why = f"commit {commit[:12]} not in mirror {self.path} (--offline: not fetched)"
                raise NotFoundError(why) from None
            self._chosen = self._fallback
            return get(self._fallback)
        self._chosen = self._mirror
        return fetched


class OfflineSource:
    """A repository with no mirror under ``--offline``: every stage skips it with the reason."""

    kind = "github"

    def __init__(self, repo: str, mirrors: Path | None) -> None:
        where = f"no mirror in {mirrors}" if mirrors is not None else "no local source"
        self._why = f"{where} and --offline: not fetched"

    def resolve(self, ref: str | None) -> str:
        """Never: offline, nothing can be asked."""
        raise NotFoundError(self._why)

    def fetch(self, commit: str) -> Fetched:
        """Never: offline, nothing can be downloaded."""
        raise NotFoundError(self._why)

    locate = fetch

    def members(self, commit: str, fetched: Fetched) -> Iterator[Entry | Run]:
        """Never: nothing was fetched."""
        raise NotFoundError(self._why)
