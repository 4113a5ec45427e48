"""A local git mirror as a :class:`pipeline.runtime.built_from.History`: its tags, commits and dates,
read with git plumbing (no transport, nothing fetched)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from pipeline.errors import SourceError
from pipeline.fetch.gitrepo import GitRepo


class MirrorHistory:
    """The history of the git repository at ``path``."""

    def __init__(self, path: Path) -> None:
        self.repo = GitRepo(path)
        self._tags: dict[str, str] | None = None

    def tags(self) -> dict[str, str]:
        """Every tag and the commit it points at (an annotated tag peeled to its commit)."""
        if self._tags is None:
            lines = self.repo.output("for-each-ref", "--format=%(refname:strip=2)%00%(objectname)%00%(*objectname)",
                                     "refs/tags").decode("utf-8", "replace").splitlines()
            parts = [line.split("\0") for line in lines if line.count("\0") == 2]
            self._tags = {name: peeled or commit for name, commit, peeled in parts}
        return self._tags

    def has(self, commit: str) -> bool:
        """Whether the repository holds ``commit`` as a commit."""
        try:
            self.repo.output("cat-file", "-e", f"{commit}^{{commit}}")
        except SourceError:
            return False
        return True

    def last_before(self, moment: datetime, path: str | None) -> str | None:
        """The last first-parent commit of ``HEAD`` committed at or before ``moment`` (touching ``path``)."""
        stamp = moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)
        where = ["--", path.strip("/")] if path and path.strip("/") not in ("", ".") else []
        try:
            found = self.repo.output("rev-list", "-1", "--first-parent", f"--before={stamp.isoformat()}", "HEAD",
                                     *where).decode().strip()
        except SourceError:
            return None
        return found or None

    def committed_at(self, commit: str) -> datetime | None:
        """When ``commit`` was committed, in UTC."""
        return self.repo.committed_at(commit)

    def occurring(self, commit: str, names: Iterable[str]) -> set[str]:
        """Which of ``names`` occur in some text file of ``commit``'s tree, compared without case (one
        ``git grep`` of them all; a name found only inside a longer one still counts)."""
        wanted = {name for name in names if name and "\n" not in name}
        if not wanted:
            return set()
        done = subprocess.run(self.repo.command("grep", "-F", "-i", "-o", "-h", "-I", "-f", "-", commit),
                              input="\n".join(sorted(wanted)).encode(), capture_output=True, check=False)
        if done.returncode not in (0, 1):
            raise SourceError(f"git grep failed in {self.repo.path}: {done.stderr.decode('utf-8', 'replace')[-200:]}")
        matched = set(done.stdout.decode("utf-8", "replace").lower().splitlines())
        return {name for name in wanted if name.lower() in matched or any(name.lower() in m for m in matched)}

