"""The report of a runtime census (``census report --runtime NAME``): what a registry's packages
send on the wire, every number from ``pipeline.analysis.runtime_census``.

``README.md`` holds the sample (when the census was drawn as one), the funnel by cause with its
chart, seed 000's table on the wire, the servers by the share of their tools that carry
annotations, and the hints by installed SDK; ``packages.md`` lists every package with its cause
and the line that shows it, and every drawn package that did not resolve. The frames are
exported under ``data/`` and the pages rebuilt from them byte for byte (``rebuild``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, fields
from pathlib import Path

import duckdb
import polars as pl
from matplotlib.figure import Figure

from pipeline.analysis import runtime_census
from pipeline.report import population_plots
from pipeline.report.tables import markdown_table, write_page

LAYOUT = "runtime"
DATA_DIR = "data"
CHART = "cause-funnel.png"
#: a path of the machine the census ran on, in a reason or a line (the sandbox's own stay)
_LOCAL = re.compile(r"(?<![\w$])/(?!home/census\b)(?:root|home/[^/\s]+|tmp|work|opt|usr/local|var)/[^\s:'\")]*")


@dataclass(frozen=True)
class RuntimeCensusData:
    """The frames of a runtime census report."""

    name: str
    captures: pl.DataFrame
    answer_rates: pl.DataFrame
    cause_funnel: pl.DataFrame
    draw_summary: pl.DataFrame
    unresolved: pl.DataFrame
    wire_seed_000: pl.DataFrame
    share_bands: pl.DataFrame
    server_shares: pl.DataFrame
    hints_by_sdk: pl.DataFrame


TABLES = tuple(f.name for f in fields(RuntimeCensusData) if f.name != "name")


def collect(con: duckdb.DuckDBPyConnection, name: str) -> RuntimeCensusData:
    """Every frame of the report, from the database's runtime tables."""
    captures = runtime_census.captures(con).select(
        "server", "registry", "package", "version", "status", "cause", "cause_line", "stood_in",
        pl.col("stand_ins").list.join(", "), "sdk", "listed_repository", "built_from", "same_repository", "tools",
        "annotated_tools").with_columns(_scrubbed("cause_line"))
    return RuntimeCensusData(
        name, captures, runtime_census.answer_rates(con), runtime_census.cause_funnel(con),
        runtime_census.draw_summary(con),
        runtime_census.unresolved(con).with_columns(_scrubbed("reason")),
        runtime_census.wire_seed_000(con), runtime_census.share_bands(con), runtime_census.server_shares(con),
        runtime_census.hints_by_sdk(con))


def render(data: RuntimeCensusData) -> str:
    """``README.md``."""
    funnel = data.cause_funnel
    total = int(funnel["packages"].sum())
    unresolved = int(funnel.filter(pl.col("cause") == "resolve")["packages"].sum())
    answered = int(funnel.filter(pl.col("cause") == "answered")["packages"].sum())
    stood = int(data.captures.filter(pl.col("stood_in") & (pl.col("status") == "ok")).height)
    parts = [f"# Runtime census: {data.name}", "",
             f"Of {total} packages, {total - unresolved} resolved on their index; each was installed and started in "
             f"a sandbox (`census probe-registry`) and asked for its tools: **{answered} answered** "
             f"({_share(answered, total - unresolved)} of those that resolved), {stood} of them started with "
             "stand-ins for declared variables or placeholder arguments. Every failure has one cause of a closed "
             "list (`pipeline.runtime.causes`); each package, its cause and the line that shows it: "
             "[packages.md](packages.md).", ""]
    if not data.draw_summary.is_empty():
        row = data.draw_summary.row(0, named=True)
        parts += ["## The sample", "",
                  f"Drawn from {row['offered']} npm and PyPI packages of `{Path(str(row['source'])).name}` in the "
                  f"order of `random.Random({row['seed']})`, until {row['resolved']} resolved on their index "
                  f"(asked for: {row['wanted']}): {row['drawn']} drawn, {row['drawn'] - row['resolved']} did not "
                  "resolve (listed in [packages.md](packages.md)).", ""]
    parts += ["## What became of each package", "", markdown_table(funnel), "",
              "Of those that resolved, how many answered, by what the installed package says it was built from "
              "against the repository the registry lists: a name on the index taken by another project is not "
              "the server.", "", markdown_table(data.answer_rates), "",
              f"![Registry packages: answered, or the cause that stopped them]({CHART})", "",
              "## Seed 000's table on the wire", "",
              "Seed 000 counted 288 tools of 14 servers; here every tool of every server that answered.", "",
              markdown_table(data.wire_seed_000), "",
              "## Servers by the share of their tools that carry annotations", "",
              markdown_table(data.share_bands), "",
              "## Hints by the SDK installed with the server", "", markdown_table(data.hints_by_sdk), ""]
    return "\n".join(parts)


def packages_page(data: RuntimeCensusData) -> str:
    """``packages.md``: every package and what became of it; every drawn package that did not resolve."""
    listed = data.captures.filter(pl.col("cause") != "resolve") if not data.unresolved.is_empty() else data.captures
    shown = listed.select("server", "package", "version", "cause", "tools", "stand_ins", "cause_line")
    parts = [f"# {data.name}: every package", "", markdown_table(shown), ""]
    if not data.unresolved.is_empty():
        parts += ["## Drawn, not resolved", "", markdown_table(data.unresolved), ""]
    return "\n".join(parts)


def charts(data: RuntimeCensusData) -> dict[str, Figure]:
    """The funnel by cause."""
    return {CHART: population_plots.funnel_chart(data.cause_funnel)}


def export(data: RuntimeCensusData, folder: Path) -> list[Path]:
    """The frames as ``folder/data/<table>.parquet`` and ``report.json`` naming the layout."""
    target = folder / DATA_DIR
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name in TABLES:
        getattr(data, name).write_parquet(target / f"{name}.parquet")
        written.append(target / f"{name}.parquet")
    meta = target / "report.json"
    meta.write_text(json.dumps({"manifest": data.name, "layout": LAYOUT, "tables": list(TABLES)}, indent=2) + "\n",
                    encoding="utf-8")
    return [*written, meta]


def load(folder: Path) -> RuntimeCensusData:
    """The frames ``export`` wrote into ``folder``."""
    meta = json.loads((folder / DATA_DIR / "report.json").read_text(encoding="utf-8"))
    return RuntimeCensusData(meta["manifest"], **{name: pl.read_parquet(folder / DATA_DIR / f"{name}.parquet")
                                                  for name in TABLES})


def write(data: RuntimeCensusData, folder: Path) -> list[Path]:
    """``README.md``, ``packages.md``, the chart and the data export; the written paths."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "packages.md").write_text(packages_page(data), encoding="utf-8")
    return [*write_page(folder, export(data, folder), charts(data), render(data)), folder / "packages.md"]


def _scrubbed(column: str) -> pl.Expr:
    """``column`` with each path of this machine written ``DIR``: not for a committed page."""
    return pl.col(column).map_elements(lambda text: _LOCAL.sub("DIR", text), return_dtype=pl.String)


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "none"
