"""One pass over a tree's members: term counts per file, the tools the detector finds, and
what was skipped. Each member is read once; the detector sees the bytes the counter reads."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipeline.archive import Entry, Member
from pipeline.scan import notes
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
    notes: tuple[tuple[str, str, str], ...] = ()
    """(path, kind, detail): ``.gitattributes`` and ``.gitmodules`` lines, Git LFS pointers
    (see ``pipeline.scan.notes``)."""


def scan_tree(entries: Iterable[Entry], terms: tuple[str, ...], detector: Detector | None = None) -> TreeScan:
    """Count ``terms`` in every regular file of ``entries``; with a ``detector``, find its tools too.

    The detector is handed the bytes the counter reads (``wants`` / ``add``), then asked
    for its findings (``finish``): one read of each member serves both. Its prefilter words
    are looked for in the bytes already held (one native multi-pattern scan per file), so
    a file that names none of them costs it nothing more.
    """
    scan = _Pass(terms, detector)
    for member, chunks in entries:
        if chunks is None:
            scan.skip(member)
        else:
            scan.read(member, chunks)
    return scan.result()


class _Pass:
    """The state of one ``scan_tree`` pass."""

    def __init__(self, terms: tuple[str, ...], detector: Detector | None) -> None:
        self.terms, self.detector = terms, detector
        self.counter = TermCounter(terms)
        self.presence = WordPresence(detector.prefilter_words()) if detector is not None else None
        self.files = self.content = 0
        self.counts: list[tuple[str, str, int]] = []
        self.skipped: list[tuple[str, str]] = []
        self.notes: list[tuple[str, str, str]] = []

    def skip(self, member: Member) -> None:
        """A member that is not read (directories are not even listed)."""
        if member.kind != "dir":
            self.skipped.append((member.path, member.kind))

    def read(self, member: Member, chunks: Iterable[bytes]) -> None:
        """Count one regular file; hand it whole to the detector or the notes if they want it."""
        self.files += 1
        self.content += member.size_bytes
        wanted = self.detector is not None and self.detector.wants(member.path, member.size_bytes)
        kind = notes.kind_of(member.path, member.size_bytes)
        if wanted or kind is not None:
            found = self._whole(member, chunks, wanted, kind)
        else:
            found = self.counter.count_chunks(chunks)
        if any(found):
            self.counts.extend((member.path, term, n) for term, n in zip(self.terms, found, strict=True) if n)

    def _whole(self, member: Member, chunks: Iterable[bytes], wanted: bool, kind: str | None) -> list[int]:
        parts = chunks if type(chunks) is tuple else list(chunks)  # wanted files are small: bounded
        found = self.counter.count_chunks(parts)
        data = parts[0] if len(parts) == 1 else b"".join(parts)
        if wanted and self.detector is not None:
            self.detector.add(member.path, data, self.presence.present(data) if self.presence else None)
        if kind is not None and (note := notes.note(member.path, kind, data)) is not None:
            self.notes.append(note)
        return found

    def result(self) -> TreeScan:
        """What the pass found (the detector finishes here)."""
        detection = self.detector.finish() if self.detector is not None else None
        return TreeScan(self.files, len(self.skipped), self.content, tuple(self.counts), tuple(self.skipped),
                        detection, tuple(self.notes))
