"""TypeScript/JavaScript tool definitions: official SDK v1/v2 and its wrappers, fastmcp, Mastra.

Forms (sdk-idioms.md 4.1-4.4, 13), each attributed by the file's imports, never a receiver name:

- ``ts-mcp``: ``registerTool(name, config, cb)``, legacy ``tool(...)``, low-level
  ``setRequestHandler(ListToolsRequestSchema | 'tools/list', ...)`` listing tool objects (often a
  ``TOOLS`` constant of another file); also through ``mcp-handler``, ``@vercel/mcp-adapter`` and
  ``agents/mcp`` (``this.server.tool``). Loops over a known tool list give one row per element.
- ``ts-fastmcp``, ``ts-tmcp``, ``ts-azure-functions``: their own forms (``frameworks``).
- ``ts-mcp-framework``: classes extending mcp-framework's ``MCPTool`` (``classes``).
- Mastra ``createTool``: ``ts-mastra`` (named by its key in ``new MCPServer({ tools })``, as the
  server lists it) when registered anywhere in the tree, else the look-alike ``mastra-agent``.
- Look-alikes: OpenClaw ``api.registerTool({...})`` (``openclaw`` or a local re-export; or an
  ``AgentTool``-shaped object where the package or an imported type says OpenClaw, see
  ``openclaw``), Vercel AI ``tool({...})`` from ``ai``.
- A method of the project's subclass of ``McpServer`` that adds a tool (``subclassed``), and a
  project's wrappers, and wrappers of those (``wrappers``), give one row per
  call, ``via="wrapper:<name>"``; a call in a loop over a known list, one row per element.
- A registration in a loop over a list that cannot be followed gives one row per object literal
  with the keys it reads from the loop variable (``shaped.shaped_objects``), with the
  form suffixed ``-shaped`` (``typescript.ts-mcp.register-tool-shaped``): a guess, said so; a
  ``tools/list`` handler listing a record it cannot follow (``Object.entries(tools).map(([name,
  ...]) => ...)``), one row per record member shaped as a definition (``records``).

A row's ``line``, and the files left out with a reason, are described in ``rows``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from pipeline.scan.detect import markers
from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.model import NO_ANNOTATIONS, Exclusion, Tool
from pipeline.scan.detect.sdks import SDKS
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.typescript import forms
from pipeline.scan.detect.typescript.annotations import ToolInfo, tool_info
from pipeline.scan.detect.typescript.classes import class_tools, framework_tools, listed_instances
from pipeline.scan.detect.typescript.emit import Emitter, sited
from pipeline.scan.detect.typescript.frameworks import OBJECTISH, framework_form
from pipeline.scan.detect.typescript.imports import MARKERS, Imports, imports_of
from pipeline.scan.detect.typescript.index import ProjectIndex
from pipeline.scan.detect.typescript.openclaw import agent_tool, imports_openclaw_type, manifest_openclaw
from pipeline.scan.detect.typescript.resolver import Resolver
from pipeline.scan.detect.typescript.rows import declared_name, exclusion, given, has_identifier, through
from pipeline.scan.detect.typescript.shaped import Shapes
from pipeline.scan.detect.typescript.subclassed import method_call, server_methods
from pipeline.scan.detect.typescript.values import Node, Ref, arguments, callee, unwrap
from pipeline.scan.detect.typescript.wrappers import Wrapper, captures, element_keys

_INDEX_MARKERS = (*MARKERS, b"execute", b"createtool")
_DETECT_MARKERS = markers.TS_DETECT
#: callee names of the forms this module reads (wrapper names are added per tree)
_FORMS = ("registerTool", "tool", "addTool", "addTools", "setRequestHandler", "createTool", "mcpTool",
          "registerAppTool", "defineTool")
_CALL_MARKERS = markers.TS_CALLS
_INDEX_MARKERS_WORDS = markers.words(_INDEX_MARKERS)
_DETECT_MARKERS_WORDS = markers.words(_DETECT_MARKERS)
_CALL_MARKERS_WORDS = markers.words(_CALL_MARKERS)


class TypeScriptDetector:
    """Finds tool definitions in .ts/.tsx/.js files of one tree (two phases)."""

    def __init__(self, dependencies: Dependencies) -> None:
        self.dependencies = dependencies
        self._project = ProjectIndex()
        self._emit = Emitter(dependencies).emit
        self._mastra: tuple[dict[str, str], dict[tuple[str, int], str]] | None = None
        self._shaped = Shapes(self._project, dependencies)
        self._records: list[tuple[Ref, str]] | None = None
        self._methods: dict[str, list[Ref]] | None = None

    def index(self, file: SourceFile) -> None:
        """Phase 1: constants, helpers, wrappers, OpenClaw shims, Mastra servers."""
        self._project.note_module(file)
        if file.has_any(_INDEX_MARKERS_WORDS):
            self._project.note(file)

    def detect(self, file: SourceFile) -> Iterator[Tool | Exclusion]:
        """Phase 2: the file's tool definitions, or why it is left out."""
        self._project.deepen()
        claw = file.has_any(("registertool",)) and self._openclaw_evidence(file)
        if not (claw or self._wanted(file)):
            return
        imports = imports_of(file.path, file.data, self._project.openclaw_modules, self._project.mcp_modules)
        if not imports.openclaw and self._openclaw_plugin(file):
            imports = replace(imports, openclaw_local=True)
        elif not imports.openclaw and claw:
            imports = replace(imports, openclaw_shaped=True)
        if not imports.tool_library and self.dependencies.governs(SDKS["ts-mcp"].packages, file.path):
            imports = replace(imports, mcp_declared=True)
        rows = list(self._rows(file, imports)) if self._calls_a_form(file) else []
        if imports.mcp_framework and b"MCPTool" in file.data:
            found = framework_tools(self._project.subclasses, self._project.resolver(), file)
            rows += self._emit("ts-mcp-framework", "class", found)
        yield from rows
        if not rows and (excluded := exclusion(file, imports)) is not None:
            yield excluded

    def _openclaw_plugin(self, file: SourceFile) -> bool:
        """A plugin entry whose manifest declares ``openclaw`` (its ``./api.js`` shim may hold no ``tool``)."""
        entry = b"definepluginentry" in file.lower or b"openclawpluginapi" in file.lower
        return entry and self.dependencies.find(SDKS["openclaw"].packages, file.path) is not None

    def _openclaw_evidence(self, file: SourceFile) -> bool:
        """The package declares OpenClaw (no MCP SDK), or the file imports a type built on OpenClaw's."""
        return manifest_openclaw(self.dependencies, file.path) or \
            imports_openclaw_type(file.path, file.data, self._project.openclaw_types)

    def _calls_a_form(self, file: SourceFile) -> bool:
        """Whether ``file`` may hold a call ``_rows`` captures: the query compares callee names
        exactly, so one of ``_FORMS`` or a wrapper's name must occur as a whole identifier
        (``client.callTool(`` names no form), after a cheap look for the lower-cased markers."""
        own = (*self._project.wrappers, *self._server_methods())
        if not (file.has_any(_CALL_MARKERS_WORDS) or any(name.lower().encode() in file.lower for name in own)):
            return False
        return any(has_identifier(file.data, name.encode()) for name in (*_FORMS, *own))

    def _wanted(self, file: SourceFile) -> bool:
        if file.has_any(_DETECT_MARKERS_WORDS):
            return True
        if file.has_any(_CALL_MARKERS_WORDS) and self.dependencies.governs(SDKS["ts-mcp"].packages, file.path):
            return True  # registrations on a server the file is given (``Imports.mcp_declared``)
        if (self._project.openclaw_modules or self._project.mcp_modules) and file.has_any(("registertool",)):
            return True  # a local shim may stand for the SDK's import
        if self._project.mcp_modules and file.has_any(_CALL_MARKERS_WORDS):
            return True
        return any(name.lower().encode() in file.lower for name in self._project.wrappers)

    def _rows(self, file: SourceFile, imports: Imports) -> Iterator[Tool]:
        res = self._project.resolver()
        names = {*_FORMS, *self._project.wrappers, *self._server_methods()}
        # the calls every file's index has captured, chosen by callee: a query naming the wrappers
        # would be compiled anew for each project (10-20 ms in the TypeScript grammar)
        for call in captures(file).get("call", []):
            called = callee(call)
            if called is None or called[0] not in names or (file.path, call.start_byte) in self._project.templates:
                continue
            yield from self._dispatch(res, Ref(file, call), called, imports)

    def _dispatch(self, res: Resolver, call: Ref, called: tuple[str, Node], imports: Imports) -> Iterator[Tool]:
        name, name_node = called
        member = name_node.type == "property_identifier"
        args = arguments(call.node)
        first = unwrap(args[0]).type if args else ""
        mcp = imports.mcp_server or (imports.mcp_declared and member and given(call))
        if member and name == "registerTool" and mcp and len(args) >= 2 and first != "object":
            yield from self._loop_or(res, call, "register-tool", forms.register_tool)
        elif member and name == "registerTool" and first in OBJECTISH and \
                (imports.openclaw or (imports.openclaw_shaped and agent_tool(res, call))):
            yield from self._emit("openclaw", "register-tool", forms.object_tools(res, call, False))
        elif (made := framework_form(res, call, name, member, imports)) is not None:  # fastmcp, tmcp, Azure
            sdk, form, _ = made  # in a loop over a list (tools.forEach((t) => server.addTool(t))): each element

            def reread(bound: Resolver, at: Ref) -> forms.Found:
                return (framework_form(bound, at, name, member, imports) or made)[2]
            found, form = self._expanded(res, call, reread, form)
            yield from self._emit(sdk, form, found)
        elif member and name == "tool" and mcp:
            if not self._project.wrapping.given_tool(call):
                yield from self._loop_or(res, call, "tool", forms.legacy_tool)
        elif not member and name == "tool" and imports.vercel_ai and first == "object":
            yield from self._emit("vercel-ai", "tool", self._ai_tool(res, call))
        elif member and name == "setRequestHandler" and mcp:
            yield from self._listed(res, call)
        elif not member and name == "createTool" and imports.mastra_core:
            yield from self._create_tool(res, call)
        elif not member and name == "registerAppTool" and imports.mcp_apps and len(args) >= 3:
            yield from self._loop_or(res, call, "register-app-tool", forms.register_app_tool)
        elif member and method_call(call, name, self._server_methods()):
            found = forms.object_tools(res, call, False) if len(args) == 1 and first in OBJECTISH else \
                forms.legacy_tool(res, call)  # method({name, description, cb}) or the SDK's overloads
            yield from self._emit("ts-mcp", "tool", found, via=f"wrapper:{name}")
        elif (wrapper := self._project.visible(name, call.file, member)) is not None:
            yield from self._wrapped(res, call, wrapper)

    def _server_methods(self) -> dict[str, list[Ref]]:
        """The methods of the project's subclasses of ``McpServer`` that add a tool (``subclassed``)."""
        if self._methods is None:
            self._methods = server_methods(self._project.subclasses)
        return self._methods

    def _loop_or(self, res: Resolver, call: Ref, form: str, read: forms.Reader) -> Iterator[Tool]:
        found, form = self._expanded(res, call, read, form)
        site = (call.file.path, call.node.start_point[0] + 1)  # rows placed elsewhere keep the call's conditions
        if found and found[0][1].name is None and (made := class_tools(self._project.subclasses, res, call, read)):
            base, found = made  # a base class's registration: one tool per concrete subclass
            yield from sited(self._emit("ts-mcp", f"{form}-class", found, via=f"wrapper:{base}"), site)
            return
        yield from sited(self._emit("ts-mcp", form, found), site)

    def _expanded(self, res: Resolver, call: Ref, read: forms.Reader, form: str,
                  keys: tuple[str, frozenset[str]] | None = None) -> tuple[forms.Found, str]:
        """What ``read`` finds at ``call``, else one row per element of the list it loops over (-shaped: guessed)."""
        from pipeline.scan.detect.typescript import loops, made  # rarer forms: loaded on first use
        found = read(res, call)
        unnamed = not found or found[0][1].name is None  # a loop variable names no tool, or stands for no object
        expanded, guessed = loops.expand_loop(res, call, read, self._shaped, keys) if unnamed else ([], False)
        if unnamed and not any(info.name for _, info in expanded) and (loop := loops.loop_list(call)) is not None:
            instances = listed_instances(self._project.wrapping.modules, res, loop[1])  # for (t of [new ATool()])
            expanded, guessed = (instances, False) if instances else (expanded, guessed)
        if expanded:
            return expanded, f"{form}-shaped" if guessed else form
        return found, f"{form}-dynamic" if found and unnamed and made.run_time_list(res, call) else form

    def _listed(self, res: Resolver, call: Ref) -> Iterator[Tool]:
        """A ``tools/list`` handler's tool objects; when its list cannot be followed (a parameter, a
        registry built at run time), the objects shaped as MCP tools (a ``name`` and an ``inputSchema``)."""
        from pipeline.scan.detect.typescript.records import lists_record, record_definitions
        found, form = forms.list_tools(res, call), "list-tools"
        if forms.lists_tools(call):  # tools written as classes, listed as their instances
            modules = self._project.wrapping.modules
            found += [f for value in forms.tool_lists(res, call) for f in listed_instances(modules, res, value)]
        if not found and forms.lists_tools(call) and lists_record(call):
            if self._records is None:
                self._records = record_definitions(self._project, res)
            found, form = [(o, replace(tool_info(res, o), name=key)) for o, key in self._records], "list-tools-shaped"
        elif not found and forms.lists_tools(call):
            objects = self._shaped(call, "name", frozenset({"name", "inputSchema"}))
            found, form = [(o, tool_info(res, o)) for o in objects], "list-tools-shaped"
            if not found:  # a list made at run time (a remote API's answer): one row, unnamed, says so
                made = [value for value in forms.tool_lists(res, call) if forms.built_at_run_time(res, value)]
                unnamed = ToolInfo(None, None, NO_ANNOTATIONS)
                found, form = [(value, unnamed) for value in made[:1]], "list-tools-dynamic"
        yield from self._emit("ts-mcp", form, found)

    def _wrapped(self, res: Resolver, call: Ref, outer: Wrapper) -> Iterator[Tool]:
        """One row at the call of a wrapper; in a loop over a known list, one per element."""

        def read(bound: Resolver, at: Ref) -> forms.Found:
            return [(at, info) for _, info in through(bound, at, outer)[:1]]

        found, form = self._expanded(res, call, read, "wrapper", element_keys(outer))
        yield from self._emit(outer.sdk, form, found, via=f"wrapper:{outer.name}")

    def _create_tool(self, res: Resolver, call: Ref) -> Iterator[Tool]:
        from pipeline.scan.detect.typescript.shaped import mastra_names
        if self._mastra is None:
            self._mastra = mastra_names(res, self._project.mastra_tools)
        names, positions = self._mastra
        key = positions.get((call.file.path, call.node.start_byte)) or names.get(declared_name(call) or "")
        found = forms.create_tool(res, call)
        sdk = "ts-mastra" if key else "mastra-agent"
        yield from self._emit(sdk, "create-tool", found, name=key)

    def _ai_tool(self, res: Resolver, call: Ref) -> forms.Found:
        parent = call.node.parent
        key = parent.child_by_field_name("key") if parent is not None and parent.type == "pair" else None
        info = tool_info(res, call.at(arguments(call.node)[0]))
        return [(call, ToolInfo(call.file.text(key) if key else None, None, info.annotations))]
