"""The lower-cased words the language detectors look for before they read a file.

They live apart from the detectors so that the scan can ask for all of them (its prefilter,
``Detector.prefilter_words``) without importing a single detector or grammar: a tree with
no Go file never imports the Go detector. The shims a tree keeps (a file re-exporting the server
SDK, ``reexports_mcp_server``) are recognised here for the same reason.
"""

from __future__ import annotations

import re

# --- Python
PYTHON_HINTS = (b"readonlyhint", b"read_only_hint", b"destructivehint", b"destructive_hint", b"idempotenthint",
                b"idempotent_hint", b"openworldhint", b"open_world_hint")
#: (with a hint spelling) a file is indexed only if it holds one of these lower-cased bytes
PYTHON_INDEX = (b".tool(", b"add_tool(", b"toolannotations", b"list_tools", b"fastmcp(", b"mcpserver(", b"pydantic_ai")
#: the words of a registration's shape (the rest are expressions:
#: ``pipeline.scan.detect.python.prefilter.has_call_shape``)
PYTHON_SHAPE = (b"list_tools", b"from_function", b"function_tool", b"toolannotations", b"class fastmcp",
                b"class mcpserver", b"mcp_tool_trigger", b"mcptooltrigger", b"add_tool(")
#: one of these must be in the file before its imports are read (a plain search is faster)
PYTHON_DETECT = (b"mcp", b"agents", b"claude_agent_sdk", b"langchain", b"crewai", b"pydantic_ai", b"strands",
                 b"agno", b"smolagents", b"azure.functions")

# --- TypeScript and JavaScript
#: lower-cased bytes of the packages the TypeScript detector attributes tools to
TS_IMPORTS = (
    b"modelcontextprotocol", b"fastmcp", b"mcp-handler", b"mcp-adapter", b"agents/mcp", b"@mastra/", b"openclaw",
    b"mcp-framework", b"@azure/functions", b"litemcp", b"tmcp",
)
#: lower-cased bytes that make a file worth indexing (it may define presets, tool lists, wrappers)
TS_INDEX = (
    *TS_IMPORTS, b"readonlyhint", b"destructivehint", b"idempotenthint", b"openworldhint",
    b"annotations", b"inputschema", b"registertool", b"addtool",
)
#: markers of a file importing the look-alike ``ai`` package
TS_AI = (b'from "ai"', b"from 'ai'", b'require("ai")', b"require('ai')")
#: callee names of the registration forms, lower-cased
TS_CALLS = (b"registertool", b"tool(", b"addtool", b"setrequesthandler", b"createtool", b"mcptool(")
TS_DETECT = (*TS_IMPORTS, *TS_AI, b"toolannotations", b"class mcpserver", b"class fastmcp")


def words(markers: tuple[bytes, ...]) -> tuple[str, ...]:
    """``markers`` as the strings ``SourceFile.has_any`` takes."""
    return tuple(m.decode() for m in markers)


#: language -> the words its detector reads with ``SourceFile.has_any``
PREFILTER: dict[str, tuple[str, ...]] = {
    "python": (*words(PYTHON_HINTS), *words(PYTHON_INDEX), *words(PYTHON_DETECT), *words(PYTHON_SHAPE),
               "class toolannotations"),
    "typescript": (*words((*TS_INDEX, b"execute", b"createtool")), *words(TS_DETECT), *words(TS_CALLS)),
}

# --- shims: a file that re-exports an SDK's server stands for it (``kept.SHIMS``)
#: how far before the specifier an ``export { ... } from`` of it may start
_MAX_EXPORT = 4000
#: ``export { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"``: a local shim of the server SDK
_MCP_REEXPORT = re.compile(
    rb"""\bexport\s*(?:type\s*)?(?:\*|\{[^}]*\})\s*from\s*["']@modelcontextprotocol/(?:sdk/server|server)[^"']*["']"""
)


def reexports_mcp_server(data: bytes) -> bool:
    """Whether a file re-exports the MCP server SDK (``chrome-devtools-mcp``'s ``third_party/index.ts``)."""
    if b"@modelcontextprotocol/" not in data or b"export" not in data:
        return False
    return any(_MCP_REEXPORT.search(data, max(0, found - _MAX_EXPORT), found + 100) is not None
               for found in _server_imports(data))


def _server_imports(data: bytes) -> list[int]:
    """Where the server SDK's module specifiers start (the only places a re-export of it can end)."""
    found, start = [], 0
    while (at := data.find(b"@modelcontextprotocol/", start)) != -1:
        if data.startswith((b"sdk/server", b"server"), at + len(b"@modelcontextprotocol/")):
            found.append(at)
        start = at + 1
    return found


#: ``const server = new McpServer(``: a server instance made in a file (its variable's name)
_SERVER_MADE = re.compile(
    rb"\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=;]{0,200})?=\s*new\s+(?:McpServer|Server)\s*\(")


def exports_mcp_server(data: bytes) -> bool:
    """Whether a file that imports the server SDK exports a server it makes (``export const server =
    new McpServer(...)``, ``export { server }``, ``export default server``): another module that
    imports it registers tools on the SDK's server (``server.tool(...)`` with no SDK import of its own)."""
    if not _server_imports(data) or b"export" not in data:
        return False
    if re.search(rb"\bexport\s+default\s+new\s+(?:McpServer|Server)\s*\(", data):
        return True
    for made in _SERVER_MADE.finditer(data):
        name = re.escape(made.group(1))
        line_start = data.rfind(b"\n", 0, made.start()) + 1
        if re.match(rb"\s*export\b", data[line_start:made.start()]) or re.search(
                rb"\bexport\s*\{[^}]*(?<![\w$])%s(?![\w$])[^}]*\}|\bexport\s+default\s+%s\b" % (name, name), data):
            return True
    return False
