"""The timeline section of a population report: when servers started declaring hints, how fast it spread,
which SDKs carried it.

Read from the ``timeline_*`` frames of :class:`~pipeline.report.population_data.PopulationData`
(``pipeline.analysis.timeline``, stored by ``census timeline``); a population with no stored timeline has
no such section, and its page is what it was before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from pipeline.analysis.hints import HINT_NAMES
from pipeline.analysis.timeline import timeline_sdk_summary
from pipeline.report.tables import NO_VALUE, cell_text, markdown_table
from pipeline.report.timeline_plots import CHART

if TYPE_CHECKING:
    from pipeline.report.population_data import PopulationData

CHART_TEXT = ("Servers alive, declaring annotations (tool rows) and naming readOnlyHint (byte counts) per month; "
              "readOnlyHint in tool rows and in byte counts; the specification and SDK releases as lines")
#: ``timeline_adoption`` columns -> their headers on the page
ADOPTION = {"period": "period", "servers_alive": "servers alive", "servers_read": "read",
            "servers_with_tools": "with server tools", "servers_annotating": "declaring annotations",
            "annotating_share": "share of read", "server_tools": "server tools", "annotated_tools": "annotated",
            "annotated_share": "share annotated", "read_only_tools": "readOnlyHint true or false",
            "read_only_dynamic": "readOnlyHint, an expression",
            "servers_read_only_matches": "servers naming readOnlyHint", "read_only_matches": "readOnlyHint matches",
            "scanned": "scanned", "reused": "reused"}


def has_timeline(data: PopulationData) -> bool:
    """Whether the population has a stored timeline to report."""
    return data.timeline_adoption.height > 0


def section(data: PopulationData) -> str:
    """The whole section (empty when there is nothing to report)."""
    if not has_timeline(data):
        return ""
    return "\n\n".join(["## Adoption over time", _method(data), _headline(data), f"![{CHART_TEXT}]({CHART})",
                        markdown_table(data.timeline_adoption, ADOPTION), _hints(data), _sdks(data), _servers(data),
                        _releases(data), _caveats(data)])


def _coverage(data: PopulationData) -> dict[str, int]:
    return dict(zip(data.timeline_coverage["status"].to_list(), data.timeline_coverage["repositories"].to_list(),
                    strict=True))


def _method(data: PopulationData) -> str:
    covered, adoption = _coverage(data), data.timeline_adoption
    total, walked = sum(covered.values()), covered.get("walked", 0)
    unread = f", {covered['skipped']} could not be read" if covered.get("skipped") else ""
    scanned, reused = int(adoption["scanned"].sum()), int(adoption["reused"].sum())
    return (f"`census timeline` read each repository at the last commit of its default branch (first-parent, "
            f"from the pinned commit back) at or before the end of each {_every(adoption)}, from "
            f"{adoption['period'][0]} to {adoption['period'][-1]}, and scanned it as `census run` scans a pinned "
            f"commit. {walked} of {total} repositories had a mirror and were walked ({covered.get('no-mirror', 0)} "
            f"had none{unread}): every figure below is theirs alone. Of their {scanned + reused} periods, "
            f"{scanned} were scanned and {reused} reused the rows of an earlier period whose tree was the same "
            "(the tree had not changed). A repository is counted from its first commit on: before it, it is "
            "absent, not zero.")


def _every(adoption: pl.DataFrame) -> str:
    label = str(adoption["period"][0])
    return "quarter" if "-Q" in label else "month" if "-" in label else "year"


def _row(frame: pl.DataFrame, at: int) -> dict[str, Any]:
    return frame.row(at, named=True)


def _headline(data: PopulationData) -> str:
    adoption, servers = data.timeline_adoption, data.timeline_servers
    first, last = _row(adoption, 0), _row(adoption, -1)
    adopters = servers.filter(pl.col("first_annotated_period").is_not_null())
    earliest = adopters.filter(pl.col("first_annotated_period") == adopters["first_annotated_period"].min()) \
        if adopters.height else adopters
    opened = (f" The first to declare one did so in {earliest['first_annotated_period'][0]}: "
              f"{', '.join(earliest['repo'].to_list())}." if earliest.height else " None declared one.")
    share = cell_text(last["annotating_share"])
    return (f"At the end of {first['period']}, {first['servers_alive']} of these servers existed and "
            f"{first['servers_annotating']} declared an annotations object on a tool; at the end of {last['period']}, "
            f"{last['servers_alive']} existed and {last['servers_annotating']} did ({share} of those read), with "
            f"{last['annotated_tools']} of {last['server_tools']} server tools annotated "
            f"({cell_text(last['annotated_share'])}).{opened} Byte counts and tool rows part: a tree can name "
            "readOnlyHint where no tool sets it (docs, tests, a client), and one object of hints written once can "
            f"serve many tools. At the end, {last['servers_read_only_matches']} servers name readOnlyHint, with "
            f"{last['read_only_matches']} matches, against {last['read_only_tools']} server tools that set it true "
            f"or false and {last['read_only_dynamic']} that set it through an expression the detector does not "
            "resolve.")


def _hints(data: PopulationData) -> str:
    wide = data.timeline_hints.pivot(on="hint", index=["period", "server_tools"], values=["set", "set_true",
                                                                                           "set_false"])
    headers = {"period": "period", "server_tools": "server tools"}
    for hint in HINT_NAMES:
        headers |= {f"set_{hint}": f"{hint} set", f"set_true_{hint}": "true", f"set_false_{hint}": "false"}
    return "\n\n".join(["### Each hint, per period",
                        "Server tools that set each hint in source, and those setting it true or false (the rest of "
                        "*set* is an expression the detector does not resolve):",
                        markdown_table(wide, headers)])


def _sdks(data: PopulationData) -> str:
    summary = timeline_sdk_summary(data.timeline_by_sdk)
    return "\n\n".join([
        "### Which SDKs carried it",
        "Per SDK, the first period a server tool came through it and the first an annotated one did, then the "
        "last period's servers, servers declaring annotations, server tools and annotated ones (every period's: "
        "`data/timeline_by_sdk.parquet`):",
        markdown_table(summary, {"sdk": "SDK", "language": "language", "first_period": "first server tool",
                                 "first_annotated_period": "first annotated", "servers": "servers",
                                 "servers_annotating": "declaring", "server_tools": "server tools",
                                 "annotated_tools": "annotated"})])


def _servers(data: PopulationData) -> str:
    adopters = data.timeline_servers.filter(pl.col("first_annotated_period").is_not_null())
    return "\n\n".join([
        "### The servers that declare annotations, in the order they began",
        markdown_table(adopters, {"repo": "repository", "first_period": "first commit", "first_tools_period":
                                  "first server tool", "first_annotated_period": "first annotated",
                                  "sdk": "SDK (most tools, last period)"})])


def _releases(data: PopulationData) -> str:
    events = data.timeline_events.with_columns(
        pl.when(pl.col("bound")).then(pl.lit("no later than")).otherwise(pl.lit(NO_VALUE)).alias("date is"))
    return "\n\n".join([
        "### The specification and the first SDK releases with tool annotations",
        "Drawn on the chart; each as its own repository says, and where (docs/SDK-RELEASES.md):",
        markdown_table(events, {"date": "date", "date is": "date is", "what": "what", "version": "version",
                                "source": "where it says so"}, {"date": lambda d: f"{d:%Y-%m-%d}"})])


def _caveats(data: PopulationData) -> str:
    covered = _coverage(data)
    return (f"**Caveats.** The population is the seed's servers that still exist and had a mirror "
            f"({covered.get('walked', 0)} of {sum(covered.values())}): a server deleted before the mirrors were "
            "made is missing, so early adoption is seen only among survivors (survivorship). A history rewritten "
            "by a force push shows only its new line, with its new dates. Each tree is read with the roles the "
            "manifest's `server_paths` give at the pinned commit, and the detector of today reads the code of "
            "then: a tree whose server lived elsewhere, or registered tools in a way the detector does not know, "
            "counts as it does in the census.")
