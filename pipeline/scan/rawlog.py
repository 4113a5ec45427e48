"""A whole history's diffs in one ``git log --raw -z`` stream, parsed as it arrives.

``LOG_OPTIONS`` ask git for each commit of a range, oldest first in topological order (as
``git log --topo-order --reverse``), with its committer date, its parents and the raw diff
against its first parent: a merge's diff too (``--diff-merges=first-parent``), a root commit's
against the empty tree (``--root``), renames as a deletion and an addition (``--no-renames``),
full object names (``--no-abbrev``). These are the diffs ``git diff-tree -r --raw --no-renames
PARENT COMMIT`` gives one commit at a time, and the options that a user's configuration could
change (renames, root diffs, signatures) are each given, so the stream is the same everywhere.

With ``-z`` every field ends with NUL: the header ``COMMIT STAMP PARENTS``, then for each entry
its ``:OLD_MODE NEW_MODE OLD_SHA NEW_SHA STATUS`` (the first one after a newline) and its path.
A path may hold any byte but NUL, so only the position of a field says what it is: the one
after an entry's metadata is its path; any other field is a header or an entry.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import IO

#: the options of the one ``git log`` of a walk, before the range's own (``--first-parent``, dates, refs)
LOG_OPTIONS = ("log", "--topo-order", "--reverse", "--format=%H %ct %P", "--raw", "-z", "--no-abbrev",
               "--no-renames", "--root", "--diff-merges=first-parent", "--no-show-signature", "--no-color")

#: git modes of the entries a scan counts (regular files); symlinks (120000) and submodules (160000) are not
COUNTED_MODES = frozenset((b"100644", b"100755", b"100664"))

#: one entry of a diff that a count can see: (old mode, new mode, old blob, new blob, path)
Change = tuple[bytes, bytes, bytes, bytes, bytes]

_READ_BYTES = 1 << 20


@dataclass(frozen=True)
class Logged:
    """One commit of the stream and the entries of its diff that touch a regular file."""

    commit: str
    committed_at_utc: datetime
    parents: tuple[str, ...]
    """all of them, the first one first (empty for a root commit)."""
    changes: tuple[Change, ...]
    """the diff's entries, in git's order, where the old or the new side is a regular file."""


def read_log(stream: IO[bytes]) -> Iterator[Logged]:
    """The commits of a ``LOG_OPTIONS`` stream, each as soon as the next one starts (or the stream ends)."""
    header: list[bytes] | None = None
    changes: list[Change] = []
    entry: list[bytes] | None = None  # the metadata whose path comes next
    for field in _fields(stream):
        if entry is not None:
            if len(entry) >= 5 and (entry[0] in COUNTED_MODES or entry[1] in COUNTED_MODES):
                changes.append((entry[0], entry[1], entry[2], entry[3], field))
            entry = None
        elif field.startswith((b":", b"\n:")):
            entry = field.lstrip(b"\n:").split()
        elif field:
            if header is not None:
                yield _logged(header, changes)
            header, changes = field.split(), []
    if header is not None:
        yield _logged(header, changes)


def _fields(stream: IO[bytes]) -> Iterator[bytes]:
    """The NUL-ended fields of ``stream``, as they arrive (what git has written so far, each time)."""
    rest = b""
    while chunk := os.read(stream.fileno(), _READ_BYTES):
        fields = (rest + chunk).split(b"\0")
        rest = fields.pop()
        yield from fields
    if rest:
        yield rest


def _logged(header: list[bytes], changes: list[Change]) -> Logged:
    commit, stamp, *parents = (part.decode("ascii") for part in header)
    return Logged(commit, datetime.fromtimestamp(int(stamp), UTC), tuple(parents), tuple(changes))
