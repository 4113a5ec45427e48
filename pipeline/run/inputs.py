"""Local inputs for ``census count``: archives, folders and files as streams of members.

``entries_of`` turns one path into the same ``(Member, chunks)`` stream the census scans
(``pipeline.archive.tarball.members`` for .tar.gz/.tgz/.tar, ``zipfile`` for .zip, a walk for a folder, one
member for a plain file), and ``count_paths`` runs the census's own scan pass
(``scan_tree``) over each: what ``census count`` measures is what ``census scan`` runs.
Nothing is extracted; symlinks are recorded as members, never followed. An archive, zip or
tar, is held to the census's limits (``pipeline.archive.limits``); a folder or a file is not.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from pipeline.archive.entries import Entry, Member, Run, display_path
from pipeline.archive.limits import env_limits, limited
from pipeline.archive.tarball import CHUNK_BYTES, first_folder, stream
from pipeline.errors import ArchiveError
from pipeline.scan.roles import SERVER, RoleRules
from pipeline.scan.tree import TreeScan, scan_tree

if TYPE_CHECKING:  # zipfile is imported when a .zip is read
    import zipfile

GZIP_MAGIC = b"\x1f\x8b"
ZIP_MAGIC = b"PK\x03\x04"
TAR_SUFFIXES = (".tar.gz", ".tgz", ".tar")


def entries_of(path: Path) -> Iterator[Entry | Run]:
    """The members of ``path``: an archive's members (read-ahead runs of them together), a
    folder's files, or the file itself."""
    if path.is_dir():
        yield from _folder(path)
        return
    head = _head(path)
    if head.startswith(ZIP_MAGIC) or path.name.lower().endswith(".zip"):
        yield from limited(_zip(path), env_limits())  # held to a tar's limits (a zip bomb)
    elif _tar_like(path, head):
        yield from stream(path, None)
    else:
        yield Member(path.name, "file", path.stat().st_size), _file_chunks(path)


def _top_folder(path: Path) -> str | None:
    """The top folder of a tar archive (GitHub's ``owner-name-sha/``), which its paths keep: the
    tree's root for roles."""
    if path.is_file() and _tar_like(path, _head(path)):
        try:
            return first_folder(path)
        except ArchiveError:
            return None  # the scan names what is wrong with it
    return None


def _head(path: Path) -> bytes:
    try:
        with path.open("rb") as stream:
            return stream.read(512)
    except OSError as exc:
        raise ArchiveError(f"{path}: cannot read: {exc.strerror or exc}") from exc


def _tar_like(path: Path, head: bytes) -> bool:
    """Whether ``path``, which starts with ``head``, is read as a tar archive (gzipped or not)."""
    return head.startswith(GZIP_MAGIC) or path.name.lower().endswith(TAR_SUFFIXES) or _is_tar(head)


def _is_tar(head: bytes) -> bool:
    """A ustar header: the magic at offset 257."""
    return len(head) == 512 and head[257:262] == b"ustar"


def _file_chunks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as stream:
        yield from _read_chunks(stream)


def _read_chunks(stream: BinaryIO) -> Iterator[bytes]:
    while chunk := stream.read(CHUNK_BYTES):
        yield chunk


def _folder(root: Path) -> Iterator[Entry]:
    """Every member below ``root`` in sorted order; symlinks and special files are not read."""
    for directory, folders, files in os.walk(root):
        folders.sort()
        for name in sorted(files):
            full = Path(directory, name)
            rel = display_path(full.relative_to(root).as_posix())
            mode = full.lstat().st_mode
            if stat.S_ISREG(mode):
                yield Member(rel, "file", full.lstat().st_size), _file_chunks(full)
            else:
                yield Member(rel, "symlink" if stat.S_ISLNK(mode) else "other", 0), None


def _zip(path: Path) -> Iterator[Entry]:
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                yield _zip_member(archive, info)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError) as exc:
        raise ArchiveError(f"{path}: not a readable zip archive: {exc}") from exc


def _zip_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Entry:
    mode = info.external_attr >> 16
    if info.is_dir():
        return Member(display_path(info.filename.rstrip("/")), "dir", 0), None
    if stat.S_ISLNK(mode):
        return Member(display_path(info.filename), "symlink", 0), None
    return Member(display_path(info.filename), "file", info.file_size), _zip_chunks(archive, info)


def _zip_chunks(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Iterator[bytes]:
    with archive.open(info) as stream:
        yield from _read_chunks(stream)  # type: ignore[arg-type]


@dataclass
class CountReport:
    """What ``census count`` found over all its inputs."""

    terms: tuple[str, ...]
    """the terms counted, in order."""
    totals: dict[str, int] = field(default_factory=dict)
    """term -> count over every regular file of every input."""
    per_file: dict[str, dict[str, int]] = field(default_factory=dict)
    """``input:path`` -> term -> non-zero count."""
    regular_files: int = 0
    """regular files read."""
    content_bytes: int = 0
    """bytes of regular-file content read."""
    skipped_members: int = 0
    """members not read (symlinks, devices, ...)."""
    tools: dict[str, int] | None = None
    """with detection: ``server_tools``, ``annotated_server_tools`` (MCP tools a server ships, and
    those declaring annotations in source), ``example_tools``, ``test_tools`` (MCP tools of
    examples and tests) and ``lookalike_tools`` (not MCP, any role)."""
    failed: dict[str, str] = field(default_factory=dict)
    """input -> why it could not be read."""

    def add(self, source: str, scan: TreeScan) -> None:
        """Fold one input's scan into the report."""
        self.regular_files += scan.regular_files
        self.content_bytes += scan.content_bytes
        self.skipped_members += scan.skipped_members
        for path, term, count in scan.counts:
            self.totals[term] += count
            self.per_file.setdefault(f"{source}:{path}", {})[term] = count
        if scan.detection is not None:
            tools = self.tools if self.tools is not None else dict.fromkeys(TOOL_KEYS, 0)
            for tool in scan.detection.tools:
                tools[f"{tool.role}_tools" if tool.is_mcp else "lookalike_tools"] += 1
                tools["annotated_server_tools"] += tool.is_mcp and tool.role == SERVER and tool.annotations.declared
            self.tools = tools


#: the tool counts of ``CountReport.tools``, in order
TOOL_KEYS = ("server_tools", "annotated_server_tools", "example_tools", "test_tools", "lookalike_tools")


def count_paths(paths: list[Path], terms: tuple[str, ...], detect: bool = False,
                server_paths: tuple[str, ...] = ()) -> CountReport:
    """Count ``terms`` in every input (and, with ``detect``, find their tools, placed with
    ``server_paths`` inside each input); an input that cannot be read is recorded in ``failed``
    and the others are still counted."""
    report = CountReport(terms, dict.fromkeys(terms, 0))
    for path in paths:
        detector = None
        if detect:
            from pipeline.scan.detect import Detector  # tree-sitter is imported only when asked

            detector = Detector()
        try:
            roles = RoleRules(server_paths, top=_top_folder(path))
            report.add(str(path), scan_tree(entries_of(path), terms, detector, roles))
        except (ArchiveError, OSError) as exc:
            report.failed[str(path)] = str(exc) if isinstance(exc, ArchiveError) else f"{path}: {exc}"
    return report
