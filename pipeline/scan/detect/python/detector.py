"""Python tool definitions: the official ``mcp`` SDK (v1 FastMCP, v2 MCPServer, low-level
servers), standalone ``fastmcp`` 2/3, the Claude Agent SDK, and look-alike agent frameworks.

Attribution is by imports: a receiver resolves to the object its file (or, one level, another
module of the tree) builds with ``FastMCP(...)`` / ``MCPServer(...)`` / ``Server(...)`` /
``Agent(...)``, or to a parameter typed with one of them; a receiver that does not resolve
counts only in a file importing an MCP server package (``fallback``). Project wrappers,
constants, presets and helpers are learnt in phase 1 (``index``) and followed one level.

Rows and lines (``rule`` is ``python.<sdk>.<form>``):

- ``decorator`` / ``decorator-v2``: ``@mcp.tool(...)`` (bare ``@mcp.tool`` only for fastmcp: the
  official SDK raises ``TypeError``), also ``mcp.tool(...)(fn)``; line of the decorator;
- ``call``: fastmcp ``mcp.tool(fn, name=...)``; ``add-tool`` / ``add-tool-v2``: ``mcp.add_tool(fn)``
  (not when ``fn`` is already counted); ``from-function``: ``Tool.from_function(fn)``; line of the call;
- ``standalone-decorator`` (fastmcp 3 ``@tool``), ``mixin-decorator`` (``@mcp_tool``), look-alike
  ``decorator`` / ``agent-decorator`` / ``from-function``; line of the decorator or call;
- ``lowlevel-tool`` / ``lowlevel-tool-v2``: each ``types.Tool(name=...)`` in a file serving a tool
  list (``list_tools`` / ``on_list_tools`` / ``ListToolsResult``) or in a module-level list such a
  handler returns; line of the ``Tool(`` call;
- ``wrapper``: a use of a project wrapper (``wrappers``, ``wrapped``), as a decorator or
  applied to a function (``wrap(mcp, "name")(fn)``), ``via="wrapper:<Class.method|function>"``; line of
  the decorator or call.

An unresolved receiver (an untyped parameter) needs an MCP import in its file; the nearest manifest
enclosing the file then settles ``fastmcp`` or ``mcp``.

Files defining their own ``ToolAnnotations`` class are excluded as ``type-definition``, copies of an
SDK's ``FastMCP`` / ``MCPServer`` class as ``sdk-source``, and files that only read hints through an
MCP client as ``client-code``.

Which files are parsed is settled from their bytes first (``prefilter``); the query run
over a parsed file and the scope built from its captures are in ``syntax``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from pipeline.scan.detect import markers
from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.model import Exclusion, Tool
from pipeline.scan.detect.python.forms import FileForms
from pipeline.scan.detect.python.index import ProjectIndex
from pipeline.scan.detect.python.prefilter import (
    DETECT_WORDS,
    HINT_MARKERS,
    INDEX_MARKERS,
    SHAPE_WORDS,
    has_call_shape,
    imports_any,
)
from pipeline.scan.detect.python.rules import declared, fallback
from pipeline.scan.detect.python.scope import Node, Scope, text
from pipeline.scan.detect.python.syntax import build_scope, captures
from pipeline.scan.detect.sdks import SDKS
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import capture_map, compiled

CLIENT_NAMES = ("ClientSession", "Client", "client")

_HINT_WORDS, _INDEX_WORDS = markers.words(HINT_MARKERS), markers.words(INDEX_MARKERS)
_SHAPE_WORDS = markers.words(SHAPE_WORDS)
_INDEX_BUT_LIST = tuple(word for word in _INDEX_WORDS if word != "list_tools")
#: a tool-list handler: ``@server.list_tools()`` (what phase 1 reads), not ``session.list_tools()``
_LIST_HANDLER = re.compile(rb"@[^\n]*\.list_tools\(")
_DETECT_WORDS = markers.words(DETECT_WORDS)
#: a ``@name.tool(`` decorator inside a function body (indented): a receiver a function is given
_GIVEN_DECORATOR = re.compile(rb"^[ \t]+@\w+\.tool\(", re.MULTILINE)
#: a class extending an SDK server class
_SERVER_CLASS = re.compile(rb"^[ \t]*class\s+\w+\s*\([^)]*\b(?:FastMCP|MCPServer)\b", re.MULTILINE)


class PythonDetector:
    """Finds Python tool definitions; one instance per tree."""

    def __init__(self, dependencies: Dependencies) -> None:
        self.dependencies = dependencies
        self.project = ProjectIndex()
        self._wrapper_markers: tuple[bytes, ...] = ()
        self._elsewhere: set[tuple[str, int, str | None]] = set()
        """rows placed in another file (at a list that file holds): registered again, one row still."""

    def index(self, file: SourceFile) -> None:
        """Phase 1: learn constants, presets, helpers, module objects and wrappers."""
        self.project.modules[file.path] = file
        if not _indexed(file):
            server_class = (b"fastmcp" in file.lower or b"mcpserver" in file.lower) and b"class " in file.data
            if server_class and _SERVER_CLASS.search(file.data) is not None:  # class App(FastMCP): naming no tool
                found = captures(file)
                self.project.learn_classes(file.data, build_scope(file, found, self.project), found)
            return
        found = captures(file)
        scope = build_scope(file, found, self.project)
        self.project.learn(file.path, file.data, scope, found, fallback(scope, self.dependencies, file.path))

    def detect(self, file: SourceFile) -> Iterator[Tool | Exclusion]:
        """Phase 2: the tools ``file`` defines, or why it is left out."""
        if not self._wrapper_markers:
            self.project.name_aliases()
            self._wrapper_markers = self._wrapper_uses() or (b"\0",)
        own_type = file.has_any(("class toolannotations",))
        imports = file.has_any(_DETECT_WORDS)
        if imports:  # only the words it holds are looked for: a search for another reads the whole file
            imports = imports_any(file.lower, tuple(word.encode() for word in file.held(_DETECT_WORDS)))
        if not (own_type or (imports and _shaped(file)) or self._wrapped(file) or self._registers_given(file)
                or self._builds_own_server(file)):
            return
        found = captures(file)
        excluded = self._excluded(file, found)
        if excluded is not None:
            yield excluded
            return
        scope = build_scope(file, found, self.project)
        tools = [tool for tool in self._tools(file, scope, found) if self._first_at(file, tool)]
        if not tools and _client_code(file, scope):
            yield Exclusion(file.path, "client-code", "reads tool annotations through an MCP client")
        yield from tools

    def _registers_given(self, file: SourceFile) -> bool:
        """Whether ``file`` decorates tools on a receiver it is given (``def register(mcp): @mcp.tool()``)
        in a package whose manifest declares an MCP server SDK: it needs no MCP import of its own."""
        return _GIVEN_DECORATOR.search(file.data) is not None and declared(self.dependencies, file.path) is not None \
            and self.dependencies.governs((*SDKS["python-mcp"].packages, *SDKS["python-fastmcp"].packages), file.path)

    def _builds_own_server(self, file: SourceFile) -> bool:
        """Whether ``file`` makes a server of the project's own subclass of an SDK server class (learnt
        in phase 1, ``items = ItemServer("items")`` with ``class ItemServer(FastMCP)`` in another
        module) and adds tools to something: it needs no MCP import of its own."""
        return bool(self.project.server_classes) and b".tool(" in file.data and any(
            f"{name}(".encode() in file.data for name in self.project.server_classes)

    def _first_at(self, file: SourceFile, tool: Tool) -> bool:
        """Whether ``tool`` is no row already made at the same place of another file (a list that
        a server and its tests both register: ``for tool in read_tools: add_read_only_tool(mcp, tool)``)."""
        if tool.path == file.path:
            return True
        key = (tool.path, tool.line, tool.tool_name)
        first = key not in self._elsewhere
        self._elsewhere.add(key)
        return first

    def _wrapped(self, file: SourceFile) -> bool:
        """Whether ``file`` uses one of the project's wrappers (names learnt in phase 1)."""
        return self._wrapper_markers != (b"\0",) and any(m in file.lower for m in self._wrapper_markers)

    def _wrapper_uses(self) -> tuple[bytes, ...]:
        """Lower-cased byte shapes of a use of a known wrapper: ``registry.tool``, ``Registry(``, ``my_tool(``."""
        classes = self.project.wrapper_classes
        uses = [f"{name}.{method}" for name, defs in self.project.objects.items() for _, o in defs
                if o.callee_name in classes for method in classes[o.callee_name]]
        uses += [f"{name}(" for name in classes]
        uses += [shape for name in self.project.wrapper_functions for shape in (f"{name}(", f"@{name}")]
        return tuple(use.lower().encode() for use in uses)

    def _tools(self, file: SourceFile, scope: Scope, found: dict[str, list[Node]]) -> Iterator[Tool]:
        forms = FileForms(file, scope, self.project, self.dependencies)
        for node in found.get("decorated", []):
            yield from forms.decorated(node)
        wrapped = any(path == file.path for path, _ in self.project.wrapper_bodies)
        for node in found.get("call", []):
            if wrapped and self._inside_wrapper(file.path, node):
                continue
            yield from forms.call(node)
        calls = {node.start_byte for node in found.get("call", [])}
        for node in self._wrapper_calls(file):
            applied = node.parent is not None and node.parent.type in ("call", "decorator") and \
                node.parent.child_by_field_name("function") in (node, None)
            if node.start_byte not in calls and not applied and not (wrapped and self._inside_wrapper(file.path, node)):
                yield from forms.wrapper_call(node)
        for node in found.get("definition", []):
            if node.start_byte not in calls and not (wrapped and self._inside_wrapper(file.path, node)):
                yield from filter(None, [forms.definition(node)])
        for node in found.get("private", []):
            yield from filter(None, [forms.private_table(node)])

    def _wrapper_calls(self, file: SourceFile) -> list[Node]:
        """Plain calls of the project's wrapper functions that take the tool's function
        (``add_read_only_tool(mcp, list_incidents)``)."""
        names = sorted(name for name, w in self.project.wrapper_functions.items() if w.forwarded("fn") is not None)
        if not names:
            return []
        quoted = " ".join(f'"{name}"' for name in names)
        source = f"(call function: (identifier) @_w (#any-of? @_w {quoted})) @wrapper_call"
        query = compiled("tree_sitter_python", "language", source)
        return file.kept(source, lambda: capture_map(query, file.tree.root_node)).get("wrapper_call", [])

    def _inside_wrapper(self, path: str, node: Node) -> bool:
        parent = node.parent
        while parent is not None:
            if parent.type == "function_definition" and (path, parent.start_byte) in self.project.wrapper_bodies:
                return True
            parent = parent.parent
        return False

    def _excluded(self, file: SourceFile, found: dict[str, list[Node]]) -> Exclusion | None:
        lower = file.lower
        if b"class toolannotations" not in lower and b"class fastmcp" not in lower and b"class mcpserver" not in lower:
            return None
        for node in found.get("class", []):
            name = text(file.data, node.child_by_field_name("name"))
            if name == "ToolAnnotations":
                return Exclusion(file.path, "type-definition", "defines class ToolAnnotations")
            if name in ("FastMCP", "MCPServer") and _defines_method(file.data, node, "tool"):
                return Exclusion(file.path, "sdk-source", f"defines {name}.tool")
        return None


