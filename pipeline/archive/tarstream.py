"""A lean reader of tar streams: headers parsed by hand, contents read in bounded chunks.

``TarReader`` reports what ``tarfile`` reports in stream mode (same names, types and sizes):
ustar names with their prefix, pax extended (``x``) and global (``g``) records, GNU long
names (``L``, ``K``), old GNU sparse members (``S``, whose data is skipped) and pax sparse
members (formats 0.0, 0.1 and 1.0, expanded with their holes). Framing is stricter than
``tarfile``: a missing, short or corrupt header, a bad checksum, a bad number field or data
cut short is an error, and only a block of zeros ends the archive. Names stay raw bytes.
"""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.archive import sparse
from pipeline.archive.entries import Raw
from pipeline.archive.tarfields import (
    _EXTENSION_TYPES,
    _GNU_TYPES,
    _MEMBER_KEYS,
    _META_CACHE_MAX,
    _PAX_TYPES,
    _ZEROS,
    BLOCK,
    CHUNK_BYTES,
    EXTENSION_MAX,
    READ_AHEAD,
    Header,
    Readable,
    ReadAhead,
    TarStreamError,
    _apply_pax,
    _broken,
    _checksum_ok,
    _has_data,
    _nts,
    _number,
    _padded,
    _pax_records,
    _rechunk,
)
from pipeline.archive.tarrun import plain_run

__all__ = ["BLOCK", "CHUNK_BYTES", "EXTENSION_MAX", "READ_AHEAD", "Header", "Readable", "TarReader", "TarStreamError"]


