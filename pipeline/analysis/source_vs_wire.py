"""The detector against what servers sent, name by name, at the commit each package was built from.

Each server that answered is paired (``pipeline.analysis.runtime_population.PAIRED``) with its
repository's scanned commit and, where ``census discover --from-captures`` found it, the rule that
says this commit is the one its package version was built from (``rule``: ``exact-tag``,
``metadata``, ``by-date``; NULL when the scanned commit is not the built one). A comparison is
**version-matched** when the rule is ``exact-tag`` or ``metadata``.

Every tool name on one side only gets one cause of a closed list (``DISAGREEMENTS``):

- ``package from another repository``: what ran is not the code that was scanned;
- ``names not in the source``: nor is it when most of the names the server sent occur nowhere in
  the repository's tree at the scanned commit (``names_in_tree`` below ``OTHER_CODE``, counted by
  ``census discover --from-captures``): a package name another project's package holds, or a
  catalog entry pointing at the wrong repository;
- ``runtime-generated``: sent, and the source registers tools whose names are made at run
  time (an unnamed ``-dynamic`` row: from configuration, an OpenAPI document, a remote service);
- ``name not read``: sent, not found, and the source has registrations whose names the detector
  does not read (an unnamed row of another form): a miss of the detector's, counted as one;
- ``conditional``: found, and every registration of it sits under a condition (an environment
  variable, a flag, a setting, a toolset) the detector marked: the wire may lack it;
- ``version not matched``: the scanned commit is not version-matched and lies on the wrong side
  of the release (``detail`` says which), so either side may hold what the other does not; a
  name sent that occurs nowhere in the tree at that commit is one too (it changed in between);
- ``detector miss``: sent, not found, at a matched (or near enough) version, or occurring in the
  tree at the scanned commit (where ``census discover --from-captures`` looked);
- ``detector extra``: found, not sent, at a matched version, under no condition;
- ``not sent``: found, not sent, at a commit near the release but not version-matched; or by a
  server that listed no tool at all (many list theirs only once configured: an empty answer is
  no evidence against the source).

Precision and recall set aside the ``conditional`` and ``runtime-generated`` names, and count them;
a server that listed no tool, or whose package names another repository, is left out of them.
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb
import polars as pl

from pipeline.analysis.frames import frame
from pipeline.analysis.runtime_population import PAIRED
from pipeline.store.runtime import ensure_readable

#: a package released within this many days of the pinned commit is compared as the same code
NEAR_DAYS = 30
#: the rules that make a comparison version-matched (``pipeline.runtime.built_from``)
MATCHED_RULES = ("exact-tag", "metadata")
OTHER_REPOSITORY, GENERATED, CONDITIONAL = "package from another repository", "runtime-generated", "conditional"
NOT_IN_SOURCE, NOT_READ = "names not in the source", "name not read"
#: a server fewer of whose sent names than this share occur in its tree ran other code
OTHER_CODE = 0.5
NOT_MATCHED, DETECTOR_MISS, DETECTOR_EXTRA, NOT_SENT = ("version not matched", "detector miss", "detector extra",
                                                        "not sent")
#: the causes of a disagreement, in the order a report lists them
DISAGREEMENTS = (DETECTOR_MISS, NOT_READ, DETECTOR_EXTRA, CONDITIONAL, GENERATED, NOT_MATCHED, OTHER_REPOSITORY,
                 NOT_IN_SOURCE, NOT_SENT)
_MATCHED = "p.rule IN ({})".format(", ".join(f"'{rule}'" for rule in MATCHED_RULES))
_CAUSES = f"""
        CASE WHEN NOT coalesce(p.same_repository, true) THEN '{OTHER_REPOSITORY}'
             WHEN coalesce(p.names_in_tree < {OTHER_CODE}, false) THEN '{NOT_IN_SOURCE}'
             WHEN coalesce(n.sent, 0) = 0 THEN '{NOT_SENT}'
             WHEN x.at_runtime AND EXISTS (SELECT 1 FROM source s WHERE s.server = x.server AND s.tool_name IS NULL
                                                  AND s.made_at_run_time) THEN '{GENERATED}'
             WHEN x.at_runtime AND list_contains(coalesce(p.names_absent, []), x.tool_name)
                  AND NOT coalesce({_MATCHED}, false) THEN '{NOT_MATCHED}'
             WHEN x.at_runtime AND EXISTS (SELECT 1 FROM source s WHERE s.server = x.server AND s.tool_name IS NULL)
                 THEN '{NOT_READ}'
             WHEN NOT x.at_runtime AND x.conditional THEN '{CONDITIONAL}'
             WHEN coalesce({_MATCHED}, false) THEN CASE WHEN x.at_runtime THEN '{DETECTOR_MISS}'
                                                          ELSE '{DETECTOR_EXTRA}' END
             WHEN x.at_runtime AND p.names_absent IS NOT NULL THEN '{DETECTOR_MISS}'
             WHEN x.at_runtime AND (p.released_minus_commit_days > 0
                                    OR p.released_minus_commit_days < -{NEAR_DAYS}) THEN '{NOT_MATCHED}'
             WHEN x.at_runtime THEN '{DETECTOR_MISS}'
             WHEN p.released_minus_commit_days < 0 OR p.released_minus_commit_days > {NEAR_DAYS} THEN '{NOT_MATCHED}'
             ELSE '{NOT_SENT}' END"""
_DETAIL = f"""
        CASE WHEN coalesce(n.sent, 0) = 0
                 THEN 'the server listed no tool'
             WHEN coalesce(p.names_in_tree < {OTHER_CODE}, false)
                 THEN round(100 * p.names_in_tree)::INTEGER || '% of the names sent occur in the tree'
             WHEN x.at_runtime AND list_contains(coalesce(p.names_absent, []), x.tool_name)
                  AND NOT coalesce({_MATCHED}, false) THEN 'the name occurs nowhere in the tree at the scanned commit'
             WHEN coalesce({_MATCHED}, false) THEN p.rule
             WHEN x.at_runtime AND p.names_absent IS NOT NULL THEN 'the name occurs in the tree at the scanned commit'
             WHEN p.released_minus_commit_days IS NULL THEN 'release or commit date unknown'
             WHEN p.released_minus_commit_days > 0 THEN 'package released ' || p.released_minus_commit_days
                  || ' days after the scanned commit'
             WHEN p.released_minus_commit_days < 0 THEN 'package released ' || -p.released_minus_commit_days
                  || ' days before the scanned commit'
             ELSE 'package released the day of the scanned commit' END"""
_EACH = f"""
sending AS (
    SELECT server, count(*) AS sent FROM received GROUP BY server
),
names AS (
    SELECT x.*, {_CAUSES} AS cause, {_DETAIL} AS detail
    FROM sides x JOIN paired p ON p.server = x.server LEFT JOIN sending n ON n.server = x.server
    WHERE NOT (x.in_source AND x.at_runtime)
)"""


def detector_vs_runtime(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """Per server that answered and has a scanned source: its ``sdk`` and ``language`` (of its
    source tools), the ``rule`` that pins its commit, the names it ``sent``, tool names ``matched``, ``runtime_only``,
    ``source_only``, of those the ``generated`` and ``conditional`` ones set aside, ``unnamed``
    source registrations, the release against the commit (``released_minus_commit_days``;
    ``near``: within ``NEAR_DAYS``), the repository the package names and whether it is the
    server's (``same_repository``; NULL: it names none), the share of the names sent that occur in
    the tree (``names_in_tree``; NULL: not looked for), ``precision`` and ``recall``."""
    ensure_readable(con)
    return _rates(frame(con, f"""
        SELECT p.server, p.repo, p.subfolder, p.commit, p.rule,
               (SELECT mode(sdk) FROM source s WHERE s.server = p.server) AS sdk,
               (SELECT mode(c.language) FROM source s JOIN sdk_catalog c ON c.sdk = s.sdk WHERE s.server = p.server)
                   AS language,
               coalesce((SELECT sent FROM sending n WHERE n.server = p.server), 0) AS sent,
               count(*) FILTER (WHERE x.in_source AND x.at_runtime) AS matched,
               count(*) FILTER (WHERE x.at_runtime AND NOT x.in_source) AS runtime_only,
               count(*) FILTER (WHERE x.in_source AND NOT x.at_runtime) AS source_only,
               count(*) FILTER (WHERE x.cause = '{GENERATED}') AS generated,
               count(*) FILTER (WHERE x.cause = '{CONDITIONAL}') AS conditional,
               coalesce((SELECT sum(definitions) FROM source s WHERE s.server = p.server AND s.tool_name IS NULL),
                        0)::BIGINT AS unnamed,
               p.released_minus_commit_days,
               coalesce(abs(p.released_minus_commit_days) <= {NEAR_DAYS}, false) AS near,
               p.package_repository, p.same_repository, p.names_in_tree
        FROM paired p LEFT JOIN (SELECT s.*, n.cause FROM sides s LEFT JOIN names n USING (server, tool_name)) x
            ON x.server = p.server
        WHERE p.status = 'ok' AND p.commit IS NOT NULL
        GROUP BY ALL ORDER BY p.server""", manifest, ctes=PAIRED + "," + _EACH))


def detector_accuracy(by_server: pl.DataFrame, by: Sequence[str] = ()) -> pl.DataFrame:
    """``detector_vs_runtime`` summed over all servers, or per value of the columns ``by``; a
    server whose package names another repository (``same_repository`` false) is not counted:
    what ran is not the code that was scanned, nor one most of whose names occur nowhere in its
    tree (``names_in_tree``); nor one that listed no tool (``sent`` 0)."""
    by_server = by_server.filter(pl.col("same_repository").fill_null(True))
    if "names_in_tree" in by_server.columns:  # nor one most of whose names are nowhere in its tree
        by_server = by_server.filter(pl.col("names_in_tree").fill_null(1.0) >= OTHER_CODE)
    if "sent" in by_server.columns:  # a report saved before it has no such column
        by_server = by_server.filter(pl.col("sent") > 0)
    counted = ("matched", "runtime_only", "source_only", "generated", "conditional", "unnamed")
    sums = [pl.len().alias("servers"), *(pl.col(c).sum().cast(pl.Int64) for c in counted)]
    totals = by_server.group_by(list(by)).agg(*sums).sort("servers", descending=True) if by else \
        by_server.select(*sums)
    return _rates(totals)


def by_rule(by_server: pl.DataFrame) -> pl.DataFrame:
    """``detector_accuracy`` per rule, the version-matched rules first, then ``by-date``, then none."""
    order = {rule: i for i, rule in enumerate(("exact-tag", "metadata", "by-date"))}
    totals = detector_accuracy(by_server, ["rule"])
    return totals.with_columns(pl.col("rule").fill_null("none")).sort(
        pl.col("rule").replace_strict(order, default=len(order), return_dtype=pl.Int64))


def runtime_disagreements(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """Every tool name on one side only: server, tool, ``side`` (``runtime only`` / ``source
    only``), its ``cause`` (``DISAGREEMENTS``) and the ``detail`` behind it, by server and name."""
    ensure_readable(con)
    return frame(con, """
        SELECT server, tool_name, CASE WHEN at_runtime THEN 'runtime only' ELSE 'source only' END AS side,
               cause, detail
        FROM names ORDER BY server, side, tool_name""", manifest, ctes=PAIRED + "," + _EACH)


def _rates(counts: pl.DataFrame) -> pl.DataFrame:
    """Precision and recall by tool name, the conditional and runtime-generated names set aside."""
    found = pl.col("matched") + pl.col("source_only") - pl.col("conditional")
    sent = pl.col("matched") + pl.col("runtime_only") - pl.col("generated")
    return counts.with_columns(precision=pl.when(found > 0).then(pl.col("matched") / found),
                               recall=pl.when(sent > 0).then(pl.col("matched") / sent))
