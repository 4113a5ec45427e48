"""The runtime census of a population: what installed servers sent, against what their source declares.

Over the captures ``census probe-registry`` stored (those with a package), each paired through
``runtime_servers`` with its repository (and subfolder) at the manifest's pinned commit:

- ``package_captures``: one row per package, the step it reached (``STEPS``) and its cause, its tools, and
  the package's release date against the pinned commit's date (``version_vs_commit``);
- ``probe_funnel``: how many packages each cause stopped (``pipeline.runtime.causes``);
- ``runtime_seed_000``: seed 000's table again, from the tools/list answers of the servers
  that answered;
- ``detector_vs_runtime``: per server that answered, tool names received against the
  detector's server tools in its folder: matched, only at run time, only in source, with the
  detector's precision and recall; ``detector_accuracy`` sums them by SDK or language;
- ``runtime_disagreements``: every tool name on one side only, with its likely cause.
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb
import polars as pl

from pipeline.analysis.frames import frame
from pipeline.analysis.population import SEED_000, SEED_000_ANNOTATED, SEED_000_TOOLS
from pipeline.analysis.runtime import runtime_hint_coverage
from pipeline.runtime.causes import CAUSES, classify
from pipeline.store.runtime import ensure_readable

#: the steps of a package, in order; a capture's step is its reason's first word, ``ok`` when it answered
STEPS = ("resolve", "variables", "transport", "install", "start", "initialize", "tools/list", "ok")
#: a package released within this many days of the pinned commit is compared as the same code
NEAR_DAYS = 30
#: causes of ``runtime_disagreements``: a tool sent by a package released after the pinned commit
#: may have been added since, one in a source newer than the package may be new; a package far
#: older than the commit may have lost a tool since; only what is left is the detector's (a
#: tool sent, not found, by a package no newer than the commit) or the server's (not sent)
PACKAGE_NEWER = "package released after the pinned commit: added since the commit, or a detector miss"
PACKAGE_OLDER = "package released before the pinned commit: renamed or removed since, or a detector miss"
SOURCE_NEWER = "source newer than the package: added since the release, or not sent"
SOURCE_OLDER = "source older than the package: removed since the commit, or not sent"
BUILT_AT_RUN_TIME = "the source registers tools whose names are made at run time"
OTHER_REPOSITORY = "the package is built from another repository: not the code that was scanned"
DETECTOR_MISS = "detector miss: sent by the server, not found in its source"
NOT_SENT = "not sent: registered behind a flag, a variable or a condition, or never registered"

#: two ``owner/name`` are one repository: the same owner, and names alike but for case and
#: separators (a repository renamed ``kagimcp`` -> ``kagi-mcp`` keeps its owner; GitHub redirects it)
#: (SQL) whether repositories ``a`` and ``b`` (``owner/name``) are one
SAME_REPOSITORY = _SAME = ("(lower(split_part({a}, '/', 1)) = lower(split_part({b}, '/', 1)) AND "
         "regexp_replace(lower(split_part({a}, '/', 2)), '[^a-z0-9]', '', 'g') = "
         "regexp_replace(lower(split_part({b}, '/', 2)), '[^a-z0-9]', '', 'g'))")

_PAIRED = f"""
captured AS (
    SELECT c.server, c.status, c.reason, c.cause, c.package_registry, c.package_name, c.package_requested_version,
           c.package_version, c.package_repository,
           CASE WHEN c.package_repository IS NOT NULL AND r.repo IS NOT NULL
                THEN {_SAME.format(a="c.package_repository", b="r.repo")} END AS same_repository,
           c.package_released_at_utc, r.repo, r.subfolder
    FROM runtime_captures c LEFT JOIN runtime_servers r ON r.server = c.server
    WHERE c.package_name IS NOT NULL
),
paired AS (
    SELECT c.*, s.commit, n.committed_at_utc,
           date_diff('day', n.committed_at_utc, c.package_released_at_utc) AS released_minus_commit_days
    FROM captured c
    LEFT JOIN (SELECT DISTINCT repo, commit FROM scope WHERE status = 'scanned') s ON s.repo = c.repo
    LEFT JOIN snapshots n ON n.repo = s.repo AND n.commit = s.commit
),
source AS (
    SELECT p.server, t.tool_name, any_value(t.sdk) AS sdk, count(*) AS definitions
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
           s.server IS NOT NULL AS in_source, r.server IS NOT NULL AS at_runtime
    FROM (SELECT * FROM source WHERE tool_name IS NOT NULL) s FULL OUTER JOIN received r
        ON r.server = s.server AND r.tool_name = s.tool_name
)"""


def package_captures(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """One row per package capture, by server: the package, the ``step`` it reached, its reason,
    tools received, its repository and pinned ``commit``, and the version's release date
    against the commit's (``released_minus_commit_days``; ``version_vs_commit``: ``package
    newer``, ``package older``, ``same day`` or ``unknown``)."""
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
                    WHEN p.released_minus_commit_days < 0 THEN 'package older' ELSE 'same day' END AS version_vs_commit
        FROM paired p LEFT JOIN (
            SELECT server, count(*) AS tools,
                   count(*) FILTER (WHERE json_type(annotations_json) = 'OBJECT') AS annotated
            FROM runtime_tools GROUP BY server) t ON t.server = p.server
        ORDER BY p.server""", manifest, ctes=_PAIRED)
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


