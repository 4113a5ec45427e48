"""One pass over a tree's members: term counts per file, and what was skipped."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pipeline.archive import Entry
from pipeline.scan.count import TermCounter


@dataclass(frozen=True)
class TreeScan:
    """What one pass over a tree found."""

    regular_files: int
    """regular files read."""
    skipped_members: int
    """members not read: symlinks, hardlinks, devices, fifos, submodules, missing blobs."""
    content_bytes: int
    """bytes of regular-file content read."""
    counts: tuple[tuple[str, str, int], ...]
    """(path, term, count) for every non-zero count."""
    skipped: tuple[tuple[str, str], ...]
    """(path, kind) for every skipped member."""


def scan_tree(entries: Iterable[Entry], terms: tuple[str, ...]) -> TreeScan:
    """Count ``terms`` in every regular file of ``entries``; directories are passed over."""
    counter = TermCounter(terms)
    files = content = 0
    counts: list[tuple[str, str, int]] = []
    skipped: list[tuple[str, str]] = []
    for member, chunks in entries:
        if chunks is None:
            if member.kind != "dir":
                skipped.append((member.path, member.kind))
            continue
        files += 1
        content += member.size_bytes
        found = counter.count_chunks(chunks)
        counts.extend((member.path, term, n) for term, n in zip(terms, found, strict=True) if n)
    return TreeScan(files, len(skipped), content, tuple(counts), tuple(skipped))
