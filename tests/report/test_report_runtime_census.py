"""The committed runtime census reports are what the code makes of their data (rebuilt byte for byte;
the charts by size under a matplotlib other than the locked one), and say what they measured."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import matplotlib
import polars as pl
import pytest
from test_report_population import _locked, _png_size

from pipeline.report import census as report

REPORTS = Path(__file__).resolve().parents[2] / "reports"
#: an absolute path of the folders a census runs in here (a temporary folder, root's home, the
#: workspace), which a committed report must not name; registry entries' own example paths may stay
MACHINE_PATH = r"(^|[\s'\"(])/(tmp|root|work)/"
RUNTIME = sorted(p.parent.parent for p in REPORTS.glob("*/data/report.json")
                 if json.loads(p.read_text(encoding="utf-8")).get("layout") == "runtime")


def test_there_are_runtime_census_reports() -> None:
    assert {p.name for p in RUNTIME} >= {"toolsdk-sample-2026-12", "registry-seed-runtime-2026-12"}


@pytest.mark.parametrize("committed", RUNTIME, ids=lambda p: p.name)
def test_a_committed_runtime_report_is_what_the_code_makes_of_its_data(committed: Path, tmp_path: Path) -> None:
    copy = tmp_path / committed.name
    shutil.copytree(committed / "data", copy / "data")
    report.rebuild(copy)
    for name in ("README.md", "packages.md"):
        assert (copy / name).read_bytes() == (committed / name).read_bytes(), name
    if matplotlib.__version__ == _locked("matplotlib"):
        assert (copy / "cause-funnel.png").read_bytes() == (committed / "cause-funnel.png").read_bytes()
    else:
        made, kept = _png_size(copy / "cause-funnel.png"), _png_size(committed / "cause-funnel.png")
        assert all(abs(a - b) <= 0.02 * b for a, b in zip(made, kept, strict=True))
    text = (committed / "README.md").read_text(encoding="utf-8") + (committed / "packages.md").read_text()
    assert "/tmp/" not in text
    assert "/root/" not in text
    funnel = dict(pl.read_parquet(committed / "data" / "cause_funnel.parquet").select("cause", "packages").iter_rows())
    assert f"**{funnel['answered']} answered**" in text
    assert sum(funnel.values()) == pl.read_parquet(committed / "data" / "captures.parquet").height


def test_no_committed_report_keeps_a_path_of_the_machine_it_ran_on() -> None:
    leaked = []
    for path in REPORTS.glob("*/data/*.parquet"):
        frame = pl.read_parquet(path)
        leaked += [(path.relative_to(REPORTS).as_posix(), column) for column, kind in frame.schema.items()
                   if kind == pl.String and frame[column].str.contains(MACHINE_PATH).any()]
    assert leaked == []
