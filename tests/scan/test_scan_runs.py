"""The scan's fast path: tar runs counted with one native call, equal to one file at a time.

``pipeline.archive.tarball.stream`` hands the scan runs of members read ahead together; ``scan_tree`` counts a
run's files with ``TermCounter.count_spans``. Every count, skipped member, note and tool must
equal what the scan finds reading the same archive one member at a time (``pipeline.archive.tarball.members``)
and the reference definition per file.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import tarfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_count import BUDGETS, FRAGMENTS, HAVE_HYPERSCAN, PROPERTY, TERM_POOL, engines, hit_budget, reference

from pipeline.archive.entries import Run
from pipeline.archive.limits import limited
from pipeline.archive.tarball import members, stream
from pipeline.archive.tarstream import TarReader
from pipeline.errors import ArchiveError, ArchiveLimitError
from pipeline.manifest.terms import TERM_SETS
from pipeline.scan.count import TermCounter
from pipeline.scan.detect import Detector
from pipeline.scan.notes import LFS_MAGIC
from pipeline.scan.tree import scan_tree
from pipeline.settings import Limits

PUBLISHED = TERM_SETS["published"]


@st.composite
def spans_st(draw: st.DrawFn) -> tuple[bytes, list[tuple[int, int]]]:
    """A buffer of match-prone fragments and disjoint spans of it, in order (some empty, some adjacent)."""
    data = b"".join(draw(st.lists(st.sampled_from(FRAGMENTS), max_size=60)))
    cuts = sorted(draw(st.lists(st.integers(min_value=0, max_value=len(data)), min_size=2, max_size=16)))
    spans = [(a, b) for a, b in zip(cuts[::2], cuts[1::2], strict=False)]
    return data, spans


@engines
@PROPERTY
@given(case=spans_st(), terms=st.lists(st.sampled_from(TERM_POOL), min_size=1, max_size=6, unique_by=str.lower))
def test_count_spans_equals_the_reference_per_span(engine: str, case: tuple[bytes, list[tuple[int, int]]],
                                                   terms: list[str]) -> None:
    data, spans = case
    expected = {i: found for i, (a, b) in enumerate(spans) if any(found := reference(terms, data[a:b]))}
    counter = TermCounter(terms, engine)
    for name, budget in BUDGETS.items() if engine == "hyperscan" else [("python", None)]:
        with hit_budget(*budget) if budget else contextlib.nullcontext():
            assert counter.count_spans(data, spans) == (expected, {}), name


@engines
def test_a_match_across_two_files_or_a_gap_counts_in_neither(engine: str) -> None:
    counter = TermCounter(["readOnlyHint"], engine)
    data = b"readOnly" + b"Hint" + b"\0" * 8 + b"readOnlyHINT"
    assert counter.count_spans(data, [(0, 8), (8, 12)]) == ({}, {})
    assert counter.count_spans(data, [(0, 9), (9, 20)]) == ({}, {})
    assert counter.count_spans(data, [(0, 12), (20, 32)]) == ({0: [1], 1: [1]}, {})


def plain_tar(files: dict[str, bytes]) -> bytearray:
    """An uncompressed ustar archive, as ``git archive`` writes them, of a folder ``a``, ``files``
    and a symlink, all under ``top/``; as bytes to mutate."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        folder = tarfile.TarInfo("top/a")
        folder.type = tarfile.DIRTYPE
        tar.addfile(folder)
        for name, content in files.items():
            info = tarfile.TarInfo(f"top/{name}")
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
        link = tarfile.TarInfo("top/link")
        link.type, link.linkname = tarfile.SYMTYPE, "a/x"
        tar.addfile(link)
    return bytearray(raw.getvalue())


def tar_gz(files: dict[str, bytes]) -> bytes:
    """``plain_tar`` gzipped."""
    return gzip.compress(bytes(plain_tar(files)), mtime=0)


def scans(path: Path, detector: bool) -> tuple[object, object]:
    """The scan of ``path`` over runs, and one member at a time."""
    fast = scan_tree(stream(path, "top"), PUBLISHED, Detector() if detector else None)
    slow = scan_tree(members(path, "top"), PUBLISHED, Detector() if detector else None)
    return fast, slow


