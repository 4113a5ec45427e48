"""Coverage of a population: which repositories define MCP server tools, and for each that does
not, why, from evidence the census holds.

``coverage`` gives one row per repository of a manifest with its ``reason``, the first that holds:

- ``not-scanned``: the repository was not read (``skip_reason`` says why);
- ``server-tools``: it defines server tools the detector names;
- ``runtime-generated``: its only server registrations have names the source cannot give (a
  list answered from an API, a loop over configuration: rules ending in ``-dynamic``);
- ``server-elsewhere``: the manifest gives a ``server_repo``, or the README points to the
  repository the project moved to (the ``points-elsewhere`` tree note); or, when none of the
  ``not-a-server`` evidence holds, the root's package metadata names another repository
  (``package-repository``: weaker, since a renamed repository names its new self);
- ``not-a-server``: no package manifest declares an MCP SDK (a list, a docs site, a desktop
  app), or the tree uses MCP as a client (an app, an inspector, a proxy relaying another server's
  tools), or its only tools are its examples' and tests' (an SDK, a framework), or it serves
  prompts or resources and no tool, or it holds no source file the detector could read;
- ``unsupported``: tools written in a form the detector does not read: registrations it found but
  could not name (unnamed rows), or hint names in files of a language no detector parses (the
  extensions are named in ``evidence``);
- ``unknown``: an MCP SDK is declared and nothing above holds. A zero without a reason is a
  defect to look into, not a finding.

``evidence`` says what decided it, in words a reader can check against the tree.
"""

from __future__ import annotations

import duckdb
import polars as pl

from pipeline.analysis.frames import frame
from pipeline.scan.detect.source import GRAMMARS
from pipeline.scan.roles import EXAMPLE, SERVER, TEST

#: the reasons, in the order they are tried
REASONS = ("not-scanned", "server-tools", "runtime-generated", "server-elsewhere", "not-a-server", "unsupported",
           "unknown")
#: terms (of those a census counts) whose presence in an unparsed language's file suggests tools there
_VOCABULARY = ("readonlyhint", "destructivehint", "idempotenthint", "openworldhint", "read_only_hint")
_PARSED = ", ".join(f"'{extension}'" for extension in sorted(GRAMMARS))
_FACTS = f"""
SELECT s.entry, s.repo, s.commit, s.status, s.skip_reason, s.server_repo,
    (SELECT count(*) FROM tools t WHERE t.repo = s.repo AND t.commit = s.commit AND t.is_mcp
        AND t.role = '{SERVER}' AND t.tool_name IS NOT NULL) AS named_server_tools,
    (SELECT count(*) FROM tools t WHERE t.repo = s.repo AND t.commit = s.commit AND t.is_mcp
        AND t.role = '{SERVER}' AND t.tool_name IS NULL AND t.rule LIKE '%-dynamic') AS dynamic_server_tools,
    (SELECT count(*) FROM tools t WHERE t.repo = s.repo AND t.commit = s.commit AND t.is_mcp
        AND t.role = '{SERVER}' AND t.tool_name IS NULL) AS unnamed_server_tools,
    (SELECT string_agg(DISTINCT t.rule, ', ' ORDER BY t.rule) FROM tools t WHERE t.repo = s.repo
        AND t.commit = s.commit AND t.is_mcp AND t.role = '{SERVER}' AND t.tool_name IS NULL) AS unnamed_rules,
    (SELECT count(*) FROM tools t WHERE t.repo = s.repo AND t.commit = s.commit AND t.is_mcp
        AND t.role IN ('{EXAMPLE}', '{TEST}')) AS example_and_test_tools,
    (SELECT string_agg(DISTINCT n.detail, ', ' ORDER BY n.detail) FROM tree_notes n WHERE n.repo = s.repo
        AND n.commit = s.commit AND n.kind = 'points-elsewhere') AS points_elsewhere,
    (SELECT min(n.detail) FROM tree_notes n WHERE n.repo = s.repo AND n.commit = s.commit
        AND n.kind = 'package-repository' AND NOT lower(n.detail) LIKE '%github.com/' || lower(s.repo))
        AS package_elsewhere,
    (SELECT string_agg(DISTINCT split_part(n.detail, ':', 1), ', ' ORDER BY split_part(n.detail, ':', 1))
        FROM tree_notes n WHERE n.repo = s.repo AND n.commit = s.commit AND n.kind = 'mcp-sdk') AS sdks_declared,
    coalesce((SELECT min(n.path) FROM tree_notes n WHERE n.repo = s.repo AND n.commit = s.commit
        AND n.kind = 'mcp-client'), (SELECT min(x.path) FROM detector_exclusions x WHERE x.repo = s.repo
        AND x.commit = s.commit AND x.reason = 'client-code')) AS client_file,
    (SELECT min(n.path) FROM tree_notes n WHERE n.repo = s.repo AND n.commit = s.commit
        AND n.kind = 'mcp-prompts') AS prompts_file,
    EXISTS (SELECT 1 FROM tree_notes n WHERE n.repo = s.repo AND n.commit = s.commit
        AND n.kind = 'no-source') AS no_source,
    (SELECT string_agg(DISTINCT lower(regexp_extract(c.path, '\\.[^./]+$')), ', ') FROM term_counts c
        WHERE c.repo = s.repo AND c.commit = s.commit AND lower(c.term) IN ({", ".join(repr(v) for v in _VOCABULARY)})
        AND c.role <> 'docs' AND lower(regexp_extract(c.path, '\\.[^./]+$')) NOT IN ({_PARSED}, '.json', '.md', '')
    ) AS unparsed_extensions
FROM scope s ORDER BY s.entry, s.repo"""


