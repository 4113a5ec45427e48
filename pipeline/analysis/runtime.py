"""Statistics over runtime captures, each returning a polars DataFrame.

Runtime rows say what a server **sent** (``runtime_tools``); ``tools`` says what its source
**declares** and ``tool_hints_on_wire`` what the SDK is documented to send for it. Only
``ok`` captures have tools. Counts are of tools as received (one row per tool object).

``static_vs_runtime`` pairs each probed server with the repository holding its source:
``pairs`` given to the function first, then ``runtime_servers``, then a server whose name is
itself a repository (``census probe owner/name ...``). A repository is read at its latest
scanned snapshot; a server whose repository is not scanned (or that has none), or without an
``ok`` capture (skipped: nothing was received to compare), is left out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import duckdb
import polars as pl

from pipeline.analysis.frames import DEFAULT_ROLES, role_filter
from pipeline.runtime.ingest import OK
from pipeline.scan.detect.model import HINT_FIELDS, WIRE_NAMES
from pipeline.store.runtime import ensure_readable

#: the four hints by their wire names, in the spec's order (as ``pipeline.analysis.hints.HINT_NAMES``)
HINT_NAMES = tuple(WIRE_NAMES[f] for f in HINT_FIELDS)
#: the rows of ``runtime_hint_coverage``: the four hints and ``title`` (as ``hint_coverage``)
COVERAGE_FIELDS = (*HINT_NAMES, "title")

#: values of ``static_vs_runtime.side``
BOTH, SOURCE_ONLY, RUNTIME_ONLY = "both", "source only", "runtime only"
#: values of ``static_vs_runtime.agreement``, for a tool on both sides
AGREEMENTS = ("same", "added on wire", "dropped on wire", "differ", "resolved")

_HINTS_AS = ", ".join(f't.{f} AS "{WIRE_NAMES[f]}"' for f in HINT_FIELDS)
_COVERAGE = f"""
    SELECT c.server, t.raw_json IS NOT NULL AS is_tool,
           coalesce(json_type(t.annotations_json) = 'OBJECT', false) AS annotated, {_HINTS_AS},
           CASE WHEN t.title IS NULL THEN 'unset' ELSE 'set' END AS title
    FROM runtime_captures c LEFT JOIN runtime_tools t ON t.server = c.server
    WHERE c.status = 'ok' AND c.transport <> 'recorded'  -- a catalog's record keeps names, not annotations
      AND ($servers::VARCHAR[] IS NULL OR list_contains($servers::VARCHAR[], c.server))"""


def runtime_hint_coverage(con: duckdb.DuckDBPyConnection, servers: Sequence[str] | None = None) -> pl.DataFrame:
    """Seed 000's table from tools/list answers: one row per ``field`` (the four hints, ``title``).

    ``servers`` (with an ``ok`` capture; all, or those named), ``tools``, ``annotated_tools``
    (with an annotations object, an empty one included) and ``annotated_share`` (NULL with no
    tools); ``set`` (the key holds a value: null is unset), ``set_true`` and ``set_false`` (the
    JSON booleans) and ``set_other`` (any other value, e.g. ``"yes"``). For ``title`` only
    ``set`` is counted (``annotations.title``).
    """
    ensure_readable(con)
    rows = _frame(con, _COVERAGE, {"servers": list(servers) if servers is not None else None})
    tools = rows.filter(pl.col("is_tool"))
    long = tools.unpivot(on=list(COVERAGE_FIELDS), index=["annotated"], variable_name="field", value_name="value")
    counts = long.group_by("field").agg(
        (pl.col("value") != "unset").sum().alias("set"), (pl.col("value") == "true").sum().alias("set_true"),
        (pl.col("value") == "false").sum().alias("set_false"),
        (~pl.col("value").is_in(["true", "false", "unset"])).sum().alias("set_other"))
    grid = pl.DataFrame({"field": list(COVERAGE_FIELDS)})
    filled = grid.join(counts, on="field", how="left", maintain_order="left").fill_null(0)
    totals = {"servers": rows["server"].n_unique(), "tools": tools.height,
              "annotated_tools": int(tools["annotated"].sum())}
    is_title = pl.col("field") == "title"
    return filled.with_columns(
        *(pl.lit(n, dtype=pl.Int64).alias(name) for name, n in totals.items()),
        pl.col("set", "set_true", "set_false", "set_other").cast(pl.Int64),
    ).with_columns(
        annotated_share=pl.when(pl.col("tools") > 0).then(pl.col("annotated_tools") / pl.col("tools")),
        **{c: pl.when(~is_title).then(pl.col(c)) for c in ("set_true", "set_false", "set_other")},
    ).select("field", "servers", "tools", "annotated_tools", "annotated_share", "set", "set_true", "set_false",
             "set_other")


_PAIRED = f"""
explicit AS (SELECT unnest($servers::VARCHAR[]) AS server, unnest($repos::VARCHAR[]) AS repo),
scanned AS (
    SELECT repo, commit FROM snapshots WHERE status = 'scanned'
    QUALIFY row_number() OVER (PARTITION BY repo ORDER BY scanned_at_utc DESC NULLS LAST, commit) = 1
),
named AS (
    SELECT server, repo FROM explicit
    UNION ALL SELECT server, repo FROM runtime_servers WHERE server NOT IN (SELECT server FROM explicit)
    UNION ALL SELECT server, server FROM runtime_captures
        WHERE status = 'ok' AND server NOT IN (SELECT server FROM explicit UNION ALL SELECT server FROM runtime_servers)
),
paired AS (
    SELECT * FROM named WHERE repo IN (SELECT repo FROM scanned)
        AND server IN (SELECT server FROM runtime_captures WHERE status = 'ok')
),
static AS (
    SELECT p.server, t.repo, t.commit, t.tool_name, t.path, t.line,
           {", ".join(f"t.{f} AS declared_{f}, w.{f} AS wire_{f}" for f in HINT_FIELDS)},
           CASE WHEN t.tool_name IS NULL THEN 1 ELSE count(*) OVER (PARTITION BY p.server, t.tool_name) END
               AS definitions
    FROM paired p JOIN scanned s ON s.repo = p.repo
    JOIN tools t ON t.repo = s.repo AND t.commit = s.commit AND t.is_mcp AND {{tool_roles}}
    LEFT JOIN tool_hints_on_wire w ON w.repo = t.repo AND w.commit = t.commit AND w.path = t.path
        AND w.line = t.line AND w.sdk = t.sdk AND w.tool_name IS NOT DISTINCT FROM t.tool_name
    QUALIFY row_number() OVER (PARTITION BY p.server, coalesce(t.tool_name, t.path || ':' || t.line)
                               ORDER BY list_position(['server', 'example', 'test'], t.role), t.path, t.line) = 1
),
runtime AS (
    SELECT r.*, p.repo FROM runtime_tools r JOIN paired p ON p.server = r.server
    QUALIFY row_number() OVER (PARTITION BY r.server, r.tool_name ORDER BY r.rowid) = 1
),
joined AS (
    SELECT coalesce(s.server, r.server) AS server, coalesce(s.repo, r.repo) AS repo,
           coalesce(s.commit, (SELECT commit FROM scanned WHERE repo = r.repo)) AS commit,
           coalesce(s.tool_name, r.tool_name) AS tool_name,
           CASE WHEN s.server IS NULL THEN '{RUNTIME_ONLY}' WHEN r.server IS NULL THEN '{SOURCE_ONLY}'
                ELSE '{BOTH}' END AS side,
           coalesce(s.definitions, 0) AS definitions, s.path, s.line,
           unnest({list(HINT_NAMES)}) AS hint,
           unnest([{", ".join(f"s.declared_{f}" for f in HINT_FIELDS)}]) AS declared,
           unnest([{", ".join(f"s.wire_{f}" for f in HINT_FIELDS)}]) AS expected_on_wire,
           unnest([{", ".join(f"r.{f}" for f in HINT_FIELDS)}]) AS runtime
    FROM static s FULL OUTER JOIN runtime r ON r.server = s.server AND r.tool_name = s.tool_name
)"""
_COMPARED = f"""
SELECT server, repo, commit, tool_name, side, definitions, path, line, hint, declared, expected_on_wire, runtime,
       CASE WHEN side <> '{BOTH}' THEN NULL WHEN declared = 'dynamic' THEN 'resolved'
            WHEN declared = runtime THEN 'same' WHEN declared = 'unset' THEN 'added on wire'
            WHEN runtime = 'unset' THEN 'dropped on wire' ELSE 'differ' END AS agreement,
       CASE WHEN side = '{BOTH}' THEN expected_on_wire = runtime END AS as_expected
