"""What every source of a tree yields, one member after another: the scan's input.

An archive, a git tree, a folder or a zip gives ``Entry`` pairs: a ``Member`` and, for a
regular file, its content as chunks. A tar archive also gives ``Run``s: members read ahead
together, which the scan counts with one native call (``archive.stream``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Member:
    """One entry of a tree: a regular file, or something skipped."""

    path: str
    """path inside the tree, top folder stripped, undecodable bytes as ``\\xNN``."""
    kind: str
    """``file``, ``dir``, ``symlink``, ``hardlink``, ``device``, ``fifo``, ``submodule``,
    ``missing`` (a blob absent from a partial clone) or ``other``."""
    size_bytes: int
    """size of the content in bytes (0 for non-regular members)."""


#: a member and, for regular files, its content as chunks (read them before the next member)
Entry = tuple[Member, Iterable[bytes] | None]


@dataclass(frozen=True)
class Run:
    """Consecutive members whose content lies whole in one buffer already read: most members
    of a source archive. The scan counts a run's files with one native call over ``buffer``."""

    buffer: bytes
    members: list[tuple[str, str, int, int]]
    """(path, kind, size, offset) of each member, as in ``Member``; a file's content is
    ``buffer[offset : offset + size]``."""

    def entries(self) -> Iterator[Entry]:
        """The run as entries, one per member."""
        buffer = self.buffer
        for path, kind, size, offset in self.members:
            if kind == "file":
                yield Member(path, kind, size), (buffer[offset : offset + size],) if size else ()
            else:
                yield Member(path, kind, 0), None


def entries(items: Iterable[Entry | Run]) -> Iterator[Entry]:
    """``items`` one entry per member: each run taken apart."""
    for item in items:
        if isinstance(item, Run):
            yield from item.entries()
        else:
            yield item



def display_path(name: str) -> str:
    """A tar member name as text: undecodable bytes become ``\\xNN`` escapes."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
