"""The lean tar reader against Python's ``tarfile``: same members, kinds, sizes and content.

Archives come from ``tarfile`` (PAX, GNU, USTAR), ``git archive`` and, for sparse members,
GNU tar; each is read by ``pipeline.archive.tarball.members`` and by ``tarfile``, and the two must agree.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
import zlib
from pathlib import Path

import pytest
import synth
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pipeline.archive import tarball as archive
from pipeline.archive import tarfields, tarstream
from pipeline.archive.entries import display_path
from pipeline.archive.tarball import CHUNK_BYTES
from pipeline.errors import ArchiveError

Row = tuple[str, str, int, bytes | None]
Tree = dict[str, bytes | tuple[str, str]]

REFERENCE_KINDS = {
    tarfile.REGTYPE: "file", tarfile.AREGTYPE: "file", tarfile.CONTTYPE: "file", tarfile.SYMTYPE: "symlink",
    tarfile.LNKTYPE: "hardlink", tarfile.CHRTYPE: "device", tarfile.BLKTYPE: "device",
    tarfile.FIFOTYPE: "fifo", tarfile.DIRTYPE: "dir",
}  # fmt: skip
ROOT = "owner-repo-0123abc"
SIZES = [0, 1, 511, 512, 513, 1024, CHUNK_BYTES - 1, CHUNK_BYTES, CHUNK_BYTES + 1]
PATTERN = b"annotations\x00\xffreadOnlyHint\n"


def reference(path: Path, root: str | None) -> tuple[str | None, list[Row]]:
    """The top folder and the members as the tarfile-based reader (stream mode) reported them."""
    rows: list[Row] = []
    infos: list[tarfile.TarInfo] = []
    prefix = f"{root}/" if root else ""
    with tarfile.open(path, mode="r|*", encoding="utf-8", errors="surrogateescape") as tar:
        for info in tar:
            infos.append(info)
            if info.name == root:
                continue
            stripped = info.name[len(prefix) :] if prefix and info.name.startswith(prefix) else info.name
            name = display_path(stripped)
            kind = REFERENCE_KINDS.get(info.type, "other")
            reader = tar.extractfile(info) if kind == "file" else None
            rows.append((name, kind, info.size, reader.read()) if reader else (name, kind, 0, None))
    tops = {info.name.partition("/")[0] for info in infos}
    nested = all(info.name.partition("/")[2] or info.isdir() for info in infos)
    return (tops.pop() if len(tops) == 1 and nested else None), rows


def ours(path: Path, root: str | None, read: list[bool] | None = None) -> list[Row]:
    """``pipeline.archive.tarball.members``, reading the content of the members ``read`` marks (all by default)."""
    rows: list[Row] = []
    for i, (member, chunks) in enumerate(archive.members(path, root)):
        if chunks is not None and (read is None or read[i % len(read)]):
            pieces = list(chunks)
            assert all(0 < len(p) <= CHUNK_BYTES for p in pieces)
            assert all(len(p) == CHUNK_BYTES for p in pieces[:-1])
            rows.append((member.path, member.kind, member.size_bytes, b"".join(pieces)))
        else:
            rows.append((member.path, member.kind, member.size_bytes, None))
    return rows


def assert_same(path: Path, read: list[bool] | None = None) -> None:
    root, expected = reference(path, None)
    assert archive.verify(path).root == root
    _, expected = reference(path, root)
    got = ours(path, root, read)
    if read is not None:  # unread content is not compared
        pairs = zip(expected, got, strict=True)
        expected = [e if g[3] is not None or e[3] is None else (*e[:3], None) for e, g in pairs]
    assert got == expected


# --- random trees ----------------------------------------------------------------------

ALPHABET = "abcXYZ019-_. ~é日\udcff\udce9\udc80"
component = st.one_of(
    st.builds("".join, st.tuples(st.sampled_from("abq"), st.text(ALPHABET, max_size=10))),
    st.integers(60, 160).map(lambda n: "long" + "n" * n),
)
names = st.lists(component, min_size=1, max_size=3).map("/".join)
contents = st.one_of(
    st.binary(max_size=1200),
    st.sampled_from(SIZES).map(lambda n: (PATTERN * (n // len(PATTERN) + 1))[:n]),
)
targets = st.one_of(names, st.integers(90, 130).map(lambda n: "../" + "t" * n))
entries = st.one_of(contents, targets.map(lambda t: ("symlink", t)))


def consistent(tree: Tree) -> Tree:
    """Without a path that is also another path's folder (git and file systems forbid it)."""
    folders = {"/".join(name.split("/")[:i]) for name in tree for i in range(1, name.count("/") + 1)}
    return {name: value for name, value in tree.items() if name not in folders}


