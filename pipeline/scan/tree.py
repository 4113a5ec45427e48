"""One pass over a tree's members: term counts per file, the tools the detector finds, and
what was skipped. Each member is read once; the detector sees the bytes the counter reads.
Every file with a count, and every tool, gets its role (``pipeline.scan.roles``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipeline.archive.entries import FILE_TYPES, KINDS, Entry, Member, Run, path_of
from pipeline.scan import notes
from pipeline.scan.count import TermCounter
from pipeline.scan.roles import RoleRules
from pipeline.scan.roles.content import MAX_READ_BYTES

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
    roles: tuple[tuple[str, str], ...] = ()
    """(path, role) for every path of ``counts``: ``server``, ``example``, ``test`` or ``docs``."""

    def role_of(self) -> dict[str, str]:
        """``roles`` as a mapping (a path absent from it has no count)."""
        return dict(self.roles)


def scan_tree(
    entries: Iterable[Entry | Run], terms: tuple[str, ...], detector: Detector | None = None,
    roles: RoleRules | None = None,
) -> TreeScan:
    """Count ``terms`` in every regular file of ``entries``; with a ``detector``, find its tools too.
    ``roles`` (default: the path rules, no server paths) places every count and tool; the .NET
    project files it reads are read in the same pass.

    The detector is handed the bytes the counter reads (``wants`` / ``add``), then asked
    for its findings (``finish``): one read of each member serves both. Its prefilter words
    are looked for in the same native scan as the terms, so a file that names none of them
    costs it nothing more. The files of a ``Run`` (``pipeline.archive.tarball.stream``) that neither the
    detector nor the notes want are counted together, with one native call.
    """
    scan = _Pass(terms, detector, roles if roles is not None else RoleRules())
    for entry in entries:
        if isinstance(entry, Run):
            scan.read_run(entry)
            continue
        member, chunks = entry
        if chunks is None:
            scan.skip(member)
        else:
            scan.read(member, chunks)
    return scan.result()


class _Pass:
    """The state of one ``scan_tree`` pass."""

    def __init__(self, terms: tuple[str, ...], detector: Detector | None, roles: RoleRules) -> None:
        self.terms, self.detector, self.roles = terms, detector, roles
        self.counter = TermCounter(terms)
        # the files the detector reads are scanned for its prefilter words too (a larger database)
        self.finder = TermCounter(terms, words=detector.prefilter_words()) if detector is not None else self.counter
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
        if member.size_bytes <= MAX_READ_BYTES and self.roles.wants(member.path):
            chunks = tuple(chunks)  # a project file or a test's, small: read whole
            self.roles.learn(member.path, b"".join(chunks))
        if wanted or kind is not None:
            parts = chunks if type(chunks) is tuple else tuple(chunks)  # wanted files are small: bounded
            found = self._whole(member.path, parts[0] if len(parts) == 1 else b"".join(parts), wanted, kind)
        else:
            found = self.counter.count_chunks(chunks)
        self._add_counts(member.path, found)

    def read_run(self, run: Run) -> None:
        """Count the files of a run together, looking for the detector's words in the same native
        scan. A name becomes a path only for a file with a count, a note, or something for the
        detector: the files the notes want, and those the detector wants that name one of its
        words (or are package manifests), are handed over whole, in order."""
        buffer, top = run.buffer, run.top
        files = [item for item in run.raw if item[1] in FILE_TYPES and item[0] != top]
        if len(files) != len(run.raw):
            self.skipped.extend((path_of(name, top), KINDS.get(kind, "other")) for name, kind, _, _ in run.raw
                                if kind not in FILE_TYPES and kind != b"5" and name != top)
        counts, words = self.finder.count_spans(buffer, [(offset, offset + size) for _, _, size, offset in files])
        self.files += len(files)
        self.content += sum(size for _, _, size, _ in files)
        chosen = {*counts, *words, *notes.candidates(files, buffer)}
        names = [item[0] for item in files]
        if self.detector is not None:  # package manifests reach it whatever they hold
            chosen.update(self.detector.manifests(names))
        for span in self.roles.wanted(names):
            name, _, size, offset = files[span]
            if size <= MAX_READ_BYTES:
                self.roles.learn(path_of(name, top), memoryview(buffer)[offset : offset + size])
        for span in sorted(chosen):
            name, _, size, offset = files[span]
            path = path_of(name, top)
            kind = notes.kind_of(path, size, buffer, offset)
            present = words.get(span)
            wanted_here = self._wants(path, size, present)
            if wanted_here or kind is not None:
                self._hand_over(path, buffer[offset : offset + size], wanted_here, kind, present or frozenset())
            if span in counts:
                self._add_counts(path, counts[span])

    def _wants(self, path: str, size: int, present: frozenset[str] | None) -> bool:
        """Whether the detector wants a file of a run: only one that names a word it looks for
        (``present``) or that it reads whatever it holds can change what it finds."""
        detector = self.detector
        if detector is None or (present is None and not detector.always_reads(path, size)):
            return False
        return detector.wants(path, size)

    def _whole(self, path: str, data: bytes, wanted: bool, kind: str | None) -> list[int]:
        found, present = self.finder.count_and_find(data)
        self._hand_over(path, data, wanted, kind, present)
        return found

    def _hand_over(self, path: str, data: bytes, wanted: bool, kind: str | None, present: frozenset[str]) -> None:
        """A whole file to the detector (when it wants it) and to the notes (when ``kind``)."""
        if wanted and self.detector is not None:
            self.detector.add(path, data, present)
        if kind is not None and (note := notes.note(path, kind, data)) is not None:
            self.notes.append(note)

    def _add_counts(self, path: str, found: list[int]) -> None:
        if any(found):
            self.counts.extend((path, term, n) for term, n in zip(self.terms, found, strict=True) if n)

    def result(self) -> TreeScan:
        """What the pass found (the detector finishes here, and every count is placed)."""
        detection = self.detector.finish(self.roles) if self.detector is not None else None
        placed = tuple((path, self.roles.of_path(path).role) for path in dict.fromkeys(c[0] for c in self.counts))
        found_notes = (*self.notes, *(detection.notes if detection is not None else ()))
        return TreeScan(self.files, len(self.skipped), self.content, tuple(self.counts), tuple(self.skipped),
                        detection, found_notes, placed)
