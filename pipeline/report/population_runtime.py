"""The runtime section of a population report: registry packages installed, started and asked.

Read from the ``runtime_*`` frames of :class:`~pipeline.report.population_data.PopulationData`
(``pipeline.analysis.runtime_population``); a population with no package capture has no such section,
and its page is what it was before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from pipeline.analysis.population import SEED_000_TOOLS
from pipeline.analysis.source_vs_wire import MATCHED_RULES
from pipeline.report.tables import NO_VALUE, cell_text, markdown_table
from pipeline.runtime.ingest import RECORDED

if TYPE_CHECKING:
    from pipeline.report.population_data import PopulationData

CHART = "runtime-funnel.png"
CHART_TEXT = "Registry packages by the step they reached: resolved, installed, started, answered tools/list"
#: how many disagreements the page lists (all are in data/runtime_disagreements.parquet)
LISTED = 60


def has_runtime(data: PopulationData) -> bool:
    """Whether the population has package captures to report."""
    return data.runtime_packages.height > 0


def section(data: PopulationData) -> str:
    """The whole section (empty when there is nothing to report)."""
    if not has_runtime(data):
        return ""
    return "\n\n".join([_funnel(data), _seed(data), _per_server(data), _accuracy(data), _disagreements(data)])


def recorded(data: PopulationData) -> bool:
    """Whether every capture is a catalog's record (``census ingest-catalog``), none a probe's."""
    packages = data.runtime_packages
    return "transport" in packages.columns and bool(packages["transport"].eq(RECORDED).all())


def _records(data: PopulationData) -> str:
    packages = data.runtime_packages
    tools = int(packages["tools"].sum()) if packages.height else 0
    return "\n\n".join([
        "## At run time: what a catalog recorded its servers listing",
        f"A package catalog started each of these {packages.height} servers and recorded the names its tools/list "
        f"returned ({tools} in all; names only, no annotations), each dated by the catalog commit that recorded it "
        "(`census ingest-catalog`). The record names no version: each repository is read at its last commit before "
        "the record (`by-date`), which may hold changes the release the catalog ran did not have.",
        markdown_table(packages.select("server", "tools", pl.col("released_at_utc").dt.date(),
                                       pl.col("committed_at_utc").dt.date()),
                       {"server": "server", "tools": "tools", "released_at_utc": "recorded",
                        "committed_at_utc": "pinned commit's date"}),
    ])


def _funnel(data: PopulationData) -> str:
    if recorded(data):
        return _records(data)
    packages = data.runtime_packages
    answered = packages.filter(pl.col("step") == "ok")
    tools = int(answered["tools"].sum()) if answered.height else 0
    newer = packages.filter(pl.col("version_vs_commit") == "package newer").height
    older = packages.filter(pl.col("version_vs_commit") == "package older").height
    moved = packages.filter(pl.col("requested_version").is_null() | (pl.col("requested_version") != pl.col("version")))
    versions = (f" {moved.height} of them were installed at another version than the one the registry names: "
                "their newest (`--latest`, or an entry that names none)." if moved.height else "")
    return "\n\n".join([
        "## At run time: the registry's packages, installed and asked",
        f"`census probe-registry` installed each of the {packages.height} servers with an npm or PyPI package "
        "(dependencies as they were a day after the package's release), started it in a sandbox with no network "
        f"and asked it for tools/list.{versions} {answered.height} answered, with {tools} tools; every other "
        + ("package is a skipped capture with its cause (`pipeline.runtime.causes`: `resolve`, the index lacks "
           "the package or the version; `needs a value`, a variable or argument no stand-in satisfies; ...), "
           "read from the install's log or the server's stderr." if "cause" in data.runtime_funnel.columns else
           "package is a skipped capture whose reason names the step it stopped at (`resolve`: the index lacks the "
           "package or the version the registry names; `install`; `initialize`: the server exited or never "
           "answered, most often for want of a variable or argument it was not given)."),
        markdown_table(data.runtime_funnel),
        f"![{CHART_TEXT}]({CHART})",
        f"Of the packages paired with a pinned commit, {newer} were released after the commit and {older} before "
        "it (`version_vs_commit`): what runs and what was scanned may differ by the changes in between.",
        markdown_table(packages.select("server", "version", "step", "tools", pl.col("released_at_utc").dt.date(),
                                       pl.col("committed_at_utc").dt.date(), _short("reason")),
                       {"server": "server", "version": "version", "step": "step", "tools": "tools",
                        "released_at_utc": "released", "committed_at_utc": "pinned commit's date",
                        "reason": "reason"}),
    ])


def _seed(data: PopulationData) -> str:
    seed = data.runtime_seed_000
    if recorded(data):
        return "### Seed 000's table from the answers\n\nA catalog's record keeps the names, not the annotations."
    if not seed.height or not int(seed["received_tools"][0]):
        return "### Seed 000's table from the answers\n\nNo package answered tools/list."
    first = seed.row(0, named=True)
    share = cell_text(first["received_annotated"] / first["received_tools"])
    return "\n\n".join([
        "### Seed 000's table from the answers",
        f"Seed 000 read {SEED_000_TOOLS} tools from 14 running servers. The {first['servers']} packages that "
        f"answered sent {first['received_tools']} tools, {first['received_annotated']} ({share}) with an "
        "annotations object; per hint, how many set it, and to what:",
        markdown_table(seed.drop("seed_000_tools", "seed_000_annotated", "servers", "received_tools",
                                 "received_annotated")),
    ])


def _per_server(data: PopulationData) -> str:
    by_server = data.runtime_detector
    if not by_server.height:
        return "### Source against run time\n\nNo server that answered has a scanned source to compare with."
    return "\n\n".join([
        "### Source against run time, per server",
        "Tool names received against the detector's server tools in the server's folder at the pinned commit: "
        "`matched` on both sides, `runtime_only` sent but not found in source, `source_only` found but not sent, "
        "`unnamed` registrations whose name the source builds at run time.",
        markdown_table(by_server.drop("commit", "subfolder")),
    ])


def _accuracy(data: PopulationData) -> str:
    total = data.runtime_accuracy.row(0, named=True) if data.runtime_accuracy.height else None
    if total is None or not total["servers"]:
        return ""
    precision = NO_VALUE if total["precision"] is None else f"{total['precision']:.3f}"
    recall = NO_VALUE if total["recall"] is None else f"{total['recall']:.3f}"
    other = data.runtime_detector.filter(~pl.col("same_repository").fill_null(True)).height
    left_out = (f" ({other} more answered from a package built from another repository: "
                f"{'it is' if other == 1 else 'they are'} not counted)" if other else "")
    return "\n\n".join([
        "### The detector against the servers' own answers",
        f"Over the {total['servers']} servers that answered and have a scanned source{left_out}, the detector's "
        f"precision by tool name is {precision} and its recall {recall} ({total['matched']} names on both sides, "
        f"{total['runtime_only']} sent but not found, {total['source_only']} found but not sent"
        f"{_set_aside(total)}). An automatic "
        "oracle beside the hand audit's: it needs no reader, but it is only as good as the pairing. Precision is a "
        "floor: a tool registered behind a variable, a flag or a credential the server was not given is in its "
        "source and not sent; and where the package and the pinned commit are months apart, each side may hold "
        "tools the other does not (the causes below). "
        + ("By the rule that says the scanned commit is the one the package was built from (`exact-tag` and "
           "`metadata`: version for version; `by-date`: the last commit before the release; `none`: the "
           "manifest's own pin), then by SDK, then by language:" if data.runtime_accuracy_rule.height else
           "By SDK, then by language:"),
        *([markdown_table(data.runtime_accuracy_rule)] if data.runtime_accuracy_rule.height else []),
        markdown_table(data.runtime_accuracy_sdk),
        markdown_table(data.runtime_accuracy_language),
    ])


def _set_aside(total: dict[str, object]) -> str:
    """How many names precision and recall set aside, where the frame counts them."""
    conditional, generated = total.get("conditional"), total.get("generated")
    if not conditional and not generated:
        return ""
    return (f"; set aside: {conditional or 0} found only under a condition, {generated or 0} sent by servers "
            "whose tools are named at run time")


def _disagreements(data: PopulationData) -> str:
    rows = data.runtime_disagreements
    if not rows.height:
        return ""
    causes = rows.group_by("cause").agg(pl.len().alias("tools")).sort("tools", "cause", descending=[True, False])
    listed = rows.head(LISTED)
    more = f" (the first {LISTED}; all {rows.height} are in `data/runtime_disagreements.parquet`)" \
        if rows.height > LISTED else ""
    return "\n\n".join([
        "### Every disagreement, with its likely cause",
        markdown_table(causes),
        *_version_matched(data),
        f"Each tool name on one side only{more}:",
        markdown_table(listed),
    ])


def _version_matched(data: PopulationData) -> list[str]:
    """Every disagreement of the servers compared version for version (``exact-tag``, ``metadata``)."""
    detector = data.runtime_detector
    if "rule" not in detector.columns or "detail" not in data.runtime_disagreements.columns:
        return []
    servers = detector.filter(pl.col("rule").is_in(MATCHED_RULES))["server"]
    rows = data.runtime_disagreements.filter(pl.col("server").is_in(servers.implode()))
    if not servers.len():
        return []
    return [f"At the commit each package was built from ({servers.len()} servers whose commit a tag or the "
            f"package's metadata names), every disagreement ({rows.height}):", markdown_table(rows)]


def _short(column: str, limit: int = 240) -> pl.Expr:
    """``column`` cut to ``limit`` characters on the page (the frame keeps it whole)."""
    text = pl.col(column)
    return pl.when(text.str.len_chars() > limit).then(text.str.slice(0, limit - 1) + "\N{HORIZONTAL ELLIPSIS}") \
        .otherwise(text).alias(column)
