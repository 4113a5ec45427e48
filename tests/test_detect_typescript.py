"""Focused checks of the TypeScript detector on small in-memory trees (real parsing)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.scan.detect.corpus import detect_files
from pipeline.scan.detect.model import Tool
from pipeline.scan.detect.typescript import has_identifier
from pipeline.scan.detect.typescript_index import DECLARED_NAMES

SDK = 'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\n'


def _tools(files: dict[str, str]) -> list[Tool]:
    found = detect_files({path: text.encode() for path, text in files.items()}).tools
    return list(found)


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


_CLAW_TOOL = (
    "export function makeEchoTool() {\n"
    "  return { name: 'echo', label: 'Echo', parameters: {}, async execute(id: string) { return id; } };\n"
    "}\n"
)
_CLAW_WIRE = "import { makeEchoTool } from './echo.js';\nimport type { ToolCtx } from './ctx.js';\n" \
             "export function wire(ctx: ToolCtx) { ctx.api.registerTool(makeEchoTool()); }\n"


def test_openclaw_through_an_imported_type_without_a_manifest() -> None:
    ctx = "import type { OpenClawPluginApi as Api } from 'openclaw/plugin-sdk';\n" \
          "export type ToolCtx = { api: Api; log: (m: string) => void };\n"
    (tool,) = _tools({"p/ctx.ts": ctx, "p/wire.ts": _CLAW_WIRE, "p/echo.ts": _CLAW_TOOL})
    assert (tool.path, tool.line, tool.tool_name, tool.sdk, tool.is_mcp) == ("p/echo.ts", 2, "echo", "openclaw", False)


def test_openclaw_manifest_needs_the_agent_tool_shape_and_no_mcp_sdk() -> None:
    claw = '{"peerDependencies": {"openclaw": "*"}}'
    both = '{"dependencies": {"openclaw": "*", "@modelcontextprotocol/sdk": "^1.0.0"}}'
    mcp = '{"dependencies": {"@modelcontextprotocol/sdk": "^1.0.0"}}'
    plain = "export function wire(h: Host) { h.api.registerTool({ name: 'n', description: 'd', handler }); }\n"
    wire = _CLAW_WIRE.replace("import type { ToolCtx } from './ctx.js';\n", "")
    assert [t.tool_name for t in _tools({"package.json": claw, "w.ts": wire, "echo.ts": _CLAW_TOOL})] == ["echo"]
    assert _tools({"package.json": claw, "w.ts": plain}) == []
    assert _tools({"package.json": both, "w.ts": wire, "echo.ts": _CLAW_TOOL}) == []
    nested = {"package.json": claw, "s/package.json": mcp, "s/w.ts": wire, "s/echo.ts": _CLAW_TOOL,
              "s/srv.ts": SDK + 'server.registerTool("x", { annotations: { readOnlyHint: true } }, cb);\n'}
    assert [(t.tool_name, t.sdk) for t in _tools(nested)] == [("x", "ts-mcp")]


PLAIN_DECLARED = re.compile(
    rb"""\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=;]{1,200})?=\s*(?:[\[{"'`(]|async\b|function\b)"""
    rb"""|\bfunction\s*\*?\s*([A-Za-z_$][\w$]*)"""
)
_TS_PIECES = st.sampled_from([b"const", b"let", b"var", b"function", b"async", b" ", b"\n", b"x", b"$", b"_", b"=",
                              b"{", b"[", b"'", b"(", b":", b";", b"*", b"fun", b"c", b"l", b"v", b"f", b"9", b"."])


@settings(max_examples=800, deadline=None)
@given(st.lists(_TS_PIECES, max_size=25).map(b"".join))
def test_declared_names_are_those_of_the_plain_expression(source: bytes) -> None:
    assert DECLARED_NAMES.findall(source) == PLAIN_DECLARED.findall(source)


def test_a_client_calling_tools_is_not_parsed_for_registrations() -> None:
    """``client.callTool(`` names no registration form: the file is left unparsed and gives no row,
    while ``server.tool(`` in the same shape of file is read."""
    client = 'import { Client } from "@modelcontextprotocol/sdk/client/index.js";\n' \
             'export async function run(client: Client) { return client.callTool({ name: "x" }); }\n'
    assert has_identifier(client.encode(), b"tool") is False
    assert _tools({"c.ts": client}) == []
    server = SDK + 'const s = new McpServer({ name: "x", version: "1" });\n' \
                   's.tool("ping", async () => ({ content: [] }));\n'
    assert [t.tool_name for t in _tools({"s.ts": server})] == ["ping"]