def detector_vs_runtime(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """Per server that answered and has a scanned source: its ``sdk`` and ``language`` (of its
    source tools), tool names ``matched``, ``runtime_only``, ``source_only``, ``unnamed``
    (source registrations whose name is made at run time), the package's release against the
    commit (``released_minus_commit_days``; ``near``: within ``NEAR_DAYS``), the repository the
    package names and whether it is the server's (``same_repository``; NULL: it names none),
    ``precision`` and ``recall``."""
    ensure_readable(con)
    return frame(con, f"""
        SELECT p.server, p.repo, p.subfolder, p.commit,
               (SELECT mode(sdk) FROM source s WHERE s.server = p.server) AS sdk,
               (SELECT mode(c.language) FROM source s JOIN sdk_catalog c ON c.sdk = s.sdk WHERE s.server = p.server)
                   AS language,
               count(*) FILTER (WHERE x.in_source AND x.at_runtime) AS matched,
               count(*) FILTER (WHERE x.at_runtime AND NOT x.in_source) AS runtime_only,
               count(*) FILTER (WHERE x.in_source AND NOT x.at_runtime) AS source_only,
               coalesce((SELECT sum(definitions) FROM source s WHERE s.server = p.server AND s.tool_name IS NULL),
                        0)::BIGINT AS unnamed,
               p.released_minus_commit_days,
               coalesce(abs(p.released_minus_commit_days) <= {NEAR_DAYS}, false) AS near,
               p.package_repository, p.same_repository
        FROM paired p LEFT JOIN sides x ON x.server = p.server
        WHERE p.status = 'ok' AND p.commit IS NOT NULL
        GROUP BY ALL ORDER BY p.server""", manifest, ctes=_PAIRED).with_columns(
        precision=_share(pl.col("matched"), pl.col("matched") + pl.col("source_only")),
        recall=_share(pl.col("matched"), pl.col("matched") + pl.col("runtime_only")))


def detector_accuracy(by_server: pl.DataFrame, by: Sequence[str] = ()) -> pl.DataFrame:
    """``detector_vs_runtime`` summed over all servers, or per value of the columns ``by``; a
    server whose package names another repository (``same_repository`` false) is not counted:
    what ran is not the code that was scanned."""
    by_server = by_server.filter(pl.col("same_repository").fill_null(True))
    sums = [pl.len().alias("servers"), *(pl.col(c).sum().cast(pl.Int64) for c in ("matched", "runtime_only",
                                                                                  "source_only", "unnamed"))]
    totals = by_server.group_by(list(by)).agg(*sums).sort("servers", descending=True) if by else \
        by_server.select(*sums)
    return totals.with_columns(precision=_share(pl.col("matched"), pl.col("matched") + pl.col("source_only")),
                               recall=_share(pl.col("matched"), pl.col("matched") + pl.col("runtime_only")))


def runtime_disagreements(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """Every tool name on one side only: server, tool, ``side`` (``runtime only`` / ``source
    only``) and its likely ``cause`` (see the module's constants), by server and name."""
    ensure_readable(con)
    return frame(con, f"""
        SELECT x.server, x.tool_name, CASE WHEN x.at_runtime THEN 'runtime only' ELSE 'source only' END AS side,
               CASE WHEN NOT coalesce(p.same_repository, true) THEN '{OTHER_REPOSITORY}'
                    WHEN x.at_runtime AND p.released_minus_commit_days > 0 THEN '{PACKAGE_NEWER}'
                    WHEN x.at_runtime AND p.released_minus_commit_days < -{NEAR_DAYS} THEN '{PACKAGE_OLDER}'
                    WHEN x.at_runtime AND EXISTS (
                        SELECT 1 FROM source s WHERE s.server = x.server AND s.tool_name IS NULL)
                        THEN '{BUILT_AT_RUN_TIME}'
                    WHEN x.at_runtime THEN '{DETECTOR_MISS}'
                    WHEN p.released_minus_commit_days < 0 THEN '{SOURCE_NEWER}'
                    WHEN p.released_minus_commit_days > {NEAR_DAYS} THEN '{SOURCE_OLDER}'
                    ELSE '{NOT_SENT}' END AS cause
        FROM sides x JOIN paired p ON p.server = x.server
        WHERE NOT (x.in_source AND x.at_runtime)
        ORDER BY x.server, side, x.tool_name""", manifest, ctes=_PAIRED)


def _share(part: pl.Expr, whole: pl.Expr) -> pl.Expr:
    return pl.when(whole > 0).then(part / whole)
