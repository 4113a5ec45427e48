"""The population report: a census of many servers reported as a population, rebuilt byte for
byte from its own Parquet frames; and the committed registry report is what the code makes of
its data."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import duckdb
import matplotlib
import polars as pl
import pytest
from population_world import population_census
from timeline_world import timeline_census

from pipeline.analysis import population
from pipeline.errors import ManifestError
from pipeline.report import census as report
from pipeline.report import population as report_population
from pipeline.report.timeline_plots import CHART as TIMELINE_CHART
from pipeline.scan import SCANNER_VERSION

COMMITTED = Path(__file__).resolve().parents[2] / "reports" / "registry-seed-2025-05"
CHARTS = ("coverage-by-sdk.png", "servers-by-annotated-share.png", "hints-declared.png")


def _locked(name: str) -> str | None:
    """The version ``requirements-test.lock`` pins ``name`` at."""
    lock = (Path(__file__).resolve().parents[2] / "requirements-test.lock").read_text(encoding="utf-8")
    found = re.search(rf"^{re.escape(name)}==(\S+)", lock, re.M)
    return found.group(1) if found else None


def _png_size(path: Path) -> tuple[int, int]:
    """A PNG's width and height (its IHDR chunk)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The population report of the small census, written from the database."""
    root = tmp_path_factory.mktemp("population")
    db = population_census(root)
    with duckdb.connect(str(db), read_only=True) as con:
        report_population.write(report_population.collect(con, "population"), root / "out")
    return root / "out"


@pytest.fixture(scope="module")
def with_timeline(written: Path) -> Path:
    """The same census with a monthly timeline of four synthetic histories (``timeline_world``) stored
    beside it under the same manifest name, and its report."""
    root = written.parent / "timeline"
    root.mkdir()
    db = root / "c.duckdb"
    shutil.copy2(written.parent / "c.duckdb", db)
    timeline_census(root, "population", db)
    with duckdb.connect(str(db), read_only=True) as con:
        report_population.write(report_population.collect(con, "population"), root / "out")
    return root / "out"


def test_the_page_says_what_the_frames_hold(written: Path) -> None:
    text = (written / "README.md").read_text(encoding="utf-8")
    assert text.startswith("# Census report: population\n\n12 repositories, 11 read at their pinned commits by "
                           f"scanner version {SCANNER_VERSION}: 1 define")
    meta = json.loads((written / "data" / "report.json").read_text(encoding="utf-8"))
    assert meta["scanner_versions"] == [SCANNER_VERSION]  # the page and its data say which scanner read the trees
    assert "| server-tools | 1 |" in text
    assert "| not-a-server | 5 |" in text
    assert "| server-elsewhere | 2 |" in text
    assert "| acme/moved | server-elsewhere | README points to https://github.com/acme/new-home |" in text
    assert "| acme/gone | not-scanned | source not found: DIR |" in text  # no local path on the page
    assert "| readOnlyHint | 262 | 145 | 117 |" in text  # seed 000's published figures beside the population's
    assert "| none | 2 | 2 | 0 |" in text  # acme/tools and acme/remote annotate none of their tools
    assert "| unknown | 11 |" in text  # commit years: a tree read from an archive has no commit date
    assert "| repository-skipped | 1 |" in text  # each caveat with the repositories it was found in
    assert "| acme/gone | repository-skipped | not scanned (skipped at the fetch stage): source not found: DIR" in text
    assert "Its hand audit" not in text  # no audit/ folder beside this report
    assert "## Adoption over time" not in text  # no timeline stored
    assert not (written / TIMELINE_CHART).exists()
    assert not (written / "data" / "timeline_adoption.parquet").exists()
    for name in CHARTS:
        assert (written / name).read_bytes().startswith(b"\x89PNG"), name


def test_a_stored_timeline_is_a_section_of_its_own(with_timeline: Path, written: Path) -> None:
    text = (with_timeline / "README.md").read_text(encoding="utf-8")
    before = (written / "README.md").read_text(encoding="utf-8")
    section = text.split("## Adoption over time\n\n", 1)[1].split("\n## ", 1)[0]
    assert text.replace(f"## Adoption over time\n\n{section}\n", "") == before  # the rest of the page as it was
    assert "4 of 5 repositories had a mirror and were walked (1 had none)" in section
    assert "Of their 29 periods, 9 were scanned and 20 reused" in section
    assert "At the end of 2024-11, 3 of these servers existed and 1 declared" in section
    assert "at the end of 2025-06, 4 existed and 4 did (100% of those read), with 6 of 7 server tools" in section
    assert "The first to declare one did so in 2024-11: acme/still." in section
    assert "| 2025-01 | 3 | 3 | 3 | 1 | 33% | 3 | 1 | 33% | 1 | 0 | 2 | 2 | 2 | 1 |" in section  # README names it
    assert "with 6 matches, against 4 server tools that set it true or false" in section
    assert "| go-official | go | 2024-11 | 2024-11 | 2 | 2 | 2 | 2 |" in section
    assert "| 2025-03-26 | \N{EN DASH} | MCP specification | 2025-03-26 |" in section
    assert "survivorship" in section
    assert (with_timeline / TIMELINE_CHART).read_bytes().startswith(b"\x89PNG")
    adoption = pl.read_parquet(with_timeline / "data" / "timeline_adoption.parquet")
    assert adoption["period"].to_list()[0] == "2024-11"
    assert adoption.height == 8


