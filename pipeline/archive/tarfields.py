"""Tar header fields as ``tarfile`` reads them: numbers, names, checksums, pax records.

The pieces ``tarstream.TarReader`` is built from, kept apart so the reader stays readable.
"""

from __future__ import annotations

import re
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

BLOCK = 512
CHUNK_BYTES = 1 << 20
#: bytes of the stream read at a time; a member whose data lies in them is one slice
READ_AHEAD = 4 << 20

_ZEROS = bytes(BLOCK)
_PAX_TYPES = (b"x", b"X", b"g")
_EXTENSION_TYPES = (*_PAX_TYPES, b"L", b"K")
_GNU_TYPES = (b"L", b"K", b"S")
#: types of members with one plain header: no extension before them, and none in them
_PLAIN_TYPES = frozenset((b"0", b"\0", b"7", b"1", b"2", b"3", b"4", b"5", b"6"))
#: pax records that change a member; while a global header holds one, every header is read alone
_MEMBER_KEYS = (b"path", b"GNU.sparse.name", b"linkpath", b"size", b"GNU.sparse.size", b"GNU.sparse.realsize")
#: types whose data tarfile does not skip (it reads their size as metadata only)
_DATALESS_TYPES = (b"1", b"2", b"3", b"4", b"5", b"6", b"L", b"K")
_PAX_RECORD = re.compile(rb"(\d+) ([^=]+)=")
_SIGNED_BYTES = struct.Struct("148b8x356b")
_META_CACHE_MAX = 1024
#: the largest pax header, GNU long name or sparse map read whole (real ones are a few KB)
EXTENSION_MAX = 1 << 20


class TarStreamError(ValueError):
    """A tar stream that is broken, cut short or not a tar stream at all."""


class Readable(Protocol):
    """What the reader needs from its stream: ``read(n)``, short only at the end."""

    def read(self, size: int, /) -> bytes:
        """Up to ``size`` bytes, fewer only at the end of the stream."""
        ...


class ReadAhead:
    """A stream read ``READ_AHEAD`` bytes at a time, handed out as exact slices.

    Most tar members are smaller than a read: their header and data are then slices of
    bytes already held, with no call into the (decompressing) stream. Where the stream has
    ``read1`` (a block as it comes, however long), the bytes held are what it gave: a
    threaded inflater's first blocks are small, so parsing starts before a whole read is in.
    A read across blocks copies only the bytes it returns and keeps the rest of the last
    block held: joining whole blocks instead copied every byte of the archive once more,
    into fresh memory (half the page faults of a large scan).
    """

    def __init__(self, stream: Readable, size: int = READ_AHEAD) -> None:
        self._raw = stream.read
        self._raw1 = getattr(stream, "read1", None) or stream.read
        self._size = size
        self._buf = b""
        self._pos = 0

    def read(self, count: int) -> bytes:
        """``count`` bytes, fewer only at the end of the stream."""
        pos = self._pos
        end = pos + count
        if end <= len(self._buf):
            self._pos = end
            return self._buf[pos:end]
        held = self._buf[pos:]
        if count - len(held) >= self._size:  # a large read is not buffered
            self._buf, self._pos = b"", 0
            return held + self._raw(count - len(held))
        parts, have = [held], len(held)
        while have < count and (more := self._raw1(self._size)):
            parts.append(more)
            have += len(more)
        if have <= count:  # the end of the stream, or a read that ends with a block
            self._buf, self._pos = b"", 0
            return b"".join(parts)
        last = parts[-1]  # held from where this read ends: only the bytes read are copied
        self._buf, self._pos = last, len(last) - (have - count)
        parts[-1] = last[: self._pos]
        return b"".join(parts)

    def window(self) -> tuple[bytes, int]:
        """The bytes held and the offset in them of the next byte to read (see ``seek``); when
        all were read, the next ones are read first."""
        if self._pos >= len(self._buf):
            self._buf, self._pos = self._raw1(self._size), 0
        return self._buf, self._pos

    def seek(self, pos: int) -> None:
        """Move the next byte to read to offset ``pos`` of the ``window`` (at most its end)."""
        self._pos = min(pos, len(self._buf))

    def held(self, count: int, span: int) -> bytes | None:
        """The next ``count`` bytes if the next ``span`` (>= ``count``) are held; passes over ``span``."""
        pos = self._pos
        if pos + span > len(self._buf):
            return None
        self._pos = pos + span
        return self._buf[pos : pos + count]


