"""The runtime census of a population: what installed servers sent, against what their source declares.

Over the captures ``census probe-registry`` stored (those with a package), each paired through
``runtime_servers`` with its repository (and subfolder) at the manifest's pinned commit:

- ``package_captures``: one row per package, the step it reached (``STEPS``) and its cause, its tools, and
  the package's release date against the pinned commit's date (``version_vs_commit``);
- ``probe_funnel``: how many packages each cause stopped (``pipeline.runtime.causes``);
- ``runtime_seed_000``: seed 000's table again, from the tools/list answers of the servers
  that answered;
- the detector against the answers, name by name: ``pipeline.analysis.source_vs_wire``.
"""

from __future__ import annotations

import duckdb
import polars as pl

from pipeline.analysis.frames import frame
from pipeline.analysis.population import SEED_000, SEED_000_ANNOTATED, SEED_000_TOOLS
from pipeline.analysis.runtime import runtime_hint_coverage
from pipeline.runtime.causes import CAUSES, classify
from pipeline.store.runtime import ensure_readable

#: the steps of a package, in order; a capture's step is its reason's first word, ``ok`` when it answered
STEPS = ("resolve", "variables", "transport", "install", "start", "initialize", "tools/list", "ok")
#: two ``owner/name`` are one repository: the same owner, and names alike but for case and
#: separators (a repository renamed ``kagimcp`` -> ``kagi-mcp`` keeps its owner; GitHub redirects it)
#: (SQL) whether repositories ``a`` and ``b`` (``owner/name``) are one
SAME_REPOSITORY = ("(lower(split_part({a}, '/', 1)) = lower(split_part({b}, '/', 1)) AND "
         "regexp_replace(lower(split_part({a}, '/', 2)), '[^a-z0-9]', '', 'g') = "
         "regexp_replace(lower(split_part({b}, '/', 2)), '[^a-z0-9]', '', 'g'))")

PAIRED = f"""
captured AS (
    SELECT c.server, c.status, c.reason, c.cause, c.transport, c.package_registry, c.package_name,
           c.package_requested_version,
           c.package_version, c.package_repository,
           CASE WHEN c.package_repository IS NOT NULL AND r.repo IS NOT NULL
                THEN {SAME_REPOSITORY.format(a="c.package_repository", b="r.repo")} END AS same_repository,
           c.package_released_at_utc, r.repo, r.subfolder
    FROM runtime_captures c LEFT JOIN runtime_servers r ON r.server = c.server
    WHERE c.package_name IS NOT NULL
),
paired AS (
    SELECT c.*, s.commit, n.committed_at_utc,
           date_diff('day', n.committed_at_utc, c.package_released_at_utc) AS released_minus_commit_days,
           CASE WHEN b.commit = s.commit THEN b.rule END AS rule,
           CASE WHEN b.commit = s.commit AND b.names_sent > 0
                THEN (b.names_sent - len(b.names_absent)) / b.names_sent END AS names_in_tree,
           CASE WHEN b.commit = s.commit AND b.names_sent > 0 THEN b.names_absent END AS names_absent
    FROM captured c
    LEFT JOIN (SELECT DISTINCT repo, commit FROM scope WHERE status = 'scanned') s ON s.repo = c.repo
    LEFT JOIN snapshots n ON n.repo = s.repo AND n.commit = s.commit
    LEFT JOIN runtime_built_from b ON b.server = c.server
),
source AS (
    SELECT p.server, t.tool_name, any_value(t.sdk) AS sdk, count(*) AS definitions,
           bool_and(coalesce(t.conditional, false)) AS conditional,
           bool_or(ends_with(t.rule, '-dynamic')) AS made_at_run_time
    FROM paired p JOIN tools t ON t.repo = p.repo AND t.commit = p.commit
    WHERE p.status = 'ok' AND t.is_mcp AND t.role = 'server'
      AND (p.subfolder IS NULL OR t.path = p.subfolder OR starts_with(t.path, p.subfolder || '/'))
    GROUP BY p.server, t.tool_name
),
received AS (
    SELECT DISTINCT r.server, r.tool_name FROM runtime_tools r JOIN paired p ON p.server = r.server
    WHERE p.status = 'ok' AND p.commit IS NOT NULL AND r.tool_name IS NOT NULL
),
sides AS (
    SELECT coalesce(s.server, r.server) AS server, coalesce(s.tool_name, r.tool_name) AS tool_name,
           s.server IS NOT NULL AS in_source, r.server IS NOT NULL AS at_runtime,
           coalesce(s.conditional, false) AS conditional
    FROM (SELECT * FROM source WHERE tool_name IS NOT NULL) s FULL OUTER JOIN received r
        ON r.server = s.server AND r.tool_name = s.tool_name
)"""


