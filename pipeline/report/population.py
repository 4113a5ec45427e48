"""The report of a population census (the registry seed's): what the ecosystem's servers declare.

A manifest of more than ``POPULATION_REPOS`` repositories is reported as a population, not
repository by repository: coverage (which trees define server tools, and why the others show
none), seed 000's table at population scale, per server as well as per tool, by SDK, the largest
servers, the effective hints, and how far to trust the detector (its hand audit). As for the
per-repository report, every number comes from ``pipeline.analysis.stats`` / ``pipeline.analysis.population``, the
frames are exported as Parquet (``data/``) and the page is rebuilt from them byte for byte.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import duckdb
import polars as pl
from matplotlib.figure import Figure

from pipeline.analysis import audit, population, runtime_population, source_vs_wire, stats
from pipeline.errors import ManifestError
from pipeline.report import plots, population_plots, timeline_plots
from pipeline.report.population_data import RUNTIME_TABLES, TABLES, TIMELINE_TABLES, PopulationData
from pipeline.report.population_markdown import render
from pipeline.report.population_runtime import CHART as RUNTIME_CHART
from pipeline.report.population_runtime import has_runtime, recorded
from pipeline.report.population_timeline import has_timeline
from pipeline.report.tables import write_page

#: a manifest with more repositories than this is reported as a population
POPULATION_REPOS = 100
DATA_DIR = "data"
LAYOUT = "population"
#: an absolute path in a skip reason (a local mirrors folder): not for a committed page
_LOCAL_PATH = r"(^|[\s(])/[^\s:)]+"


def is_population(con: duckdb.DuckDBPyConnection, manifest: str) -> bool:
    """Whether ``manifest`` has more than ``POPULATION_REPOS`` repositories."""
    [(count,)] = con.execute("SELECT count(*) FROM manifest_entries WHERE manifest = ?", [manifest]).fetchall()
    return bool(count > POPULATION_REPOS)


def collect(con: duckdb.DuckDBPyConnection, manifest: str, audit_dir: Path | None = None) -> PopulationData:
    """The frames of ``manifest``'s population report; ``audit_dir`` holds the hand audit's
    ``truth/`` folder, when there is one."""
    coverage = stats.coverage(con, manifest).with_columns(_without_paths("evidence"))
    found = stats.caveats(con, manifest).filter(pl.col("status") == "found").drop("commit", "status")
    totals = _audit(con, audit_dir)
    return PopulationData(
        manifest, coverage, stats.coverage_summary(con, manifest), population.seed_000_comparison(con, manifest),
        population.annotation_classes(con, manifest), population.servers_by_annotation(con, manifest),
        population.population_by_sdk(con, manifest), stats.hint_coverage(con, manifest),
        stats.effective_summary(con, manifest), population.commit_years(con, manifest),
        population.caveats_by_kind(con, manifest),
        found.with_columns(_without_paths("evidence")), totals, **_runtime(con, manifest),
        **timeline_frames(con, manifest), **_effects(con, manifest), scanner_versions=scanner_versions(con, manifest))


def scanner_versions(con: duckdb.DuckDBPyConnection, manifest: str) -> tuple[str, ...]:
    """The scanner versions the manifest's pinned commits were read by, numerically ordered."""
    found = con.execute("""
        SELECT DISTINCT s.scanner_version FROM manifest_entries e
        JOIN snapshots s ON s.repo = e.repo AND s.commit = e.commit
        WHERE e.manifest = ? AND s.status = 'scanned' AND s.scanner_version IS NOT NULL""", [manifest]).fetchall()
    return tuple(sorted((str(v) for (v,) in found), key=lambda v: (len(v), v)))


def _effects(con: duckdb.DuckDBPyConnection, manifest: str) -> dict[str, pl.DataFrame]:
    """The effects frames, or none when the population was scanned before the effects analysis."""
    if not stats.has_effects(con, manifest):
        return {}
    return {"effects_by_sdk": stats.effects_by_sdk(con, manifest), "effects_unlocated": stats.unlocated(con, manifest),
            "effects_findings": stats.findings(con, manifest)}


def _runtime(con: duckdb.DuckDBPyConnection, manifest: str) -> dict[str, pl.DataFrame]:
    """The runtime frames, or none when no package of the population was probed."""
    entries = con.execute("SELECT repo FROM manifest_entries WHERE manifest = ?", [manifest]).fetchall()
    repos = [str(repo) for (repo,) in entries]
    packages = runtime_population.package_captures(con, manifest).filter(pl.col("repo").is_in(repos))
    if not packages.height:
        return {}
    by_server = source_vs_wire.detector_vs_runtime(con, manifest)
    accuracy = source_vs_wire.detector_accuracy
    return {"runtime_packages": packages,
            "runtime_funnel": runtime_population.probe_funnel(con, manifest),
            "runtime_seed_000": runtime_population.runtime_seed_000(con, manifest),
            "runtime_detector": by_server, "runtime_accuracy": accuracy(by_server),
            "runtime_accuracy_rule": source_vs_wire.by_rule(by_server),
            "runtime_accuracy_sdk": accuracy(by_server, ["sdk"]),
            "runtime_accuracy_language": accuracy(by_server, ["language"]),
            "runtime_disagreements": source_vs_wire.runtime_disagreements(con, manifest)}


