"""Charts of the statistics: a DataFrame from ``pipeline.analysis.stats`` in, a matplotlib Figure out.

Nothing here counts, reads or writes: the figures are drawn from the frames as they are,
on ``matplotlib.figure.Figure`` objects (no pyplot, so no global state); ``pipeline.report.census``
saves them. Every axis label says what its numbers are: matches (byte counts), tool
definitions, declared or declared true / false, or tools declared in source and received at
run time.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import polars as pl
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from pipeline.report.chart_text import NAME_CHARACTERS, count, count_axis, repo_lines, short

#: where matches sit (the role of their file), and their colours (stacked in this order)
PLACES = {"in_server": ("server code", "#1f77b4"), "in_examples": ("examples", "#17becf"),
          "in_tests": ("tests", "#ff7f0e"), "in_docs": ("docs", "#2ca02c")}
#: the roles of tools, and their colours (stacked in this order)
ROLE_COLOURS = {"server": ("server tools", "#1f77b4"), "example": ("example tools", "#17becf"),
                "test": ("test tools", "#ff7f0e")}
#: the parts of a declared hint, and their colours
DECLARED = {"set_true": ("declared true", "#2ca02c"), "set_false": ("declared false", "#d62728"),
            "set_dynamic": ("declared, not a literal", "#7f7f7f")}
#: how a hint declared in source agrees with the one received at run time, and their colours
AGREEMENT = {"same": ("same", "#2ca02c"), "added_on_wire": ("added on wire", "#1f77b4"),
             "dropped_on_wire": ("dropped on wire", "#ff7f0e"), "differ": ("differ", "#d62728"),
             "resolved": ("resolved (an expression in source)", "#7f7f7f")}
MCP_COLOUR, LOOKALIKE_COLOUR, ANNOTATED_COLOUR, TITLE_COLOUR = "#1f77b4", "#bbbbbb", "#08306b", "#9467bd"
WIDTH_INCHES = 9.0
#: how many characters of small text a row of bars across the figure holds, all labels together
ROW_CHARACTERS = 100
#: how many characters of an upright name a panel holds, and the height they add to it
UPRIGHT_CHARACTERS, ROTATED_INCHES = 24, 1.6


def hint_coverage_chart(coverage: pl.DataFrame) -> Figure:
    """``stats.hint_coverage``: per field, declared true / false / not a literal, one panel per reading."""
    readings = coverage["reading"].unique(maintain_order=True).to_list()
    figure = Figure(figsize=(WIDTH_INCHES, 3.6), layout="constrained")
    axes = figure.subplots(1, max(len(readings), 1), sharex=True, squeeze=False)[0]
    for ax, reading in zip(axes, readings, strict=False):
        _coverage_panel(ax, coverage.filter(pl.col("reading") == reading), reading)
    figure.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=4, fontsize="small")
    figure.suptitle("MCP tool definitions that declare each field")
    return figure


def _coverage_panel(ax: Axes, rows: pl.DataFrame, reading: str) -> None:
    rows = rows.reverse()  # barh draws bottom-up: keep the table's order top-down
    fields = rows["field"].to_list()
    literal_title = rows.select(pl.when(pl.col("field") == "title").then(pl.col("set") - pl.col("set_dynamic"))
                                .otherwise(0)).to_series()
    series = [(rows[c].fill_null(0), label, colour) for c, (label, colour) in DECLARED.items()]
    left = [0] * len(fields)
    for values, label, colour in [*series, (literal_title, "declared (a title)", TITLE_COLOUR)]:
        ax.barh(fields, values.to_list(), left=left, color=colour, label=label)
        left = [a + b for a, b in zip(left, values.to_list(), strict=True)]
    tools = sum(rows["tools"].head(1).to_list())
    annotated = sum(rows["annotated_tools"].head(1).to_list())
    ax.axvline(annotated, color="black", linestyle="--", linewidth=1)
    ax.set_title(f"{reading}\n{count(tools)} tools, {count(annotated)} annotated (dashed)", fontsize="medium")
    ax.set_xlabel("tool definitions (declared)")
    ax.set_xlim(0, max(tools, 1))
    count_axis(ax.xaxis, 4)  # two panels side by side: room for five counts each


def published_vs_measured_chart(frame: pl.DataFrame) -> Figure:
    """``stats.published_vs_measured``: per term with a non-zero figure, measured matches stacked by
    where they sit and the published figure as a black tick; the terms whose every figure is 0
    (or absent) are named below instead of drawn."""
    non_zero = (pl.col("published").fill_null(0) > 0) | (pl.col("measured").fill_null(0) > 0)
    terms = frame.filter(non_zero)["term"].unique(maintain_order=True).to_list()
    zeros = [t for t in frame["term"].unique(maintain_order=True).to_list() if t not in terms]
    widest = max([frame.filter(pl.col("term") == term).height for term in terms], default=1)
    panel = 2.2 + (ROTATED_INCHES if _upright(widest) else 0)
    figure = Figure(figsize=(WIDTH_INCHES, panel * max(len(terms), 1) + 1.2), layout="constrained")
    title = "Published vs measured matches (case-insensitive byte counts)"
    note = textwrap.fill(f"not drawn, every figure 0 or not published: {', '.join(zeros)}", 100)
    figure.suptitle(f"{title}\n{note}" if zeros else title, fontsize="medium")
    if not terms:
        return _empty(figure, "no term has a non-zero published figure or match")
    axes = figure.subplots(len(terms), 1, squeeze=False)[:, 0]
    for ax, term in zip(axes, terms, strict=True):
        _term_panel(ax, frame.filter(pl.col("term") == term), term)
    figure.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=5, fontsize="small")
    return figure


def _term_panel(ax: Axes, rows: pl.DataFrame, term: str) -> None:
    repos = rows["repo"].to_list()
    at = range(len(repos))  # bars by position: two long names shortened alike stay two bars
    bottom = [0] * len(repos)
    for column, (label, colour) in PLACES.items():
        values = [v or 0 for v in rows[column].to_list()]
        ax.bar(at, values, bottom=bottom, color=colour, label=f"measured: {label}", width=0.6)
        bottom = [a + b for a, b in zip(bottom, values, strict=True)]
    published = [(n, v) for n, v in enumerate(rows["published"].to_list()) if v is not None]
    ax.scatter([n for n, _ in published], [v for _, v in published], marker="_", s=900, color="black",
               linewidths=2.5, label="published", zorder=3)
    ax.set_ylabel(f"{term}\nmatches")
    ax.set_ylim(0, max([*bottom, *(v for _, v in published), 1]) * 1.15)
    count_axis(ax.yaxis, 6)
    characters = ROW_CHARACTERS // max(len(repos), 1) - 1
    if _upright(len(repos)):  # too many bars for names across: each name upright, shortened
        ax.set_xticks(at, [short(repo, UPRIGHT_CHARACTERS) for repo in repos], rotation=90)
    else:
        ax.set_xticks(at, [repo_lines(repo, characters) for repo in repos])
    ax.tick_params(axis="x", labelsize="small")


def _upright(bars: int) -> bool:
    """Whether a row of ``bars`` bars has too little room to write their names across."""
    return ROW_CHARACTERS // max(bars, 1) - 1 < 10


def tools_by_sdk_chart(frame: pl.DataFrame) -> Figure:
    """``stats.tools_by_sdk``: tool definitions per repository and library (MCP or look-alike),
    with the MCP ones that declare an annotations object in source drawn darker."""
    figure = Figure(figsize=(WIDTH_INCHES, 0.35 * max(len(frame), 1) + 1.4), layout="constrained")
    if frame.is_empty():
        return _empty(figure, "no tool definition found")
    ax = figure.subplots()
    labels = [short(f"{r} · {s}") for r, s in zip(frame["repo"], frame["sdk"], strict=True)][::-1]
    at = range(len(labels))  # bars by position: two long names shortened alike stay two bars
    is_mcp = frame["is_mcp"].to_list()[::-1]
    colours = [MCP_COLOUR if m else LOOKALIKE_COLOUR for m in is_mcp]
    ax.barh(at, frame["tools"].to_list()[::-1], color=colours)
    annotated = [a if m else 0 for a, m in zip(frame["annotated_tools"].to_list()[::-1], is_mcp, strict=True)]
    ax.barh(at, annotated, color=ANNOTATED_COLOUR, height=0.4)
    ax.set_yticks(at, labels)
    _legend(ax, [("MCP tools", MCP_COLOUR), ("declaring annotations (source)", ANNOTATED_COLOUR),
                 ("look-alike tools (not MCP)", LOOKALIKE_COLOUR)])
    ax.set_xlabel("tool definitions")
    count_axis(ax.xaxis, 8)
    figure.suptitle("Tool definitions by library")
    return figure


def tools_by_role_chart(frame: pl.DataFrame) -> Figure:
    """``stats.tools_by_role``: per repository, its MCP tool definitions stacked by role (server,
    example, test), the server tools that declare an annotations object in source drawn darker
    over them, and the look-alike tools (not MCP) as a bar of their own."""
    repos = frame["repo"].unique(maintain_order=True).to_list()
    figure = Figure(figsize=(WIDTH_INCHES, 0.45 * max(len(repos), 1) + 1.4), layout="constrained")
    if frame.is_empty():
        return _empty(figure, "no tool definition found")
    ax = figure.subplots()
    labels = repos[::-1]
    at = range(len(labels))  # bars by position: two long names shortened alike stay two bars
    wide = {role: dict(zip(rows["repo"], rows["mcp_tools"], strict=True))
            for role in ROLE_COLOURS for rows in [frame.filter(pl.col("role") == role)]}
    left = [0] * len(labels)
    for role, (_, colour) in ROLE_COLOURS.items():
        values = [wide[role].get(r, 0) for r in labels]
        ax.barh(at, values, left=left, color=colour, height=0.5)
        left = [a + b for a, b in zip(left, values, strict=True)]
    server = frame.filter(pl.col("role") == "server")
    annotated = dict(zip(server["repo"], server["annotated_tools"], strict=True))
    ax.barh(at, [annotated.get(r, 0) for r in labels], color=ANNOTATED_COLOUR, height=0.25)
    lookalikes = frame.group_by("repo").agg(pl.col("lookalike_tools").sum())
    others = dict(zip(lookalikes["repo"], lookalikes["lookalike_tools"], strict=True))
    ax.barh(at, [others.get(r, 0) for r in labels], left=left, color=LOOKALIKE_COLOUR, height=0.5)
    ax.set_yticks(at, [short(label) for label in labels])
    _legend(ax, [*((label, colour) for label, colour in ROLE_COLOURS.values()),
                 ("server tools declaring annotations (source)", ANNOTATED_COLOUR),
                 ("look-alike tools (not MCP)", LOOKALIKE_COLOUR)])
    ax.set_xlabel("tool definitions")
    count_axis(ax.xaxis, 8)
    figure.suptitle("Tool definitions by where they live")
    return figure


def runtime_agreement_chart(summary: pl.DataFrame) -> Figure:
    """``pipeline.analysis.runtime.static_vs_runtime_summary``: one panel per hint, one bar per server: its tools
    on both sides stacked by how the hint declared in source agrees with the one received, and
    how many were received as expected on the wire as a black tick."""
    servers = summary["server"].unique(maintain_order=True).to_list()
    hints = summary["hint"].unique(maintain_order=True).to_list()
    figure = Figure(figsize=(WIDTH_INCHES, 0.4 * max(len(servers), 1) + 2.2), layout="constrained")
    figure.suptitle("Declared in source vs received at run time, per hint (tools on both sides)")
    if summary.is_empty():
        return _empty(figure, "no captured server is paired with a scanned repository")
    axes = figure.subplots(1, len(hints), sharey=True, squeeze=False)[0]
    for ax, hint in zip(axes, hints, strict=True):
        _agreement_panel(ax, summary.filter(pl.col("hint") == hint), hint, servers)
    axes[0].set_yticks(range(len(servers)), [short(server) for server in servers[::-1]])
    figure.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=3, fontsize="small")
    return figure


def _agreement_panel(ax: Axes, rows: pl.DataFrame, hint: str, servers: list[str]) -> None:
    rows = rows.reverse()  # barh draws bottom-up: keep the frame's order top-down
    at = [len(servers) - 1 - servers.index(server) for server in rows["server"]]
    left = [0] * len(at)
    for column, (label, colour) in AGREEMENT.items():
        values = rows[column].fill_null(0).to_list()
        ax.barh(at, values, left=left, color=colour, label=label)
        left = [a + b for a, b in zip(left, values, strict=True)]
    ax.scatter(rows["as_expected"].fill_null(0).to_list(), at, marker="|", s=250, color="black",
               linewidths=2, label="received as expected on the wire", zorder=3)
    ax.set_title(hint, fontsize="medium")
    ax.set_xlabel("tools on both sides")
    ax.set_xlim(0, max([*left, 1]) * 1.05)  # room for a tick at the end of the longest bar
    count_axis(ax.xaxis, 3)  # four panels side by side: room for four counts each


def _legend(ax: Axes, entries: Sequence[tuple[str, str]]) -> None:
    handles = [Patch(color=colour, label=label) for label, colour in entries]
    ax.figure.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), 3), fontsize="small")


def _empty(figure: Figure, message: str) -> Figure:
    ax = figure.subplots()
    ax.set_axis_off()
    ax.text(0.5, 0.5, message, ha="center", va="center")
    return figure


def history_chart(series: pl.DataFrame) -> Figure:
    """``stats.history_series``: per published tree, each published term's count over its commits,
    the published figure as a dashed line and the commit the manifest pins as a dotted one."""
    repos = series["repo"].unique(maintain_order=True).to_list()
    terms = max(series.group_by("repo").agg(pl.col("term").n_unique())["term"].to_list(), default=0)
    entries = 2 * terms + 1  # the legend beside a panel: a count and a figure per term, the pin
    panel = max(2.4, 0.17 * entries + 0.6)
    figure = Figure(figsize=(WIDTH_INCHES, panel * max(len(repos), 1)), layout="constrained")
    axes = figure.subplots(max(len(repos), 1), 1, squeeze=False)[:, 0]
    for ax, repo in zip(axes, repos, strict=False):
        rows = series.filter(pl.col("repo") == repo)
        for term in rows["term"].unique(maintain_order=True).to_list():
            of_term = rows.filter(pl.col("term") == term)
            line = ax.plot(of_term["committed_at_utc"].to_list(), of_term["count"].to_list(), label=f"{term}",
                           drawstyle="steps-post")[0]
            ax.axhline(of_term["published"][0], color=line.get_color(), linestyle="--", linewidth=1,
                       label=f"{term} published ({of_term['published'][0]})")
        pinned = rows.filter(pl.col("pinned"))["committed_at_utc"].to_list()
        if pinned:
            ax.axvline(pinned[0], color="black", linestyle=":", linewidth=1, label="the pinned commit")
        ax.set_title(short(repo, 2 * NAME_CHARACTERS), fontsize="medium")
        ax.set_ylabel("matches")
        count_axis(ax.yaxis, 5)
        ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0))  # beside the lines, not on them
        ax.spines[["top", "right"]].set_visible(False)
    figure.suptitle("Published terms over each tree's history (matches: byte counts at each commit)")
    return figure
