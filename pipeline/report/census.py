"""A census report: ``README.md`` with the tables, PNG charts and the caveats, plus the data.

``collect`` reads the statistics of one manifest from a census database (``pipeline.analysis.stats``,
and ``pipeline.analysis.runtime`` for the runtime captures, are the only sources of numbers);
``export`` / ``load`` write and read those frames as Parquet under ``data/``, so the Markdown
can be rebuilt from a committed report without the database (a report exported before a table
existed loads it as the empty frame a database without runtime captures gives);
``render`` turns them into Markdown (``pipeline.report.markdown``) and ``charts`` into figures
(``pipeline.report.plots``); ``write`` does all of it into one folder. The notebooks use the same
functions. The output is deterministic: rows are sorted and no clock is read.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import duckdb
import polars as pl
from matplotlib.figure import Figure

from pipeline.analysis import runtime as runtime_stats
from pipeline.analysis import stats
from pipeline.analysis.history import FINDINGS_SCHEMA
from pipeline.analysis.history import SCHEMA as HISTORY_SCHEMA
from pipeline.errors import ManifestError
from pipeline.manifest import manifests
from pipeline.report import plots, runtime_census
from pipeline.report import population as report_population
from pipeline.report.data import RUNTIME_TABLES, TABLES, ReportData
from pipeline.report.markdown import render
from pipeline.report.tables import AGREEMENT_CHART, CHARTS, HISTORY_CHART, markdown_table, png_bytes, write_page
from pipeline.store import schema

__all__ = ["CHARTS", "ReportData", "charts", "choose_manifest", "collect", "export", "load", "markdown_table",
           "no_runtime_frames", "png_bytes", "rebuild", "rebuilt_charts", "render", "runtime_frames", "write",
           "write_from_db", "write_runtime_from_db", "write_timeline_from_db"]

DATA_DIR = "data"




def collect(con: duckdb.DuckDBPyConnection, manifest: str) -> ReportData:
    """The statistics of ``manifest``, each from its ``pipeline.analysis.stats`` function, and the runtime
    frames (``runtime_frames``) for its repositories."""
    frames = {name: getattr(stats, name)(con, manifest) for name in TABLES if name not in RUNTIME_TABLES}
    return ReportData(manifest, **frames, **runtime_frames(con, frames["repositories"]["repo"].to_list()))


def runtime_frames(con: duckdb.DuckDBPyConnection, repos: list[str]) -> dict[str, pl.DataFrame]:
    """The runtime truth frames of a report: every capture and the seed's table over every ``ok``
    one, and the comparison with source for the servers paired with one of ``repos``."""
    in_manifest = pl.col("repo").is_in(repos)
    return {
        "runtime_captures": runtime_stats.runtime_captures(con).drop("command_or_url"),
        "runtime_coverage": runtime_stats.runtime_hint_coverage(con),
        "runtime_pairs": runtime_stats.static_vs_runtime_pairs(con).filter(in_manifest),
        "runtime_agreement": runtime_stats.static_vs_runtime_summary(con).filter(in_manifest),
    }


def open_census() -> tuple[duckdb.DuckDBPyConnection, Path, str]:
    """What a notebook reads: a read-only connection to ``CENSUS_DB`` (``stats.database_path``),
    that path, and the manifest ``CENSUS_MANIFEST`` names (else the only one stored)."""
    database = stats.database_path()
    con = stats.connect(database)
    return con, database, choose_manifest(con, os.environ.get("CENSUS_MANIFEST"), str(database))


def choose_manifest(con: duckdb.DuckDBPyConnection, wanted: str | None, where: str = "the database") -> str:
    """The manifest to report on: ``wanted`` (a stored name, or a manifest file whose name is
    read from it), else the only one stored; ``ManifestError`` names the choices otherwise."""
    names = stats.manifest_names(con)
    if wanted is not None and Path(wanted).is_file():
        wanted = manifests.load(Path(wanted)).name
    if wanted is None and len(names) == 1:
        return names[0]
    if wanted in names:
        return wanted
    stored = ", ".join(names) or "none; run `census run MANIFEST` first"
    if wanted is None:
        raise ManifestError(f"{where}: holds more than one manifest, name one (stored: {stored})")
    raise ManifestError(f"{where}: no manifest named {wanted!r} (stored: {stored})")


def charts(data: ReportData) -> dict[str, Figure]:
    """The report's figures, by file name (the runtime agreement only when a server is paired)."""
    figures = {
        "published-vs-measured.png": plots.published_vs_measured_chart(data.published_vs_measured),
        "tools-by-role.png": plots.tools_by_role_chart(data.tools_by_role),
        "tools-by-sdk.png": plots.tools_by_sdk_chart(data.tools_by_sdk),
        "hint-coverage.png": plots.hint_coverage_chart(data.hint_coverage),
    }
    if not data.runtime_agreement.is_empty():
        figures[AGREEMENT_CHART] = plots.runtime_agreement_chart(data.runtime_agreement)
    if not data.history_series.is_empty():
        figures[HISTORY_CHART] = plots.history_chart(data.history_series)
    return figures


