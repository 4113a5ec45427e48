"""Phase 1 for TypeScript/JavaScript: what the project defines that registrations refer to.

- constants: every ``const X = <object | array | string>`` (annotation presets such as
  ``READ_ONLY``, hint-name constants, tool lists such as ``TOOLS: Tool[]``, tool objects);
- helpers: functions that return an object or array literal (``readOnly("T")``, tool factories);
- wrappers: a named function whose body registers a tool whose name (or tool object) comes from
  its own parameters, e.g. ``function defineTool(server, name, opts, cb) { server.registerTool(name, ...) }``,
  and wrappers of those (``wrappers``);
- files that re-export ``openclaw`` (a local ``./api.js`` shim) or declare types with its types
  (``interface ToolDeps { api: OpenClawPluginApi }``), and Mastra ``new MCPServer({ tools })``.

The phase is lazy, to parse each file about once: ``note`` only runs regular expressions over
the bytes (which names a file declares as an object, array, string or function; whether it may
hold a wrapper or a Mastra server). A file is parsed in phase 1 only for a possible wrapper or
Mastra server; constants and helpers are read from a file the first time phase 2 looks one of
its names up. Nodes are kept with their file (``Ref``), so the trees of the files that define
such values stay in memory until the tree is done.
"""

from __future__ import annotations

import re
from collections import defaultdict

from pipeline.scan.detect import markers
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.typescript.classes import Subclasses
from pipeline.scan.detect.typescript.enums import enum_bodies, enum_names
from pipeline.scan.detect.typescript.functions import (
    declared_before,
    enclosing_function,
    returned_name,
    returned_object,
)
from pipeline.scan.detect.typescript.imports import (
    Imports,
    default_export,
    imported_as,
    imported_modules,
    imports_name,
    imports_of,
    module_key,
    names_module,
    reexports_openclaw,
    seen_from,
)
from pipeline.scan.detect.typescript.openclaw import openclaw_types
from pipeline.scan.detect.typescript.resolver import Resolver
from pipeline.scan.detect.typescript.values import Node, Ref, arguments, callee, entries, string_of, unwrap
from pipeline.scan.detect.typescript.wrappers import Wrapper, Wrappers, captures, registration_slot

#: registration methods a wrapper may call, and the SDK each belongs to
WRAPPED = {"registerTool": "ts-mcp", "tool": "ts-mcp", "addTool": "ts-fastmcp"}
_DECLARATIONS = "(variable_declarator) @decl (function_declaration) @fn"
#: a registration whose first argument is a name, not a literal: a wrapper or a loop (the call
#: may pass type arguments: ``server.registerTool<Schema>(name, ...)``)
_MAYBE_WRAPPER = re.compile(rb"""\.(?:registerTool|tool|addTool)\s*(?:<[^()]{0,200}>)?\s*\(\s*(?!["'`{])[A-Za-z_$]""")
_MASTRA_SERVER = re.compile(rb"\bnew\s+MCPServer\s*\(")
#: ``const X = {``/``[``/string/function, ``function X``: names a file may define for phase 2.
#: It reads as ``\b(?:const|let|var)\s+(X)...|\bfunction...(X)``, written to start with the
#: first letters ``[cflv]`` so that the engine skips to them (40% faster on TypeScript trees).
#: A type annotation may hold ``;`` and ``=>`` (``const config: { title?: string; ... } = {``)
DECLARED_NAMES = re.compile(
    rb"""[cflv](?<=\b[cflv])(?:(?:(?<=c)onst|(?<=l)et|(?<=v)ar)\s+([A-Za-z_$][\w$]*)\s*(?::(?:[^=]|=>){1,2000}?)?"""
    rb"""=(?![=>])\s*"""
    rb"""(?:[\[{"'`(]|async\b|function\b)|(?<=f)unction\s*\*?\s*([A-Za-z_$][\w$]*))"""
)
#: what a block's constant may hold that the project's constants do not (``Resolver`` follows it)
_LOCAL_VALUES = frozenset({"identifier", "member_expression", "call_expression"})


