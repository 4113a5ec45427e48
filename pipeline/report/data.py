"""The frames a per-repository census report shows (``ReportData``), and which of them come
from where: the one type ``report`` builds and ``markdown`` / ``runtime`` read.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import polars as pl


@dataclass(frozen=True)
class ReportData:
    """Everything a report shows, as the frames ``pipeline.analysis.stats`` returns."""

    manifest: str
    """the manifest's name."""
    repositories: pl.DataFrame
    """``stats.repositories``."""
    tools_by_role: pl.DataFrame
    """``stats.tools_by_role``."""
    published_vs_measured: pl.DataFrame
    """``stats.published_vs_measured``."""
    tools_by_sdk: pl.DataFrame
    """``stats.tools_by_sdk``, over server tools."""
    lookalikes_excluded: pl.DataFrame
    """``stats.lookalikes_excluded``."""
    hint_coverage: pl.DataFrame
    """``stats.hint_coverage``, over server tools."""
    effective_summary: pl.DataFrame
    """``stats.effective_summary``, over server tools."""
    caveats: pl.DataFrame
    """``stats.caveats``."""
    runtime_captures: pl.DataFrame
    """``pipeline.analysis.runtime.runtime_captures``, every capture in the database (without ``command_or_url``:
    local paths and command lines stay out of a report)."""
    runtime_coverage: pl.DataFrame
    """``pipeline.analysis.runtime.runtime_hint_coverage``, over every ``ok`` capture in the database."""
    runtime_pairs: pl.DataFrame
    """``pipeline.analysis.runtime.static_vs_runtime_pairs``, for the servers paired with a repository of
    the manifest."""
    runtime_agreement: pl.DataFrame
    """``pipeline.analysis.runtime.static_vs_runtime_summary``, for the same servers."""
    history_series: pl.DataFrame
    """``stats.history_series``: the published trees over time, where ``census history`` stored them."""
    history_findings: pl.DataFrame
    """``stats.history_findings``: which commits give each published figure."""


TABLES = tuple(f.name for f in fields(ReportData) if f.name != "manifest")
#: the tables of the runtime truth section, from ``pipeline.analysis.runtime``; the others are
#: ``pipeline.analysis.stats``'s
RUNTIME_TABLES = ("runtime_captures", "runtime_coverage", "runtime_pairs", "runtime_agreement")
