"""Do the hints tell the truth? The effects analysis's rows (``tool_handlers``, ``tool_effects``,
``tool_verdicts``) over one manifest's server tools: per language and SDK, handlers located and
what they do; every contradiction, with a permalink to its evidence line at the pinned commit."""

from __future__ import annotations

import duckdb
import polars as pl

from pipeline.analysis.frames import frame
from pipeline.scan.roles import SERVER

#: the effects that change the tool's environment (a read-only declaration contradicts each)
MUTATING = ("write-local", "write-remote", "delete-local", "delete-remote", "exec")

_LANGUAGE = """CASE WHEN regexp_matches(h.path, '\\.pyi?$') THEN 'python'
                    WHEN regexp_matches(h.path, '\\.go$') THEN 'go'
                    WHEN regexp_matches(h.path, '\\.[cm]?[jt]sx?$') THEN 'typescript'
                    WHEN regexp_matches(h.path, '\\.rs$') THEN 'rust'
                    WHEN regexp_matches(h.path, '\\.(java|kt)$') THEN 'jvm'
                    WHEN regexp_matches(h.path, '\\.cs$') THEN 'csharp' ELSE 'other' END"""


def has_effects(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> bool:
    """Whether the scope's snapshots were scanned with the effects analysis (scanner 22 on)."""
    found = frame(con, """SELECT count(*) AS n FROM tool_handlers h
                          JOIN scope s ON s.repo = h.repo AND s.commit = h.commit""", manifest)
    return bool(found["n"][0])


def effects_by_sdk(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """Per language and SDK, most tools first: server tools, handlers located (and their share),
    tools with a write, delete or exec effect, tools declaring ``readOnlyHint: true`` and those
    of them with such evidence, contradictions, doubts, and unannotated tools given suggestions."""
    return frame(con, f"""
        SELECT {_LANGUAGE} AS language, t.sdk, count(*) AS server_tools,
               count(h.handler_path) AS handlers_located, count(h.handler_path) / count(*) AS located_share,
               count(*) FILTER (WHERE m.mutating) AS mutating_tools,
               count(*) FILTER (WHERE t.read_only_hint = 'true') AS read_only_tools,
               count(*) FILTER (WHERE t.read_only_hint = 'true' AND m.mutating) AS read_only_mutating,
               coalesce(sum(v.contradictions), 0)::BIGINT AS contradictions,
               coalesce(sum(v.doubts), 0)::BIGINT AS doubts,
               coalesce(sum(v.suggestions), 0)::BIGINT AS suggestions
        FROM tool_handlers h JOIN scope s ON s.repo = h.repo AND s.commit = h.commit
        JOIN tools t ON t.repo = h.repo AND t.commit = h.commit AND t.path = h.path AND t.line = h.line
             AND t.tool_name IS NOT DISTINCT FROM h.tool_name AND t.is_mcp AND t.role = '{SERVER}'
        LEFT JOIN (SELECT repo, commit, path, line, tool_name,
                          bool_or(effect IN {MUTATING}) AS mutating
                   FROM tool_effects GROUP BY ALL) m
             ON m.repo = h.repo AND m.commit = h.commit AND m.path = h.path AND m.line = h.line
             AND m.tool_name IS NOT DISTINCT FROM h.tool_name
        LEFT JOIN (SELECT repo, commit, path, line, tool_name,
                          count(*) FILTER (WHERE verdict = 'contradiction') AS contradictions,
                          count(*) FILTER (WHERE verdict = 'doubt') AS doubts,
                          count(*) FILTER (WHERE verdict = 'suggestion') AS suggestions
                   FROM tool_verdicts GROUP BY ALL) v
             ON v.repo = h.repo AND v.commit = h.commit AND v.path = h.path AND v.line = h.line
             AND v.tool_name IS NOT DISTINCT FROM h.tool_name
        GROUP BY ALL ORDER BY server_tools DESC, language, t.sdk""", manifest)


def unlocated(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """Why handlers were not located, per language: reason and tools."""
    return frame(con, f"""
        SELECT {_LANGUAGE} AS language, h.reason, count(*) AS tools
        FROM tool_handlers h JOIN scope s ON s.repo = h.repo AND s.commit = h.commit
        WHERE h.handler_path IS NULL GROUP BY ALL ORDER BY tools DESC, language, h.reason""", manifest)


def findings(con: duckdb.DuckDBPyConnection, manifest: str | None = None,
             kinds: tuple[str, ...] = ("contradiction", "doubt")) -> pl.DataFrame:
    """Every verdict of ``kinds``: repository, tool, hint, what the handler does, and a permalink
    to the evidence line at the pinned commit (one click for a maintainer)."""
    return frame(con, """
        SELECT v.repo, v.commit, v.tool_name, v.path, v.line, v.verdict, v.hint, v.declared, v.detail,
               v.evidence_path, v.evidence_line,
               'https://github.com/' || v.repo || '/blob/' || v.commit || '/' || v.evidence_path
                   || '#L' || v.evidence_line AS permalink
        FROM tool_verdicts v JOIN scope s ON s.repo = v.repo AND s.commit = v.commit
        WHERE list_contains($kinds, v.verdict)
        ORDER BY v.verdict, v.repo, v.path, v.line""", manifest, params={"kinds": list(kinds)})