def test_a_page_with_a_timeline_is_rebuilt_byte_for_byte(with_timeline: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(with_timeline / "data", copy / "data")
    report.rebuild(copy)
    for name in ("README.md", *CHARTS, TIMELINE_CHART):
        assert (copy / name).read_bytes() == (with_timeline / name).read_bytes(), name


def test_a_timeline_is_put_into_a_report_whose_database_is_elsewhere(with_timeline: Path, written: Path,
                                                                     tmp_path: Path) -> None:
    folder = tmp_path / "report"
    shutil.copytree(written, folder)  # the report without its timeline, as committed before one was run
    db = with_timeline.parent / "c.duckdb"

    report.write_timeline_from_db(db, "population", folder)

    for name in ("README.md", TIMELINE_CHART, "data/report.json", "data/timeline_adoption.parquet"):
        assert (folder / name).read_bytes() == (with_timeline / name).read_bytes(), name
    with pytest.raises(ManifestError, match="no timeline of elsewhere stored"):
        report.write_timeline_from_db(db, "elsewhere", folder)
    with pytest.raises(ManifestError, match="no population report here"):
        report.write_timeline_from_db(db, "population", tmp_path / "empty")


def test_the_page_is_rebuilt_byte_for_byte_from_its_frames(written: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(written / "data", copy / "data")
    report.rebuild(copy)  # report.json names the layout: no database is read
    for name in ("README.md", *CHARTS):
        assert (copy / name).read_bytes() == (written / name).read_bytes(), name


def test_a_manifest_of_many_repositories_is_a_population(written: Path) -> None:
    db = written.parent / "c.duckdb"
    with duckdb.connect(str(db), read_only=True) as con:
        assert not report_population.is_population(con, "population")  # 12 entries: per repository
        assert report_population.POPULATION_REPOS == 100


def test_seed_000_is_as_published() -> None:
    assert population.SEED_000_TOOLS == 288
    assert population.SEED_000_ANNOTATED == 262
    assert population.SEED_000["destructiveHint"] == (49, 5, 44)


def test_the_committed_registry_report_is_what_the_code_makes_of_its_data(tmp_path: Path) -> None:
    copy = tmp_path / "registry"
    shutil.copytree(COMMITTED / "data", copy / "data")
    report.rebuild(copy)
    runtime = ("runtime-funnel.png",) if (COMMITTED / "runtime-funnel.png").exists() else ()
    timeline = (TIMELINE_CHART,) if (COMMITTED / TIMELINE_CHART).exists() else ()
    assert (copy / "README.md").read_bytes() == (COMMITTED / "README.md").read_bytes()
    for name in (*CHARTS, *runtime, *timeline):
        if matplotlib.__version__ == _locked("matplotlib"):  # the renderer the committed charts were drawn with
            assert (copy / name).read_bytes() == (COMMITTED / name).read_bytes(), name
        else:  # another matplotlib draws other bytes (scripts/newest.py): about the same picture, at least
            made, committed = _png_size(copy / name), _png_size(COMMITTED / name)
            assert all(abs(a - b) <= 0.02 * b for a, b in zip(made, committed, strict=True)), (name, made, committed)
    text = (COMMITTED / "README.md").read_text(encoding="utf-8")
    assert "Its hand audit (`audit/`: 40 repositories drawn at random" in text
    assert "/tmp/" not in text
    assert "/work/" not in text


def test_the_committed_registry_report_is_the_whole_seed_at_this_scanner() -> None:
    meta = json.loads((COMMITTED / "data" / "report.json").read_text(encoding="utf-8"))
    assert meta["scanner_versions"] == [SCANNER_VERSION]  # rebuilt when the detector changes
    summary = dict(pl.read_parquet(COMMITTED / "data" / "coverage_summary.parquet").iter_rows())
    assert sum(summary.values()) - summary["not-scanned"] >= 450  # the census: every fetchable repository
    walked = dict(pl.read_parquet(COMMITTED / "data" / "timeline_coverage.parquet").iter_rows())
    assert walked["walked"] >= 450  # and its timeline
    text = (COMMITTED / "README.md").read_text(encoding="utf-8")
    assert f"read at their pinned commits by scanner version {SCANNER_VERSION}:" in text


def _rebuilt(name: str, tmp_path: Path) -> str:
    """The committed report ``name``'s page, after checking the code rebuilds it byte for byte from its data."""
    committed = COMMITTED.parent / name
    copy = tmp_path / name
    shutil.copytree(committed / "data", copy / "data")
    report.rebuild(copy)
    assert (copy / "README.md").read_bytes() == (committed / "README.md").read_bytes()
    return (committed / "README.md").read_text(encoding="utf-8")


def test_the_committed_built_from_report_is_what_the_code_makes_of_its_data(tmp_path: Path) -> None:
    text = _rebuilt("built-from-2026-12", tmp_path)
    assert "At the commit each package was built from (" in text  # every version-matched disagreement listed
    assert "| exact-tag |" in text
    assert "/tmp/" not in text
    assert "/work/" not in text


def test_the_committed_catalog_report_is_what_the_code_makes_of_its_data_and_read_by_hand(tmp_path: Path) -> None:
    text = _rebuilt("catalog-names-2026-12", tmp_path)
    committed = COMMITTED.parent / "catalog-names-2026-12"
    assert "## At run time: what a catalog recorded its servers listing" in text
    assert "runtime-funnel.png" not in text  # a record reached no step but the answer
    assert "/tmp/" not in text
    assert "/work/" not in text
    automatic = pl.read_parquet(committed / "data" / "runtime_disagreements.parquet")
    by_hand = pl.read_csv(committed / "audit" / "disagreements.tsv", separator="\t")
    keys = ["server", "tool_name", "side"]
    assert sorted(by_hand.select(keys).rows()) == sorted(automatic.select(keys).rows())  # every one read
    assert set(by_hand["verdict"]) <= {"detector-miss", "detector-extra", "conditional", "version-drift",
                                       "runtime-generated", "wrong-repository", "other"}
    assert by_hand["evidence"].null_count() == 0
