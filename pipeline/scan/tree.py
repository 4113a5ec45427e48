"""One pass over a tree's members: term counts per file, the tools the detector finds, and
what was skipped. Each member is read once; the detector sees the bytes the counter reads."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipeline.archive import Entry
from pipeline.scan.count import TermCounter, WordPresence

if TYPE_CHECKING:  # the detector (and tree-sitter) is imported only by those who pass one
    from pipeline.scan.detect import Detection, Detector


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
    detection: Detection | None = None
    """the registration detector's findings (``None`` when it did not run)."""


def scan_tree(entries: Iterable[Entry], terms: tuple[str, ...], detector: Detector | None = None) -> TreeScan:
    """Count ``terms`` in every regular file of ``entries``; with a ``detector``, find its tools too.

    The detector is handed the bytes the counter reads (``wants`` / ``add``), then asked
    for its findings (``finish``): one read of each member serves both. Its prefilter words
    are looked for in the bytes already held (one native multi-pattern scan per file), so
    a file that names none of them costs it nothing more.
    """
    counter = TermCounter(terms)
    presence = WordPresence(detector.prefilter_words()) if detector is not None else None
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
        if detector is not None and detector.wants(member.path, member.size_bytes):
            parts = chunks if type(chunks) is tuple else list(chunks)  # wanted files are small
            found = counter.count_chunks(parts)
            data = parts[0] if len(parts) == 1 else b"".join(parts)
            detector.add(member.path, data, presence.present(data) if presence else None)
        else:
            found = counter.count_chunks(chunks)
        if any(found):
            counts.extend((member.path, term, n) for term, n in zip(terms, found, strict=True) if n)
    detection = detector.finish() if detector is not None else None
    return TreeScan(files, len(skipped), content, tuple(counts), tuple(skipped), detection)