class TarReader:
    """The members of one tar stream, in order; read a member's chunks before the next one."""

    def __init__(self, stream: Readable) -> None:
        self._ahead = ReadAhead(stream)
        self._read = self._ahead.read
        self._left = 0  # data and padding of the current member not read yet
        self._current: Header | None = None
        self._serial = 0
        self._valid_meta: set[bytes] = set()
        self.globals: dict[bytes, bytes] = {}
        """records of the pax global headers seen so far (``comment``: the commit)."""

    def __iter__(self) -> Iterator[Header]:
        while (header := self.next()) is not None:
            yield header

    def next(self) -> Header | None:
        """The next member, or ``None`` at the end-of-archive block."""
        self._skip(self._left)
        self._serial += 1
        chain: list[tuple[bytes, bytes, dict[bytes, bytes]]] = []  # extension headers, in order
        while True:
            block = self._read(BLOCK)
            if block == _ZEROS and not chain:
                return None
            header = self._header(block)
            if header.type not in _EXTENSION_TYPES:
                break
            if header.size > EXTENSION_MAX:
                raise _broken("extended header too large")
            payload = self._exact(_padded(header.size))
            fields = self.globals if header.type == b"g" else dict(self.globals)
            if header.type in _PAX_TYPES:  # a global header updates the records in place
                _pax_records(payload, fields)
            chain.append((header.type, payload, fields))
        self._left = _padded(header.stored)
        if header.type == b"S":
            self._skip_sparse_blocks(block)
        else:
            _apply_pax(self.globals, header)
            if header.type == b"5":
                header.name = header.name.rstrip(b"/")
        for kind, payload, fields in reversed(chain):
            self._extend(header, kind, payload, fields)
        if header.size < 0:
            raise _broken("negative size")
        self._current = header
        return header

    def run(self) -> tuple[bytes, list[Raw]]:
        """The next members, as many as have a plain header (no extension) and lie whole in the
        bytes read ahead (most members of a source archive; see ``tarrun``): the buffer holding
        them, and each one's (name, type, size, offset of its content in that buffer). The
        reader moves past them; the list is empty when the next member is not such a one
        (``next`` reads it)."""
        self._skip(self._left)
        self._serial += 1
        self._current = None
        if any(key in self.globals for key in _MEMBER_KEYS):
            return b"", []
        buf, pos = self._ahead.window()
        found, pos = plain_run(buf, pos, self._valid_meta, self._check_meta)
        self._ahead.seek(pos)
        return buf, found

    def listing(self) -> Iterator[Raw]:
        """Every member left, as (name, type, size, offset): ``run`` where it can, else ``next``
        (offset 0); for a walk that reads no content."""
        while True:
            yield from self.run()[1]
            if (header := self.next()) is None:
                return
            yield header.name, header.type, header.size, 0

    def held(self, header: Header) -> bytes | None:
        """The whole content of the member ``next`` returned last, when it is already read
        ahead (most members are); else ``None``, and ``chunks`` streams it."""
        if header is not self._current or header.sparse is not None or header.size > header.stored:
            return None
        if header.size > CHUNK_BYTES:
            return None
        data = self._ahead.held(header.size, self._left) if self._left == _padded(header.size) else None
        if data is not None:
            self._left = 0
        return data

    def chunks(self, header: Header) -> Iterator[bytes]:
        """The content of the member ``next`` returned last, in chunks of ``CHUNK_BYTES`` or less."""
        if header.sparse is not None:
            available = self._left - (_padded(header.stored) - header.stored)  # a 1.0 map is read already
            serial = self._serial
            return _rechunk(sparse.pieces(header, available, lambda size: self._data(size, serial)))
        if header.size > header.stored:
            raise _broken("member size beyond its data")
        return self._data(header.size, self._serial)

    def _data(self, size: int, serial: int) -> Iterator[bytes]:
        read = self._read
        while size > 0:
            if serial != self._serial:
                raise RuntimeError("member content read after the next member")
            count = size if size < CHUNK_BYTES else CHUNK_BYTES
            chunk = read(count)
            if len(chunk) != count:
                raise TarStreamError("unexpected end of data")
            self._left -= count
            size -= count
            yield chunk

    def _header(self, block: bytes) -> Header:
        """Parse a header block as tarfile's ``frombuf`` does, failing where it would."""
        if len(block) != BLOCK:
            raise _broken("truncated header" if block else "empty header")
        if block == _ZEROS:
            raise _broken("end of file header")
        if not _checksum_ok(block, _number(block[148:156])):
            raise _broken("bad checksum")
        self._check_meta(block)
        kind, name, size = block[156:157], block[:100].partition(b"\0")[0], _number(block[124:136])
        if size < 0:
            raise _broken("negative size")
        if kind == b"\0" and name.endswith(b"/"):
            kind = b"5"
        if kind == b"5":
            name = name.rstrip(b"/")
        prefix = block[345:500].partition(b"\0")[0]
        if prefix and kind not in _GNU_TYPES:
            name = prefix + b"/" + name
        linkname = block[157:257].partition(b"\0")[0]
        return Header(name, linkname, kind, size, size if _has_data(kind) else 0)

    def _check_meta(self, block: bytes) -> None:
        """The number fields we do not use must still parse (remembered per archive)."""
        if block[156:157] == b"S":  # the sparse runs and the real size of an old GNU sparse member
            for start in (*range(386, 482, 12), 483):
                _number(block[start : start + 12])
        meta = block[100:124] + block[136:148] + block[329:345]
        if meta in self._valid_meta:
            return
        for start, end in ((100, 108), (108, 116), (116, 124), (136, 148), (329, 337), (337, 345)):
            _number(block[start:end])
        if len(self._valid_meta) < _META_CACHE_MAX:
            self._valid_meta.add(meta)

    def _skip_sparse_blocks(self, block: bytes) -> None:
        """Pass over the extension blocks of an old GNU sparse header."""
        extended = block[482]
        while extended:
            block = self._exact(BLOCK)
            for start in range(0, 504, 12):
                _number(block[start : start + 12])
            extended = block[504]

    def _extend(self, header: Header, kind: bytes, payload: bytes, fields: dict[bytes, bytes]) -> None:
        """Apply one extension header (GNU long name or pax records) to the member after it."""
        if kind == b"L":
            header.name = _nts(payload)
            if header.type == b"5":
                header.name = header.name.removesuffix(b"/")
        elif kind == b"K":
            header.linkname = _nts(payload)
        else:
            if (runs := sparse.runs(payload, fields, self._map_block)) is not None:
                header.sparse = runs
            if kind != b"g":
                _apply_pax(fields, header)
                if b"size" in fields:
                    header.stored = header.size if _has_data(header.type) else 0
                    self._left = _padded(header.stored)

    def _map_block(self, taken: int) -> bytes:
        """The next block of a format 1.0 sparse map (``taken`` bytes of it read so far)."""
        self._left -= BLOCK
        if self._left < 0 or taken >= EXTENSION_MAX:
            raise _broken("sparse map beyond the member data or too large")
        return self._exact(BLOCK)

    def _exact(self, count: int) -> bytes:
        data = self._read(count)
        if len(data) != count:
            raise TarStreamError("unexpected end of data")
        return data

    def _skip(self, count: int) -> None:
        if count and self._ahead.held(0, count) is not None:
            count = 0
        while count > 0:
            self._exact(min(count, CHUNK_BYTES))
            count -= CHUNK_BYTES
        self._left = 0