def coverage(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """One row per repository: ``repo``, ``commit``, ``status``, ``server_tools`` (named),
    ``reason`` (see the module) and ``evidence``, in manifest order."""
    facts = frame(con, _FACTS, manifest)
    rows = [_classified(row) for row in facts.iter_rows(named=True)]
    schema = {"repo": pl.String, "commit": pl.String, "status": pl.String, "server_tools": pl.Int64,
              "reason": pl.String, "evidence": pl.String}
    return pl.DataFrame(rows, schema=schema, orient="row")


def coverage_summary(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """How many repositories each reason holds for, every reason listed (zero included)."""
    counted = coverage(con, manifest).group_by("reason").agg(pl.len().alias("repositories"))
    grid = pl.DataFrame({"reason": list(REASONS)})
    return grid.join(counted, on="reason", how="left").with_columns(pl.col("repositories").fill_null(0).cast(pl.Int64))


def _classified(f: dict[str, object]) -> tuple[object, ...]:
    reason, evidence = _reason(f)
    return f["repo"], f["commit"], f["status"], f["named_server_tools"] if f["status"] == "scanned" else None, \
        reason, evidence


def _reason(f: dict[str, object]) -> tuple[str, str]:
    if f["status"] != "scanned":
        return "not-scanned", str(f["skip_reason"] or f["status"])
    if f["named_server_tools"]:
        return "server-tools", f"named server tools: {f['named_server_tools']}"
    if f["dynamic_server_tools"] and f["dynamic_server_tools"] == f["unnamed_server_tools"]:
        return "runtime-generated", f"registrations named at run time: {f['dynamic_server_tools']} " \
            f"({f['unnamed_rules']})"
    if f["unnamed_server_tools"]:
        return "unsupported", f"registrations whose names are not read: {f['unnamed_server_tools']} " \
            f"({f['unnamed_rules']})"
    if f["server_repo"] or f["points_elsewhere"]:
        where = f"manifest server_repo {f['server_repo']}" if f["server_repo"] else \
            f"README points to {f['points_elsewhere']}"
        return "server-elsewhere", where
    if not f["sdks_declared"]:
        return "not-a-server", "no package manifest declares an MCP SDK"
    if f["example_and_test_tools"]:
        return "not-a-server", f"only example and test tools ({f['example_and_test_tools']}): an SDK or a framework"
    if f["client_file"]:
        return "not-a-server", f"uses MCP as a client ({f['client_file']}): an app, an inspector or a proxy"
    if f["prompts_file"]:
        return "not-a-server", f"serves prompts or resources and no tool ({f['prompts_file']})"
    if f["package_elsewhere"]:  # weaker than a README: a renamed repository names its new self
        return "server-elsewhere", f"its package names the repository {f['package_elsewhere']}"
    if f["unparsed_extensions"]:
        return "unsupported", f"hint names in {f['unparsed_extensions']} files, a language no detector parses"
    if f["no_source"]:
        return "not-a-server", "no source file of a language the detector parses: docs, images and configuration"
    return "unknown", f"declares {f['sdks_declared']}; no tool, no pointer elsewhere"
