"""How much one tree may hold: the limits against hostile archives, applied as a tree is read.

``Budget`` counts members and file bytes, ``Bounded`` counts the bytes a decompressed stream
gives, and ``limited`` holds any stream of entries (archive, git, folder) to the same limits.
Past a limit each raises ``ArchiveLimitError``: the repository is skipped with that reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from pipeline.archive.entries import Entry, Run
from pipeline.archive.tarfields import Readable
from pipeline.errors import ArchiveError, ArchiveLimitError, SettingsError
from pipeline.settings import ENV, Limits


def over_limit(what: str, setting: str) -> ArchiveLimitError:
    """The error for an archive over the limit ``setting`` (``max_members``, ``max_archive_bytes``)."""
    return ArchiveLimitError(f"over a limit: {what} ({ENV[setting]})")


def limited(entries: Iterable[Entry | Run], limits: Limits) -> Iterator[Entry | Run]:
    """``entries`` unchanged, until they are more members or more file bytes than ``limits``."""
    budget = Budget(limits)
    for entry in entries:
        if isinstance(entry, Run):
            budget.count_many(*entry.tally())
        else:
            member = entry[0]
            budget.count(member.size_bytes if member.kind == "file" else 0)
        yield entry


def env_limits() -> Limits:
    """The environment's limits; an unusable value is an ``ArchiveError`` that says which."""
    try:
        return Limits.from_env()
    except SettingsError as exc:
        raise ArchiveError(str(exc)) from exc


class Budget:
    """What an archive holds so far, against its limits; raises ``ArchiveLimitError`` past one."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._members = 0
        self._file_bytes = 0

    def count(self, file_bytes: int) -> None:
        """Count one member holding ``file_bytes`` bytes of content."""
        self.count_many(1, file_bytes)

    def count_many(self, members: int, file_bytes: int) -> None:
        """Count ``members`` members holding ``file_bytes`` bytes of content between them."""
        self._members += members
        self._file_bytes += file_bytes
        if self._members > self.limits.max_members:
            raise over_limit(f"the tree has more than {self.limits.max_members} members", "max_members")
        if self._file_bytes > self.limits.max_archive_bytes:
            raise over_limit(f"its files hold more than {self.limits.max_archive_bytes} bytes", "max_archive_bytes")


class Bounded:
    """A decompressed stream that raises ``ArchiveLimitError`` once more than ``limit`` bytes came out."""

    def __init__(self, stream: Readable, limit: int) -> None:
        self._read = stream.read
        self._read1 = getattr(stream, "read1", None) or stream.read
        self._limit = limit
        self._seen = 0

    def read(self, size: int, /) -> bytes:
        """Up to ``size`` bytes, counted against the limit."""
        return self._counted(self._read(size))

    def read1(self, size: int, /) -> bytes:
        """The next bytes the stream has ready (at most ``size``), counted against the limit."""
        return self._counted(self._read1(size))

    def _counted(self, data: bytes) -> bytes:
        self._seen += len(data)
        if self._seen > self._limit:
            raise over_limit(f"the archive decompresses to more than {self._limit} bytes", "max_archive_bytes")
        return data