@dataclass(slots=True)
class Header:
    """One member as ``tarfile`` reports it; ``name`` and ``linkname`` are raw bytes."""

    name: bytes
    linkname: bytes
    type: bytes
    """the typeflag (``b"0"`` regular, ``b"5"`` directory, ``b"2"`` symlink, ...)."""
    size: int
    """bytes of content (a sparse file counts its holes)."""
    stored: int = 0
    """bytes of data after the header, without the padding to a block."""
    sparse: list[tuple[int, int]] | None = None
    """``(offset, length)`` data runs of a pax sparse member."""


def _broken(why: str) -> TarStreamError:
    return TarStreamError(f"tar stream broken or cut short ({why})")


def _nts(field: bytes) -> bytes:
    return field.partition(b"\0")[0]


def _number(field: bytes) -> int:
    """A numeric field as tarfile's ``nti`` reads it: octal text, or base-256."""
    if field[0] in (0o200, 0o377):
        value = int.from_bytes(field[1:], "big")
        return value - 256 ** (len(field) - 1) if field[0] == 0o377 else value
    try:
        return int(field.partition(b"\0")[0].strip() or b"0", 8)  # int() reads ASCII digits from bytes
    except ValueError:
        raise _broken("invalid header") from None


def _padded(size: int) -> int:
    return -(-size // BLOCK) * BLOCK


def _checksum_ok(block: bytes, recorded: int) -> bool:
    """The unsigned or signed header sum, the checksum field counted as spaces."""
    # adler32's low half is 1 + the byte sum mod 65521; a 256-byte half sums to at most 65280
    unsigned = (zlib.adler32(block[:256]) & 0xFFFF) + (zlib.adler32(block[256:]) & 0xFFFF) + 254
    if recorded == unsigned - sum(block[148:156]):
        return True
    signed: int = sum(_SIGNED_BYTES.unpack(block))
    return recorded == 256 + signed


def _pax_records(payload: bytes, into: dict[bytes, bytes]) -> None:
    """Add the ``LENGTH KEY=VALUE\\n`` records of a pax header to ``into``, as tarfile does."""
    pos = 0
    while match := _PAX_RECORD.match(payload, pos):
        length = int(match.group(1))
        if length == 0:
            raise _broken("invalid pax header")
        into[match.group(2)] = payload[match.end(2) + 1 : match.start(1) + length - 1]
        pos += length


def _integer(value: bytes, default: int | None = None) -> int:
    try:
        return int(value.decode("utf-8", "surrogateescape"))
    except ValueError:
        if default is None:
            raise _broken("invalid pax number") from None
        return default


def _apply_pax(fields: dict[bytes, bytes], header: Header) -> None:
    """Override a header's fields with pax records, in record order (tarfile's rules)."""
    for key, value in fields.items():
        if key == b"path":
            header.name = value.rstrip(b"/")
        elif key == b"GNU.sparse.name":
            header.name = value
        elif key == b"linkpath":
            header.linkname = value
        elif key == b"size":
            header.size = _integer(value, 0)
        elif key in (b"GNU.sparse.size", b"GNU.sparse.realsize"):
            header.size = _integer(value)


def _has_data(kind: bytes) -> bool:
    return kind not in _DATALESS_TYPES


def _zeros(count: int) -> Iterator[bytes]:
    while count > 0:
        yield bytes(min(count, CHUNK_BYTES))
        count -= CHUNK_BYTES


def _rechunk(pieces: Iterator[bytes]) -> Iterator[bytes]:
    """Pieces regrouped into chunks of exactly ``CHUNK_BYTES`` (the last one shorter)."""
    pending = bytearray()
    for piece in pieces:
        pending += piece
        while len(pending) >= CHUNK_BYTES:
            yield bytes(pending[:CHUNK_BYTES])
            del pending[:CHUNK_BYTES]
    if pending:
        yield bytes(pending)
