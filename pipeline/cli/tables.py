"""The tables ``census run`` and ``census scan`` print: what was run for, made to fit a terminal.

- ``tools_table``: one row per repository, its MCP tools by role (server tools first, with those
  that declare annotations in source), short commits, names never broken;
- ``published_table``: for entries with ``published`` figures, published and measured side by
  side with the difference;
- ``totals_table`` (``--wide``): every column of ``stats.repo_totals``, the per-term counts
  included, as wide as it needs.

A skipped repository's reason is printed under the table (``skipped_lines``), not in a column.
Only the CLI imports this module.
"""

from __future__ import annotations

import polars as pl
from rich import box
from rich.table import Table

#: ``repo_totals`` tool columns -> their header in the terminal table (two short lines each, so that
#: the table of a 35-letter repository name fits 80 columns)
TOOL_HEADERS = {"server_tools": "server\ntools", "annotated_server_tools": "annot-\nated",
                "example_tools": "example\ntools", "test_tools": "test\ntools", "lookalike_tools": "look-\nalike"}
#: ``published_vs_measured`` columns -> their header
PUBLISHED_HEADERS = {"repo": "repo", "term": "term", "published": "published", "measured": "measured",
                     "difference": "difference"}
SHORT_COMMIT = 7
#: the line under ``tools_table``
NOTE = ("server tools: the MCP tools a server ships; annotated: those of them that declare annotations in "
        "source; example, test tools: MCP tools of examples and tests; look-alike: tools of libraries that are "
        "not MCP. Term counts: --wide, or census report.")


def tools_title(frame: pl.DataFrame, manifest: str, wide: bool = False) -> str:
    """The line above ``tools_table`` (or, ``wide``, ``totals_table``): the manifest, and how many
    of its repositories were scanned."""
    scanned = frame.filter(pl.col("status") == "scanned").height
    skipped = f", {frame.height - scanned} not" if scanned < frame.height else ""
    what = "term counts and MCP tools by role" if wide else "MCP tools by role"
    return f"{manifest}: {what}, {frame.height} repositories ({scanned} scanned{skipped})"


def tools_table(frame: pl.DataFrame) -> Table:
    """``stats.repo_totals`` as the tools-by-role table (per-term columns left to ``--wide``); a
    repository not scanned has no numbers (``skipped_lines`` says why)."""
    table = _table()
    table.add_column("repo", no_wrap=True)
    table.add_column("commit", no_wrap=True)
    for column, header in TOOL_HEADERS.items():
        table.add_column(header, justify="right", min_width=_digits(frame, column))
    for row in frame.iter_rows(named=True):
        table.add_row(row["repo"], _commit(row["commit"]), *(_number(row[c]) for c in TOOL_HEADERS))
    return table


#: the line above ``published_table``
PUBLISHED_TITLE = "published vs measured: matches of each term (case-insensitive byte counts)"


def published_table(frame: pl.DataFrame) -> Table | None:
    """The rows of ``stats.published_vs_measured`` with a published figure, or ``None`` when the
    manifest publishes none."""
    rows = frame.filter(pl.col("published").is_not_null())
    if rows.is_empty():
        return None
    table = _table()
    for column, header in PUBLISHED_HEADERS.items():
        numeric = column not in ("repo", "term")
        table.add_column(header, justify="right" if numeric else "left", no_wrap=not numeric,
                         min_width=_digits(rows, column) if numeric else None)
    for row in rows.iter_rows(named=True):
        difference = row["difference"]
        table.add_row(row["repo"], row["term"], _number(row["published"]), _number(row["measured"]),
                      "" if difference is None else f"{difference:+d}" if difference else "0")
    return table


def skipped_lines(frame: pl.DataFrame) -> list[str]:
    """``skipped OWNER/NAME@COMMIT: REASON`` for every repository not scanned."""
    rows = frame.filter(pl.col("status") != "scanned").iter_rows(named=True)
    return [f"{row['status']} {row['repo']}@{_commit(row['commit']) or '?'}: {row['skip_reason'] or ''}"
            for row in rows]


def totals_table(frame: pl.DataFrame) -> Table:
    """Every column of ``stats.repo_totals`` (counts right-aligned, reasons last), for ``--wide``."""
    table = Table()
    for column in frame.columns:
        numeric = frame.schema[column].is_numeric()
        table.add_column(column, justify="right" if numeric else "left", no_wrap=column in ("repo", "commit"))
    for row in frame.iter_rows():
        cells = (_commit(v, 12) if c == "commit" else "" if v is None else str(v)
                 for c, v in zip(frame.columns, row, strict=True))
        table.add_row(*cells)
    return table


def _table() -> Table:
    """A compact table: a rule under the header, one space between columns (its title and note are
    lines of their own, wrapped to the terminal, so that a narrow table never folds them)."""
    return Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 0))


def _digits(frame: pl.DataFrame, column: str) -> int:
    """The width of the longest number of ``column`` (so a number never wraps)."""
    return max((len(_number(v)) for v in frame[column].to_list()), default=1) or 1


def _number(value: object) -> str:
    return "" if value is None else str(value)


def _commit(value: object, length: int = SHORT_COMMIT) -> str:
    return str(value)[:length] if value else ""


def number_table(frame: pl.DataFrame, headers: dict[str, str]) -> Table:
    """The ``headers`` columns of ``frame`` (a statistic's frame), numbers right-aligned, shares as
    whole percentages, a missing value as a dash."""
    table = _table()
    for column, header in headers.items():
        table.add_column(header, justify="left" if frame.schema[column] == pl.String else "right", no_wrap=True)
    for row in frame.iter_rows(named=True):
        table.add_row(*(_cell(row[c]) for c in headers))
    return table


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.0%}"
    return str(value)