def _defines_method(data: bytes, node: Node, method: str) -> bool:
    body = node.child_by_field_name("body")
    for child in body.named_children if body is not None else []:
        definition = child.child_by_field_name("definition") if child.type == "decorated_definition" else child
        if definition is not None and definition.type == "function_definition" and \
                text(data, definition.child_by_field_name("name")) == method:
            return True
    return False


def _shaped(file: SourceFile) -> bool:
    return file.has_any(_SHAPE_WORDS) or has_call_shape(file.lower, file.data)


def _indexed(file: SourceFile) -> bool:
    """Whether phase 1 can learn something from ``file``: it names a hint, a registration or a
    server (``INDEX_MARKERS``); ``list_tools`` counts only in a handler (``_LIST_HANDLER``,
    ``on_list_tools=``), since a client calling ``session.list_tools()`` defines nothing."""
    if file.has_any(_HINT_WORDS) or file.has_any(_INDEX_BUT_LIST):
        return True
    lower = file.lower
    return file.has_any(("list_tools",)) and (b"on_list_tools" in lower or _LIST_HANDLER.search(lower) is not None)


def _client_code(file: SourceFile, scope: Scope) -> bool:
    if not file.has_any(_HINT_WORDS):
        return False
    client = any(q.split(".")[0] in ("mcp", "fastmcp") and any(c in q for c in CLIENT_NAMES)
                 for q in scope.imports.values())
    return client or b"clientsession" in file.lower
