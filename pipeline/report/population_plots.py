"""Charts of a population (``pipeline.analysis.population``): a frame in, a matplotlib Figure out.

- ``annotated_share_chart``: servers by the share of their tools that declare annotations, so
  that the many small servers count as much as the few large ones;
- ``sdk_coverage_chart``: server tools per SDK, annotated or not;
- ``funnel_chart``: registry packages by the step of ``census probe-registry`` they reached.
"""

from __future__ import annotations

import polars as pl
from matplotlib.figure import Figure

from pipeline.report.chart_text import COUNT, count, count_axis, short
from pipeline.report.plots import ANNOTATED_COLOUR, LOOKALIKE_COLOUR, WIDTH_INCHES

#: the bins of ``annotated_share_chart``: (label, lowest share, highest share), both ends included
SHARE_BINS = (("none", 0.0, 0.0), ("1-25%", 1e-9, 0.25), ("26-50%", 0.25 + 1e-9, 0.5),
              ("51-75%", 0.5 + 1e-9, 0.75), ("76-99%", 0.75 + 1e-9, 1 - 1e-9), ("all", 1.0, 1.0))
#: how many SDKs ``sdk_coverage_chart`` draws (the others are summed as "other")
TOP_SDKS = 10


def annotated_share_chart(servers: pl.DataFrame) -> Figure:
    """``population.servers_by_annotation``: how many servers annotate none, some share, or all of
    their server tools."""
    shares = servers["annotated_share"].to_list()
    counts = [sum(1 for s in shares if low <= s <= high) for _, low, high in SHARE_BINS]
    figure = Figure(figsize=(WIDTH_INCHES, 3.4), layout="constrained")
    ax = figure.subplots()
    bars = ax.bar([label for label, _, _ in SHARE_BINS], counts, color=ANNOTATED_COLOUR)
    ax.bar_label(bars, fmt=COUNT, padding=2, fontsize="small")
    count_axis(ax.yaxis, 6)
    ax.set_xlabel("share of the server's tools that declare an annotations object (in source)")
    ax.set_ylabel("servers (repositories)")
    ax.set_title(f"{count(len(shares))} servers by how many of their tools they annotate")
    ax.spines[["top", "right"]].set_visible(False)
    return figure


def sdk_coverage_chart(by_sdk: pl.DataFrame) -> Figure:
    """``population.population_by_sdk``: server tools per SDK, those with an annotations object
    in source and the rest; the SDKs past ``TOP_SDKS`` together as "other"."""
    top, rest = by_sdk.head(TOP_SDKS), by_sdk.slice(TOP_SDKS)
    labels = [*top["sdk"].to_list(), *(["other"] if rest.height else [])]
    annotated = [*top["annotated_tools"].to_list(), *([sum(rest["annotated_tools"].to_list())] if rest.height else [])]
    tools = [*top["server_tools"].to_list(), *([sum(rest["server_tools"].to_list())] if rest.height else [])]
    plain = [t - a for t, a in zip(tools, annotated, strict=True)]
    figure = Figure(figsize=(WIDTH_INCHES, 0.35 * len(labels) + 1.4), layout="constrained")
    ax = figure.subplots()
    at = range(len(labels))  # bars by position: two long names shortened alike stay two bars
    ax.barh(at, annotated[::-1], color=ANNOTATED_COLOUR, label="declare an annotations object")
    ax.barh(at, plain[::-1], left=annotated[::-1], color=LOOKALIKE_COLOUR, label="declare none")
    ax.set_yticks(at, [short(label) for label in labels[::-1]])
    count_axis(ax.xaxis, 8)
    ax.set_xlabel("server tool definitions (in source)")
    ax.set_title("Server tools by SDK, and how many declare annotations")
    ax.legend(loc="lower right", fontsize="small")
    ax.spines[["top", "right"]].set_visible(False)
    return figure


def funnel_chart(funnel: pl.DataFrame) -> Figure:
    """``runtime_population.probe_funnel`` or ``runtime_census.cause_funnel``: the packages each cause
    stopped (``answered``: answered); a funnel saved before causes were has a ``step`` column instead."""
    what, ok = ("cause", "answered") if "cause" in funnel.columns else ("step", "ok")
    steps, counts = funnel[what].to_list(), funnel["packages"].to_list()
    figure = Figure(figsize=(WIDTH_INCHES, 0.35 * len(steps) + 1.4), layout="constrained")
    ax = figure.subplots()
    colours = [ANNOTATED_COLOUR if step == ok else LOOKALIKE_COLOUR for step in steps]
    bars = ax.barh(steps[::-1], counts[::-1], color=colours[::-1])
    ax.bar_label(bars, fmt=COUNT, padding=2, fontsize="small")
    count_axis(ax.xaxis, 8)
    ax.set_xlabel("registry packages (ok: answered tools/list; the others stopped at that step)" if what == "step"
                  else f"registry packages ({ok}: tools/list; the others: the {what} that stopped them)")
    ax.set_title(f"{count(sum(counts))} registry packages by the {what} they reached" if what == "step" else
                 f"{count(sum(counts))} registry packages: answered, or why not")
    ax.spines[["top", "right"]].set_visible(False)
    return figure