NAMES = ["server.py", "docs/readme.md", ".gitattributes", "pointer.bin", "a/b/c.ts", "vendor/x.go", "big.txt",
         "pyproject.toml", "a/package.json"]
CONTENTS = [
    b"", b"readOnlyHint", b"@mcp.tool(annotations={'readOnlyHint': True})\ndef f(): ...\n",
    b"* export-ignore\n*.bin filter=lfs\n", LFS_MAGIC + b"v1\noid sha256:" + b"0" * 64 + b"\nsize 12\n",
    b"ANNOTATIONS annotations " * 100, b'[project]\nname = "x"\ndependencies = ["fastapi>=1", "mcp==1.2"]\n',
    b'{"dependencies": {"@modelcontextprotocol/sdk": "1.0.0"}}', b'{"dependencies": {"left-pad": "1.0.0"}}',
    b"x" * 511, b"y" * 513, b"annotations".join(b"z" * 4000 for _ in range(300)),
]


@settings(PROPERTY, max_examples=50)
@given(files=st.dictionaries(st.sampled_from(NAMES), st.sampled_from(CONTENTS), max_size=7),
       padding=st.integers(min_value=0, max_value=3))
def test_runs_give_the_same_scan_as_one_member_at_a_time(tmp_path_factory: pytest.TempPathFactory,
                                                         files: dict[str, bytes], padding: int) -> None:
    files = {**{f"pad{i}.bin": b"\0" * (700_000 + i) for i in range(padding)}, **files}  # cross read-ahead ends
    path = tmp_path_factory.mktemp("runs") / "t.tar.gz"
    path.write_bytes(tar_gz(files))
    for detector in (False, True):
        fast, slow = scans(path, detector)
        assert fast == slow
    expected = {(name, term, n) for name, data in files.items()
                for term, n in zip(PUBLISHED, reference(PUBLISHED, data), strict=True) if n}
    assert set(fast.counts) == expected  # type: ignore[attr-defined]


def test_a_git_style_archive_is_read_mostly_in_runs(tmp_path: Path) -> None:
    path = tmp_path / "t.tar.gz"
    path.write_bytes(tar_gz({f"f{i}.py": b"annotations\n" * i for i in range(200)}))
    items = list(stream(path, "top"))
    runs = [item for item in items if isinstance(item, Run)]
    in_runs = sum(len(run.members) for run in runs)
    # the folder, the 200 files and the symlink; a member across two inflated blocks is read alone
    assert in_runs + (len(items) - len(runs)) == 202
    assert in_runs >= 200
    assert scan_tree(items, PUBLISHED).counts == scan_tree(members(path, "top"), PUBLISHED).counts


@pytest.mark.skipif(not HAVE_HYPERSCAN, reason="hyperscan is not installed")
def test_a_dense_run_falls_back_to_python_with_the_same_counts(tmp_path: Path) -> None:
    path = tmp_path / "t.tar.gz"
    path.write_bytes(tar_gz({f"f{i}.txt": b"aaaa" * 300 for i in range(50)}))
    counter = TermCounter(["a", "aa"], "hyperscan")
    for run in (item for item in stream(path, "top") if isinstance(item, Run)):
        spans = [(offset, offset + size) for _, kind, size, offset in run.members if kind == "file"]
        with hit_budget(10**9, 10**9):
            native = counter.count_spans(run.buffer, spans)
        with hit_budget(0, 10**9):
            assert counter.count_spans(run.buffer, spans) == native == ({i: [1200, 600] for i in range(len(spans))}, {})


@pytest.mark.parametrize("limits", [Limits(max_members=50), Limits(max_archive_bytes=2_000)])
def test_runs_are_held_to_the_limits(tmp_path: Path, limits: Limits) -> None:
    """Both the archive's own budget and ``limited`` (the census's) count the members of runs."""
    path = tmp_path / "t.tar.gz"
    path.write_bytes(tar_gz({f"f{i}.py": b"x" * 100 for i in range(60)}))
    assert any(isinstance(item, Run) for item in stream(path, "top"))
    with pytest.raises(ArchiveLimitError):
        list(stream(path, "top", limits=limits))
    with pytest.raises(ArchiveLimitError):
        list(limited(stream(path, "top"), limits))


