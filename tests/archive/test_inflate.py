"""The threaded gzip reader: the same bytes as gzip, errors in order, a worker that stops."""

from __future__ import annotations

import gzip
import io
import random
import sys
import threading

import pytest
from isal import isal_zlib

from pipeline.archive.inflate import SWITCH_SECONDS, Inflater, Source


def _payload(size: int, seed: int = 7) -> bytes:
    rng = random.Random(seed)
    words = [b"readOnlyHint", b"tool", b"\x00" * 40, b"annotations", bytes(range(256))]
    out = bytearray()
    while len(out) < size:
        out += rng.choice(words)
    return bytes(out[:size])


def _opener(compressed: bytes) -> Source:
    return gzip.GzipFile(fileobj=io.BytesIO(compressed), mode="rb")


@pytest.mark.parametrize("block", [1000, 4096, 65536])
def test_reads_of_any_size_give_the_gzip_content(block: int) -> None:
    data = _payload(300_000)
    compressed = gzip.compress(data)
    rng = random.Random(block)
    got = bytearray()
    with Inflater(lambda: _opener(compressed), block_bytes=block) as inflater:
        while True:
            piece = inflater.read(rng.choice([1, 511, block, block, 3 * block + 5]))
            if not piece:
                break
            got += piece
    assert bytes(got) == data


def test_a_whole_block_read_is_the_workers_block() -> None:
    data = _payload(50_000)
    with Inflater(lambda: _opener(gzip.compress(data)), block_bytes=10_000) as inflater:
        first, second = inflater.read(10_000), inflater.read(10_000)
        assert (first, second) == (data[:10_000], data[10_000:20_000])
        assert inflater.read(100_000) == data[20_000:]
        assert inflater.read(10_000) == b""


def test_a_short_read_ends_only_at_the_end() -> None:
    data = _payload(25_000)
    with Inflater(lambda: _opener(gzip.compress(data)), block_bytes=10_000) as inflater:
        sizes = [len(inflater.read(7_000)) for _ in range(5)]
    assert sizes == [7_000, 7_000, 7_000, 4_000, 0]


def test_a_cut_stream_gives_its_bytes_then_the_error() -> None:
    data = random.Random(5).randbytes(200_000)  # incompressible: the cut lands inside the data
    compressed = gzip.compress(data)[:-5000]
    got = bytearray()

    def read_all(inflater: Inflater) -> None:
        while piece := inflater.read(8192):
            got.extend(piece)

    with Inflater(lambda: _opener(compressed), block_bytes=8192) as inflater, pytest.raises(EOFError):
        read_all(inflater)
    assert data.startswith(bytes(got))
    assert len(got) > 100_000


def test_the_c_reader_isal_uses_gives_the_same_bytes() -> None:
    data = _payload(120_000, seed=3)
    compressed = gzip.compress(data)
    with Inflater(lambda: isal_zlib._GzipReader(io.BytesIO(compressed), 1 << 16), block_bytes=16_384) as inflater:
        assert inflater.read(10**6) == data


def test_close_stops_the_worker_early_and_restores_the_switch_interval() -> None:
    before = sys.getswitchinterval()
    data = _payload(2_000_000)
    compressed = gzip.compress(data)
    inflater = Inflater(lambda: _opener(compressed), block_bytes=4096)
    assert sys.getswitchinterval() == pytest.approx(min(SWITCH_SECONDS, before))
    assert inflater.read(4096) == data[:4096]
    workers = [t for t in threading.enumerate() if t.name == "census-inflate"]
    inflater.close()
    inflater.close()  # twice is harmless
    assert workers
    assert not any(t.is_alive() for t in workers)
    assert sys.getswitchinterval() == before


def test_two_open_inflaters_keep_the_short_interval_until_both_close() -> None:
    before = sys.getswitchinterval()
    compressed = gzip.compress(b"x" * 10)
    first = Inflater(lambda: _opener(compressed), block_bytes=4)
    second = Inflater(lambda: _opener(compressed), block_bytes=4)
    first.close()
    assert sys.getswitchinterval() == pytest.approx(min(SWITCH_SECONDS, before))
    second.close()
    assert sys.getswitchinterval() == before


def test_read1_gives_the_blocks_as_they_come_first_small_then_larger() -> None:
    data = _payload(3_000_000, seed=11)
    sizes = []
    got = bytearray()
    with Inflater(lambda: _opener(gzip.compress(data)), block_bytes=1 << 20) as inflater:
        while piece := inflater.read1(1 << 20):
            sizes.append(len(piece))
            got += piece
    assert bytes(got) == data
    assert sizes[:2] == [256 << 10, 512 << 10]
    assert max(sizes) == 1 << 20


def test_read1_never_gives_more_than_asked_and_mixes_with_read() -> None:
    data = _payload(100_000, seed=2)
    with Inflater(lambda: _opener(gzip.compress(data)), block_bytes=30_000) as inflater:
        first = inflater.read1(1000)
        second = inflater.read(50_000)
        rest = inflater.read1(10**9)
        tail = b""
        while piece := inflater.read1(10**9):
            tail += piece
    assert len(first) == 1000
    assert first + second + rest + tail == data


def test_blocks_grow_past_a_mebibyte_only_once_the_archive_proves_large(monkeypatch: pytest.MonkeyPatch) -> None:
    from pipeline.archive import inflate

    monkeypatch.setattr(inflate, "LARGE_AFTER_BYTES", 3 << 20)
    data = random.Random(4).randbytes(12 << 20)
    sizes = []
    with Inflater(lambda: _opener(gzip.compress(data, compresslevel=1)), block_bytes=4 << 20) as inflater:
        while piece := inflater.read1(4 << 20):
            sizes.append(len(piece))
    mib = 1 << 20
    assert sum(sizes) == len(data)
    assert sizes[:6] == [mib // 4, mib // 2, mib, mib, mib, 2 * mib]  # 3.75 MiB in: the archive is large
    assert max(sizes) == 4 * mib


@pytest.mark.parametrize(("size", "kept"), [(3 << 20, False), (9 << 20, True)])
def test_freed_blocks_are_kept_once_the_archive_proves_large(size: int, kept: bool) -> None:
    from pipeline.archive import inflate

    inflate.keep_freed_blocks.cache_clear()
    data = _payload(size)
    with Inflater(lambda: _opener(gzip.compress(data, compresslevel=1)), block_bytes=4 << 20) as inflater:
        got = b"".join(iter(lambda: inflater.read1(4 << 20), b""))
    assert got == data
    assert inflate.keep_freed_blocks.cache_info().currsize == int(kept)  # asked once, past KEEP_AFTER_BYTES only
    if kept and sys.platform.startswith("linux") and _glibc():
        assert inflate.keep_freed_blocks() is True  # glibc took both settings


def _glibc() -> bool:
    import platform

    return platform.libc_ver()[0] == "glibc"
