"""Reading tar.gz archives as streams: never extracted, never executed.

``verify`` walks an archive end to end (gzip CRC and tar framing) and reports its sha256,
size and top folder; ``members`` yields each member with a chunk stream for regular files,
checking the sha256 of the bytes it read against the one recorded at fetch time.
"""

from __future__ import annotations

import hashlib
import io
import tarfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Self, cast

from pipeline.errors import ArchiveError

try:  # isal's igzip is about twice as fast as zlib at decompression; same format and checks
    from isal import igzip as gzip_impl
    from isal import isal_zlib

    DEFLATE_ERRORS: tuple[type[Exception], ...] = (zlib.error, cast(type[Exception], isal_zlib.error))
except ImportError:  # pragma: no cover - isal ships wheels for every supported platform
    import gzip as gzip_impl  # type: ignore[no-redef]

    DEFLATE_ERRORS = (zlib.error,)

#: what a broken gzip or tar stream raises, from any layer
FRAMING_ERRORS: tuple[type[Exception], ...] = (tarfile.TarError, EOFError, OSError, ValueError, *DEFLATE_ERRORS)

CHUNK_BYTES = 1 << 20

#: member kinds other than "file" are skipped and counted, never read or followed
KINDS = {
    tarfile.REGTYPE: "file",
    tarfile.AREGTYPE: "file",
    tarfile.CONTTYPE: "file",
    tarfile.SYMTYPE: "symlink",
    tarfile.LNKTYPE: "hardlink",
    tarfile.CHRTYPE: "device",
    tarfile.BLKTYPE: "device",
    tarfile.FIFOTYPE: "fifo",
    tarfile.DIRTYPE: "dir",
}


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


#: a member and, for regular files, its content as chunks (read it before the next member)
Entry = tuple[Member, Iterator[bytes] | None]


@dataclass(frozen=True)
class ArchiveInfo:
    """What ``verify`` learned about an archive file."""

    sha256: str
    """hex sha256 of the compressed file."""
    size_bytes: int
    """size of the compressed file."""
    root: str | None
    """the single top folder that every member sits in (GitHub's ``owner-name-sha``)."""


class _HashingReader(io.RawIOBase):
    """A read-only raw stream that hashes and counts every byte read through it."""

    def __init__(self, raw: BinaryIO) -> None:
        super().__init__()
        self._raw = raw
        self.digest = hashlib.sha256()
        self.size_bytes = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        data = self._raw.read(len(view))
        view[: len(data)] = data
        self.digest.update(data)
        self.size_bytes += len(data)
        return len(data)


class _WholeTarInfo(tarfile.TarInfo):
    """Tar headers that must be whole: a missing, short or corrupt header is an error.

    tarfile otherwise ends the member list quietly at such a header (after the first one),
    so a tar cut at a member boundary or with a damaged header would read as complete.
    Only the end-of-archive marker, a block of zeros, ends the archive.
    """

    @classmethod
    def frombuf(cls, buf: bytes | bytearray, encoding: str, errors: str) -> Self:
        if len(buf) == tarfile.BLOCKSIZE and not buf.strip(b"\0"):
            return super().frombuf(buf, encoding, errors)  # the end marker: tarfile stops here
        try:
            return super().frombuf(buf, encoding, errors)
        except tarfile.HeaderError as exc:
            raise tarfile.ReadError(f"tar stream broken or cut short ({exc})") from None


def display_path(name: str) -> str:
    """A tar member name as text: undecodable bytes become ``\\xNN`` escapes."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def verify(path: Path) -> ArchiveInfo:
    """Read ``path`` end to end; raise ``ArchiveError`` unless gzip and tar are whole."""
    roots: set[str] = set()
    nested = True
    with _open_stream(path) as (stream, hasher):
        for info in _forgetful(stream):
            top, _, rest = info.name.partition("/")
            roots.add(top)
            nested = nested and (bool(rest) or info.isdir())
    root = roots.pop() if len(roots) == 1 and nested else None
    return ArchiveInfo(hasher.digest.hexdigest(), hasher.size_bytes, root)


def members(path: Path, root: str | None, sha256: str | None = None) -> Iterator[Entry]:
    """Members of the archive at ``path`` with ``root/`` stripped; checks ``sha256`` at the end."""
    prefix = f"{root}/" if root else ""
    with _open_stream(path) as (stream, hasher):
        for info in _forgetful(stream):
            name = info.name[len(prefix) :] if prefix and info.name.startswith(prefix) else info.name
            if info.name == root:
                continue
            member = Member(display_path(name), KINDS.get(info.type, "other"), info.size)
            if member.kind == "file":
                yield member, _chunks(stream, info)
            else:
                yield Member(member.path, member.kind, 0), None
    if sha256 is not None and hasher.digest.hexdigest() != sha256:
        raise ArchiveError(f"archive {path.name} does not match its recorded sha256")


def pax_commit(path: Path) -> str | None:
    """The commit SHA that ``git archive`` (and GitHub) write in the pax global header."""
    try:
        with (
            path.open("rb") as raw,
            gzip_impl.GzipFile(fileobj=raw, mode="rb") as gz,  # type: ignore[no-untyped-call]
            tarfile.open(fileobj=gz, mode="r|") as stream,
        ):
            stream.next()
            comment = stream.pax_headers.get("comment", "")
    except FRAMING_ERRORS as exc:
        raise _broken(f"archive {path.name} is not a whole tar.gz", exc) from exc
    return comment if len(comment) == 40 and all(c in "0123456789abcdef" for c in comment) else None


def _chunks(stream: tarfile.TarFile, info: tarfile.TarInfo) -> Iterator[bytes]:
    reader = stream.extractfile(info)
    if reader is None:
        return
    try:
        while chunk := reader.read(CHUNK_BYTES):
            yield chunk
    except FRAMING_ERRORS as exc:
        raise _broken(f"archive broken inside member {display_path(info.name)}", exc) from exc


def _broken(what: str, exc: BaseException) -> ArchiveError:
    text = (str(exc).strip() or type(exc).__name__).splitlines()[0]
    return ArchiveError(f"{what}: {text}")


@contextmanager
def _open_stream(path: Path) -> Iterator[tuple[tarfile.TarFile, _HashingReader]]:
    """A tar stream over the gzip stream over the hashed file; drains to EOF at the end."""
    try:
        with path.open("rb") as raw:
            hasher = _HashingReader(raw)
            gz = gzip_impl.GzipFile(fileobj=hasher, mode="rb")  # type: ignore[no-untyped-call]
            with tarfile.open(fileobj=gz, mode="r|", tarinfo=_WholeTarInfo) as stream:
                yield stream, hasher
            while gz.read(CHUNK_BYTES):  # the gzip trailer (CRC, size) is checked at EOF
                pass
    except FRAMING_ERRORS as exc:
        raise _broken(f"archive {path.name} is not a whole tar.gz", exc) from exc


def _forgetful(stream: tarfile.TarFile) -> Iterator[tarfile.TarInfo]:
    """Iterate a stream-mode TarFile without keeping every TarInfo (bounded memory)."""
    while (info := stream.next()) is not None:
        stream.members = []  # type: ignore[attr-defined]  # stream mode keeps them all otherwise
        yield info

