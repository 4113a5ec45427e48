"""A runtime census on its own: what the packages of a registry send on the wire, with no source
scanned (``census probe-registry`` into a database, then ``census report --runtime NAME``).

Each function is one polars frame over the runtime tables (``pipeline.store.runtime``):

- ``captures``: one row per package: its cause (``pipeline.runtime.causes``: a capture stored
  before causes were, is classified from its reason), the line that shows it, the stand-ins it
  was started with, the SDK installed with it, its tools and annotated tools;
- ``answer_rates``: how many of the packages that resolved answered, all and by whether the
  installed package was built from the repository the registry lists;
- ``cause_funnel``: packages per cause, in ``CAUSES`` order, with how many were started with
  stand-ins and the tools received;
- ``draw_summary`` and ``unresolved``: the seeded sample (``runtime_draws``): its seed, size and
  what it was drawn from, and every drawn package that did not resolve;
- ``wire_seed_000``: seed 000's table from the tools/list answers of every server that answered;
- ``server_shares``: each answering server's share of tools with an annotations object, and
  ``share_bands``: how many servers fall in each band (none, some, all);
- ``hints_by_sdk``: per installed SDK, servers, tools, annotated tools and each hint set.
"""

from __future__ import annotations

import duckdb
import polars as pl

from pipeline.analysis.population import SEED_000, SEED_000_ANNOTATED, SEED_000_TOOLS
from pipeline.analysis.runtime import COVERAGE_FIELDS, runtime_hint_coverage
from pipeline.analysis.runtime_population import SAME_REPOSITORY
from pipeline.runtime.causes import CAUSES, classify
from pipeline.store.runtime import ensure_readable

_CAPTURES = """
    SELECT c.server, c.package_registry AS registry, c.package_name AS package, c.package_version AS version,
           c.status, c.reason, c.cause, c.cause_line, coalesce(c.stand_ins, []) AS stand_ins,
           coalesce(c.package_sdk, 'unknown') AS sdk, s.repo AS listed_repository,
           c.package_repository AS built_from,
           CASE WHEN c.package_repository IS NOT NULL AND s.repo IS NOT NULL
                THEN {same} END AS same_repository,
           CASE WHEN c.status = 'ok' THEN coalesce(t.tools, 0) END AS tools,
           CASE WHEN c.status = 'ok' THEN coalesce(t.annotated, 0) END AS annotated_tools
    FROM runtime_captures c LEFT JOIN runtime_servers s ON s.server = c.server LEFT JOIN (
        SELECT server, count(*) AS tools, count(*) FILTER (WHERE json_type(annotations_json) = 'OBJECT') AS annotated
        FROM runtime_tools GROUP BY server) t ON t.server = c.server
    WHERE c.package_name IS NOT NULL
    ORDER BY c.server""".replace("{same}", SAME_REPOSITORY.format(a="c.package_repository", b="s.repo"))
#: the bands of ``share_bands``
BANDS = ("no tool annotated", "some annotated", "every tool annotated")


