"""Reading tar.gz (or plain tar) archives as streams: never extracted, never executed.

``verify`` walks an archive end to end (gzip CRC and tar framing) and reports its sha256,
size and top folder; ``members`` yields each member with a chunk stream for regular files,
checking the sha256 of the bytes it read against the one recorded at fetch time. Gzip is
told by its magic bytes and decompressed in a background thread (isal) while the caller
parses and counts; the tar headers are parsed by ``pipeline.archive.tarstream``.

Both hold the archive to :class:`~pipeline.settings.Limits` (the environment's when none are
given): the decompressed stream, the sum of the files' sizes (a sparse member counts its
holes) and the number of members. Past one, ``ArchiveLimitError`` is raised as soon as it is
seen, so a gzip bomb is never inflated further than the limit. ``limited`` applies the same
limits to any stream of entries (a git tree too).
"""

from __future__ import annotations

import io
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, cast

from pipeline.archive import tarstream
from pipeline.archive.entries import FILE_TYPES, KINDS, Entry, Member, Run, entries, named
from pipeline.archive.limits import Bounded, Budget, env_limits
from pipeline.archive.tarstream import Header, TarReader
from pipeline.errors import ArchiveError
from pipeline.settings import Limits

if TYPE_CHECKING:
    import hashlib

    from pipeline.archive.inflate import Source

try:  # isal's igzip is about twice as fast as zlib at decompression; same format and checks
    from isal import igzip as gzip_impl
    from isal import isal_zlib

    DEFLATE_ERRORS: tuple[type[Exception], ...] = (zlib.error, cast(type[Exception], isal_zlib.error))
except ImportError:  # pragma: no cover - isal ships wheels for every supported platform
    import gzip as gzip_impl  # type: ignore[no-redef]

    DEFLATE_ERRORS = (zlib.error,)


#: what a broken gzip or tar stream raises, from any layer (``TarStreamError`` is a ValueError)
FRAMING_ERRORS: tuple[type[Exception], ...] = (EOFError, OSError, ValueError, *DEFLATE_ERRORS)

GZIP_MAGIC = b"\x1f\x8b"
#: the largest chunk of member content handed out, by every source
CHUNK_BYTES = tarstream.CHUNK_BYTES
#: compressed bytes the gzip reader reads at a time: few reads (each needs the GIL, which the
#: scanning thread holds), yet a buffer that stays in cache (8 MiB made a cold scan 10% slower)
GZIP_INPUT_BYTES = 1 << 20

@dataclass(frozen=True)
class ArchiveInfo:
    """What ``verify`` learned about an archive file."""

    sha256: str
    """hex sha256 of the archive file (compressed, as fetched)."""
    size_bytes: int
    """size of the archive file."""
    root: str | None
    """the single top folder that every member sits in (GitHub's ``owner-name-sha``)."""


class _HashingReader(io.RawIOBase):
    """A read-only raw stream that hashes and counts every byte read through it.

    The gzip reader reads through it, so with a threaded reader the hashing runs in the
    decompressing thread (hashlib lets go of the GIL), not in the caller's.
    """

    def __init__(self, raw: BinaryIO, hashed: bool = True) -> None:
        super().__init__()
        self._raw = raw
        self._digest: hashlib._Hash | None = None
        if hashed:
            import hashlib  # loads OpenSSL: not needed to count a local archive

            self._digest = hashlib.sha256()
        self.size_bytes = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        count: int = self._raw.readinto(view)  # type: ignore[attr-defined]
        if self._digest is not None:
            self._digest.update(view[:count])
        self.size_bytes += count
        return count

    def hexdigest(self) -> str:
        """The sha256 of every byte read so far (``""`` when not hashing)."""
        return self._digest.hexdigest() if self._digest is not None else ""


def verify(path: Path, limits: Limits | None = None) -> ArchiveInfo:
    """Read ``path`` end to end; raise ``ArchiveError`` unless gzip and tar are whole, and
    ``ArchiveLimitError`` as soon as it is over ``limits`` (default: the environment's)."""
    roots: set[bytes] = set()
    nested = True
    budget = Budget(limits or env_limits())
    with _open_tar(path, max_bytes=budget.limits.max_archive_bytes) as (tar, hasher):
        for name, kind, size, _ in tar.listing():
            budget.count(size if KINDS.get(kind) == "file" else 0)
            top, _, rest = name.partition(b"/")
            roots.add(top)
            nested = nested and (bool(rest) or kind == b"5")
    root = roots.pop().decode("utf-8", "surrogateescape") if len(roots) == 1 and nested else None
    return ArchiveInfo(hasher.hexdigest(), hasher.size_bytes, root)


def members(
    path: Path, root: str | None, sha256: str | None = None, limits: Limits | None = None
) -> Iterator[Entry]:
    """Members of the archive at ``path`` with ``root/`` stripped; checks ``sha256`` at the end
    and holds the archive to ``limits`` (default: the environment's) as it goes."""
    return entries(stream(path, root, sha256, limits))