def package_captures(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """One row per package capture, by server: the package, the ``step`` it reached, its reason,
    tools received, its repository and pinned ``commit``, and the version's release date
    against the commit's (``released_minus_commit_days``; ``version_vs_commit``: ``package
    newer``, ``package older``, ``same day`` or ``unknown``), and how it was captured (``transport``:
    ``recorded`` for a catalog's record, ``pipeline.runtime.recorded``)."""
    ensure_readable(con)
    rows = frame(con, """
        SELECT p.server, p.package_registry AS registry, p.package_name AS package,
               p.package_requested_version AS requested_version, p.package_version AS version,
               CASE WHEN p.status = 'ok' THEN 'ok' ELSE regexp_extract(p.reason, '^(tools/list|[a-z]+)') END
                   AS step, p.reason, p.status, p.cause,
               CASE WHEN p.status = 'ok' THEN coalesce(t.tools, 0) END AS tools,
               CASE WHEN p.status = 'ok' THEN coalesce(t.annotated, 0) END AS annotated_tools,
               p.repo, p.subfolder, p.package_repository, p.same_repository, p.commit,
               p.package_released_at_utc AS released_at_utc, p.committed_at_utc,
               p.released_minus_commit_days,
               CASE WHEN p.released_minus_commit_days IS NULL THEN 'unknown'
                    WHEN p.released_minus_commit_days > 0 THEN 'package newer'
                    WHEN p.released_minus_commit_days < 0 THEN 'package older' ELSE 'same day' END AS version_vs_commit,
               p.transport
        FROM paired p LEFT JOIN (
            SELECT server, count(*) AS tools,
                   count(*) FILTER (WHERE json_type(annotations_json) = 'OBJECT') AS annotated
            FROM runtime_tools GROUP BY server) t ON t.server = p.server
        ORDER BY p.server""", manifest, ctes=PAIRED)
    causes = [cause or classify(status, reason).cause for cause, status, reason in
              zip(rows["cause"].to_list(), rows["status"].to_list(), rows["reason"].to_list(), strict=True)]
    return rows.with_columns(pl.Series("cause", causes, dtype=pl.String)).drop("status")


def probe_funnel(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """Per cause of ``pipeline.runtime.causes.CAUSES``: the packages it stopped (``answered``: those
    that answered) and their tools."""
    captures = package_captures(con, manifest)
    counts = captures.group_by("cause").agg(pl.len().alias("packages"), pl.col("tools").sum().alias("tools"))
    grid = pl.DataFrame({"cause": list(CAUSES)})
    return grid.join(counts, on="cause", how="left", maintain_order="left").with_columns(
        pl.col("packages").fill_null(0).cast(pl.Int64), pl.col("tools").fill_null(0).cast(pl.Int64))


def runtime_seed_000(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """Seed 000's figures beside the same figures from the tools/list answers of the packages
    that answered: per field, set / true / false in seed 000 and received."""
    answered = package_captures(con, manifest).filter(pl.col("step") == "ok")["server"].to_list()
    coverage = runtime_hint_coverage(con, answered)
    rows = []
    for row in coverage.iter_rows(named=True):
        seed = SEED_000[row["field"]]
        rows.append((row["field"], SEED_000_TOOLS, SEED_000_ANNOTATED, *seed, row["servers"], row["tools"],
                     row["annotated_tools"], row["set"], row["set_true"], row["set_false"], row["set_other"]))
    columns = ["field", "seed_000_tools", "seed_000_annotated", "seed_000_set", "seed_000_true", "seed_000_false",
               "servers", "received_tools", "received_annotated", "received_set", "received_true",
               "received_false", "received_other"]
    return pl.DataFrame(rows, schema={c: pl.String if c == "field" else pl.Int64 for c in columns}, orient="row")
