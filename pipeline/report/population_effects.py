"""The hint-truth section of a population report: each server tool's handler read for what it
does (``pipeline.scan.effects``), held against what the tool declares.

Read from the ``effects_*`` frames of :class:`~pipeline.report.population_data.PopulationData`
(``pipeline.analysis.effects``); a population scanned before the effects analysis has no such
section, and its page is what it was before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from pipeline.report.tables import cell_text, markdown_table
from pipeline.scan.effects.follow import MAX_DEPTH, MAX_FUNCTIONS

if TYPE_CHECKING:
    from pipeline.report.population_data import PopulationData

#: ``effects_by_sdk`` columns -> their headers on the page
BY_SDK = {"language": "language", "sdk": "SDK", "server_tools": "server tools", "handlers_located": "handlers",
          "located_share": "located", "mutating_tools": "write, delete or exec",
          "read_only_tools": "readOnlyHint true", "read_only_mutating": "of them with such evidence",
          "contradictions": "contradictions", "doubts": "doubts", "suggestions": "suggested (unannotated)"}
FINDINGS = {"repo": "repository", "tool_name": "tool", "hint": "hint", "declared": "declared",
            "detail": "what the handler does", "evidence": "evidence"}


def has_effects(data: PopulationData) -> bool:
    """Whether the population was scanned with the effects analysis."""
    return data.effects_by_sdk.height > 0


def section(data: PopulationData) -> str:
    """The whole section (empty when there is nothing to report)."""
    if not has_effects(data):
        return ""
    return "\n\n".join(part for part in ["## Do the hints tell the truth?", _method(), _headline(data),
                                         markdown_table(data.effects_by_sdk, BY_SDK), _unlocated(data),
                                         _findings(data, "contradiction"), _findings(data, "doubt")] if part)


def _method() -> str:  # the bounds are the analysis's own, so the page cannot drift from them
    return ("Each server tool's handler (the function, closure or method its registration runs) was located and "
            f"read, with the repository's own functions it calls ({MAX_DEPTH} deep and at most {MAX_FUNCTIONS} "
            "functions a tool, across modules), for the calls that "
            "leave the process, classified by the knowledge in `pipeline/scan/effects/knowledge/` "
            "([EFFECTS.md](../../docs/EFFECTS.md)). Only hints written in source are judged: a default never "
            "contradicts. TypeScript/JavaScript, Python, Go and Rust are followed; the other languages' tools "
            "are counted as not located.")


def _headline(data: PopulationData) -> str:
    frame = data.effects_by_sdk
    tools, located = int(frame["server_tools"].sum()), int(frame["handlers_located"].sum())
    read_only, mutating = int(frame["read_only_tools"].sum()), int(frame["read_only_mutating"].sum())
    contradictions, doubts = int(frame["contradictions"].sum()), int(frame["doubts"].sum())
    share = cell_text(mutating / read_only) if read_only else "no"
    return (f"Handlers located for {located:,} of {tools:,} server tools ({cell_text(located / tools)}). Of the "
            f"{read_only:,} tools that declare `readOnlyHint: true`, {mutating:,} ({share}) have write, delete or exec "
            f"evidence in their handler; {contradictions:,} contradictions and {doubts:,} doubts in all, each listed "
            f"below with its evidence line at the pinned commit.")


def _unlocated(data: PopulationData) -> str:
    frame = data.effects_unlocated
    if not frame.height:
        return ""
    return "Handlers not located, by reason:\n\n" + markdown_table(frame, {"language": "language", "reason": "reason",
                                                                           "tools": "tools"})


def _findings(data: PopulationData, kind: str) -> str:
    frame = data.effects_findings.filter(pl.col("verdict") == kind) if data.effects_findings.height else pl.DataFrame()
    if not frame.height:
        return f"No {kind}s." if kind == "contradiction" else ""
    linked = frame.with_columns(
        evidence=pl.concat_str([pl.lit("["), pl.col("evidence_path"), pl.lit(":"),
                                pl.col("evidence_line").cast(pl.Utf8), pl.lit("]("), pl.col("permalink"), pl.lit(")")]),
        detail=pl.col("detail").str.replace_all(r"\|", "/"))
    title = {"contradiction": "Contradictions", "doubt": "Doubts"}[kind]
    return f"### {title} ({frame.height})\n\n" + markdown_table(linked, FINDINGS)
