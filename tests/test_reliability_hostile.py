"""Hostile archives, built by the tests: bombs, huge members, too many members, broken framing.

Every archive here is a real tar.gz file. Runs of zeros are written as one deflate block of a
MiB of zeros repeated (each ends at a full flush, so it decodes on its own), with the CRC
carried over the zeros by GF(2) algebra: a file that inflates to gigabytes costs a few KB
and a few milliseconds to write, and is never held in memory.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import subprocess
import sys
import tarfile
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

import pytest
import synth
from github_server import GitHubServer

from pipeline import archive
from pipeline.census import Census
from pipeline.entries import Entry, Member
from pipeline.errors import ArchiveError, ArchiveLimitError
from pipeline.limits import limited
from pipeline.manifest import load
from pipeline.settings import Limits, Settings
from pipeline.store import Store

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
    """One pax sparse member: 12 stored bytes, 1 TiB of holes (``archive.members`` would hand out every zero)."""
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


# --- the builder is right ----------------------------------------------------------------


def test_the_builder_writes_valid_gzip_and_tar(tmp_path: Path) -> None:
    assert crc_after_zero_mibs(zlib.crc32(b"abc"), 3) == zlib.crc32(bytes(3 * MiB), zlib.crc32(b"abc"))
    path = write_tar_gz(tmp_path / "a.tar.gz", [(member("r/a"), b"readOnlyHint"), (member("r/z"), 3 * MiB + 5)])
    with tarfile.open(path) as tar:
        assert [(m.name, m.size) for m in tar] == [("r/a", 12), ("r/z", 3 * MiB + 5)]
        assert tar.extractfile("r/z").read() == bytes(3 * MiB + 5)  # type: ignore[union-attr]
    assert archive.verify(path).root == "r"


# --- limits, archive by archive ------------------------------------------------------------


@pytest.mark.parametrize(
    ("build", "reason"),
    [
        (declared_bomb, "over a limit: its files hold more than 67108864 bytes (CENSUS_MAX_ARCHIVE_BYTES)"),
        (hidden_bomb, "over a limit: the archive decompresses to more than 67108864 bytes (CENSUS_MAX_ARCHIVE_BYTES)"),
        (sparse_bomb, "over a limit: its files hold more than 67108864 bytes (CENSUS_MAX_ARCHIVE_BYTES)"),
        (crowd, "over a limit: the tree has more than 200 members (CENSUS_MAX_MEMBERS)"),
    ],
    ids=["declared-bomb", "hidden-bomb", "sparse-bomb", "crowd"],
)
def test_an_archive_over_a_limit_is_refused_by_verify_and_members(tmp_path: Path, build: object, reason: str) -> None:
    path = build(tmp_path / "a.tar.gz")  # type: ignore[operator]
    assert path.stat().st_size < 3 * MiB
    with pytest.raises(ArchiveLimitError) as caught:
        archive.verify(path, LIMITS)
    assert str(caught.value) == reason
    with pytest.raises(ArchiveLimitError, match=r"^over a limit: "):
        read_all(archive.members(path, "r", limits=LIMITS))


def test_the_default_limits_refuse_the_sparse_bomb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CENSUS_MAX_ARCHIVE_BYTES", raising=False)
    with pytest.raises(ArchiveLimitError, match=f"more than {Limits().max_archive_bytes} bytes"):
        archive.verify(sparse_bomb(tmp_path / "a.tar.gz"))


def test_limits_come_from_the_environment_when_none_are_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = crowd(tmp_path / "a.tar.gz", count=10)
    monkeypatch.setenv("CENSUS_MAX_MEMBERS", "10")
    with pytest.raises(ArchiveLimitError, match="more than 10 members"):
        archive.verify(path)
    monkeypatch.setenv("CENSUS_MAX_MEMBERS", "11")
    assert archive.verify(path).root == "r"  # the folder and ten files: exactly at the limit
    assert len(list(archive.members(path, "r"))) == 10
    monkeypatch.setenv("CENSUS_MAX_MEMBERS", "lots")
    with pytest.raises(ArchiveError, match=r"^CENSUS_MAX_MEMBERS='lots' is not a positive whole number$"):
        archive.verify(path)  # one line, as `census count` shows it


def test_exactly_at_the_limits_is_accepted(tmp_path: Path) -> None:
    path = write_tar_gz(tmp_path / "a.tar.gz", [(member("r/a.bin"), 1000), (member("r/b.py"), b"annotations")])
    content = 1000 + len(b"annotations")
    archive.verify(path, Limits(max_archive_bytes=4 * BLOCK + 1024 + 1024, max_members=2))  # the stream's size
    assert len(list(archive.members(path, "r", limits=Limits(max_archive_bytes=5 * MiB, max_members=2)))) == 2
    entries = [(Member("a.bin", "file", 1000), None), (Member("b.py", "file", 11), None)]
    assert len(list(limited(entries, Limits(max_archive_bytes=content, max_members=2)))) == 2
    with pytest.raises(ArchiveLimitError, match="its files hold more than"):
        list(limited(entries, Limits(max_archive_bytes=content - 1, max_members=2)))
    with pytest.raises(ArchiveLimitError, match="more than 1 members"):
        list(limited(entries, Limits(max_archive_bytes=content, max_members=1)))


@pytest.mark.parametrize("build", [cut_tar, not_gzip], ids=["truncated-tar", "not-gzip"])
def test_broken_framing_is_an_archive_error_not_a_limit(tmp_path: Path, build: object) -> None:
    path = build(tmp_path / "a.tar.gz")  # type: ignore[operator]
    with pytest.raises(ArchiveError) as caught:
        archive.verify(path, LIMITS)
    assert not isinstance(caught.value, ArchiveLimitError)
    assert str(caught.value).startswith("archive a.tar.gz is not a whole tar")
    assert len(str(caught.value).splitlines()) == 1


# --- a census over all of them: each bad one is a skipped row, nothing else is lost ---------------


def good_tree(repo: str) -> tuple[str, bytes]:
    """A small GitHub-style archive of ``repo`` with one hint of each kind; its commit and bytes."""
    commit = synth.fake_sha(repo)
    tree = {"server.py": synth.FASTMCP_SERVER, "docs/a.md": b"readOnlyHint and annotations\n"}
    return commit, synth.tarball(tree, root=f"{repo.replace('/', '-')}-{commit[:7]}", commit=commit)


def test_a_census_skips_each_hostile_archive_with_its_reason_and_keeps_the_rest(
    github: GitHubServer, tmp_path: Path
) -> None:
    builders = {"acme/declared-bomb": declared_bomb, "acme/hidden-bomb": hidden_bomb, "acme/sparse-bomb": sparse_bomb,
                "acme/crowd": crowd, "acme/cut": cut_tar, "acme/not-gzip": not_gzip}
    served: dict[str, tuple[str, bytes]] = {"acme/good": good_tree("acme/good")}
    for repo, build in builders.items():
        served[repo] = (synth.fake_sha(repo), build(tmp_path / f"{repo.split('/')[1]}.tar.gz").read_bytes())
    served["acme/good-too"] = good_tree("acme/good-too")
    for repo, (commit, data) in served.items():
        github.add_repo(repo, {commit: data})
    manifest = tmp_path / "hostile.toml"
    manifest.write_text("".join(f'[[repos]]\nrepo = "{r}"\ncommit = "{c}"\n' for r, (c, _) in served.items()))
    settings = Settings(api_url=github.api_url, cache_dir=tmp_path / "cache", db_path=tmp_path / "c.duckdb",
                        attempts=2, backoff_seconds=0.01, timeout_seconds=10.0,
                        max_archive_bytes=LIMITS.max_archive_bytes, max_members=LIMITS.max_members)
    census = Census(load(manifest), settings)
    with Store(settings.db_path) as store:
        outcomes = {o.repo: o for o in census.run(store)}
        rows = store.connection.execute(
            "SELECT repo, status, skipped_stage, skip_reason FROM snapshots ORDER BY repo").fetchall()
        counts = store.connection.execute("SELECT repo, sum(count) FROM term_counts GROUP BY repo").fetchall()
    census.close()

    reasons = {repo: reason for repo, status, stage, reason in rows if status == "skipped" and stage == "fetch"}
    assert {repo for repo, status, _, _ in rows if status == "scanned"} == {"acme/good", "acme/good-too"}
    assert set(reasons) == set(builders)
    assert all(outcomes[repo].reason == reasons[repo] for repo in builders)
    limit_bytes = "over a limit: {} more than 67108864 bytes (CENSUS_MAX_ARCHIVE_BYTES)"
    assert reasons["acme/declared-bomb"] == limit_bytes.format("its files hold")
    assert reasons["acme/sparse-bomb"] == limit_bytes.format("its files hold")
    assert reasons["acme/hidden-bomb"] == limit_bytes.format("the archive decompresses to")
    assert reasons["acme/crowd"] == "over a limit: the tree has more than 200 members (CENSUS_MAX_MEMBERS)"
    for repo in ("acme/cut", "acme/not-gzip"):
        assert reasons[repo].startswith("gave up after 2 attempts: the downloaded body is not a valid archive")
    codeload = [r.path for r in github.requests_to("codeload")]
    for repo, (commit, _) in served.items():  # a limit is final; broken framing is tried again
        assert codeload.count(github.codeload_path(repo, commit)) == (2 if repo in ("acme/cut", "acme/not-gzip") else 1)
    per_tree = sum((synth.FASTMCP_SERVER + b"readOnlyHint and annotations").lower().count(t.lower().encode())
                   for t in PUBLISHED)
    assert sorted(counts) == [("acme/good", per_tree), ("acme/good-too", per_tree)]
    blobs = sorted(p.name for p in (tmp_path / "cache" / "blobs").rglob("*.tar.gz"))
    assert blobs == sorted(f"{hashlib.sha256(served[r][1]).hexdigest()}.tar.gz" for r in ("acme/good", "acme/good-too"))
    assert list((tmp_path / "cache" / "tmp").iterdir()) == []


# --- a multi-gigabyte member streams in bounded memory --------------------------------------


def test_a_multi_gigabyte_member_is_counted_in_bounded_memory(tmp_path: Path) -> None:
    size = 2 * GiB + MiB + 3  # past 2**31: no 32-bit size or offset survives it
    path = write_tar_gz(tmp_path / "big.tar.gz", [
        (member("r", tarfile.DIRTYPE), b""),
        (member("r/disk.img"), size),
        (member("r/after.py"), b"readOnlyHint annotations"),
    ])
    assert path.stat().st_size < 4 * MiB
    env = {**os.environ, "CENSUS_MAX_ARCHIVE_BYTES": str(4 * GiB)}
    code, out, err, peak_rss = census_measured(["count", "--json", str(path)], env, tmp_path)
    assert code == 0, err
    report = json.loads(out)
    assert report["content_bytes"] == size + len(b"readOnlyHint annotations")
    assert report["regular_files"] == 2
    assert report["totals"]["readOnlyHint"] == report["totals"]["annotations"] == 1
    assert 0 < peak_rss < 256 * MiB  # the member alone is eight times that


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


def census_measured(args: list[str], env: dict[str, str], folder: Path) -> tuple[int, str, str, int]:
    """``census ARGS``: exit code, stdout, stderr, and the peak RSS in bytes of its own memory.

    The peak is the process's ``VmHWM`` (Linux), read as it exits: the peak of its memory since
    it started Python, unlike ``ru_maxrss``, which also counts the parent's memory at fork.
    """
    peak = folder / "peak-rss-kb"
    done = subprocess.run([sys.executable, "-c", MEASURED_CENSUS, str(peak), *args], env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    return done.returncode, done.stdout, done.stderr, int(peak.read_text()) * 1024


# --- the scan holds every source to the limits (a git repository too) ------------------------


def test_census_scan_holds_a_git_tree_to_the_settings_limits(tmp_path: Path) -> None:
    commit = synth.git_repo(tmp_path / "repo", {f"f{n}.py": b"readOnlyHint" for n in range(5)})
    manifest = tmp_path / "git.toml"
    manifest.write_text(f'[[repos]]\nrepo = "acme/local"\ncommit = "{commit}"\nsource = "repo"\n')
    for limit, status in ((4, "skipped"), (5, "scanned")):
        settings = Settings(cache_dir=tmp_path / "cache", db_path=tmp_path / f"{limit}.duckdb", max_members=limit)
        census = Census(load(manifest), settings)
        with Store(settings.db_path) as store:
            assert [o.status for o in census.fetch(store)] == ["cached"]  # a local source: nothing to download
            [outcome] = census.scan(store)
            row = store.snapshot("acme/local", commit)
        census.close()
        assert outcome.status == status
        assert row is not None
        assert row["status"] == status
        if status == "skipped":
            assert row["skipped_stage"] == "scan"
            assert row["skip_reason"] == "over a limit: the tree has more than 4 members (CENSUS_MAX_MEMBERS)"
