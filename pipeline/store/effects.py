"""The effects analysis's rows (``pipeline.scan.effects``): each server tool's handler, every
effect with its evidence, and the verdicts of its declared hints against them."""

from __future__ import annotations

from typing import Any

from pipeline.scan.detect import Detection
from pipeline.scan.effects.verdicts import judge

#: the tables a scan's effects fill (and a rescan empties)
TABLES = ("tool_handlers", "tool_effects", "tool_verdicts")


def rows(repo: str, commit: str, detection: Detection) -> dict[str, list[list[Any]]]:
    """The rows of ``TABLES`` for one scanned tree: handlers, effects and verdicts."""
    tools = {(t.path, t.line, t.tool_name): t for t in detection.tools}
    handlers: list[list[Any]] = []
    effects: list[list[Any]] = []
    verdicts: list[list[Any]] = []
    for found in detection.effects:
        key = [repo, commit, found.path, found.line, found.tool_name]
        h = found.handler
        handlers.append([*key, h.path, h.line, h.kind, h.reason or None, found.functions_read])
        effects.extend([*key, e.kind, e.path, e.line, e.call, e.rule, e.depth] for e in found.effects)
        tool = tools.get((found.path, found.line, found.tool_name))
        if tool is not None:
            verdicts.extend([*key, v.kind, v.hint, v.declared, v.detail,
                             v.evidence.path if v.evidence else None, v.evidence.line if v.evidence else None]
                            for v in judge(tool, found))
    return {"tool_handlers": handlers, "tool_effects": effects, "tool_verdicts": verdicts}
