"""What every source of a tree yields, one member after another: the scan's input.

An archive, a git tree, a folder or a zip gives ``Entry`` pairs: a ``Member`` and, for a
regular file, its content as chunks. A tar archive also gives ``Run``s: members read ahead
together, which the scan counts with one native call (``pipeline.archive.tarball.stream``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property


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


#: tar type flags -> member kinds; kinds other than "file" are skipped and counted, never
#: read or followed
KINDS = {
    b"0": "file",
    b"\0": "file",
    b"7": "file",
    b"2": "symlink",
    b"1": "hardlink",
    b"3": "device",
    b"4": "device",
    b"6": "fifo",
    b"5": "dir",
}
#: the type flags of regular files: the plain types whose data follows the header
FILE_TYPES = (b"0", b"\0", b"7")

#: a tar member as its header gives it: (name, type flag, size, offset of its content in the
#: buffer it was read from; 0 where it was not)
Raw = tuple[bytes, bytes, int, int]


@dataclass(frozen=True)
class Run:
    """Consecutive members whose content lies whole in one buffer already read: most members
    of a source archive. The scan counts a run's files with one native call over ``buffer``,
    and turns a name into a path only for the files it has something to say about."""

    buffer: bytes
    raw: list[Raw]
    """(name, type flag, size, offset) of each member as its tar header gives it; a file's
    content is ``buffer[offset : offset + size]``."""
    top: bytes | None = None
    """the top folder every name sits in, stripped from paths (its own member is left out)."""

    @cached_property
    def members(self) -> list[tuple[str, str, int, int]]:
        """(path, kind, size, offset) of each member, as in ``Member`` (size 0 unless a file)."""
        return [member for item in self.raw if (member := named(item, self.top)) is not None]

    def tally(self) -> tuple[int, int]:
        """How many members the run holds (the top folder's own aside), and their files' bytes."""
        top = self.top
        members = sum(1 for name, _, _, _ in self.raw if name != top)
        return members, sum(size for name, kind, size, _ in self.raw if kind in FILE_TYPES and name != top)

    def entries(self) -> Iterator[Entry]:
        """The run as entries, one per member."""
        buffer = self.buffer
        for path, kind, size, offset in self.members:
            if kind == "file":
                yield Member(path, kind, size), (buffer[offset : offset + size],) if size else ()
            else:
                yield Member(path, kind, 0), None


def named(raw: Raw, top: bytes | None) -> tuple[str, str, int, int] | None:
    """(path, kind, size, offset) of one raw member, ``top/`` stripped; ``None`` for ``top`` itself."""
    name, type_, size, offset = raw
    if name == top:
        return None
    kind = KINDS.get(type_, "other")
    return path_of(name, top), kind, size if kind == "file" else 0, offset


def path_of(name: bytes, top: bytes | None) -> str:
    """A member's path: ``top/`` stripped, undecodable bytes as ``\\xNN`` escapes."""
    if top and name.startswith(top) and name[len(top) : len(top) + 1] == b"/":
        name = name[len(top) + 1 :]
    return name.decode("utf-8", "backslashreplace")


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
