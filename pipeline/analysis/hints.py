"""Hint statistics over MCP tools: declared, on the wire, and effective.

Three numbers are kept apart (see the spec's ``ToolAnnotations``):

- **declared**: the hint is written, in source (``tools``) or in what a client receives
  (``tool_hints_on_wire``: the SDK's documented behaviour applied); *declared true / false*
  is the literal written, *dynamic* an expression the detector cannot resolve;
- **effective**: what a client that applies the schema defaults reads from what it receives:
  the value, else the default (readOnlyHint false, destructiveHint true, idempotentHint false,
  openWorldHint true), ``not applicable`` for destructiveHint and idempotentHint when the
  effective readOnlyHint is true, ``unknown`` when the value is not a literal;
- under the other client reading of a tool that arrives with no annotations at all
  (*no annotation, no gate*) every hint of that tool is ``no gate``.
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb
import polars as pl

from pipeline.analysis.frames import DEFAULT_ROLES, frame, role_filter
from pipeline.scan.detect.model import HINT_FIELDS, WIRE_NAMES
from pipeline.store.schema import SPEC_DEFAULTS

#: the four hints by their wire names, in the spec's order
HINT_NAMES = tuple(WIRE_NAMES[f] for f in HINT_FIELDS)
#: the rows of ``hint_coverage``: the four hints and ``title``
COVERAGE_FIELDS = (*HINT_NAMES, "title")
#: the two readings of ``hint_coverage``
DECLARED, ON_WIRE = "declared in source", "on the wire"
#: the two client readings of ``effective_hints``
DEFAULTS, NO_GATE = "defaults applied", "no annotation, no gate"
#: hints that apply only when readOnlyHint is false
NEEDS_WRITE = ("destructive_hint", "idempotent_hint")
KEY = ("repo", "commit", "path", "line", "sdk", "tool_name")

_HINTS_AS = ", ".join(f'{f} AS "{WIRE_NAMES[f]}"' for f in HINT_FIELDS)
_WIRE_SET = " OR ".join(f"w.{f} <> 'unset'" for f in HINT_FIELDS) + " OR w.title IS NOT NULL"
_DECLARED_OBJECT = """EXISTS (SELECT 1 FROM tools d WHERE d.repo = w.repo AND d.commit = w.commit AND d.path = w.path
    AND d.line = w.line AND d.sdk = w.sdk AND d.tool_name IS NOT DISTINCT FROM w.tool_name
    AND d.annotations_source <> 'none')"""
_COVERAGE = f"""
    SELECT '{DECLARED}' AS reading, t.annotations_source <> 'none' AS annotated, {_HINTS_AS},
           t.title_state AS title
    FROM tools t JOIN scope s ON s.repo = t.repo AND s.commit = t.commit WHERE t.is_mcp AND {{tool_roles}}
    UNION ALL
    SELECT '{ON_WIRE}', {_DECLARED_OBJECT} OR {_WIRE_SET}, {_HINTS_AS},
           CASE WHEN w.title IS NULL THEN 'unset' ELSE 'true' END
    FROM tool_hints_on_wire w JOIN scope s ON s.repo = w.repo AND s.commit = w.commit WHERE {{wire_roles}}"""


def hint_coverage(con: duckdb.DuckDBPyConnection, manifest: str | None = None,
                  roles: str | Sequence[str] = DEFAULT_ROLES) -> pl.DataFrame:
    """Seed 000's table over the MCP tools of ``roles`` (default: server tools, what a server
    ships), once as declared in source and once on the wire.

    One row per ``reading`` and ``field`` (the four hints, then ``title``): ``tools`` (MCP tool
    definitions), ``annotated_tools`` (with an annotations object) and ``annotated_share``
    (NULL when there are no tools); ``set`` (declared: the key is written), ``set_true`` and
    ``set_false`` (declared true / false), ``set_dynamic`` (written, not a literal). For
    ``title`` only ``set`` and ``set_dynamic`` are counted.
    """
    query = _for_roles(_COVERAGE, roles)
    values = frame(con, query, manifest).unpivot(
        on=list(COVERAGE_FIELDS), index=["reading", "annotated"], variable_name="field", value_name="value")
    counts = values.group_by("reading", "field").agg(
        pl.len().alias("tools"), pl.col("annotated").sum().alias("annotated_tools"),
        (pl.col("value") != "unset").sum().alias("set"), (pl.col("value") == "true").sum().alias("set_true"),
        (pl.col("value") == "false").sum().alias("set_false"),
        (pl.col("value") == "dynamic").sum().alias("set_dynamic"))
    grid = pl.DataFrame({"reading": [r for r in (DECLARED, ON_WIRE) for _ in COVERAGE_FIELDS],
                         "field": list(COVERAGE_FIELDS) * 2})
    filled = grid.join(counts, on=["reading", "field"], how="left", maintain_order="left").fill_null(0)
    is_title = pl.col("field") == "title"
    counted = filled.with_columns(pl.col("tools", "annotated_tools", "set", "set_true", "set_false",
                                         "set_dynamic").cast(pl.Int64))
    return counted.with_columns(
        annotated_share=pl.when(pl.col("tools") > 0).then(pl.col("annotated_tools") / pl.col("tools")),
        set_true=pl.when(~is_title).then(pl.col("set_true")), set_false=pl.when(~is_title).then(pl.col("set_false")),
    ).select("reading", "field", "tools", "annotated_tools", "annotated_share", "set", "set_true", "set_false",
             "set_dynamic")


#: each MCP tool with its wire row: paired on (repo, commit, path, line, sdk, tool_name), and two
#: definitions that share all of these (a loop at one line) in the order of their hint values
_PAIRED = f"""
    SELECT t.repo, t.commit, t.path, t.line, t.sdk, t.tool_name, t.annotations_source,
           t.annotations_source <> 'none' OR {_WIRE_SET} AS annotated_on_wire,
           {", ".join(f"t.{f} AS declared_{f}, w.{f} AS wire_{f}" for f in HINT_FIELDS)}
    FROM numbered_tools t JOIN numbered_wire w
      ON w.repo = t.repo AND w.commit = t.commit AND w.path = t.path AND w.line = t.line AND w.sdk = t.sdk
     AND w.tool_name IS NOT DISTINCT FROM t.tool_name AND w.n = t.n
    ORDER BY t.entry, t.repo, t.commit, t.path, t.line, t.tool_name NULLS FIRST, t.n"""
_ORDER = ", ".join(HINT_FIELDS)
_NUMBERED = f"""numbered_tools AS (
    SELECT t.*, s.entry, row_number() OVER (PARTITION BY t.repo, t.commit, t.path, t.line, t.sdk, t.tool_name
                                   ORDER BY {_ORDER}, t.title) AS n
    FROM tools t JOIN scope s ON s.repo = t.repo AND s.commit = t.commit WHERE t.is_mcp AND {{tool_roles}}
),
numbered_wire AS (
    SELECT w.*, row_number() OVER (PARTITION BY w.repo, w.commit, w.path, w.line, w.sdk, w.tool_name
                                   ORDER BY {_ORDER}, w.title) AS n
    FROM tool_hints_on_wire w JOIN scope s ON s.repo = w.repo AND s.commit = w.commit WHERE {{wire_roles}}
)"""


def effective_hints(con: duckdb.DuckDBPyConnection, manifest: str | None = None,
                    roles: str | Sequence[str] = DEFAULT_ROLES) -> pl.DataFrame:
    """One row per MCP tool of ``roles`` (default: server) and hint: ``declared`` (in source),
    ``on_wire`` (what a client receives), ``effective_defaults`` (a client applying the schema defaults, with the
    applicability rule) and ``effective_no_gate`` (a client that takes no hint-based decision
    for a tool that arrives without annotations: ``no gate``). Values: true, false, unset,
    dynamic (declared, on_wire); true, false, not applicable, unknown, no gate (effective)."""
    tools = frame(con, _PAIRED, manifest, _for_roles(_NUMBERED, roles))
    read_only = _effective(pl.col("wire_read_only_hint"), "read_only_hint")
    wide = tools.with_columns(
        [_applicable(_effective(pl.col(f"wire_{f}"), f), f, read_only).alias(f"effective_{f}") for f in HINT_FIELDS])
    parts = [wide.select(*KEY, pl.lit(WIRE_NAMES[f]).alias("hint"), pl.col(f"declared_{f}").alias("declared"),
                         pl.col(f"wire_{f}").alias("on_wire"), pl.col(f"effective_{f}").alias("effective_defaults"),
                         pl.when(pl.col("annotated_on_wire")).then(pl.col(f"effective_{f}"))
                         .otherwise(pl.lit("no gate")).alias("effective_no_gate"))
             for f in HINT_FIELDS]
    order = {name: n for n, name in enumerate(HINT_NAMES)}
    rank = pl.col("hint").replace_strict(order, return_dtype=pl.Int64)
    return pl.concat([p.with_row_index("tool") for p in parts]).sort("tool", rank).drop("tool")


def effective_summary(con: duckdb.DuckDBPyConnection, manifest: str | None = None,
                      roles: str | Sequence[str] = DEFAULT_ROLES) -> pl.DataFrame:
    """Per client reading (``defaults applied``, ``no annotation, no gate``) and hint: how many
    MCP tools of ``roles`` (default: server) a client reads as effective true, effective false,
    not applicable, unknown (not a literal) and no gate."""
    hints = effective_hints(con, manifest, roles)
    long = pl.concat([hints.select("hint", pl.lit(DEFAULTS).alias("reading"), pl.col("effective_defaults").alias("v")),
                      hints.select("hint", pl.lit(NO_GATE).alias("reading"), pl.col("effective_no_gate").alias("v"))])
    values = {"true": "effective_true", "false": "effective_false", "not applicable": "not_applicable",
              "unknown": "unknown", "no gate": "no_gate"}
    counts = long.group_by("reading", "hint").agg((pl.col("v") == v).sum().alias(name) for v, name in values.items())
    grid = pl.DataFrame({"reading": [r for r in (DEFAULTS, NO_GATE) for _ in HINT_NAMES], "hint": list(HINT_NAMES) * 2})
    joined = grid.join(counts, on=["reading", "hint"], how="left", maintain_order="left").fill_null(0)
    return joined.with_columns(pl.col(*values.values()).cast(pl.Int64))


def _for_roles(query: str, roles: str | Sequence[str]) -> str:
    """``query`` with its ``{tool_roles}`` and ``{wire_roles}`` filters written for ``roles``."""
    tools, wire = role_filter("t.role", roles), role_filter("w.role", roles)
    return query.replace("{tool_roles}", tools).replace("{wire_roles}", wire)


def _effective(value: pl.Expr, field: str) -> pl.Expr:
    """A literal as it is, ``unset`` as the spec default, anything else ``unknown``."""
    return (pl.when(value.is_in(["true", "false"])).then(value)
            .when(value == "unset").then(pl.lit(SPEC_DEFAULTS[field])).otherwise(pl.lit("unknown")))


def _applicable(value: pl.Expr, field: str, read_only: pl.Expr) -> pl.Expr:
    """``not applicable`` for destructiveHint and idempotentHint when readOnlyHint is true."""
    if field not in NEEDS_WRITE:
        return value
    return pl.when(read_only == "true").then(pl.lit("not applicable")).otherwise(value)
