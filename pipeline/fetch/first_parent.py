"""The first-parent line of a local git repository's branch, read once, and its commit at any moment.

``first_parent_line`` lists the commits ``git rev-list --first-parent TIP`` walks, newest first, each
with its tree and committer date; ``at_or_before`` picks the one ``git rev-list -1 --first-parent
--before=MOMENT TIP`` names: the first commit of that line, from the tip, committed at or before the
moment (the line is read once, so a timeline of many periods costs one git command, not one a period).
Commits a merge brought in are not on the line: a merge is one step of it, as the branch saw it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pipeline.errors import SourceError
from pipeline.fetch.gitrepo import GitRepo


@dataclass(frozen=True)
class LineCommit:
    """One commit of a first-parent line."""

    commit: str
    tree: str
    """its tree: two commits with the same tree hold the same files."""
    committed_at_utc: datetime
    """its committer date (UTC, naive), the date ``--before`` compares."""


def first_parent_line(path: Path, tip: str) -> tuple[LineCommit, ...]:
    """The commits of ``tip``'s first-parent line in the repository at ``path``, newest first;
    ``SourceError`` naming the repository when git cannot read it."""
    text = GitRepo(path).output("rev-list", "--first-parent", "--no-commit-header", "--format=%H %T %ct", tip)
    line = []
    for row in text.decode("ascii", "replace").splitlines():
        parts = row.split()
        if len(parts) != 3 or not parts[2].lstrip("-").isdigit():
            raise SourceError(f"git rev-list in {path}: unexpected line {row[:80]!r}")
        line.append(LineCommit(parts[0], parts[1], datetime.fromtimestamp(int(parts[2]), UTC).replace(tzinfo=None)))
    return tuple(line)


def at_or_before(line: Sequence[LineCommit], moment: datetime) -> LineCommit | None:
    """The first commit of ``line`` (newest first) committed at or before ``moment`` (UTC, naive), or
    ``None`` when every commit is later (the repository did not exist yet)."""
    return next((c for c in line if c.committed_at_utc <= moment), None)
