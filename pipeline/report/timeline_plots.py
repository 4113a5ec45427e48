"""The chart of a timeline (``pipeline.analysis.timeline``): adoption over time, tool rows beside byte counts.

``timeline_chart`` draws two panels over the same months. Above, servers: those alive at each period's
end, those declaring an annotations object on at least one tool (tool rows, the detector's), and those
whose tree names readOnlyHint at all (a byte count, any file). Below, readOnlyHint itself: the server
tools that set it against the matches a byte count finds. Where the two kinds of line part, byte counts
say something tool rows do not (or the other way round: one object of hints serving many tools). The
specification's date and each SDK's first release with tool
annotations (``timeline_events``) are vertical lines on both panels, named in the legend below.
"""

from __future__ import annotations

import math
from datetime import datetime, time

import polars as pl
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from pipeline.report.chart_text import count, count_axis, short
from pipeline.report.plots import ANNOTATED_COLOUR, LOOKALIKE_COLOUR, WIDTH_INCHES

#: the file the chart is written to
CHART = "timeline.png"
#: the colour of byte counts (a dashed line beside each tool-row line)
BYTES_COLOUR = "#ff7f0e"
#: the most period labels under the chart (every second, third... period is named past it)
MOST_TICKS = 9
#: the colours of the event lines, in the order of the events
EVENT_COLOURS = ("#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f")
#: the most characters of an event's name in the legend (two columns of them across the figure)
EVENT_CHARACTERS = 52
#: the styles of the event lines, in turn (two events days apart stay two lines)
EVENT_STYLES = (":", "--", "-.")
#: (column, label, colour, line style) of each panel
SERVERS = (("servers_alive", "servers alive (a commit by the period's end)", LOOKALIKE_COLOUR, "-"),
           ("servers_annotating", "servers declaring annotations on a tool (tool rows)", ANNOTATED_COLOUR, "-"),
           ("servers_read_only_matches", "servers whose tree names readOnlyHint (byte count)", BYTES_COLOUR, "--"))
READ_ONLY = (("read_only_tools", "server tools setting readOnlyHint true or false (tool rows)", ANNOTATED_COLOUR, "-"),
             ("read_only_matches", "readOnlyHint matches, every file (byte count)", BYTES_COLOUR, "--"))


def timeline_chart(adoption: pl.DataFrame, events: pl.DataFrame) -> Figure:
    """``timeline_adoption`` and ``timeline_events`` as the two panels the module describes."""
    figure = Figure(figsize=(WIDTH_INCHES, 7.4), layout="constrained")
    top, bottom = figure.subplots(2, 1, sharex=True)
    ends = adoption["period_end_utc"].to_list()
    at = list(range(len(ends)))  # a period's point stands at its end; the axis counts periods
    for ax, lines, label in ((top, SERVERS, "servers (repositories)"), (bottom, READ_ONLY, "readOnlyHint")):
        drawn = [ax.plot(at, adoption[column].fill_null(0).to_list(), color=colour, linestyle=style, marker="o",
                         markersize=3, label=name)[0] for column, name, colour, style in lines]
        ax.set_ylabel(label)
        ax.set_ylim(0, max([*(v or 0 for c, *_ in lines for v in adoption[c].to_list()), 1]) * 1.08)
        count_axis(ax.yaxis, 5)
        ax.spines[["top", "right"]].set_visible(False)
        ax.legend(handles=drawn, loc="best", fontsize="small")
    marks = _events(top, bottom, events, ends)
    stride = max(1, math.ceil(len(at) / MOST_TICKS))
    bottom.set_xticks(at[::stride], adoption["period"].to_list()[::stride])
    bottom.set_xlabel("the end of each period (a repository is read at its last commit by then)")
    alive = adoption["servers_alive"].to_list()
    first, last = (adoption["period"][0], adoption["period"][-1]) if adoption.height else ("", "")
    top.set_title(f"{count(alive[-1] if alive else 0)} servers, {first} to {last}: annotations in tool rows "
                  "and in byte counts", fontsize="medium")
    if marks:
        figure.legend(handles=marks, loc="outside lower center", ncols=2, fontsize="small",
                      title="the specification, and the first SDK releases with tool annotations")
    return figure


def _events(top: Axes, bottom: Axes, events: pl.DataFrame, ends: list[datetime]) -> list[Line2D]:
    """A vertical line per event on both panels; the top panel's lines, labelled with the event's date,
    name and version, for the figure's legend."""
    marks = []
    for k, row in enumerate(events.iter_rows(named=True)):
        when = _position(datetime.combine(row["date"], time()), ends)
        colour, style = EVENT_COLOURS[k % len(EVENT_COLOURS)], EVENT_STYLES[k % len(EVENT_STYLES)]
        label = short(f"{'by ' if row['bound'] else ''}{row['date']:%Y-%m-%d}: {row['what']} {row['version']}",
                      EVENT_CHARACTERS)
        marks.append(top.axvline(when, color=colour, linestyle=style, linewidth=1.5, label=label))
        bottom.axvline(when, color=colour, linestyle=style, linewidth=1.5)
    if ends:
        low = min([0.0, *(_position(datetime.combine(d, time()), ends) for d in events["date"].to_list())])
        pad = 0.5 + 0.05 * (len(ends) - 1 - low)  # room for the first and last period's names
        top.set_xlim(low - pad, len(ends) - 1 + pad)
    return marks


def _position(moment: datetime, ends: list[datetime]) -> float:
    """Where ``moment`` falls on an axis whose point ``k`` is ``ends[k]``: between two ends in proportion,
    before the first or after the last by the length of the first or last period."""
    if len(ends) < 2:
        return 0.0
    later = next((k for k, end in enumerate(ends) if moment <= end), len(ends) - 1)
    k = max(later, 1)
    span = (ends[k] - ends[k - 1]).total_seconds()
    return k + (moment - ends[k]).total_seconds() / span