FROM joined
ORDER BY server, tool_name NULLS LAST, path, line, list_position({list(HINT_NAMES)}, hint)"""


def static_vs_runtime(con: duckdb.DuckDBPyConnection, pairs: Mapping[str, str] | None = None,
                      roles: str | Sequence[str] = DEFAULT_ROLES) -> pl.DataFrame:
    """One row per probed tool (or source definition) and hint: source against runtime.

    The source side is the repository's MCP tools of ``roles`` (default: server, what the
    server ships; widen it for a probed example server of an SDK repository).
    ``side``: ``both``, ``source only`` (defined in source, not sent) or ``runtime only``
    (sent, not found in source: built at run time, behind a wrapper, renamed). Tools match by
    (server, tool name); a name defined more than once (``definitions``) is represented by its
    first definition, server code before examples before tests. ``declared`` is the hint in source, ``expected_on_wire``
    what ``tool_hints_on_wire`` says the SDK sends, ``runtime`` what was received.
    ``agreement`` (tools on both sides): ``same``, ``added on wire`` (not in source, sent),
    ``dropped on wire``, ``differ``, ``resolved`` (source had an expression); ``as_expected``:
    whether the received value is the one ``tool_hints_on_wire`` predicted.
    """
    ensure_readable(con)
    pairs = dict(pairs or {})
    query = f"WITH {_PAIRED.replace('{tool_roles}', role_filter('t.role', roles))}\n{_COMPARED}"
    return _frame(con, query, {"servers": list(pairs), "repos": list(pairs.values())})


def static_vs_runtime_summary(con: duckdb.DuckDBPyConnection, pairs: Mapping[str, str] | None = None,
                              roles: str | Sequence[str] = DEFAULT_ROLES) -> pl.DataFrame:
    """Per server and hint: tools on ``both`` sides and how their hints agree (one column per
    ``agreement``, and ``as_expected``: received as ``tool_hints_on_wire`` predicted), with the
    server's ``source_only`` and ``runtime_only`` tool counts (the same on each hint row);
    the source side as ``static_vs_runtime`` reads it for ``roles``."""
    rows = static_vs_runtime(con, pairs, roles)
    names = {a: a.replace(" ", "_") for a in AGREEMENTS}
    both = rows.filter(pl.col("side") == BOTH)
    counts = both.group_by("server", "repo", "hint").agg(
        pl.len().alias("both"), *((pl.col("agreement") == a).sum().alias(n) for a, n in names.items()),
        pl.col("as_expected").sum().alias("as_expected"))
    sides = rows.filter(pl.col("hint") == HINT_NAMES[0]).group_by("server", "repo").agg(
        (pl.col("side") == SOURCE_ONLY).sum().alias("source_only"),
        (pl.col("side") == RUNTIME_ONLY).sum().alias("runtime_only"))
    grid = sides.join(pl.DataFrame({"hint": list(HINT_NAMES)}), how="cross")
    joined = grid.join(counts, on=["server", "repo", "hint"], how="left").fill_null(0)
    rank = pl.col("hint").replace_strict({h: n for n, h in enumerate(HINT_NAMES)}, return_dtype=pl.Int64)
    columns = ["both", *names.values(), "as_expected", "source_only", "runtime_only"]
    return joined.sort("server", rank).select("server", "repo", "hint", *(pl.col(c).cast(pl.Int64) for c in columns))


def static_vs_runtime_pairs(con: duckdb.DuckDBPyConnection, pairs: Mapping[str, str] | None = None,
                            roles: str | Sequence[str] = DEFAULT_ROLES) -> pl.DataFrame:
    """One row per server compared with its source (paired as ``static_vs_runtime`` pairs them),
    in server order: ``server``, ``repo``, ``commit`` (the repository's latest scanned snapshot:
    the source side, its tools of ``roles``) and its tools by side: ``both`` (matched by name),
    ``source_only`` and ``runtime_only``."""
    rows = static_vs_runtime(con, pairs, roles).filter(pl.col("hint") == HINT_NAMES[0])
    sides = {BOTH: "both", SOURCE_ONLY: "source_only", RUNTIME_ONLY: "runtime_only"}
    return rows.group_by("server", "repo", "commit", maintain_order=True).agg(
        *((pl.col("side") == side).sum().cast(pl.Int64).alias(name) for side, name in sides.items()))


_CAPTURES = f"""
    SELECT c.server, c.status, c.reason, c.transport, c.command_or_url, c.captured_at_utc, c.pages,
           CASE WHEN c.status = '{OK}' THEN coalesce(t.tools, 0) END AS tools,
           CASE WHEN c.status = '{OK}' THEN coalesce(t.annotated_tools, 0) END AS annotated_tools
    FROM runtime_captures c
    LEFT JOIN (SELECT server, count(*) AS tools,
                      count(*) FILTER (WHERE json_type(annotations_json) = 'OBJECT') AS annotated_tools
               FROM runtime_tools GROUP BY server) t ON t.server = c.server
    ORDER BY c.status <> '{OK}', c.server"""


def runtime_captures(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """One row per stored capture, ``ok`` ones first, then by server: ``status`` and ``reason``
    (why it was skipped; for ``ok``, a note or NULL), how the server was reached (``transport``,
    ``command_or_url``), ``captured_at_utc``, the tools/list ``pages`` received, and for ``ok``
    captures the ``tools`` received and how many of them carry an annotations object
    (``annotated_tools``; both NULL when skipped)."""
    ensure_readable(con)
    return _frame(con, _CAPTURES, {})


def _frame(con: duckdb.DuckDBPyConnection, query: str, params: Mapping[str, object]) -> pl.DataFrame:
    frame: pl.DataFrame = con.sql(query, params=dict(params)).pl()
    return frame