trees = st.dictionaries(names, entries, max_size=7).map(consistent)
EDGES: Tree = {
    "empty": b"",
    "block.bin": (PATTERN * 20)[:512],
    **{f"big{n}.txt": (PATTERN * (n // len(PATTERN) + 1))[:n] for n in (CHUNK_BYTES - 1, CHUNK_BYTES, CHUNK_BYTES + 1)},
    "caf\udce9/" + "n" * 120 + "/x.py": b"readOnlyHint",
    "link-" + "l" * 110: ("symlink", "../" + "t" * 120),
}


def tarfile_archive(tree: Tree, root: str | None, fmt: int, dirs: bool) -> bytes:
    """An uncompressed tar of ``tree`` written by ``tarfile`` in format ``fmt``."""
    buffer = io.BytesIO()
    with tarfile.open(
        fileobj=buffer, mode="w", format=fmt, encoding="utf-8", errors="surrogateescape", pax_headers={}
    ) as tar:
        top = f"{root}/" if root else ""
        folders = sorted({name.rsplit("/", 1)[0] for name in tree if "/" in name}) if dirs else []
        for name in ([root] if root else []) + [top + f for f in folders]:
            info = tarfile.TarInfo(name + "/")
            info.type, info.mode = tarfile.DIRTYPE, 0o755
            tar.addfile(info)
        for name, value in tree.items():
            info = tarfile.TarInfo(top + name)
            if isinstance(value, tuple):
                info.type, info.linkname = tarfile.SYMTYPE, value[1]
                tar.addfile(info)
            else:
                info.size = len(value)
                tar.addfile(info, io.BytesIO(value))
    return buffer.getvalue()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@example(tree=EDGES, root=ROOT, layout=(tarfile.GNU_FORMAT, True, True), read=[True, False, True])
@example(tree=EDGES, root=None, layout=(tarfile.PAX_FORMAT, False, False), read=None)
@given(
    tree=trees,
    root=st.sampled_from([None, ROOT]),
    layout=st.tuples(
        st.sampled_from([tarfile.PAX_FORMAT, tarfile.GNU_FORMAT, tarfile.USTAR_FORMAT]), st.booleans(), st.booleans()
    ),
    read=st.none() | st.lists(st.booleans(), min_size=1, max_size=4),
)
def test_same_as_tarfile_on_random_trees(
    tmp_path_factory: pytest.TempPathFactory, tree: Tree, root: str | None, layout: tuple[int, bool, bool],
    read: list[bool] | None,
) -> None:
    fmt, dirs, gzipped = layout  # tar format, folder entries, gzip or plain tar
    try:
        raw = tarfile_archive(tree, root, fmt, dirs)
    except ValueError:  # USTAR cannot hold this name
        return
    data = zlib.compress(raw, 1, wbits=31) if gzipped else raw
    path = tmp_path_factory.mktemp("t") / ("a.tar.gz" if gzipped else "a.tar")
    path.write_bytes(data)
    assert_same(path, read)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@example(tree=EDGES, fmt="tar.gz")
@given(tree=trees.filter(bool), fmt=st.sampled_from(["tar.gz", "tar"]))
def test_same_as_tarfile_on_git_archives(tmp_path_factory: pytest.TempPathFactory, tree: Tree, fmt: str) -> None:
    work = tmp_path_factory.mktemp("g")
    commit = synth.git_repo(work / "repo", tree)
    path = work / f"a.{fmt}"
    synth.git(work / "repo", "archive", f"--format={fmt}", f"--prefix={ROOT}/", "-o", str(path), "HEAD")
    assert_same(path)
    assert archive.pax_commit(path) == commit


# --- sparse members (GNU tar) ----------------------------------------------------------


@pytest.mark.skipif(shutil.which("tar") is None, reason="needs GNU tar")
@pytest.mark.parametrize(
    "options", [["--format=gnu"], *(["--format=posix", f"--sparse-version={v}"] for v in ("0.0", "0.1", "1.0"))]
)
def test_sparse_members(tmp_path: Path, options: list[str]) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    with (tree / "holes.bin").open("wb") as out:
        for offset in (0, 5000, 3 * CHUNK_BYTES // 2, 2 * CHUNK_BYTES, 2 * CHUNK_BYTES + 9000, 3 * CHUNK_BYTES):
            out.seek(offset)
            out.write(b"readOnlyHint" * 900)
        out.truncate(4 * CHUNK_BYTES + 7)
    (tree / "z-after.txt").write_bytes(b"annotations")
    path = tmp_path / "sparse.tar.gz"
    command = ["tar", "--sparse", "--sort=name", *options, "-czf", str(path), "-C", str(tmp_path), "tree"]
    subprocess.run(command, check=True)
    assert_same(path)
    assert [m.path for m, _ in archive.members(path, "tree")] == ["holes.bin", "z-after.txt"]


# --- headers that tarfile writes rarely ------------------------------------------------


def one_member_tar(name: bytes = b"r/a.txt", data: bytes = b"annotations") -> bytearray:
    info = tarfile.TarInfo(name.decode("utf-8", "surrogateescape"))
    info.size = len(data)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT, errors="surrogateescape") as tar:
        tar.addfile(info, io.BytesIO(data))
    return bytearray(buffer.getvalue())


def set_checksum(raw: bytearray, signed: bool = False) -> None:
    raw[148:156] = b" " * 8
    total = sum(b - 256 if signed and b > 127 else b for b in raw[:512])
    raw[148:156] = b"%06o\0 " % total


def test_base256_size_and_signed_checksum(tmp_path: Path) -> None:
    raw = one_member_tar(b"r/\xff\xfe.txt")
    raw[124:136] = b"\x80" + (11).to_bytes(11, "big")  # base-256 size, as GNU tar writes for huge files
    set_checksum(raw, signed=True)  # old tars summed signed bytes
    path = tmp_path / "a.tar"
    path.write_bytes(raw)
    assert_same(path)
    assert ours(path, "r") == [("\\xff\\xfe.txt", "file", 11, b"annotations")]


def test_old_style_directory(tmp_path: Path) -> None:
    raw = one_member_tar(b"r/old-dir/", b"")
    raw[156:157] = tarfile.AREGTYPE  # a v7 tar marks a directory by the trailing slash alone
    set_checksum(raw)
    path = tmp_path / "a.tar"
    path.write_bytes(raw)
    assert_same(path)
    assert ours(path, "r") == [("old-dir", "dir", 0, None)]


@pytest.mark.parametrize(
    ("field", "value"),
    [(slice(124, 136), b"12x45670000\0"), (slice(100, 108), b"06\xff4\0\0\0\0"), (slice(148, 156), b"zz")],
)
def test_bad_number_fields_are_errors(tmp_path: Path, field: slice, value: bytes) -> None:
    raw = one_member_tar()
    raw[field] = value.ljust(field.stop - field.start, b"\0")
    if field.start != 148:
        set_checksum(raw)
    path = tmp_path / "a.tar"
    path.write_bytes(raw)
    with pytest.raises(ArchiveError, match="invalid header"):
        archive.verify(path)


def test_data_after_the_end_marker_is_not_parsed(tmp_path: Path) -> None:
    path = tmp_path / "a.tar"
    path.write_bytes(bytes(one_member_tar()) + b"trailing junk, not a header" * 40)
    assert ours(path, "r") == [("a.txt", "file", 11, b"annotations")]
    assert archive.verify(path).size_bytes == path.stat().st_size


def test_content_read_after_the_next_member_fails() -> None:
    raw = tarfile_archive({"a": b"x" * 600, "b": b"y"}, None, tarfile.PAX_FORMAT, dirs=False)
    reader = tarstream.TarReader(io.BytesIO(raw))
    first = reader.next()
    assert first is not None
    stale = reader.chunks(first)
    second = reader.next()
    assert second is not None
    assert second.name == b"b"
    with pytest.raises(RuntimeError, match="after the next member"):
        next(stale)
    assert b"".join(reader.chunks(second)) == b"y"
    assert reader.next() is None


def test_pax_path_and_size_override_the_header(tmp_path: Path) -> None:
    records = b"".join(tarstream_record(k, v) for k, v in [(b"path", b"r/renamed.py/"), (b"size", b"5")])
    pax = one_member_tar(b"r/PaxHeaders/x", records)
    pax[156:157] = b"x"
    set_checksum(pax)
    member = one_member_tar(b"r/short", b"hello")
    member[124:136] = b"00000000000\0"  # the pax size wins over the header's
    set_checksum(member)
    path = tmp_path / "a.tar"
    path.write_bytes(bytes(pax[: 512 + -(-len(records) // 512) * 512]) + bytes(member))
    assert_same(path)
    assert ours(path, "r") == [("renamed.py", "file", 5, b"hello")]


def tarstream_record(key: bytes, value: bytes) -> bytes:
    """One pax record, ``LENGTH KEY=VALUE\\n`` with LENGTH counting itself."""
    body = b" %s=%s\n" % (key, value)
    length = len(body) + 1
    while length != len(body) + len(str(length)):
        length += 1
    return b"%d%s" % (length, body)


def test_held_content_is_the_current_members_only() -> None:
    big = bytes(range(256)) * 8192  # 2 MiB: more than is read ahead
    raw = tarfile_archive({"a": b"x" * 600, "b": b"y", "c": big}, None, tarfile.PAX_FORMAT, dirs=False)
    reader = tarstream.TarReader(io.BytesIO(raw))
    first = reader.next()
    assert first is not None
    assert reader.held(first) == b"x" * 600
    second = reader.next()
    assert second is not None
    assert second.name == b"b"
    assert reader.held(first) is None  # a stale header never gets another member's bytes
    assert reader.held(second) == b"y"
    third = reader.next()
    assert third is not None
    assert reader.held(third) is None
    assert b"".join(reader.chunks(third)) == big
    assert reader.next() is None


class Blocks:
    """A stream whose ``read1`` hands out ``data`` in the given block sizes (the inflater's way)."""

    def __init__(self, data: bytes, sizes: list[int]) -> None:
        self.stream, self.sizes = io.BytesIO(data), sizes

    def read(self, size: int, /) -> bytes:
        return self.stream.read(size)

    def read1(self, size: int, /) -> bytes:
        return self.stream.read(self.sizes.pop(0) if self.sizes else size)


@settings(max_examples=150, deadline=None)
@given(
    data=st.binary(min_size=0, max_size=3000),
    sizes=st.lists(st.integers(1, 700), max_size=12),
    steps=st.lists(st.tuples(st.sampled_from(["read", "held", "window"]), st.integers(0, 1500)), max_size=25),
)
def test_read_ahead_hands_out_the_stream_in_order(data: bytes, sizes: list[int], steps: list[tuple[str, int]]) -> None:
    """Whatever the blocks and the reads, the bytes handed out are the stream's, in order, and a
    read across blocks leaves the rest of the last block held (``window`` starts there)."""
    ahead = tarfields.ReadAhead(Blocks(data, sizes), size=1024)
    at = 0  # the offset of the next byte to hand out
    for step, count in steps:
        if step == "read":
            assert ahead.read(count) == data[at : at + count]
            at = min(at + count, len(data))
        elif step == "held":
            got = ahead.held(count // 2, count)
            if got is not None:
                assert got == data[at : at + count // 2]
                at += count
        else:
            buf, pos = ahead.window()
            assert buf[pos:] == data[at : at + len(buf) - pos]
            ahead.seek(pos + count)
            at += min(count, len(buf) - pos)
    assert ahead.read(len(data)) == data[at:]
