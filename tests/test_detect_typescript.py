"""Focused checks of the TypeScript detector on small in-memory trees (real parsing)."""

from __future__ import annotations

from pipeline.scan.detect import Detector
from pipeline.scan.detect.model import Tool

SDK = 'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\n'


def _tools(files: dict[str, str]) -> list[Tool]:
    detector = Detector()
    for path, text in files.items():
        if detector.wants(path, len(text)):
            detector.add(path, text.encode())
    return list(detector.finish().tools)


def test_only_wire_names_are_hints() -> None:
    source = SDK + 's.registerTool("t", { annotations: { readOnly: true, openWorldHint: false } }, cb);\n'
    (tool,) = _tools({"a.ts": source})
    assert (tool.annotations.read_only_hint, tool.annotations.open_world_hint) == ("unset", "false")
    assert tool.annotations.source == "inline"


def test_tsx_file_and_destructured_wrapper() -> None:
    wrapper = SDK + (
        "export const addTool = (server: McpServer, { name, annotations }: Def) =>\n"
        "  server.registerTool(name, { annotations }, async () => ({ content: [] }));\n"
    )
    caller = 'import { addTool } from "./wrap";\naddTool(srv, { name: "x", annotations: { idempotentHint: true } });\n'
    (tool,) = _tools({"wrap.ts": wrapper, "page.tsx": caller})
    assert (tool.path, tool.line, tool.tool_name, tool.via) == ("page.tsx", 2, "x", "wrapper:addTool")
    assert tool.annotations.idempotent_hint == "true"


def test_unresolved_config_is_dynamic_and_loop_over_strings_has_no_name() -> None:
    source = SDK + "for (const n of NAMES) { s.registerTool(n, config, cb); }\nconst NAMES = ['a', 'b'];\n"
    (tool,) = _tools({"a.ts": source})
    assert tool.tool_name is None
    assert tool.annotations.source == "dynamic"
