"""Reading real tar.gz archives as streams: verify, members, pax_commit, and scan_tree totals."""

from __future__ import annotations

import gzip
import hashlib
import io
import tarfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
import synth

from pipeline.archive import tarball as archive
from pipeline.archive.entries import Member
from pipeline.archive.tarball import CHUNK_BYTES
from pipeline.errors import ArchiveError
from pipeline.fetch.source import Fetched
from pipeline.scan.tree import scan_tree
from pipeline.store.database import Store

PUBLISHED = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "annotations")
ROOT = "octo-widgets-0123abc"
COMMIT = synth.fake_sha("archive-tests")

TREE: dict[str, bytes | tuple[str, str]] = {
    "README.md": b"# widgets\nNo annotations here? One: annotations.\n",
    "server/main.py": synth.FASTMCP_SERVER,
    "server/go/main.go": synth.GO_SERVER,
    "docs/empty.txt": b"",
    "bin/blob.dat": b"\x00\xffREADONLYHINT\x00\x00",
    "link-to-main": ("symlink", "server/main.py"),
}


def write(tmp_path: Path, data: bytes, name: str = "a.tar.gz") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def read_all(path: Path, root: str | None, sha256: str | None = None) -> list[tuple[Member, bytes | None]]:
    """Every member with its whole content (``None`` for members that are not read)."""
    return [(m, None if chunks is None else b"".join(chunks)) for m, chunks in archive.members(path, root, sha256)]


