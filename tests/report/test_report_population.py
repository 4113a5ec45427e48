"""The population report: a census of many servers reported as a population, rebuilt byte for
byte from its own Parquet frames; and the committed registry report is what the code makes of
its data."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import duckdb
import matplotlib
import pytest
from population_world import population_census

from pipeline.analysis import population
from pipeline.report import census as report
from pipeline.report import population as report_population

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


def test_the_page_says_what_the_frames_hold(written: Path) -> None:
    text = (written / "README.md").read_text(encoding="utf-8")
    assert text.startswith("# Census report: population\n\n12 repositories, 11 read at their pinned commits: 1 define")
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
    for name in CHARTS:
        assert (written / name).read_bytes().startswith(b"\x89PNG"), name


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
    assert (copy / "README.md").read_bytes() == (COMMITTED / "README.md").read_bytes()
    for name in (*CHARTS, *runtime):
        if matplotlib.__version__ == _locked("matplotlib"):  # the renderer the committed charts were drawn with
            assert (copy / name).read_bytes() == (COMMITTED / name).read_bytes(), name
        else:  # another matplotlib draws other bytes (scripts/newest.py): about the same picture, at least
            made, committed = _png_size(copy / name), _png_size(COMMITTED / name)
            assert all(abs(a - b) <= 0.02 * b for a, b in zip(made, committed, strict=True)), (name, made, committed)
    text = (COMMITTED / "README.md").read_text(encoding="utf-8")
    assert "Its hand audit (`audit/`: 40 repositories drawn at random" in text
    assert "/tmp/" not in text
    assert "/work/" not in text
