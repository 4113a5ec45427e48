"""The frames a population report shows (``PopulationData``): the one type ``population``
builds and ``population_markdown`` / ``population_runtime`` read.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import polars as pl


@dataclass(frozen=True)
class PopulationData:
    """Everything a population report shows, as frames."""

    manifest: str
    coverage: pl.DataFrame
    """``stats.coverage``: every repository's reason (local paths in the evidence replaced by ``DIR``)."""
    coverage_summary: pl.DataFrame
    """``stats.coverage_summary``."""
    seed_000: pl.DataFrame
    """``population.seed_000_comparison``."""
    annotation_classes: pl.DataFrame
    """``population.annotation_classes``."""
    servers: pl.DataFrame
    """``population.servers_by_annotation``."""
    by_sdk: pl.DataFrame
    """``population.population_by_sdk``."""
    hint_coverage: pl.DataFrame
    """``stats.hint_coverage`` over server tools."""
    effective_summary: pl.DataFrame
    """``stats.effective_summary`` over server tools."""
    commit_years: pl.DataFrame
    """``population.commit_years``."""
    caveats_by_kind: pl.DataFrame
    """``population.caveats_by_kind``."""
    caveats: pl.DataFrame
    """``stats.caveats`` found, every repository's (local paths replaced by ``DIR``)."""
    audit: pl.DataFrame
    """the hand audit's totals (``audit.totals``) as (measure, value); empty without an audit."""
    runtime_packages: pl.DataFrame = field(default_factory=pl.DataFrame)
    """``runtime_population.package_captures`` (local paths in reasons replaced by ``DIR``); the
    runtime frames below are empty where no package was probed."""
    runtime_funnel: pl.DataFrame = field(default_factory=pl.DataFrame)
    """``runtime_population.probe_funnel``."""
    runtime_seed_000: pl.DataFrame = field(default_factory=pl.DataFrame)
    """``runtime_population.runtime_seed_000``."""
    runtime_detector: pl.DataFrame = field(default_factory=pl.DataFrame)
    """``source_vs_wire.detector_vs_runtime``."""
    runtime_accuracy: pl.DataFrame = field(default_factory=pl.DataFrame)
    """``source_vs_wire.detector_accuracy`` over every server."""
    runtime_accuracy_rule: pl.DataFrame = field(default_factory=pl.DataFrame)
    """the same by the rule that pins each commit to its package's version (``exact-tag`` first);
    empty in a report saved before it."""
    runtime_accuracy_sdk: pl.DataFrame = field(default_factory=pl.DataFrame)
    """the same by SDK."""
    runtime_accuracy_language: pl.DataFrame = field(default_factory=pl.DataFrame)
    """the same by language."""
    runtime_disagreements: pl.DataFrame = field(default_factory=pl.DataFrame)
    """``source_vs_wire.runtime_disagreements``."""
    timeline_adoption: pl.DataFrame = field(default_factory=pl.DataFrame)
    """``stats.timeline_adoption`` (``census timeline``); the timeline frames below are empty where no
    timeline was stored, or in a report saved before them."""
    timeline_hints: pl.DataFrame = field(default_factory=pl.DataFrame)
    """``stats.timeline_hints``."""
    timeline_by_sdk: pl.DataFrame = field(default_factory=pl.DataFrame)
    """``stats.timeline_by_sdk``."""
    timeline_servers: pl.DataFrame = field(default_factory=pl.DataFrame)
    """``stats.timeline_servers``."""
    timeline_coverage: pl.DataFrame = field(default_factory=pl.DataFrame)
    """``stats.timeline_coverage``: the repositories walked, with no mirror, not readable."""
    timeline_events: pl.DataFrame = field(default_factory=pl.DataFrame)
    """``stats.timeline_events``: the specification and the SDK releases drawn on the chart."""
    effects_by_sdk: pl.DataFrame = field(default_factory=pl.DataFrame)
    """``stats.effects_by_sdk`` (scanner 22 on); the effects frames are empty where the trees were
    scanned before the effects analysis, or in a report saved before them."""
    effects_unlocated: pl.DataFrame = field(default_factory=pl.DataFrame)
    """``stats.unlocated``: why handlers were not located."""
    effects_findings: pl.DataFrame = field(default_factory=pl.DataFrame)
    """``stats.findings``: every contradiction and doubt, with its permalink."""
    scanner_versions: tuple[str, ...] = ()
    """the scanner versions the repositories were read by (``report.json``; empty in a report saved
    before it said)."""


TABLES = tuple(f.name for f in fields(PopulationData) if f.name not in ("manifest", "scanner_versions"))
#: the frames only a population with package captures has (``census probe-registry``)
RUNTIME_TABLES = tuple(name for name in TABLES if name.startswith("runtime_"))
#: the frames only a population with a stored timeline has (``census timeline``)
TIMELINE_TABLES = tuple(name for name in TABLES if name.startswith("timeline_"))
#: the frames only a population scanned with the effects analysis has
EFFECTS_TABLES = tuple(name for name in TABLES if name.startswith("effects_"))