def tar_bytes(entries: list[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    """The uncompressed tar of ``entries`` (to cut or corrupt before compressing)."""
    return gzip.decompress(synth.raw_tarball(entries))


# --- verify and members on a GitHub-style archive ---------------------------------------


def test_github_style_archive(tmp_path: Path) -> None:
    data = synth.tarball(TREE, root=ROOT, commit=COMMIT)
    path = write(tmp_path, data)
    info = archive.verify(path)
    assert info.root == ROOT
    assert info.sha256 == hashlib.sha256(data).hexdigest()
    assert info.size_bytes == len(data)

    got = read_all(path, info.root, info.sha256)
    assert [m.path for m, _ in got] == list(TREE)  # top folder stripped, order kept, root entry dropped
    for member, content in got:
        expected = TREE[member.path]
        if isinstance(expected, tuple):
            assert (member.kind, member.size_bytes, content) == ("symlink", 0, None)
        else:
            assert (member.kind, member.size_bytes, content) == ("file", len(expected), expected)


def test_pax_commit(tmp_path: Path) -> None:
    assert archive.pax_commit(write(tmp_path, synth.tarball(TREE, commit=COMMIT))) == COMMIT
    assert archive.pax_commit(write(tmp_path, synth.tarball(TREE, commit=None))) is None
    assert archive.pax_commit(write(tmp_path, synth.tarball(TREE, commit="not a sha"))) is None
    assert archive.pax_commit(write(tmp_path, synth.tarball(TREE, commit=COMMIT.upper()))) is None


def test_archive_without_a_top_folder(tmp_path: Path) -> None:
    tree = {"a.py": b"annotations", "pkg/b.py": b"readOnlyHint"}
    path = write(tmp_path, synth.tarball(tree, root=None))
    info = archive.verify(path)
    assert info.root is None
    got = [(m.path, c) for m, c in read_all(path, info.root)]
    assert got == [("a.py", b"annotations"), ("pkg/b.py", b"readOnlyHint")]


def test_archive_with_two_top_folders(tmp_path: Path) -> None:
    tree = {"one/a.py": b"x", "two/b.py": b"y"}
    path = write(tmp_path, synth.tarball(tree, root=None))
    info = archive.verify(path)
    assert info.root is None
    assert [m.path for m, _ in read_all(path, None)] == ["one/a.py", "two/b.py"]


def test_single_top_level_file_is_not_a_folder(tmp_path: Path) -> None:
    path = write(tmp_path, synth.tarball({"README": b"annotations"}, root=None))
    assert archive.verify(path).root is None
    assert [(m.path, c) for m, c in read_all(path, None)] == [("README", b"annotations")]


def test_top_folder_without_its_own_directory_entry(tmp_path: Path) -> None:
    entries = [synth.tar_member("top/a.py", b"A"), synth.tar_member("top/sub/b.py", b"B")]
    path = write(tmp_path, synth.raw_tarball(entries))
    info = archive.verify(path)
    assert info.root == "top"
    assert [(m.path, c) for m, c in read_all(path, info.root)] == [("a.py", b"A"), ("sub/b.py", b"B")]


def test_similar_prefix_is_not_stripped(tmp_path: Path) -> None:
    # the root is "top" only if every member sits inside it; "top2/x" means there is no single root
    entries = [synth.tar_member("top/a.py", b"A"), synth.tar_member("top2/b.py", b"B")]
    path = write(tmp_path, synth.raw_tarball(entries))
    assert archive.verify(path).root is None
    assert [m.path for m, _ in read_all(path, "top")] == ["a.py", "top2/b.py"]


# --- member kinds ----------------------------------------------------------------------


def test_links_devices_and_fifos_are_skipped_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"annotations annotations annotations")
    entries = [
        synth.tar_member(ROOT, kind=tarfile.DIRTYPE),
        synth.tar_member(f"{ROOT}/real.py", b"readOnlyHint"),
        synth.tar_member(f"{ROOT}/abs-link", kind=tarfile.SYMTYPE, linkname=str(outside)),
        synth.tar_member(f"{ROOT}/up-link", kind=tarfile.SYMTYPE, linkname="../../outside.txt"),
        synth.tar_member(f"{ROOT}/hard", kind=tarfile.LNKTYPE, linkname=f"{ROOT}/real.py"),
        synth.tar_member(f"{ROOT}/hard-out", kind=tarfile.LNKTYPE, linkname=str(outside)),
        synth.tar_member(f"{ROOT}/pipe", kind=tarfile.FIFOTYPE),
        synth.tar_member(f"{ROOT}/tty", kind=tarfile.CHRTYPE),
        synth.tar_member(f"{ROOT}/disk", kind=tarfile.BLKTYPE),
        synth.tar_member(f"{ROOT}/subdir", kind=tarfile.DIRTYPE),
    ]
    path = write(tmp_path, synth.raw_tarball(entries))
    root = archive.verify(path).root
    assert root == ROOT
    got = [(m.path, m.kind, m.size_bytes, c) for m, c in read_all(path, root)]
    assert got == [
        ("real.py", "file", 12, b"readOnlyHint"),
        ("abs-link", "symlink", 0, None),
        ("up-link", "symlink", 0, None),
        ("hard", "hardlink", 0, None),
        ("hard-out", "hardlink", 0, None),
        ("pipe", "fifo", 0, None),
        ("tty", "device", 0, None),
        ("disk", "device", 0, None),
        ("subdir", "dir", 0, None),
    ]

    scan = scan_tree(archive.members(path, root), PUBLISHED)
    assert scan.regular_files == 1
    assert scan.content_bytes == 12
    assert scan.counts == (("real.py", "readOnlyHint", 1),)  # the hardlink to it is not read again
    assert scan.skipped == (
        ("abs-link", "symlink"), ("up-link", "symlink"), ("hard", "hardlink"), ("hard-out", "hardlink"),
        ("pipe", "fifo"), ("tty", "device"), ("disk", "device"),
    )  # directories are passed over, not skipped
    assert scan.skipped_members == 7


def test_unknown_member_type_is_other(tmp_path: Path) -> None:
    entries = [synth.tar_member("r/a", b"annotations"), synth.tar_member("r/odd", kind=b"Z")]
    path = write(tmp_path, synth.raw_tarball(entries))
    got = [(m.path, m.kind, c) for m, c in read_all(path, "r")]
    assert got == [("a", "file", b"annotations"), ("odd", "other", None)]


@pytest.mark.parametrize("fmt", [tarfile.PAX_FORMAT, tarfile.GNU_FORMAT, tarfile.USTAR_FORMAT])
def test_non_utf8_names_become_escaped_text(tmp_path: Path, fmt: int) -> None:
    entries = [
        synth.tar_member(b"r/caf\xe9.py", b"readOnlyHint"),
        synth.tar_member(b"r/\xff\xfe/x.txt", b"annotations"),
        synth.tar_member("r/été.txt", b"ANNOTATIONS"),
        synth.tar_member(b"r/bad-link\x80", kind=tarfile.SYMTYPE, linkname="caf\udce9.py"),
    ]
    path = write(tmp_path, synth.raw_tarball(entries, fmt=fmt))
    info = archive.verify(path)
    assert info.root == "r"
    got = [(m.path, c) for m, c in read_all(path, info.root)]
    assert got == [
        ("caf\\xe9.py", b"readOnlyHint"),
        ("\\xff\\xfe/x.txt", b"annotations"),
        ("été.txt", b"ANNOTATIONS"),
        ("bad-link\\x80", None),
    ]
    for name, _ in got:
        name.encode("utf-8")  # no lone surrogates: storable as text anywhere

    scan = scan_tree(archive.members(path, info.root), PUBLISHED)
    fetched = Fetched(info.sha256, info.size_bytes, info.root, datetime.now(UTC))
    with Store(tmp_path / "census.duckdb") as store:
        store.record_scan(
            "o/r", COMMIT, fetched=fetched, source="tarball", scan=scan, terms=PUBLISHED, version="test"
        )
        rows = store.connection.execute("SELECT path, term, count FROM term_counts ORDER BY path").fetchall()
        skipped = store.connection.execute("SELECT path, kind FROM skipped_files").fetchall()
    assert rows == [
        ("\\xff\\xfe/x.txt", "annotations", 1),
        ("caf\\xe9.py", "readOnlyHint", 1),
        ("été.txt", "annotations", 1),
    ]
    assert skipped == [("bad-link\\x80", "symlink")]


def test_empty_files(tmp_path: Path) -> None:
    tree = {"empty.py": b"", "also/empty": b"", "full.py": b"idempotentHint"}
    path = write(tmp_path, synth.tarball(tree, root=ROOT))
    got = [(m.path, m.kind, m.size_bytes, c) for m, c in read_all(path, ROOT)]
    assert got == [
        ("empty.py", "file", 0, b""),
        ("also/empty", "file", 0, b""),
        ("full.py", "file", 14, b"idempotentHint"),
    ]
    scan = scan_tree(archive.members(path, ROOT), PUBLISHED)
    assert (scan.regular_files, scan.skipped_members, scan.content_bytes) == (3, 0, 14)
    assert scan.counts == (("full.py", "idempotentHint", 1),)


def test_file_larger_than_a_chunk(tmp_path: Path) -> None:
    hint = b"readOnlyHint"
    # one hint straddles the first chunk boundary, others sit well inside chunks
    big = b"a" * (CHUNK_BYTES - 5) + hint + b"b" * CHUNK_BYTES + b"READONLYHINT" + b"annotations" + b"c" * 1000
    tree = {"before.txt": b"annotations", "big.bin": big, "after.txt": b"openWorldHint"}
    path = write(tmp_path, synth.tarball(tree, root=ROOT))

    for member, chunks in archive.members(path, ROOT):
        if member.path == "big.bin":
            assert chunks is not None
            sizes = [len(c) for c in chunks]
            assert len(sizes) > 2
            assert max(sizes) <= CHUNK_BYTES
            assert sum(sizes) == len(big) == member.size_bytes

    scan = scan_tree(archive.members(path, ROOT), PUBLISHED)
    assert scan.regular_files == 3
    assert scan.content_bytes == len(big) + len(b"annotations") + len(b"openWorldHint")
    assert sorted(scan.counts) == [
        ("after.txt", "openWorldHint", 1),
        ("before.txt", "annotations", 1),
        ("big.bin", "annotations", 1),
        ("big.bin", "readOnlyHint", 2),
    ]


def test_members_not_read_are_passed_over(tmp_path: Path) -> None:
    tree = {f"f{i}.txt": f"annotations {i} ".encode() * (i * 300) for i in range(1, 7)}
    path = write(tmp_path, synth.tarball(tree, root=ROOT))
    read = {}
    for member, chunks in archive.members(path, ROOT):
        assert chunks is not None
        if int(member.path[1]) % 2 == 0:
            read[member.path] = b"".join(chunks)
        elif int(member.path[1]) == 3:
            next(iter(chunks))  # read a little, leave the rest
    assert read == {name: content for name, content in tree.items() if int(name[1]) % 2 == 0}


# --- broken archives -------------------------------------------------------------------


def good_archive() -> bytes:
    return synth.tarball(TREE, root=ROOT, commit=COMMIT)


def assert_broken(path: Path) -> None:
    with pytest.raises(ArchiveError, match=path.name):
        archive.verify(path)
    with pytest.raises(ArchiveError):
        read_all(path, ROOT)


@pytest.mark.parametrize("keep", [10, 100, 0.5, -9, -8, -1])
def test_truncated_gzip(tmp_path: Path, keep: float) -> None:
    data = good_archive()
    cut = int(len(data) * keep) if isinstance(keep, float) else keep
    assert_broken(write(tmp_path, data[:cut]))


def test_truncated_gzip_also_fails_pax_commit(tmp_path: Path) -> None:
    path = write(tmp_path, good_archive()[:40])
    with pytest.raises(ArchiveError):
        archive.pax_commit(path)


@pytest.mark.parametrize(
    "data",
    [b"", b"just some text, not gzip at all\n" * 20, b"PK\x03\x04zipfile", b"\x1f\x8b"],
)
def test_not_gzip(tmp_path: Path, data: bytes) -> None:
    path = write(tmp_path, data)
    assert_broken(path)
    with pytest.raises(ArchiveError):
        archive.pax_commit(path)


def test_gzip_of_something_that_is_not_tar(tmp_path: Path) -> None:
    assert_broken(write(tmp_path, gzip.compress(b"hello, this is not a tar archive\n" * 100)))


def test_trailing_garbage(tmp_path: Path) -> None:
    assert_broken(write(tmp_path, good_archive() + b"this is not part of the gzip stream"))


@pytest.mark.parametrize("offset", [-8, -5, -4, -1])
def test_corrupt_crc_or_length(tmp_path: Path, offset: int) -> None:
    data = bytearray(good_archive())
    data[offset] ^= 0x01  # the last 8 bytes are CRC32 and ISIZE
    assert_broken(write(tmp_path, bytes(data)))


def test_corrupt_deflate_data(tmp_path: Path) -> None:
    data = bytearray(good_archive())
    for i in range(len(data) // 3, len(data) // 3 + 16):
        data[i] ^= 0x5A
    assert_broken(write(tmp_path, bytes(data)))


def test_tar_cut_inside_a_member(tmp_path: Path) -> None:
    raw = tar_bytes([synth.tar_member("r/a.txt", b"annotations" * 200), synth.tar_member("r/b.txt", b"x")])
    # 512 header bytes of r/a.txt, then only part of its 2200 content bytes
    with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
        offset_data = tar.getmember("r/a.txt").offset_data
    assert_broken(write(tmp_path, gzip.compress(raw[: offset_data + 1000])))


def test_tar_cut_at_a_member_boundary(tmp_path: Path) -> None:
    # a whole gzip stream around a tar that stops before its last member and its end marker
    raw = tar_bytes([synth.tar_member("r/a.txt", b"annotations"), synth.tar_member("r/b.txt", b"readOnlyHint")])
    with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
        offset_b = tar.getmember("r/b.txt").offset
    assert_broken(write(tmp_path, gzip.compress(raw[:offset_b])))


def test_tar_with_a_corrupt_header(tmp_path: Path) -> None:
    raw = bytearray(tar_bytes([synth.tar_member("r/a.txt", b"annotations"), synth.tar_member("r/b.txt", b"x")]))
    with tarfile.open(fileobj=io.BytesIO(bytes(raw))) as tar:
        offset_b = tar.getmember("r/b.txt").offset
    raw[offset_b + 3] ^= 0x20  # a byte of the name: the header checksum no longer matches
    assert_broken(write(tmp_path, gzip.compress(bytes(raw))))


def test_tar_ending_after_one_zero_block_is_whole(tmp_path: Path) -> None:
    raw = tar_bytes([synth.tar_member("r/a.txt", b"annotations")])
    with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
        member = tar.getmember("r/a.txt")
    end = member.offset_data + 512 + 512  # content padded to one block, then one zero block
    path = write(tmp_path, gzip.compress(raw[:end]))
    assert archive.verify(path).root == "r"
    assert [(m.path, c) for m, c in read_all(path, "r")] == [("a.txt", b"annotations")]


def test_sha256_mismatch(tmp_path: Path) -> None:
    data = good_archive()
    path = write(tmp_path, data)
    right = hashlib.sha256(data).hexdigest()
    assert len(read_all(path, ROOT, right)) == len(TREE)
    with pytest.raises(ArchiveError, match="sha256"):
        read_all(path, ROOT, "0" * 64)
    other = hashlib.sha256(synth.tarball({"x": b"y"}, root=ROOT)).hexdigest()
    with pytest.raises(ArchiveError, match="sha256"):
        read_all(path, ROOT, other)


# --- scan_tree totals ------------------------------------------------------------------


def test_scan_tree_totals(tmp_path: Path) -> None:
    path = write(tmp_path, synth.tarball(TREE, root=ROOT, commit=COMMIT))
    scan = scan_tree(archive.members(path, ROOT, hashlib.sha256(path.read_bytes()).hexdigest()), PUBLISHED)
    files = {p: c for p, c in TREE.items() if isinstance(c, bytes)}
    assert scan.regular_files == len(files) == 5
    assert scan.content_bytes == sum(len(c) for c in files.values())
    assert scan.skipped_members == 1
    assert scan.skipped == (("link-to-main", "symlink"),)
    # counted by hand from the tree above; zero counts are not listed
    assert sorted(scan.counts) == sorted([
        ("README.md", "annotations", 2),
        ("server/main.py", "readOnlyHint", 1),
        ("server/main.py", "destructiveHint", 1),
        ("server/main.py", "idempotentHint", 1),
        ("server/main.py", "openWorldHint", 1),
        ("server/main.py", "annotations", 4),
        ("server/go/main.go", "readOnlyHint", 1),
        ("server/go/main.go", "openWorldHint", 1),
        ("server/go/main.go", "annotations", 2),
        ("bin/blob.dat", "readOnlyHint", 1),
    ])
    assert all(count > 0 for _, _, count in scan.counts)


def test_scan_tree_with_no_matches(tmp_path: Path) -> None:
    path = write(tmp_path, synth.tarball({"a.txt": b"nothing", "b.txt": b"to see"}, root=ROOT))
    scan = scan_tree(archive.members(path, ROOT), PUBLISHED)
    assert (scan.regular_files, scan.skipped_members, scan.content_bytes) == (2, 0, 13)
    assert scan.counts == ()
    assert scan.skipped == ()


# --- uncompressed tar ------------------------------------------------------------------


def test_plain_tar_reads_like_the_tar_gz(tmp_path: Path) -> None:
    data = good_archive()
    gz, plain = write(tmp_path, data), write(tmp_path, gzip.decompress(data), "a.tar")
    info = archive.verify(plain)
    assert info.root == ROOT
    assert (info.sha256, info.size_bytes) == (hashlib.sha256(plain.read_bytes()).hexdigest(), plain.stat().st_size)
    assert read_all(plain, ROOT, info.sha256) == read_all(gz, ROOT)
    assert archive.pax_commit(plain) == COMMIT
    with pytest.raises(ArchiveError, match="sha256"):
        read_all(plain, ROOT, hashlib.sha256(data).hexdigest())  # the recorded hash is of the file as it is


def test_plain_tar_cut_short(tmp_path: Path) -> None:
    raw = gzip.decompress(good_archive())
    with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
        offset = tar.getmember(f"{ROOT}/server/main.py").offset_data
    for cut in (offset, offset + 100, offset - 512):
        path = write(tmp_path, raw[:cut], "cut.tar")
        with pytest.raises(ArchiveError, match=r"cut\.tar is not a whole tar"):
            archive.verify(path)
        with pytest.raises(ArchiveError):
            read_all(path, ROOT)