def export(data: ReportData, folder: Path) -> list[Path]:
    """Write the frames as ``folder/data/<table>.parquet`` and the manifest's name as
    ``folder/data/report.json``; the written paths."""
    target = folder / DATA_DIR
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name in TABLES:
        path = target / f"{name}.parquet"
        getattr(data, name).write_parquet(path)
        written.append(path)
    meta = target / "report.json"
    meta.write_text(json.dumps({"manifest": data.manifest, "tables": list(TABLES)}, indent=2) + "\n", encoding="utf-8")
    return [*written, meta]


def load(folder: Path) -> ReportData:
    """The frames ``export`` wrote into ``folder``; a runtime table its ``report.json`` does not
    list (an export from before the table existed) is the empty one of ``no_runtime_frames``."""
    meta = json.loads((folder / DATA_DIR / "report.json").read_text(encoding="utf-8"))
    absent = [name for name in RUNTIME_TABLES if name not in meta["tables"]]
    frames = {name: pl.read_parquet(folder / DATA_DIR / f"{name}.parquet") for name in TABLES
              if name not in absent and name in meta["tables"]}
    if absent:
        frames |= {name: frame for name, frame in no_runtime_frames().items() if name in absent}
    frames.setdefault("history_series", pl.DataFrame(schema=HISTORY_SCHEMA))  # exported before they existed
    frames.setdefault("history_findings", pl.DataFrame(schema=FINDINGS_SCHEMA))
    return ReportData(meta["manifest"], **frames)


def no_runtime_frames() -> dict[str, pl.DataFrame]:
    """``runtime_frames`` of a census database without runtime captures (an empty one, in memory)."""
    with duckdb.connect() as con:
        schema.install(con)
        return runtime_frames(con, [])


def write(data: ReportData, folder: Path) -> list[Path]:
    """``folder/README.md``, its PNG charts and the data export; the written paths."""
    folder.mkdir(parents=True, exist_ok=True)
    return write_page(folder, export(data, folder), charts(data), render(data))


def rebuild(folder: Path) -> list[Path]:
    """Rewrite a report from its own data export (no database needed): after a change to the
    rendering code, this is what the committed report must become."""
    layout = _layout(folder)
    if layout == report_population.LAYOUT:
        return report_population.write(report_population.load(folder), folder)
    if layout == runtime_census.LAYOUT:
        return runtime_census.write(runtime_census.load(folder), folder)
    return write(load(folder), folder)


def rebuilt_charts(folder: Path) -> dict[str, Figure]:
    """The figures ``rebuild`` draws from ``folder``'s data export, by file name (nothing is written)."""
    layout = _layout(folder)
    if layout == report_population.LAYOUT:
        return report_population.charts(report_population.load(folder))
    if layout == runtime_census.LAYOUT:
        return runtime_census.charts(runtime_census.load(folder))
    return charts(load(folder))


def _layout(folder: Path) -> str | None:
    """The layout ``folder/data/report.json`` names (none: a per-repository report)."""
    layout = json.loads((folder / DATA_DIR / "report.json").read_text(encoding="utf-8")).get("layout")
    return str(layout) if layout else None


def write_runtime_from_db(db: Path, name: str, out: Path | None) -> list[Path]:
    """``census report --runtime NAME``: the runtime census of ``db`` into ``out`` (default ``reports/NAME``)."""
    con = stats.connect(db)
    try:
        return runtime_census.write(runtime_census.collect(con, name), out or Path("reports") / name)
    finally:
        con.close()


def write_timeline_from_db(db: Path, wanted: str | None, out: Path | None) -> list[Path]:
    """``census report --timeline-only``: the timeline ``census timeline`` stored in ``db`` for the manifest
    ``wanted`` names (default: the only one) into the population report in ``out`` (default
    ``reports/<manifest>``), whose other frames are kept."""
    con = stats.connect(db)
    try:
        names = _timelines(con)
        if wanted is not None and Path(wanted).is_file():
            wanted = manifests.load(Path(wanted)).name
        if wanted is None and len(names) == 1:
            wanted = names[0]
        if wanted not in names:
            raise ManifestError(f"{db}: no timeline of {wanted or 'a single manifest'} stored "
                                f"(stored: {', '.join(names) or 'none; run `census timeline MANIFEST` first'})")
        return report_population.refresh_timeline(con, wanted, out or Path("reports") / wanted)
    finally:
        con.close()


def _timelines(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The manifests whose timeline the database holds."""
    found = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'timeline_grid'").fetchall()
    if not found[0][0]:
        return []
    return [name for (name,) in con.execute("SELECT DISTINCT manifest FROM timeline_grid ORDER BY 1").fetchall()]


def write_from_db(db: Path, wanted: str | None, out: Path | None) -> list[Path]:
    """``census report``: open ``db`` read-only, choose the manifest and write its report into
    ``out`` (default ``reports/<manifest>``)."""
    con = stats.connect(db)
    try:
        name = choose_manifest(con, wanted, str(db))
        folder = out or Path("reports") / name
        if report_population.is_population(con, name):  # many repositories: reported as a population
            return report_population.write(report_population.collect(con, name, folder / "audit"), folder)
        return write(collect(con, name), folder)
    finally:
        con.close()