def stream(
    path: Path, root: str | None, sha256: str | None = None, limits: Limits | None = None
) -> Iterator[Entry | Run]:
    """``members``, with the members read ahead together given as ``Run``s (the scan's fast path)."""
    top = None if root is None else root.encode("utf-8", "surrogateescape")
    budget = Budget(limits or env_limits())
    with _open_tar(path, hashed=sha256 is not None, max_bytes=budget.limits.max_archive_bytes) as (tar, hasher):
        while True:
            buffer, plain = tar.run()
            if plain:
                budget.count_many(len(plain), sum(size for _, kind, size, _ in plain if kind in FILE_TYPES))
                yield Run(buffer, plain, top)
            if (header := tar.next()) is None:
                break
            budget.count(header.size if header.type in FILE_TYPES else 0)
            if (member := named((header.name, header.type, header.size, 0), top)) is None:
                continue
            text, kind, size, _ = member
            if kind == "file":
                data = tar.held(header)  # most members: read ahead already, one chunk
                chunks = _chunks(tar, header, text) if data is None else (data,) if data else ()
                yield Member(text, kind, size), chunks
            else:
                yield Member(text, kind, 0), None
    if sha256 is not None and hasher.hexdigest() != sha256:
        raise ArchiveError(f"archive {path.name} does not match its recorded sha256")


def pax_commit(path: Path) -> str | None:
    """The commit SHA that ``git archive`` (and GitHub) write in the pax global header."""
    with _open_tar(path, whole=False) as (tar, _):
        tar.next()
        comment = tar.globals.get(b"comment", b"")
    return comment.decode() if len(comment) == 40 and all(c in b"0123456789abcdef" for c in comment) else None


def first_folder(path: Path) -> str | None:
    """The name of the archive's first member when it is a folder (GitHub and ``git archive
    --prefix`` put the top folder first), else ``None``. Only the first 64 KiB are read and
    inflated; a pax header before the member is stepped over."""
    with path.open("rb") as raw:
        head = raw.read(64 << 10)
    try:
        data = zlib.decompressobj(31).decompress(head, 64 << 10) if head[:2] == GZIP_MAGIC else head
    except zlib.error:
        return None  # not gzip after all: the scan names what is wrong
    offset = 0
    while offset + 512 <= len(data):
        block = data[offset : offset + 512]
        kind, size = block[156:157], _octal(block[124:136])
        if kind in (b"g", b"x") and size is not None:
            offset += 512 + (size + 511) // 512 * 512
            continue
        if kind != b"5":
            return None
        name, prefix = block[:100].split(b"\0", 1)[0], block[345:500].split(b"\0", 1)[0]
        if block[257:262] == b"ustar" and prefix:
            name = prefix + b"/" + name
        return name.strip(b"/").decode("utf-8", "surrogateescape") or None
    return None


def _octal(field: bytes) -> int | None:
    try:
        return int(field.strip(b"\0 ") or b"0", 8)
    except ValueError:
        return None


def _chunks(tar: TarReader, header: Header, text: str) -> Iterator[bytes]:
    try:
        yield from tar.chunks(header)
    except FRAMING_ERRORS as exc:
        raise _broken(f"archive broken inside member {text}", exc) from exc


def _broken(what: str, exc: BaseException) -> ArchiveError:
    text = (str(exc).strip() or type(exc).__name__).splitlines()[0]
    return ArchiveError(f"{what}: {text}")


@contextmanager
def _open_tar(
    path: Path, *, whole: bool = True, hashed: bool = True, max_bytes: int | None = None
) -> Iterator[tuple[TarReader, _HashingReader]]:
    """A tar reader over the (decompressed) hashed file; when ``whole``, reads on to the end.

    Reading on checks the gzip trailer (CRC, size) and (when ``hashed``) hashes every byte; what follows the
    tar's end-of-archive block is not parsed, as with ``tarfile``. The decompressed stream (what follows the
    end block included) is held to ``max_bytes``.
    """
    form = "tar.gz"
    try:
        with path.open("rb") as raw:
            compressed = raw.read(2) == GZIP_MAGIC
            form = "tar.gz" if compressed else "tar (nor gzip)"
            raw.seek(0)
            threaded = whole and compressed
            with (
                _HashingReader(raw, hashed) as hasher,
                _decompressed(hasher, threaded=threaded) if compressed else io.BufferedReader(hasher) as inflated,
            ):
                stream = inflated if max_bytes is None else Bounded(inflated, max_bytes)
                yield TarReader(stream), hasher
                if whole:
                    while stream.read(CHUNK_BYTES):
                        pass
    except FRAMING_ERRORS as exc:
        raise _broken(f"archive {path.name} is not a whole {form}", exc) from exc


def _gzip_reader(raw: _HashingReader) -> Source:
    """isal's C gzip reader over ``raw``, reading ``GZIP_INPUT_BYTES`` of it at a time: each read of
    ``raw`` (Python code) needs the GIL, and ``GzipFile`` reads 512 KiB at a time."""
    reader = getattr(isal_zlib, "_GzipReader", None)  # what igzip's own threaded reader uses
    if reader is None:  # pragma: no cover - isal before 1.6, or no isal
        return cast("Source", gzip_impl.GzipFile(fileobj=raw, mode="rb"))  # type: ignore[no-untyped-call]
    return cast("Source", reader(raw, GZIP_INPUT_BYTES))


def _decompressed(raw: _HashingReader, *, threaded: bool) -> io.BufferedIOBase:
    """The gzip stream over ``raw``: inflated in a background thread when ``threaded``."""
    if threaded:
        from pipeline.archive.inflate import Inflater

        return cast(io.BufferedIOBase, Inflater(lambda: _gzip_reader(raw), block_bytes=tarstream.READ_AHEAD))
    return cast(io.BufferedIOBase, gzip_impl.GzipFile(fileobj=raw, mode="rb"))  # type: ignore[no-untyped-call]
