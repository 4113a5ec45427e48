"""``census report`` and ``pipeline.report``: the Markdown, the charts, the data export, and the
committed report under reports/, which must be exactly what the code makes of its data."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import duckdb
import polars as pl
import pytest
from report_world import ReportWorld, build

from pipeline import report, stats
from pipeline.errors import ManifestError
from pipeline.report_markdown import NO_VALUE as DASH

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = ROOT / "reports" / "published-2026"
CHARTS = ("published-vs-measured.png", "tools-by-sdk.png", "hint-coverage.png")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> ReportWorld:
    """The census database of the synthetic trees (two manifests: golden and plain)."""
    return build(tmp_path_factory.mktemp("report"))


@pytest.fixture(scope="module")
def con(world: ReportWorld) -> Iterator[duckdb.DuckDBPyConnection]:
    connection = stats.connect(world.db)
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def written(con: duckdb.DuckDBPyConnection, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The golden manifest's report, written once."""
    folder = tmp_path_factory.mktemp("written") / "golden"
    report.write(report.collect(con, "golden"), folder)
    return folder


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) of a PNG file, after checking its signature and header chunk."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    length, kind = struct.unpack(">I4s", data[8:16])
    assert (length, kind) == (13, b"IHDR")
    assert struct.unpack(">I", data[29:33])[0] == zlib.crc32(data[12:29])
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def census(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``census ARGS`` in a subprocess, without the caller's CENSUS_ variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CENSUS_")}
    return subprocess.run([sys.executable, "-m", "pipeline", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, check=False)


def test_the_readme_holds_the_tables_with_what_each_number_is(written: Path) -> None:
    text = (written / "README.md").read_text(encoding="utf-8")

    assert text.startswith("# Census report: golden\n")
    assert "4 of 5 repositories were scanned, 3 from the GitHub archive of the pinned commit; 1 from a local git " \
           "copy of the pinned commit (scanner version" in text
    assert f"| acme/gone | d676c605620e | skipped |{f' {DASH} |' * 7}" in text  # fake_sha("acme/gone")
    assert "| acme/memory | ebacc6f030a9 | scanned | github | 6 | 0 | 1 | 0 | 1 | the server moved to src/ |" in text
    assert "| acme/notes | `readOnlyHint` | 2 | 5 | +3 | 2 | 1 | 1 | 1 |" in text
    assert "| acme/notes | `annotations` | 8 | 8 | 0 | 6 | 1 | 0 | 1 |" in text
    assert "| published matches | measured matches | difference |" in text
    assert "| acme/wiki | python-mcp | python | yes | 3 | 1 | 3 | 2 |" in text
    assert "| acme/memory | langchain | python | 1 | 1 | `agents/lc.py` |" in text
    assert "In source, 4 of 8 MCP tool definitions carry an annotations object (50%); on the wire, 5 of 8 MCP tool " \
           "definitions carry an annotations object (63%)." in text
    assert "| `openWorldHint` | 3 | 1 | 2 | 0 | 4 | 2 | 2 | 0 |" in text
    assert "| declared (source) | declared true (source) | declared false (source) |" in text
    assert "| no annotation, no gate | `readOnlyHint` | 3 | 2 | 0 | 0 | 3 |" in text
    assert "| effective true | effective false | not applicable |" in text
    for name in CHARTS:
        assert f"]({name})" in text


def test_the_caveats_section_comes_from_stats_caveats(written: Path) -> None:
    caveats = (written / "README.md").read_text(encoding="utf-8").split("\n## Caveats\n", 1)[1]

    sections = [line for line in caveats.splitlines() if line.startswith("### ")]
    assert sections == ["### acme/notes", "### acme/memory", "### acme/wiki", "### acme/gone", "### acme/bridge"]
    assert "- **false-zero** (found): readOnlyHint counts 0, but other spellings match (read_only_hint 1)" in caveats
    assert "- **export-ignore** (found): files matching these export-ignore patterns are not in the archive, so " \
           "not counted: .gitattributes: *.bin" in caveats
    assert "- **submodules** (found): .gitmodules lists 1 submodule (vendor/annotations)" in caveats
    assert "- **repository-skipped** (found): not scanned (skipped at the fetch stage)" in caveats


def test_charts_are_png_files(written: Path) -> None:
    for name in CHARTS:
        width, height = png_size(written / name)
        assert width == 900
        assert height > 200


def test_the_export_rebuilds_the_same_report(written: Path, con: duckdb.DuckDBPyConnection) -> None:
    loaded = report.load(written)
    fresh = report.collect(con, "golden")

    assert loaded.manifest == "golden"
    for name in report.TABLES:
        assert getattr(loaded, name).equals(getattr(fresh, name)), name
    assert report.render(loaded) == (written / "README.md").read_text(encoding="utf-8")


def test_rebuild_rewrites_a_report_from_its_data(written: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    report.export(report.load(written), copy)

    paths = report.rebuild(copy)

    assert [p.name for p in paths[:1]] == ["README.md"]
    for name in ("README.md", *CHARTS):
        assert (copy / name).read_bytes() == (written / name).read_bytes(), name


def test_writing_twice_gives_the_same_bytes(written: Path, con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    report.write(report.collect(con, "golden"), tmp_path)

    for name in ("README.md", *CHARTS):
        assert (tmp_path / name).read_bytes() == (written / name).read_bytes(), name


def test_the_committed_report_is_what_the_code_makes_of_its_data() -> None:
    data = report.load(COMMITTED)
    text = (COMMITTED / "README.md").read_text(encoding="utf-8")

    assert data.manifest == "published-2026"
    assert report.render(data) == text
    assert "every scanned tree from a local git copy of the pinned commit" in text
    assert data.repositories["repo"].to_list() == ["getzep/zep", "getzep/graphiti", "topoteretes/cognee",
                                                   "MemoriLabs/Memori", "mem0ai/mem0"]
    for name in CHARTS:
        assert png_size(COMMITTED / name)[0] == 900


def test_choose_manifest(con: duckdb.DuckDBPyConnection, world: ReportWorld) -> None:
    assert report.choose_manifest(con, "plain") == "plain"
    assert report.choose_manifest(con, str(world.db.parent / "golden.toml")) == "golden"  # a manifest file
    with pytest.raises(ManifestError, match=r"^db: holds more than one manifest, name one \(stored: golden, plain\)$"):
        report.choose_manifest(con, None, "db")
    with pytest.raises(ManifestError, match=r"no manifest named 'nope' \(stored: golden, plain\)$"):
        report.choose_manifest(con, "nope")


def test_census_report_command(world: ReportWorld, tmp_path: Path) -> None:
    done = census("report", "--manifest", "plain", "--db", str(world.db), "--out", str(tmp_path / "out"), cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{tmp_path / 'out' / 'README.md'} (and 11 files beside it: charts and data)\n"
    assert (tmp_path / "out" / "README.md").read_text(encoding="utf-8").startswith("# Census report: plain\n")
    assert sorted(p.name for p in (tmp_path / "out" / "data").iterdir()) == sorted(
        [f"{name}.parquet" for name in report.TABLES] + ["report.json"])

    default = census("report", "--manifest", str(world.db.parent / "plain.toml"), "--db", str(world.db), cwd=tmp_path)
    assert default.returncode == 0, default.stderr
    assert (tmp_path / "reports" / "plain" / "README.md").is_file()  # --out defaults to reports/NAME


def test_census_report_errors_are_one_line(world: ReportWorld, tmp_path: Path) -> None:
    several = census("report", "--db", str(world.db), cwd=tmp_path)
    missing = census("report", "--db", str(tmp_path / "none.duckdb"), cwd=tmp_path)

    assert several.returncode == 2
    assert several.stderr == f"census: error: {world.db}: holds more than one manifest, name one " \
                             "(stored: golden, plain)\n"
    assert missing.returncode == 1
    assert missing.stderr.startswith(f"census: error: {tmp_path / 'none.duckdb'}: no census database here")
    assert missing.stderr.count("\n") == 1
    assert not (tmp_path / "reports").exists()


def test_markdown_table_formats_and_escapes() -> None:
    frame = pl.DataFrame({"name": ["a|b", None], "n": [1, None], "share": [0.625, None], "ok": [True, False]})

    assert report.markdown_table(frame, {"name": "name", "n": "count", "share": "share", "ok": "ok"}) == (
        "| name | count | share | ok |\n|---|--:|--:|---|\n| a\\|b | 1 | 63% | yes |\n"
        f"| {DASH} | {DASH} | {DASH} | no |")
    assert report.markdown_table(frame.clear(), {"name": "name"}) == "| name |\n|---|\n| (none) |"
