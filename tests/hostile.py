"""Hostile archives for the tests and benchmarks to build: bombs, huge members, crowds, broken framing.

Every archive here is a real tar.gz file. Runs of zeros are written as one deflate block of a
MiB of zeros repeated (each ends at a full flush, so it decodes on its own), with the CRC
carried over the zeros by GF(2) algebra: a file that inflates to gigabytes costs a few KB
and a few milliseconds to write, and is never held in memory.
"""

from __future__ import annotations

import struct
import tarfile
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

import synth

from pipeline.archive.entries import Entry
from pipeline.settings import Limits

MiB = 1 << 20
GiB = 1 << 30
MASK = 0xFFFFFFFF
BLOCK = 512
ZERO_MIB = bytes(MiB)


def deflated_alone(data: bytes) -> bytes:
    """``data`` as raw deflate ending at a full flush: it decodes the same wherever it is put."""
    squeeze = zlib.compressobj(9, zlib.DEFLATED, -15)
    return squeeze.compress(data) + squeeze.flush(zlib.Z_FULL_FLUSH)


ZERO_MIB_DEFLATED = deflated_alone(ZERO_MIB)
#: the CRC-32 register after a MiB of zeros, as a GF(2) matrix (one column per register bit)
ZERO_MIB_CRC = [~zlib.crc32(ZERO_MIB, ~(1 << bit) & MASK) & MASK for bit in range(32)]
LIMITS = Limits(max_archive_bytes=64 * MiB, max_members=200)
PUBLISHED = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "annotations")

#: a member's content: bytes, or that many zero bytes
Content = bytes | int


def _apply(matrix: list[int], vector: int) -> int:
    out, bit = 0, 0
    while vector:
        if vector & 1:
            out ^= matrix[bit]
        vector, bit = vector >> 1, bit + 1
    return out


def crc_after_zero_mibs(crc: int, mibs: int) -> int:
    """``zlib.crc32(bytes(mibs * MiB), crc)`` in 32x32 bit operations per power of two."""
    register, matrix = ~crc & MASK, ZERO_MIB_CRC
    while mibs:
        if mibs & 1:
            register = _apply(matrix, register)
        matrix = [_apply(matrix, column) for column in matrix]
        mibs >>= 1
    return ~register & MASK


class GzipStream:
    """A gzip file written piece by piece; ``zeros`` costs about 1 KB per MiB, whatever the count."""

    def __init__(self, out: BinaryIO) -> None:
        self._out, self._crc, self._size = out, 0, 0
        out.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff")

    def write(self, data: bytes) -> None:
        """Deflate ``data`` as a piece of its own."""
        self._out.write(deflated_alone(data))
        self._crc, self._size = zlib.crc32(data, self._crc), self._size + len(data)

    def zeros(self, count: int) -> None:
        """``count`` zero bytes."""
        mibs, rest = divmod(count, MiB)
        for _ in range(mibs):
            self._out.write(ZERO_MIB_DEFLATED)
        self._crc, self._size = crc_after_zero_mibs(self._crc, mibs), self._size + mibs * MiB
        if rest:
            self.write(bytes(rest))

    def close(self) -> None:
        """The final block and the trailer (CRC-32 and size modulo 2**32)."""
        self._out.write(zlib.compressobj(9, zlib.DEFLATED, -15).flush(zlib.Z_FINISH))
        self._out.write(struct.pack("<II", self._crc, self._size & MASK))


def member(name: str | bytes, kind: bytes = tarfile.REGTYPE, *, linkname: str = "",
           pax: dict[str, str] | None = None) -> tarfile.TarInfo:
    """A tar header; a ``bytes`` name may hold bytes that are not UTF-8."""
    info, _ = synth.tar_member(name, kind=kind, linkname=linkname)
    info.pax_headers = dict(pax or {})
    return info


def write_tar_gz(path: Path, members: Iterable[tuple[tarfile.TarInfo, Content]], trailing_zeros: int = 0) -> Path:
    """A tar.gz of ``members`` in order (PAX headers), then the end blocks and ``trailing_zeros`` more."""
    with path.open("wb") as out:
        gz = GzipStream(out)
        for info, content in members:
            size = content if isinstance(content, int) else len(content)
            info.size = size if info.isreg() else 0
            gz.write(info.tobuf(tarfile.PAX_FORMAT, "utf-8", "surrogateescape"))
            padded = -size % BLOCK if info.isreg() else 0
            if isinstance(content, int):
                gz.zeros(content + padded)
            elif info.isreg():
                gz.write(content + bytes(padded))
        gz.zeros(2 * BLOCK + trailing_zeros)
        gz.close()
    return path


def small_files(root: str, count: int) -> Iterator[tuple[tarfile.TarInfo, Content]]:
    """The top folder and ``count`` small files that each name one hint."""
    yield member(root, tarfile.DIRTYPE), b""
    for n in range(count):
        yield member(f"{root}/f{n}.py"), f"readOnlyHint {n}\n".encode()


# --- the archives ----------------------------------------------------------------------


def declared_bomb(path: Path) -> Path:
    """A 2 MB tar.gz whose one file says (truly) that it holds 2 GiB of zeros."""
    return write_tar_gz(path, [(member("r"), b""), (member("r/zeros.bin"), 2 * GiB)])


def hidden_bomb(path: Path) -> Path:
    """A small valid tar followed, inside the same gzip stream, by 1 GiB of zeros."""
    return write_tar_gz(path, small_files("r", 3), trailing_zeros=GiB)


def sparse_bomb(path: Path) -> Path:
    """One pax sparse member: 12 stored bytes, 1 TiB of holes (``pipeline.archive.tarball.members``
    would hand out every zero)."""
    pax = {"GNU.sparse.size": str(1 << 40), "GNU.sparse.map": "0,12", "GNU.sparse.name": "r/huge.img"}
    return write_tar_gz(path, [(member("r/GNUSparseFile.0/huge.img", pax=pax), b"readOnlyHint")])


def crowd(path: Path, count: int = 300) -> Path:
    """A tree of ``count`` small files (plus its folder)."""
    return write_tar_gz(path, small_files("r", count))


def cut_tar(path: Path) -> Path:
    """A whole gzip stream around a tar cut inside a member."""
    data = synth.tarball({"a.py": b"annotations" * 300, "b.py": b"x"}, root="r")
    raw = zlib.decompress(data, 31)
    path.write_bytes(zlib.compress(raw[: 512 * 3 + 1000], wbits=31))
    return path


def not_gzip(path: Path) -> Path:
    """A file that is neither gzip nor tar."""
    path.write_bytes(b"<html><body>this is not an archive</body></html>\n" * 40)
    return path


def read_all(entries: Iterable[Entry]) -> int:
    """Read every chunk of every member; the number of members."""
    count = 0
    for _, chunks in entries:
        count += 1
        for _ in chunks or ():
            pass
    return count


#: runs ``census`` (``sys.argv[2:]``) and, at exit, writes its peak RSS in kB to the file ``sys.argv[1]``
MEASURED_CENSUS = """
import atexit, runpy, sys
def peak(path=sys.argv[1]):
    hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")][0]
    open(path, "w").write(hwm.split()[1])
atexit.register(peak)
sys.argv = ["census", *sys.argv[2:]]
runpy.run_module("pipeline", run_name="__main__", alter_sys=True)
"""