def captures(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """One row per package capture (module doc)."""
    ensure_readable(con)
    rows: pl.DataFrame = con.sql(_CAPTURES).pl()
    causes = [cause or classify(status, reason).cause for cause, status, reason in
              zip(rows["cause"].to_list(), rows["status"].to_list(), rows["reason"].to_list(), strict=True)]
    return rows.with_columns(pl.Series("cause", causes, dtype=pl.String),
                             (pl.col("stand_ins").list.len() > 0).alias("stood_in"))


def cause_funnel(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Packages per cause (``CAUSES`` order), started with stand-ins among them, tools received."""
    counts = captures(con).group_by("cause").agg(
        pl.len().alias("packages"), pl.col("stood_in").sum().alias("with_stand_ins"),
        pl.col("tools").sum().alias("tools"))
    grid = pl.DataFrame({"cause": list(CAUSES)})
    return grid.join(counts, on="cause", how="left", maintain_order="left").with_columns(
        pl.col("packages", "with_stand_ins", "tools").fill_null(0).cast(pl.Int64))


def answer_rates(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Of the packages that resolved, how many answered: all of them, then by what the installed
    package says it was built from against the repository the registry lists (a package index
    name taken by another project is not the server: it has nothing to start, or starts another)."""
    resolved = captures(con).filter(pl.col("cause") != "resolve")
    groups = [("every package that resolved", pl.lit(True)),
              ("built from the listed repository", pl.col("same_repository").fill_null(False)),
              ("built from another repository", ~pl.col("same_repository").fill_null(True)),
              ("names no repository, or none listed", pl.col("same_repository").is_null())]
    rows = []
    for label, keep in groups:
        chosen = resolved.filter(keep)
        answered = chosen.filter(pl.col("cause") == "answered").height
        rows.append({"packages": label, "resolved": chosen.height, "answered": answered,
                     "share": answered / chosen.height if chosen.height else None})
    return pl.DataFrame(rows, schema={"packages": pl.String, "resolved": pl.Int64, "answered": pl.Int64,
                                      "share": pl.Float64})


def draw_summary(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """The stored sample's seed, size and source (no rows when the census was not a sample); a
    local source by its name only, so that no path of the machine it ran on is kept."""
    ensure_readable(con)
    summary: pl.DataFrame = con.sql("""
        SELECT any_value(source) AS source, any_value(seed) AS seed, any_value(offered) AS offered,
               any_value(wanted) AS wanted, count(*) AS drawn, count(*) FILTER (WHERE resolved) AS resolved
        FROM runtime_draws HAVING count(*) > 0""").pl()
    local = ~pl.col("source").str.contains(r"^[a-z][a-z0-9+.-]*://")
    name = pl.col("source").str.strip_chars_end("/").str.replace(r"^.*/", "")
    return summary.with_columns(pl.when(local).then(name).otherwise(pl.col("source")).alias("source"))


def unresolved(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Every drawn package that did not resolve, in draw order, with the reason."""
    ensure_readable(con)
    rows: pl.DataFrame = con.sql("""
        SELECT d.draw_index, d.server, c.package_registry AS registry, c.package_name AS package, c.reason
        FROM runtime_draws d LEFT JOIN runtime_captures c ON c.server = d.server
        WHERE NOT d.resolved ORDER BY d.draw_index""").pl()
    return rows


def wire_seed_000(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Seed 000's table beside the same figures from every server that answered."""
    answered = captures(con).filter(pl.col("status") == "ok")["server"].to_list()
    coverage = runtime_hint_coverage(con, answered)
    return pl.DataFrame([
        {"field": row["field"], "seed_000_tools": SEED_000_TOOLS, "seed_000_annotated": SEED_000_ANNOTATED,
         **dict(zip(("seed_000_set", "seed_000_true", "seed_000_false"), SEED_000[row["field"]], strict=True)),
         "servers": row["servers"], "received_tools": row["tools"], "received_annotated": row["annotated_tools"],
         "received_set": row["set"], "received_true": row["set_true"], "received_false": row["set_false"]}
        for row in coverage.iter_rows(named=True)])


def server_shares(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Each answering server with tools: its tools, annotated tools, share and band."""
    answered = captures(con).filter((pl.col("status") == "ok") & (pl.col("tools") > 0))
    return answered.select("server", "package", "sdk", "tools", "annotated_tools").with_columns(
        share=pl.col("annotated_tools") / pl.col("tools"),
        band=pl.when(pl.col("annotated_tools") == 0).then(pl.lit(BANDS[0]))
        .when(pl.col("annotated_tools") == pl.col("tools")).then(pl.lit(BANDS[2])).otherwise(pl.lit(BANDS[1])))


def share_bands(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """How many answering servers annotate none, some or every one of their tools."""
    counts = server_shares(con).group_by("band").agg(pl.len().alias("servers"), pl.col("tools").sum())
    return pl.DataFrame({"band": list(BANDS)}).join(counts, on="band", how="left", maintain_order="left").with_columns(
        pl.col("servers", "tools").fill_null(0).cast(pl.Int64))


def hints_by_sdk(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per SDK installed with the answering servers: servers, tools, annotated, and each hint set."""
    answered = captures(con).filter(pl.col("status") == "ok")
    rows = []
    for sdk, servers in answered.group_by("sdk", maintain_order=True).agg(pl.col("server")).iter_rows():
        coverage = {r["field"]: r for r in runtime_hint_coverage(con, servers).iter_rows(named=True)}
        first = coverage[COVERAGE_FIELDS[0]]
        rows.append({"sdk": sdk, "servers": len(servers), "tools": first["tools"],
                     "annotated_tools": first["annotated_tools"],
                     **{f"{field}_set": coverage[field]["set"] for field in COVERAGE_FIELDS}})
    return pl.DataFrame(rows).sort(["servers", "sdk"], descending=[True, False]) if rows else pl.DataFrame()