def test_a_manifest_without_the_detectors_words_still_reaches_it_from_a_run(tmp_path: Path) -> None:
    """Package manifests are read whatever they hold: the look-alike's version comes from one
    that names none of the detector's words."""
    fixture = Path(__file__).parents[1] / "fixtures" / "detector" / "typescript" / "vercel-ai"
    manifest = (fixture / "package.json").read_bytes()
    assert not any(word.encode() in manifest.lower() for word in Detector().prefilter_words())
    path = tmp_path / "t.tar.gz"
    path.write_bytes(tar_gz({"package.json": manifest, "agent.ts": (fixture / "agent.ts").read_bytes()}))
    assert any(isinstance(item, Run) for item in stream(path, "top"))
    fast, slow = scans(path, detector=True)
    assert fast == slow
    tools = fast.detection.tools  # type: ignore[attr-defined]
    assert [(t.tool_name, t.sdk, t.sdk_version) for t in tools] == [("lookupOrder", "vercel-ai", "^5.0.0")]


def _outcome(path: Path, runs: bool) -> object:
    """What a scan of ``path`` finds (or the error it stops with), with runs or with ``TarReader.next``
    reading every member (``run`` never offering one)."""
    with pytest.MonkeyPatch.context() as patch:
        if not runs:
            patch.setattr(TarReader, "run", lambda self: (b"", []))
        try:
            return scan_tree(stream(path, "top"), PUBLISHED, Detector())
        except ArchiveError as exc:
            return ("error", str(exc))


@settings(PROPERTY, max_examples=150)
@given(edits=st.lists(st.tuples(st.integers(min_value=0, max_value=4 * 512 + 511), st.integers(0, 255)),
                      min_size=1, max_size=4),
       checksum=st.sampled_from([b"", b"%06o\0 ", b"%07o\0"]))
def test_a_damaged_header_reads_the_same_through_runs(tmp_path_factory: pytest.TempPathFactory,
                                                      edits: list[tuple[int, int]], checksum: bytes) -> None:
    """The hot loop (``tarrun``) takes only what it is sure of: whatever bytes of the first headers
    are changed (checksum fixed, as tarfile or as git writes it, or not), runs give the scan, or
    the error, of one member at a time."""
    tar = plain_tar({"x.py": b"readOnlyHint " * 30, "y.md": b"annotations", "z.txt": b""})
    for offset, value in edits:
        tar[offset] = value
    if checksum:  # let the damage past the checksum, to the fields behind it
        for start in range(0, 5 * 512, 512):
            block = tar[start : start + 512]
            if block[156:157] != b"\0" or any(block):
                tar[start + 148 : start + 156] = checksum % (sum(block[:148]) + 256 + sum(block[156:]))
    path = tmp_path_factory.mktemp("damaged") / "t.tar"
    path.write_bytes(bytes(tar))
    assert _outcome(path, runs=True) == _outcome(path, runs=False)


def test_without_runs_the_reference_reads_one_member_at_a_time(tmp_path: Path) -> None:
    """The reference of the test above really leaves the hot loop out."""
    path = tmp_path / "t.tar"
    path.write_bytes(bytes(plain_tar({"x.py": b"x"})))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(TarReader, "run", lambda self: (b"", []))
        assert not any(isinstance(item, Run) for item in stream(path, "top"))
    assert any(isinstance(item, Run) for item in stream(path, "top"))


@given(name=st.lists(st.sampled_from(["a", "/", ".", "-", "\udcff", "package.json", "pyproject.toml", "go.mod",
                                      "requirements", ".txt", ".in", ".csproj", ".props", "Directory.Packages",
                                      "Gemfile", ".gemspec", "build.gradle", ".kts", "pom.xml", "é"]),
                     max_size=6).map("".join))
def test_a_raw_manifest_name_is_told_as_its_path_would_be(name: str) -> None:
    raw = name.encode("utf-8", "surrogateescape")  # \udcff stands for an undecodable byte
    detector = Detector()
    read = detector.always_reads(raw.decode("utf-8", "backslashreplace"))
    assert detector.manifests([b"x", raw, raw]) == ([1, 2] if read else [])
