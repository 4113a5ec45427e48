"""The hint-truth section of a population report: a census of synthetic servers, read by
``census run`` with the effects analysis, reported with each contradiction's permalink."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from effect_servers import SERVERS
from tree_census import tree_census

from pipeline.analysis import stats
from pipeline.report import population
from pipeline.report.population_data import PopulationData
from pipeline.report.population_markdown import render


def _census(tmp_path: Path) -> Path:
    trees = {f"acme/{language}": {name: text.encode() for name, text in files.items()}
             for language, files in SERVERS.items()}
    db, statuses = tree_census(tmp_path, "servers", trees)
    assert statuses == ["scanned"] * len(SERVERS)
    return db


def test_the_section_counts_handlers_and_links_every_contradiction(tmp_path: Path) -> None:
    con = stats.connect(_census(tmp_path))
    by_sdk = stats.effects_by_sdk(con, "servers")
    assert sorted(by_sdk["language"].to_list()) == ["go", "python", "rust", "typescript"]
    assert by_sdk["server_tools"].sum() == 12  # each server: a read-only tool that deletes, a clean one, a silent one
    assert by_sdk["handlers_located"].sum() == 12
    assert by_sdk["read_only_tools"].sum() == 8
    assert by_sdk["read_only_mutating"].sum() == 4
    assert by_sdk["contradictions"].sum() == 4
    page = render(population.collect(con, "servers"))
    assert "## Do the hints tell the truth?" in page
    assert "Of the 8 tools that declare `readOnlyHint: true`, 4 (50%) have write, delete or exec evidence" in page
    go = stats.findings(con, "servers").filter(pl.col("repo") == "acme/go").row(0, named=True)
    assert go["permalink"] == f"https://github.com/acme/go/blob/{go['commit']}/store.go#L12"
    assert f"[store.go:12]({go['permalink']})" in page


def test_a_report_without_effects_has_no_section(tmp_path: Path) -> None:
    con = stats.connect(_census(tmp_path))
    data = population.collect(con, "servers")
    bare = PopulationData(**{**data.__dict__, "effects_by_sdk": pl.DataFrame(),
                                        "effects_unlocated": pl.DataFrame(),
                                        "effects_findings": pl.DataFrame()})
    assert "Do the hints tell the truth?" not in render(bare)
