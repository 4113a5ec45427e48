"""The building blocks of a report's Markdown: tables, the text of their cells, and chart images.

A table's numbers are right-aligned; a missing value is an en dash (``NO_VALUE``), a share a
percentage rounded half up. ``CHARTS`` names every chart file with its alt text.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import polars as pl
from matplotlib.figure import Figure

#: the chart of the runtime truth section, drawn only when a server is paired with a repository
AGREEMENT_CHART = "runtime-agreement.png"
#: the chart of the published trees over time, drawn only when ``census history`` stored them
HISTORY_CHART = "history.png"
#: chart file -> its alt text
CHARTS = {
    "published-vs-measured.png": "Published vs measured matches, stacked by where they sit",
    "tools-by-role.png": "Tool definitions by repository and role: server, example, test, and look-alikes",
    "tools-by-sdk.png": "Server tool definitions by repository and library",
    "hint-coverage.png": "MCP tool definitions that declare each field, in source and on the wire",
    AGREEMENT_CHART: "Per hint, tools in source and received at run time: how the two agree",
    HISTORY_CHART: "Each published term's count over the tree's history, the published figure and the pinned commit",
}
NO_VALUE = "\N{EN DASH}"


def markdown_table(frame: pl.DataFrame, headers: Mapping[str, str] | None = None,
                   formats: Mapping[str, Callable[[Any], str]] | None = None) -> str:
    """``frame`` as a Markdown table: ``headers`` picks and names the columns (default: all,
    as they are), ``formats`` formats the cells of a column; numbers are right-aligned."""
    headers = headers or {c: c for c in frame.columns}
    numeric = [frame.schema[c].is_numeric() for c in headers]
    lines = ["| " + " | ".join(headers.values()) + " |",
             "|" + "|".join("--:" if n else "---" for n in numeric) + "|"]
    for row in frame.select(list(headers)).iter_rows(named=True):
        cells = [(formats or {}).get(c, cell_text)(row[c]) for c in headers]
        lines.append("| " + " | ".join(_escape(cell) for cell in cells) + " |")
    return "\n".join(lines) if len(frame) else "\n".join([*lines, "| " + " | ".join(["(none)"] * len(headers)) + " |"])


def cell_text(value: Any) -> str:
    """``value`` as the text of a table cell (the default format of ``markdown_table``)."""
    if value is None:
        return NO_VALUE
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{math.floor(value * 100 + 0.5)}%"  # half up: 62.5% is 63%
    if isinstance(value, list):
        return ", ".join(map(str, value)) or NO_VALUE
    return str(value)


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def commit(value: Any) -> str:
    """A commit SHA as a table cell: its first 12 characters."""
    return str(value)[:12] if value else NO_VALUE


def image(name: str) -> str:
    """The Markdown image of chart file ``name``, with its alt text from ``CHARTS``."""
    return f"![{CHARTS[name]}]({name})"


def png_bytes(figure: Figure) -> bytes:
    """``figure`` as PNG bytes, without the software stamp (so equal figures give equal bytes)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, metadata={"Software": None})
    return buffer.getvalue()


def write_page(folder: Path, exported: list[Path], figures: Mapping[str, Figure], markdown: str) -> list[Path]:
    """A report's charts (as PNG) and ``README.md`` into ``folder``, after its ``exported`` data
    files: every written path, the page first."""
    written = list(exported)
    for name, figure in figures.items():
        (folder / name).write_bytes(png_bytes(figure))
        written.append(folder / name)
    readme = folder / "README.md"
    readme.write_text(markdown, encoding="utf-8", newline="\n")
    return [readme, *written]
