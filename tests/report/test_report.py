"""``census report`` and ``pipeline.report.census``: the Markdown, the charts, the data export, and the
committed report under reports/, which must be exactly what the code makes of its data.

The golden report is written from a copy of the census database holding runtime captures
(``report_world.with_runtime``); the census database itself holds none."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import duckdb
import polars as pl
import pytest
from report_world import SKIPPED_REPO, ReportWorld, with_runtime

from pipeline.analysis import stats
from pipeline.errors import ManifestError
from pipeline.report import census as report
from pipeline.report import data as report_data
from pipeline.report.runtime import NO_CAPTURES
from pipeline.report.tables import NO_VALUE as DASH

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "reports" / "published-2026"
CHARTS = ("published-vs-measured.png", "tools-by-role.png", "tools-by-sdk.png", "hint-coverage.png")
#: drawn when a server is paired with a repository of the manifest
RUNTIME_CHART = "runtime-agreement.png"


@pytest.fixture(scope="module")
def runtime_con(world: ReportWorld, tmp_path_factory: pytest.TempPathFactory) -> Iterator[duckdb.DuckDBPyConnection]:
    """A copy of the census database with runtime captures (``report_world.RUNTIME``)."""
    connection = stats.connect(with_runtime(world, tmp_path_factory.mktemp("runtime")))
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def written(runtime_con: duckdb.DuckDBPyConnection, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The golden manifest's report, with runtime captures, written once."""
    folder = tmp_path_factory.mktemp("written") / "golden"
    report.write(report.collect(runtime_con, "golden"), folder)
    return folder


def runtime_section(text: str) -> str:
    """The runtime truth section of a README, without its heading."""
    return text.split("\n## Runtime truth\n\n", 1)[1].split("\n## Caveats\n", 1)[0]


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
    assert f"| acme/gone | d676c605620e | skipped |{f' {DASH} |' * 9}" in text  # fake_sha("acme/gone")
    assert "| acme/memory | ebacc6f030a9 | scanned | github | 6 | 0 | 1 | 0 | 0 | 0 | 1 | the server moved to src/ |" \
           in text
    assert "| acme/notes | ebacc6f030a9" not in text
    assert "| acme/notes | 82d875087369 | scanned | github | 9 | 1 | 4 | 3 | 1 | 1 | 0 |" in text  # 4 server tools
    assert "| acme/notes | `readOnlyHint` | 2 | 5 | +3 | 3 | 0 | 1 | 1 |" in text  # check.sh is server code
    assert "| acme/notes | `annotations` | 8 | 8 | 0 | 7 | 0 | 1 | 0 |" in text
    assert "| published matches | measured matches | difference | in server code | in examples | in tests |" in text
    assert "| acme/notes | test | 1 | 0 | 0 | `file:*_test.go (1)` |" in text
    assert "| acme/notes | example | 1 | 0 | 0 | `folder:examples/ (1)` |" in text
    assert "| acme/wiki | python-mcp | python | yes | 3 | 1 | 2 |" in text
    assert "| acme/memory | langchain | python | 1 | 1 | `agents/lc.py` |" in text
    assert "over the server tools found here (what the servers ship: example and test tools left out)" in text
    assert "In source, 4 of 8 server tool definitions carry an annotations object (50%); on the wire, 5 of 8 server " \
           "tool definitions carry an annotations object (63%)." in text
    assert "| `openWorldHint` | 3 | 1 | 2 | 0 | 4 | 2 | 2 | 0 |" in text
    assert "| declared (source) | declared true (source) | declared false (source) |" in text
    assert "| no annotation, no gate | `readOnlyHint` | 3 | 2 | 0 | 0 | 3 |" in text
    assert "| effective true | effective false | not applicable |" in text
    for name in (*CHARTS, RUNTIME_CHART):
        assert f"]({name})" in text


def test_the_runtime_section_says_what_was_received_declared_and_expected(written: Path) -> None:
    section = runtime_section((written / "README.md").read_text(encoding="utf-8"))

    assert "The database holds 5 tools/list captures: 4 read to the end (ok) and 1 skipped." in section
    # received at run time, over every ok capture (report_world.RUNTIME)
    assert "10 tools received from 4 servers, 9 of them with an annotations object (90%)" in section
    assert "| field | received set | received true | received false | received, not a boolean |" in section
    assert "| `readOnlyHint` | 7 | 5 | 1 | 1 |" in section  # weather's "yes" is set, not a boolean
    assert "| `idempotentHint` | 3 | 1 | 2 | 0 |" in section
    assert f"| `title` | 1 | {DASH} | {DASH} | {DASH} |" in section
    assert f"| acme/notes | file | 2026-11-29 12:00:00 | 2 | 4 | 3 | {DASH} |" in section
    assert f"| weather | file | 2026-11-29 12:00:00 | 1 | 2 | 2 | {DASH} |" in section
    # declared in source vs received: only the servers paired with a golden repository
    assert "| declared in source, not received | received, not in source |" in section
    assert "| acme/notes | acme/notes | 82d875087369 | yes | 4 | 0 | 0 |" in section  # fake_sha("acme/notes")
    assert "| wiki | acme/wiki | 7e9dc454ab4d | yes | 2 | 1 | 1 |" in section
    for server in ("plain-search", "flaky"):  # paired with acme/plain (not golden); skipped (acme/memory)
        assert f"| {server} | acme/" not in section
    assert "| same (declared = received) | added on wire | dropped on wire | differ | resolved " \
           "| received as expected on the wire |" in section
    assert "| acme/notes | `readOnlyHint` | 4 | 2 | 1 | 1 | 0 | 0 | 3 |" in section
    assert "| wiki | `destructiveHint` | 2 | 1 | 1 | 0 | 0 | 0 | 1 |" in section
    assert "| wiki | `openWorldHint` | 2 | 1 | 0 | 0 | 1 | 0 | 1 |" in section
    assert f"]({RUNTIME_CHART})" in section
    # skipped, with the reason
    assert section.endswith(
        "### Skipped captures\n\nServers whose tools/list was not read to the end, with the reason; they count "
        "nowhere above.\n\n| server | captured from | captured (UTC) | reason |\n|---|---|---|---|\n"
        "| flaky | stdio | 2026-11-29 12:00:00 | initialize: no answer within 60 s |\n")


