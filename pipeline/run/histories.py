"""The histories a timeline fetches itself, several at once, each one a clone or why it is not.

``census timeline`` fetches the history of each repository no local clone holds
(``pipeline.fetch.histories``) before it walks any: ``jobs`` at a time in threads (each fetch is
a ``git`` process waiting on the network), one step of the progress bar each.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pipeline.errors import SourceError
from pipeline.fetch.histories import fetch_history
from pipeline.manifest.entries import RepoEntry
from pipeline.progress import Observer
from pipeline.run.runner import reason
from pipeline.settings import Settings


def fetch_all(entries: list[RepoEntry], settings: Settings, observer: Observer, jobs: int) -> dict[str, Path | str]:
    """repo -> its fetched clone, or the reason it could not be had (``history: ...``)."""
    observer.stage("histories", len(entries))

    def one(entry: RepoEntry) -> tuple[str, Path | str]:
        try:
            return entry.repo, fetch_history(entry.repo, entry.commit, settings)
        except SourceError as exc:
            return entry.repo, f"history: {reason(exc, settings)}"

    found: dict[str, Path | str] = {}
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for repo, got in pool.map(one, entries):
            found[repo] = got
            if isinstance(got, Path):
                observer.advance(repo, "fetched", "", _size(got))
            else:
                observer.advance(repo, "skipped", got, 0)
    return found


def _size(folder: Path) -> int:
    """The bytes of the files under ``folder`` (a fetched history, for the progress bar)."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
