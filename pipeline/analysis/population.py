"""Statistics of a population of servers (the registry census): per server as well as per tool.

- ``servers_by_annotation``: each repository with server tools, how many of them declare an
  annotations object, and whether it annotates ``all``, ``some`` or ``none`` of them;
  ``annotation_classes`` counts the repositories (and their tools) in each class, so that a few
  large servers do not hide the many small ones;
- ``population_by_sdk``: server tools per SDK and language, with the repositories using each;
- ``seed_000_comparison``: seed 000's table (288 tools of 14 running servers) beside the same
  figures over the population, as declared in source and as a client receives them;
- ``caveats_by_kind``: how many repositories each caveat was found in;
- ``commit_years``: the years the scanned trees' commits date from (``unknown`` where the source
  gives no date: a GitHub archive);
- ``SEED_000``: that article's published figures, as data.
"""

from __future__ import annotations

import duckdb
import polars as pl

from pipeline.analysis.caveats import caveats
from pipeline.analysis.frames import frame
from pipeline.analysis.hints import COVERAGE_FIELDS, DECLARED, ON_WIRE, hint_coverage
from pipeline.scan.roles import SERVER

#: how much of its server tools a repository annotates
CLASSES = ("all", "some", "none")
#: seed 000's published figures: per field, (set, set true, set false), over 262 annotated of 288 tools
SEED_000_TOOLS, SEED_000_ANNOTATED = 288, 262
SEED_000: dict[str, tuple[int, int | None, int | None]] = {
    "readOnlyHint": (262, 145, 117), "destructiveHint": (49, 5, 44), "idempotentHint": (138, 126, 12),
    "openWorldHint": (44, 17, 27), "title": (13, None, None),
}
#: the field of ``seed_000_comparison`` that counts tools with an annotations object
ANNOTATED = "annotations object"


def servers_by_annotation(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """Per repository with a server tool, largest first: ``server_tools``, ``annotated_tools``
    (an annotations object in source), ``annotated_share`` and ``annotates`` (all, some, none)."""
    counted = frame(con, f"""
        SELECT t.repo, t.commit, count(*) AS server_tools,
               count(*) FILTER (WHERE t.annotations_source <> 'none') AS annotated_tools
        FROM tools t JOIN scope s ON s.repo = t.repo AND s.commit = t.commit
        WHERE t.is_mcp AND t.role = '{SERVER}'
        GROUP BY t.repo, t.commit ORDER BY server_tools DESC, lower(t.repo)""", manifest)
    share = pl.col("annotated_tools") / pl.col("server_tools")
    return counted.with_columns(
        annotated_share=share,
        annotates=pl.when(pl.col("annotated_tools") == pl.col("server_tools")).then(pl.lit("all"))
        .when(pl.col("annotated_tools") > 0).then(pl.lit("some")).otherwise(pl.lit("none")))


def annotation_classes(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """Per class (all, some, none): the repositories in it and their server tools."""
    counted = servers_by_annotation(con, manifest).group_by("annotates").agg(
        pl.len().alias("repositories"), pl.col("server_tools").sum().alias("server_tools"),
        pl.col("annotated_tools").sum().alias("annotated_tools"))
    grid = pl.DataFrame({"annotates": list(CLASSES)})
    return grid.join(counted, on="annotates", how="left").with_columns(
        pl.col("repositories", "server_tools", "annotated_tools").fill_null(0).cast(pl.Int64))


def population_by_sdk(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """Per MCP SDK (``protocol``: none), most tools first: its language, the repositories with a
    server tool through it, the server tools and those that declare an annotations object."""
    return frame(con, f"""
        SELECT t.sdk, c.language, count(DISTINCT t.repo) AS repositories, count(*) AS server_tools,
               count(*) FILTER (WHERE t.annotations_source <> 'none') AS annotated_tools,
               (count(*) FILTER (WHERE t.annotations_source <> 'none')) / count(*) AS annotated_share
        FROM tools t JOIN scope s ON s.repo = t.repo AND s.commit = t.commit
        LEFT JOIN sdk_catalog c ON c.sdk = t.sdk
        WHERE t.is_mcp AND t.role = '{SERVER}'
        GROUP BY t.sdk, c.language ORDER BY server_tools DESC, t.sdk""", manifest)


def seed_000_comparison(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """Seed 000's figures beside the population's, over server tools: one row for the tools with
    an annotations object (``ANNOTATED``), then one per hint and ``title``; for each, set / true
    / false in seed 000, declared in source (and ``source_dynamic``: written, not a literal), and
    on the wire (SDK defaults applied). ``*_tools`` is the number of tools each counts over."""
    coverage = hint_coverage(con, manifest)
    source, wire = (coverage.filter(pl.col("reading") == reading) for reading in (DECLARED, ON_WIRE))
    tools = int(source["tools"][0]) if source.height else 0
    rows: list[tuple[object, ...]] = [(ANNOTATED, SEED_000_TOOLS, SEED_000_ANNOTATED, None, None, tools,
             int(source["annotated_tools"][0]) if tools else 0, None, None, None,
             int(wire["annotated_tools"][0]) if tools else 0, None, None)]
    for field in COVERAGE_FIELDS:
        s, w = source.filter(pl.col("field") == field).row(0, named=True), wire.filter(pl.col("field") == field).row(
            0, named=True)
        seed = SEED_000[field]
        rows.append((field, SEED_000_TOOLS, *seed, tools, s["set"], s["set_true"], s["set_false"], s["set_dynamic"],
                     w["set"], w["set_true"], w["set_false"]))
    columns = ["field", "seed_000_tools", "seed_000_set", "seed_000_true", "seed_000_false", "source_tools",
               "source_set", "source_true", "source_false", "source_dynamic", "wire_set", "wire_true", "wire_false"]
    return pl.DataFrame(rows, schema={c: pl.String if c == "field" else pl.Int64 for c in columns}, orient="row")


def caveats_by_kind(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """Per caveat found (``stats.caveats``), the repositories it was found in, most first."""
    found = caveats(con, manifest).filter(pl.col("status") == "found")
    return found.group_by("caveat").agg(pl.col("repo").n_unique().alias("repositories")).sort(
        ["repositories", "caveat"], descending=[True, False])


def commit_years(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """Per year of the pinned commits' dates (``unknown`` without one), the scanned repositories."""
    return frame(con, """
        SELECT coalesce(CAST(year(n.committed_at_utc) AS VARCHAR), 'unknown') AS year, count(*) AS repositories,
               min(n.committed_at_utc)::DATE::VARCHAR AS first, max(n.committed_at_utc)::DATE::VARCHAR AS last
        FROM scope s JOIN snapshots n ON n.repo = s.repo AND n.commit = s.commit
        WHERE s.status = 'scanned' GROUP BY 1 ORDER BY 1""", manifest)