def test_the_runtime_comparison_keeps_to_the_manifest(runtime_con: duckdb.DuckDBPyConnection) -> None:
    plain = report.collect(runtime_con, "plain")

    assert plain.runtime_pairs.rows() == [("plain-search", "acme/plain", plain.repositories["commit"][0], 1, 0, 0)]
    assert set(plain.runtime_agreement["server"]) == {"plain-search"}
    assert plain.runtime_captures.height == 5  # captures and the received counts are the whole database's
    assert plain.runtime_coverage["tools"][0] == 10
    assert "command_or_url" not in plain.runtime_captures.columns  # local paths stay out of a report
    # the skipped server is paired with a golden repository, and still compared with nothing
    golden = report.collect(runtime_con, "golden")
    assert SKIPPED_REPO in golden.repositories["repo"].to_list()
    assert golden.runtime_pairs["server"].to_list() == ["acme/notes", "wiki"]


def test_without_captures_the_runtime_section_is_one_sentence(con: duckdb.DuckDBPyConnection) -> None:
    data = report.collect(con, "golden")

    assert runtime_section(report.render(data)) == NO_CAPTURES + "\n"
    assert NO_CAPTURES.endswith(".")
    assert ". " not in NO_CAPTURES.replace("\n", " ")  # one sentence
    assert "`census probe NAME -- COMMAND [ARGS...]`" in NO_CAPTURES
    assert "`census ingest-tools-list FILE --server NAME`" in NO_CAPTURES
    assert list(report.charts(data)) == list(CHARTS)


def test_a_report_exported_before_runtime_truth_loads_without_captures(
        written: Path, con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    old = tmp_path / "old"
    shutil.copytree(written / "data", old / "data")
    meta = old / "data" / "report.json"
    tables = [t for t in json.loads(meta.read_text(encoding="utf-8"))["tables"] if t not in report_data.RUNTIME_TABLES]
    meta.write_text(json.dumps({"manifest": "golden", "tables": tables}), encoding="utf-8")
    for name in report_data.RUNTIME_TABLES:
        (old / "data" / f"{name}.parquet").unlink()

    loaded = report.load(old)

    without = report.collect(con, "golden")  # a database without captures gives the same frames
    for name in report_data.RUNTIME_TABLES:
        assert getattr(loaded, name).equals(getattr(without, name)), name
    assert runtime_section(report.render(loaded)) == NO_CAPTURES + "\n"


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
    for name in (*CHARTS, RUNTIME_CHART):
        width, height = png_size(written / name)
        assert width == 900
        assert height > 200


def test_the_export_rebuilds_the_same_report(written: Path, runtime_con: duckdb.DuckDBPyConnection) -> None:
    loaded = report.load(written)
    fresh = report.collect(runtime_con, "golden")

    assert loaded.manifest == "golden"
    for name in report_data.TABLES:
        assert getattr(loaded, name).equals(getattr(fresh, name)), name
    assert report.render(loaded) == (written / "README.md").read_text(encoding="utf-8")


def test_rebuild_rewrites_a_report_from_its_data(written: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    report.export(report.load(written), copy)

    paths = report.rebuild(copy)

    assert [p.name for p in paths[:1]] == ["README.md"]
    for name in ("README.md", *CHARTS, RUNTIME_CHART):
        assert (copy / name).read_bytes() == (written / name).read_bytes(), name


def test_writing_twice_gives_the_same_bytes(written: Path, runtime_con: duckdb.DuckDBPyConnection,
                                           tmp_path: Path) -> None:
    report.write(report.collect(runtime_con, "golden"), tmp_path)

    for name in ("README.md", *CHARTS, RUNTIME_CHART):
        assert (tmp_path / name).read_bytes() == (written / name).read_bytes(), name


def test_the_committed_report_is_what_the_code_makes_of_its_data() -> None:
    data = report.load(COMMITTED)
    text = (COMMITTED / "README.md").read_text(encoding="utf-8")

    assert data.manifest == "published-2026"
    assert report.render(data) == text
    assert "every scanned tree from a local git copy of the pinned commit" in text
    assert data.repositories["repo"].to_list() == ["getzep/zep", "getzep/graphiti", "topoteretes/cognee",
                                                   "MemoriLabs/Memori", "mem0ai/mem0"]
    assert data.runtime_captures.is_empty()  # the census behind it probed no server
    assert runtime_section(text) == NO_CAPTURES + "\n"
    for name in CHARTS:
        assert png_size(COMMITTED / name)[0] == 900
    assert not (COMMITTED / RUNTIME_CHART).exists()


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
    assert done.stdout == f"{tmp_path / 'out' / 'README.md'} (and 19 files beside it: charts and data)\n"
    assert (tmp_path / "out" / "README.md").read_text(encoding="utf-8").startswith("# Census report: plain\n")
    assert sorted(p.name for p in (tmp_path / "out" / "data").iterdir()) == sorted(
        [f"{name}.parquet" for name in report_data.TABLES] + ["report.json"])

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
