"""Focused checks of the TypeScript detector on small in-memory trees (real parsing)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.scan.detect.corpus import detect_files
from pipeline.scan.detect.model import Tool
from pipeline.scan.detect.typescript.imports import imports_name, module_specs, names_module
from pipeline.scan.detect.typescript.index import DECLARED_NAMES
from pipeline.scan.detect.typescript.rows import has_identifier

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
    rb"""\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::(?:[^=]|=>){1,2000}?)?=(?![=>])\s*"""
    rb"""(?:[\[{"'`(]|async\b|function\b)"""
    rb"""|\bfunction\s*\*?\s*([A-Za-z_$][\w$]*)"""
)
_TS_PIECES = st.sampled_from([b"const", b"let", b"var", b"function", b"async", b" ", b"\n", b"x", b"$", b"_", b"=",
                              b">", b"{", b"[", b"'", b"(", b":", b";", b"*", b"fun", b"c", b"l", b"v", b"f", b"9",
                              b"."])


@settings(max_examples=800, deadline=None)
@given(st.lists(_TS_PIECES, max_size=25).map(b"".join))
def test_declared_names_are_those_of_the_plain_expression(source: bytes) -> None:
    assert DECLARED_NAMES.findall(source) == PLAIN_DECLARED.findall(source)


PLAIN_SPEC = re.compile(rb"""(?:\bfrom|\bimport|\brequire)\s*\(?\s*["']([^"'\n]{1,200})["']""")
_SPEC_PIECES = st.sampled_from([b"from", b"import", b"require", b"im", b"x", b"_", b" ", b"\n", b"(", b"'", b'"',
                                b"./a", b"/", b";", b"9", b"fro"])


@settings(max_examples=800, deadline=None)
@given(st.lists(_SPEC_PIECES, max_size=25).map(b"".join))
def test_module_specs_are_those_of_the_plain_expression(source: bytes) -> None:
    """Trying the pattern only where one of its words starts a word finds what its scan finds."""
    assert module_specs(source) == {m.decode("utf-8", "replace") for m in PLAIN_SPEC.findall(source)}


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


def test_an_imported_name_is_read_within_its_own_braces() -> None:
    """Without semicolons, ``import ... registerTool ... from`` must not run from one import into the
    code after it (a call's ``from:`` key): only a name in an import's braces, or the default, counts."""
    no_semicolons = b"import { a } from './a'\nimport type { Ctx } from './ctx'\n\n" \
                    b"export function f(ctx: Ctx) {\n\tregisterTool({ name: 'x', from: 1 })\n}\n"
    assert imports_name(no_semicolons, "registerTool") is False
    assert imports_name(b"import { a, registerTool as r } from './w'", "registerTool") is True
    assert imports_name(b"import type { Ctx,\n  registerTool } from './w'", "registerTool") is True
    assert imports_name(b"import registerTool, { b } from './w'", "registerTool") is True
    assert imports_name(b"const { registerTool } = require('./w')", "registerTool") is True
    assert imports_name(b"import { registerTools } from './w'", "registerTool") is False


def test_a_module_is_named_by_a_relative_or_a_workspace_specifier() -> None:
    target = "packages/shared/src/context.ts"
    assert names_module("apps/a/src/t.ts", frozenset({"@acme/shared/src/context"}), target) is True
    assert names_module("packages/shared/src/x/t.ts", frozenset({"../context.js"}), target) is True
    assert names_module("apps/a/src/t.ts", frozenset({"@acme/shared/src/other"}), target) is False
    assert names_module("apps/a/src/t.ts", frozenset({"@acme/shared"}), target) is False
    assert names_module("apps/a/src/t.ts", frozenset({"./context"}), target) is False


def test_a_method_of_the_same_name_is_a_wrapper_only_from_its_module() -> None:
    """``x.registerTool(name, ...)`` reaches the project's registration context only in a file
    that imports the module defining it; elsewhere it is someone else's method."""
    context = 'import type { McpServer } from "@modelcontextprotocol/server";\n' \
              "export function make(server: McpServer) {\n" \
              "  const registerTool = (name: string, config: object, cb: () => void) =>\n" \
              "    server.registerTool<object>(name, config, cb);\n" \
              "  return { registerTool };\n}\n"
    app = "import type { Ctx } from '../lib/context'\n" \
          "export function tools(ctx: Ctx) {\n  ctx.registerTool('ping', {}, async () => ({ content: [] }))\n}\n"
    other = "export function tools(engine: Engine) {\n  engine.registerTool('ping', {})\n}\n"
    found = _tools({"lib/context.ts": context, "app/tools.ts": app, "app/other.ts": other})
    assert [(t.path, t.tool_name, t.via) for t in found] == [("app/tools.ts", "ping", "wrapper:registerTool")]


def test_test_files_are_told_by_folder_or_name_part() -> None:
    from pipeline.scan.detect.paths import in_tests

    assert [in_tests(p) for p in ("src/test/a.ts", "a/__tests__/b.ts", "x.test.ts", "pkg/x_test.go",
                                  "test_server.py", "src/latest_version.ts", "src/contest.ts")] == \
        [True, True, True, True, True, False, False]


def test_a_loop_variable_is_never_a_constant_of_another_file() -> None:
    """``tool.name`` in a loop over a list the detector cannot follow does not read a test's
    ``const tool``: with no object of the loop's shape outside tests, the row is the loop's, its
    name unknown; an object of that shape outside tests is read as the loop's element."""
    server = SDK + "export function wire(s: McpServer, tools: Def[]) {\n" \
                   "  for (const tool of tools) {\n" \
                   "    s.registerTool(tool.name, { annotations: tool.annotations }, cb);\n  }\n}\n"
    fixture = "const tool = { name: 'fixture', annotations: { readOnlyHint: true } };\n"
    found = _tools({"src/server.ts": server, "src/test/fixture.ts": fixture})
    assert [(t.path, t.tool_name, t.annotations.read_only_hint) for t in found] == [("src/server.ts", None, "dynamic")]
    found = _tools({"src/server.ts": server, "src/defs.ts": fixture})
    assert [(t.path, t.tool_name, t.annotations.read_only_hint) for t in found] == [("src/defs.ts", "fixture", "true")]
    assert found[0].rule == "typescript.ts-mcp.register-tool-shaped"  # a guess, and the rule says so


def test_a_helper_that_decorates_a_tool_it_is_given_defines_none() -> None:
    """``server.addTool(guard(tool))`` where ``guard`` returns ``{ ...tool, canList }`` passes on a
    tool defined elsewhere: no row; a factory returning its own named object still is one."""
    fast = 'import { FastMCP } from "fastmcp";\nconst server = new FastMCP({ name: "x", version: "1.0.0" });\n'
    source = fast + ("function guard(tool: Tool) { return { ...tool, canList: () => true }; }\n"
                     "function make() { return { name: 'made', annotations: { readOnlyHint: true } }; }\n"
                     "server.addTool(guard(existing));\nserver.addTool(make());\n")
    assert [t.tool_name for t in _tools({"a.ts": source})] == ["made"]


def test_a_registration_through_a_cast_is_read() -> None:
    """``(server.registerTool as T)(name, config, cb)`` is the SDK's registerTool; in JavaScript,
    which has no ``as``, the same file's plain calls are still read."""
    cast = SDK + "(s.registerTool as (n: string, c: object, f: unknown) => void)(\"cast\", " \
                 "{ annotations: { readOnlyHint: true } }, cb);\n"
    (tool,) = _tools({"a.ts": cast})
    assert (tool.tool_name, tool.annotations.read_only_hint) == ("cast", "true")
    plain = SDK + 's.registerTool("plain", {}, cb);\n'
    assert [t.tool_name for t in _tools({"b.js": plain})] == ["plain"]


def test_a_list_built_with_push_and_hints_chosen_at_run_time() -> None:
    """A tools/list handler that fills ``const tools = []`` with ``tools.push({...})``: each push
    is a definition; ``...(readOnly ? { readOnlyHint: true } : { destructiveHint: true })``
    sets both hints at run time (dynamic), not neither."""
    source = 'import { Server } from "@modelcontextprotocol/sdk/server/index.js";\n' \
             'import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";\n' \
             "server.setRequestHandler(ListToolsRequestSchema, async () => {\n" \
             "  const tools = [];\n" \
             "  tools.push({ name: 'fixed', inputSchema: {}, annotations: { openWorldHint: false } });\n" \
             "  for (const op of ops) {\n" \
             "    tools.push({ name: op.id, inputSchema: {}, annotations: {\n" \
             "      ...(op.get ? { readOnlyHint: true } : { destructiveHint: true }), idempotentHint: true } });\n" \
             "  }\n  return { tools };\n});\n"
    rows = [(t.tool_name, t.annotations.read_only_hint, t.annotations.destructive_hint,
             t.annotations.idempotent_hint, t.annotations.open_world_hint) for t in _tools({"s.ts": source})]
    assert rows == [("fixed", "unset", "unset", "unset", "false"), (None, "dynamic", "dynamic", "true", "unset")]


def test_a_wrapper_given_whole_tool_objects_in_a_loop_it_cannot_follow() -> None:
    """``for (const tool of createTools(args)) registerTool(tool)``, where the wrapper reads
    ``tool.name`` and ``tool.annotations``: the objects with those keys are the tools, each named."""
    defs = "export const openPage = defineTool({ name: 'open_page', description: 'Open', " \
           "annotations: { readOnlyHint: false } });\n" \
           "export const listPages = defineTool({ name: 'list_pages', description: 'List', " \
           "annotations: { readOnlyHint: true } });\n"
    server = SDK + "export function start(server: McpServer, args: object) {\n" \
                   "  function registerTool(tool: Def): void {\n" \
                   "    server.registerTool(tool.name, { annotations: tool.annotations }, cb);\n" \
                   "  }\n  for (const tool of createTools(args)) {\n    registerTool(tool);\n  }\n}\n"
    found = _tools({"src/pages.ts": defs, "src/index.ts": server})
    assert [(t.tool_name, t.annotations.read_only_hint, t.via) for t in found] == [
        ("open_page", "false", "wrapper:registerTool"), ("list_pages", "true", "wrapper:registerTool")]
    assert {t.rule for t in found} == {"typescript.ts-mcp.wrapper-shaped"}


def test_the_sdk_imported_through_a_vendored_shim() -> None:
    """``import { McpServer } from './third_party/index.js'``, where that vendored file re-exports
    the server SDK: the file is left out as vendored, but an import of it is an import of the SDK."""
    shim = "export {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js';\n" \
           "export {default as yargs} from 'yargs';\n"
    server = "import {McpServer} from './third_party/index.js';\n" \
             "const server = new McpServer({name: 'x', version: '1'});\n" \
             "server.registerTool('ping', {annotations: {readOnlyHint: true}}, cb);\n"
    detection = detect_files({"src/third_party/index.ts": shim.encode(), "src/index.ts": server.encode()})
    assert [(t.tool_name, t.annotations.read_only_hint) for t in detection.tools] == [("ping", "true")]
    assert [(e.path, e.reason) for e in detection.exclusions] == [("src/third_party/index.ts", "vendored")]
    assert _tools({"src/index.ts": server}) == []  # without the shim, nothing says McpServer is the SDK's