class ProjectIndex:
    """Constants, helpers, wrappers and Mastra registrations of one tree."""

    def __init__(self) -> None:
        self.consts: dict[str, list[Ref]] = defaultdict(list)
        self.functions: dict[str, list[Ref]] = defaultdict(list)
        self.wrapping = Wrappers()
        self.wrappers = self.wrapping.by_name
        """name -> the functions of that name that register a tool per call (wrappers of wrappers too)."""
        self.templates = self.wrapping.templates
        """the registration calls inside wrappers (not tools themselves)."""
        self.openclaw_modules: set[str] = set()
        self.mcp_modules: set[str] = set()
        """files that re-export the MCP server SDK (a local shim, vendored or not)."""
        self.openclaw_types: dict[str, frozenset[str]] = {}
        self.mastra_tools: list[Ref] = []
        self.subclasses = Subclasses()
        """``class X extends Base`` declarations (tools written as classes)."""
        self._declaring: dict[str, list[SourceFile]] = defaultdict(list)
        self._named: set[str] = set()  # files whose declared names are in ``_declaring``
        self._asked: set[tuple[str, str]] = set()
        self._read: set[str] = set()
        self._sight: dict[tuple[str, str, str], Ref | None] = {}

    def const(self, name: str, file: SourceFile) -> Ref | None:
        """The value of constant ``name``, preferring ``file``'s own."""
        self._declare_imported(name, file)
        self._read_declarations(name)
        found = self._seen("const", name, file, self.consts.get(name))
        if found is None and (exported := imported_as(file.data, name)) is not None:
            return self.const(exported, file)  # import { tools as browserTools }
        return found

    def function(self, name: str, file: SourceFile) -> Ref | None:
        """The helper function ``name``, preferring ``file``'s own (in a file without the index's
        words too, when ``file`` imports it: ``export const tools = (): Tool[] => [...]``)."""
        self._declare_imported(name, file)
        self._read_declarations(name)
        return self._seen("function", name, file, self.functions.get(name))

    def _seen(self, kind: str, name: str, file: SourceFile, found: list[Ref] | None) -> Ref | None:
        """The definition of ``name`` that ``file`` sees (``imports.seen_from``), looked up
        once per file and name (every file declaring the name was read just before)."""
        key = (kind, name, file.path)
        if key not in self._sight:
            at = seen_from(file.path, file.data, name, [r.file.path for r in found or []])
            self._sight[key] = found[at] if found and at is not None else None
        return self._sight[key]

    def _declare_imported(self, name: str, file: SourceFile) -> None:
        """Phase 1 reads the names of files with the index's words only; a constant of another file
        (a tool list in ``commands.ts``) is found when a file importing it asks for it: in the module
        it names, or in one that module imports (a re-export, ``tools/index.ts``)."""
        if (name, file.path) in self._asked:
            return
        self._asked.add((name, file.path))
        if not imports_name(file.data, name):
            return
        word = name.encode()
        holders = [m for m in self.wrapping.modules if word in m.data and m.path != file.path]
        for module in imported_modules(file, holders):
            self._note_names(module)
            for inner in imported_modules(module, holders):
                self._note_names(inner)
        from pipeline.scan.detect.typescript.names import default_import
        spec = frozenset({default}) if (default := default_import(file.data, word)) is not None else frozenset()
        for module in (m for m in self.wrapping.modules if spec and names_module(file.path, spec, m.path)):
            if (value := self._default_export(module)) is not None:
                self.consts[name].append(value)  # import sessionTools from "./session.js": its default export

    def _default_export(self, module: SourceFile) -> Ref | None:
        """What ``export default <value>`` of ``module`` is: a literal, or the constant it names."""
        value = default_export(module)
        if value is None or value.type != "identifier":
            return Ref(module, value) if value is not None and value.type in ("object", "array") else None
        self._note_names(module)
        self._read_declarations(module.text(value))
        return next((c for c in self.consts.get(module.text(value), ()) if c.file.path == module.path), None)

    def _note_names(self, file: SourceFile) -> None:
        """Record the names ``file`` declares (``DECLARED_NAMES``), once."""
        if file.path in self._named:
            return
        self._named.add(file.path)
        for constant, function in DECLARED_NAMES.findall(file.data):
            self._declaring[(constant or function).decode()].append(file)
        for enum in enum_names(file):
            self._declaring[enum].append(file)

    def _read_declarations(self, name: str) -> None:
        for file in self._declaring.get(name, ()):
            if file.path not in self._read:
                self._read.add(file.path)
                found = captures(file, _DECLARATIONS)
                for decl in found.get("decl", []):
                    self._declarator(file, decl)
                for fn in found.get("fn", []):
                    self._function(file, fn, file.text(fn.child_by_field_name("name")))
                for enum, body in enum_bodies(file):
                    self.consts[enum].append(body)  # read as an object

    def resolver(self) -> Resolver:
        """A resolver over this index."""
        return Resolver(self.const, self.function, local=self.local)

    def local(self, ref: Ref, name: str) -> Ref | None:
        """The value of a ``const``/``let`` named ``name`` that a block around ``ref`` declares before
        it (the innermost), in a file that also declares ``name`` elsewhere: each of five loops' own
        ``const toolName = ...``; or a block's ``const annotations = (tool as T).annotations`` or
        ``const allTools = tools()`` (a name, member or call, which the project's constants do not
        hold). ``None``: the file's one declaration, or the project's, decides."""
        self._read_declarations(name)
        if any(c.file.path == ref.file.path for c in self.consts.get(name, ())):
            return declared_before(ref, name)
        found = declared_before(ref, name)
        return found if found is not None and unwrap(found.node).type in _LOCAL_VALUES else None

    def note_module(self, file: SourceFile) -> None:
        """Record a file that re-exports OpenClaw or declares types with its types (no parsing needed)."""
        self.wrapping.modules.append(file)
        self.subclasses.note(file)
        claw = file.has_any(("openclaw",))  # the scan's answer: a file without the word is not searched
        if claw and reexports_openclaw(file.data):
            self.openclaw_modules.add(module_key(file.path))
        if file.has_any(("modelcontextprotocol",)) and (markers.reexports_mcp_server(file.data) or
                                                          markers.exports_mcp_server(file.data)):
            self.mcp_modules.add(module_key(file.path))
        if claw and (types := openclaw_types(file.data)):
            self.openclaw_types[module_key(file.path)] = types

    def note(self, file: SourceFile) -> None:
        """Index one file: its declared names; wrappers and Mastra servers (parsing only for those)."""
        self._note_names(file)
        wrapper = _MAYBE_WRAPPER.search(file.data) is not None
        mastra = b"@mastra/mcp" in file.data and _MASTRA_SERVER.search(file.data) is not None
        if not (wrapper or mastra):
            return
        imports = imports_of(file.path, file.data, self.openclaw_modules, self.mcp_modules)
        wrapper = wrapper and (imports.mcp_server or imports.fastmcp)
        mastra = mastra and imports.mastra_mcp
        found = captures(file)
        for call in found.get("call", []) if wrapper else ():
            self._wrapper(file, call, imports)
        for new in found.get("new", []) if mastra else ():
            self._mastra(file, new)

    def _declarator(self, file: SourceFile, decl: Node) -> None:
        name, value = decl.child_by_field_name("name"), decl.child_by_field_name("value")
        if name is None or value is None or name.type != "identifier":
            return
        inner = string_of(unwrap(value))
        if inner.type in ("object", "array", "string", "template_string"):
            self.consts[file.text(name)].append(Ref(file, inner))
        elif inner.type in ("arrow_function", "function_expression", "function"):
            self._function(file, inner, file.text(name))

    def _function(self, file: SourceFile, fn: Node, name: str) -> None:
        if name and (returned_object(fn) is not None or returned_name(fn) is not None):
            self.functions[name].append(Ref(file, fn))

    def _wrapper(self, file: SourceFile, call: Node, imports: Imports) -> None:
        called = callee(call)
        if called is None or called[0] not in WRAPPED or called[1].type != "property_identifier":
            return
        sdk = WRAPPED[called[0]]
        if not (imports.fastmcp if sdk == "ts-fastmcp" else imports.mcp_server):
            return
        fn = enclosing_function(call)
        slot = registration_slot(file, call, fn, called[0]) if fn is not None else None
        self.wrapping.learn(file, call, fn, slot, sdk=sdk)

    def deepen(self) -> None:
        """Wrappers of wrappers, once phase 1 has read every file (see ``Wrappers.deepen``)."""
        self.wrapping.deepen()

    def visible(self, name: str, file: SourceFile, member: bool) -> Wrapper | None:
        """The wrapper ``name`` a call in ``file`` reaches (see ``Wrappers.visible``)."""
        return self.wrapping.visible(name, file, member)

    def _mastra(self, file: SourceFile, new: Node) -> None:
        constructor = new.child_by_field_name("constructor")
        args = arguments(new)
        if constructor is None or file.text(constructor) != "MCPServer" or not args:
            return
        config = Ref(file, unwrap(args[0]))
        if config.node.type == "object":
            self.mastra_tools.extend(v for k, v, _ in entries(config, self.resolver().consts) if k == "tools")