def timeline_frames(con: duckdb.DuckDBPyConnection, manifest: str) -> dict[str, pl.DataFrame]:
    """The monthly timeline's frames (``census timeline``), or none when no timeline of ``manifest``
    was stored."""
    adoption = stats.timeline_adoption(con, manifest)
    if not adoption.height:
        return {}
    return {"timeline_adoption": adoption, "timeline_hints": stats.timeline_hints(con, manifest),
            "timeline_by_sdk": stats.timeline_by_sdk(con, manifest),
            "timeline_servers": stats.timeline_servers(con, manifest),
            "timeline_coverage": stats.timeline_coverage(con, manifest), "timeline_events": stats.timeline_events()}


def refresh_timeline(con: duckdb.DuckDBPyConnection, manifest: str, folder: Path) -> list[Path]:
    """Replace the timeline of the population report in ``folder`` with ``manifest``'s from ``con``, keep
    its other frames, and write the page again (``census report --timeline-only``)."""
    meta = folder / DATA_DIR / "report.json"
    if not meta.is_file() or json.loads(meta.read_text(encoding="utf-8")).get("layout") != LAYOUT:
        raise ManifestError(f"{folder}: no population report here to add a timeline to (census report first)")
    data = load(folder)
    if data.manifest != manifest:
        raise ManifestError(f"{folder}: a report of {data.manifest}, not of {manifest}")
    fresh = timeline_frames(con, manifest)
    if not fresh:
        raise ManifestError(f"no timeline of {manifest} stored: run `census timeline MANIFEST` first")
    return write(replace(data, **fresh), folder)  # type: ignore[arg-type]


def _without_paths(column: str) -> pl.Expr:
    """``column`` with each absolute path (a local mirrors folder, a source file) written ``DIR``."""
    return pl.col(column).str.replace_all(_LOCAL_PATH, "${1}DIR")


def _audit(con: duckdb.DuckDBPyConnection, audit_dir: Path | None) -> pl.DataFrame:
    truth = audit_dir / "truth" if audit_dir is not None else None
    if truth is None or not truth.is_dir():
        return pl.DataFrame(schema={"measure": pl.String, "value": pl.Float64})
    totals = audit.totals(audit.compare_with(audit.load_truth(truth), con))
    return pl.DataFrame({"measure": list(totals), "value": [float(v) for v in totals.values()]})


def charts(data: PopulationData) -> dict[str, Figure]:
    """The report's figures, by file name."""
    figures = {
        "coverage-by-sdk.png": population_plots.sdk_coverage_chart(data.by_sdk),
        "servers-by-annotated-share.png": population_plots.annotated_share_chart(data.servers),
        "hints-declared.png": plots.hint_coverage_chart(data.hint_coverage),
    }
    if has_runtime(data) and not recorded(data):  # a catalog's records reached no step but the answer
        figures[RUNTIME_CHART] = population_plots.funnel_chart(data.runtime_funnel)
    if has_timeline(data):
        figures[timeline_plots.CHART] = timeline_plots.timeline_chart(data.timeline_adoption, data.timeline_events)
    return figures


def export(data: PopulationData, folder: Path) -> list[Path]:
    """The frames as ``folder/data/<table>.parquet``, and ``report.json`` naming the layout."""
    target = folder / DATA_DIR
    target.mkdir(parents=True, exist_ok=True)
    written = []
    tables = [name for name in TABLES if (name not in RUNTIME_TABLES or has_runtime(data))
              and (name not in TIMELINE_TABLES or has_timeline(data))
              and getattr(data, name).width]  # a frame without columns: one a report saved before it lacks
    for name in tables:
        getattr(data, name).write_parquet(target / f"{name}.parquet")
        written.append(target / f"{name}.parquet")
    meta = target / "report.json"
    said = {"scanner_versions": list(data.scanner_versions)} if data.scanner_versions else {}
    meta.write_text(json.dumps({"manifest": data.manifest, "layout": LAYOUT, **said, "tables": tables}, indent=2)
                    + "\n", encoding="utf-8")
    return [*written, meta]


def load(folder: Path) -> PopulationData:
    """The frames ``export`` wrote into ``folder``."""
    meta = json.loads((folder / DATA_DIR / "report.json").read_text(encoding="utf-8"))
    return PopulationData(meta["manifest"], **{name: pl.read_parquet(folder / DATA_DIR / f"{name}.parquet")
                                               for name in meta["tables"] if name in TABLES},
                          scanner_versions=tuple(meta.get("scanner_versions", ())))


def write(data: PopulationData, folder: Path) -> list[Path]:
    """``folder/README.md``, its charts and the data export; the written paths."""
    folder.mkdir(parents=True, exist_ok=True)
    return write_page(folder, export(data, folder), charts(data), render(data))
