"""The source commit a package version was built from, by the first of three rules that answers:

1. ``exact-tag``: a tag of the repository naming the version, the package's own tags first:
   ``NAME@1.2.3``, ``NAME-v1.2.3``, ``NAME-1.2.3``, ``NAME/v1.2.3`` (``NAME`` as published, without
   its npm scope, and for PyPI with ``-``/``_`` alike), then ``v1.2.3``, ``1.2.3`` and ``v.1.2.3``; compared
   without case;
2. ``metadata``: the commit the package's own metadata names (npm's ``gitHead``), when the
   repository holds it;
3. ``by-date``: the last commit of the default branch (first parent) at or before the release,
   among those touching the server's subfolder where it has one.

Each answer keeps the rule, the tag, the commit's date and how many days lie between it and the
release; a version none answers for keeps the reason. The repository's facts come from a
:class:`History` (a local mirror: ``pipeline.fetch.mirror_history``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

EXACT_TAG, METADATA, BY_DATE = "exact-tag", "metadata", "by-date"
#: the rules, the most telling first (a report orders by this)
RULES = (EXACT_TAG, METADATA, BY_DATE)
SHA = re.compile(r"^[0-9a-f]{40}$")


class History(Protocol):
    """What a repository's history answers."""

    def tags(self) -> Mapping[str, str]:
        """Every tag's name and the commit it points at."""
        ...

    def has(self, commit: str) -> bool:
        """Whether the repository holds ``commit``."""
        ...

    def last_before(self, moment: datetime, path: str | None) -> str | None:
        """The last first-parent commit of the default branch at or before ``moment`` touching ``path``."""
        ...

    def committed_at(self, commit: str) -> datetime | None:
        """When ``commit`` was committed (UTC)."""
        ...


@dataclass(frozen=True)
class Release:
    """A package version that answered, and where its registry entry says its source is."""

    server: str
    registry: str
    package: str
    version: str
    """empty for a catalog's record, which names none: only ``by-date`` can answer."""
    released_at_utc: datetime | None
    repo: str
    subfolder: str | None = None
    git_head: str | None = None
    """the commit the package's metadata names (npm ``gitHead``)."""
    names: tuple[str, ...] = ()
    """the tool names the capture holds (what ran listed)."""


@dataclass(frozen=True)
class BuiltFrom:
    """The commit ``release`` was built from, by which rule; ``rule`` None with ``reason`` when none."""

    release: Release
    rule: str | None
    commit: str | None
    ref: str | None = None
    """the tag, for ``exact-tag``."""
    committed_at_utc: datetime | None = None
    days_apart: float | None = None
    """days from the commit to the release (negative: the commit is later)."""
    reason: str = ""
    names_absent: frozenset[str] | None = None
    """those of ``release.names`` that occur nowhere in the tree at ``commit`` (None: not looked for)."""


def tag_names(package: str, version: str) -> list[str]:
    """The tags that name ``version`` of ``package``, most telling first (module doc)."""
    bare = package.rsplit("/", 1)[-1]
    names = dict.fromkeys([package, bare, bare.replace("_", "-"), bare.replace("-", "_")])
    own = [f"{name}{sep}{version}" for name in names for sep in ("@", "-v", "-", "/v")]
    return [*own, f"v{version}", version, f"v.{version}"]


def built_from(release: Release, history: History) -> BuiltFrom:
    """The commit ``release`` was built from (module doc)."""
    tags = {name.lower(): commit for name, commit in history.tags().items()} if release.version else {}
    for name in tag_names(release.package, release.version) if release.version else ():
        if (commit := tags.get(name.lower())) is not None:
            return found_at(release, history, EXACT_TAG, commit, name)
    head = (release.git_head or "").lower()
    if SHA.match(head) and history.has(head):
        return found_at(release, history, METADATA, head, None)
    if release.released_at_utc is None:
        return BuiltFrom(release, None, None, reason="no tag names the version, and its release date is unknown")
    commit = history.last_before(release.released_at_utc, release.subfolder)
    if commit is None:
        where = f" touching {release.subfolder}" if release.subfolder else ""
        said = f"no tag names {release.version}, and the default branch" if release.version else "the default branch"
        moment = "its release" if release.version else "the record"
        return BuiltFrom(release, None, None, reason=f"{said} has no commit{where} before {moment}")
    return found_at(release, history, BY_DATE, commit, None)


def found_at(release: Release, history: History, rule: str, commit: str, ref: str | None) -> BuiltFrom:
    """``release`` built from ``commit`` by ``rule``, with the commit's date and the days to the release."""
    when = history.committed_at(commit)
    apart = None
    if when is not None and release.released_at_utc is not None:
        released = release.released_at_utc if release.released_at_utc.tzinfo else \
            release.released_at_utc.replace(tzinfo=UTC)
        apart = round((released - when).total_seconds() / 86400, 2)
    return BuiltFrom(release, rule, commit, ref, when, apart)
