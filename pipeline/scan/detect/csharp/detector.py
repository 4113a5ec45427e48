"""C# detector for the official SDK (``ModelContextProtocol`` NuGet packages, key ``csharp-mcp``), and
for Azure Functions' ``[McpToolTrigger]`` (``functions``, key ``csharp-azure-functions``).

Forms (rule ``csharp.csharp-mcp.<form>``), and the line each row reports:

- ``attribute``: a method carrying ``[McpServerTool(...)]`` (any bracket, qualified or not); line of the
  ``McpServerTool`` attribute. Name: ``Name =``, else the SDK's ``DeriveName`` of the method.
  ``Title =`` is both ``Tool.title`` and ``annotations.title``. Hints ``ReadOnly``, ``Destructive``,
  ``Idempotent``, ``OpenWorld``; source ``attribute`` once any of them or ``Title`` is written.
- ``create``: ``McpServerTool.Create(target, new McpServerToolCreateOptions { ... })`` (or ``new() {..}``,
  or a shared static options object learnt in ``index``: ``preset:<name>``); line of the call; source
  ``options``. An ``[McpServerTool(..)]`` on a lambda target is read first and the options override it; a
  method-group target that carries ``[McpServerTool]`` itself is not a second row.
- ``protocol-tool``: ``new Tool { Name = .., Annotations = new ToolAnnotations { ReadOnlyHint = .. } }``
  (low-level handlers); line of the ``new``; source ``inline``, ``preset:<name>`` or ``dynamic``.

Attribution: a ``using ModelContextProtocol...`` in the file, a ``global using`` of it in a file of a folder above,
or a fully qualified ``ModelContextProtocol.Server.McpServerTool``; for the attribute and ``Create`` the
nearest ``*.csproj`` referencing a ``ModelContextProtocol`` package also counts, unless the project defines
its own ``McpServerToolAttribute`` (mika-f/uMCP style): those uses give a ``not-sdk`` exclusion. A file
defining ``McpServerToolAttribute``/``ToolAnnotations``/``McpServerToolCreateOptions``/``McpServerTool``
is a ``type-definition``; a file of the SDK's own namespaces (``namespace ModelContextProtocol[.X]``, tests
and samples aside) that defines or builds tools is ``sdk-source``; MCP client code reading hints is
``client-code``. An ``[McpServerTool]`` nothing attributes is an ``unattributed`` exclusion. The C# keyword
``readonly`` is never a marker: only attribute/initializer keys count. Global usings are seen only in files
the scan keeps (those mentioning "tool"); the manifest covers the others.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import tree_sitter

from pipeline.scan.detect.csharp.forms import (
    CSharpIndex,
    Declared,
    declared,
    derive_name,
    overlay,
)
from pipeline.scan.detect.csharp.functions import trigger_tools
from pipeline.scan.detect.csharp.learn import MARKERS, NAMESPACE, learn
from pipeline.scan.detect.csharp.nodes import (
    ATTRIBUTE_NAMES,
    METHODS,
    attribute_pairs,
    find_method,
    initializer_pairs,
    last_name,
    mcp_attribute,
    on_method,
    returns_async,
)
from pipeline.scan.detect.csharp.types import defined_types, sdk_namespace
from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.model import Annotations, Exclusion, Tool
from pipeline.scan.detect.sdks import SDKS
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import compiled

SDK = "csharp-mcp"
_HINTS = (b"readonlyhint", b"destructivehint", b"idempotenthint", b"openworldhint")
_USING = re.compile(rb"^(?:\xef\xbb\xbf)?[ \t]*(?:global\s+)?using\s+(?:static\s+)?(?:\w+\s*=\s*)?"
                    rb"ModelContextProtocol\b", re.M)
_USEDNAMESPACE = re.compile(rb"^[ \t]*(?:global\s+)?using\s+([\w.]+)\s*;", re.M)
_CLIENT = re.compile(rb"\b(?:I?McpClient|McpClientFactory|McpClientTool)\b")
_QUERY = """
(attribute name: (_) @n (#match? @n "(^|[.])McpServerTool(Attribute)?$")) @attribute
(invocation_expression function: (member_access_expression name: (identifier) @m (#eq? @m "Create"))) @call
(object_creation_expression type: (_) @t (#match? @t "(^|[.])Tool$")) @new
"""
#: a definition worth parsing the file for (the attribute, Create, a protocol Tool literal)
_CANDIDATE = re.compile(rb"McpServerTool(?:Attribute)?\s*[(\],]|McpServerTool\s*\.\s*Create\b"
                        rb"|new\s+(?:[\w.]+\.)?Tool\s*[({]")


class CSharpDetector:
    """Finds ``csharp-mcp`` tool definitions; see the module docstring for the forms."""

    def __init__(self, dependencies: Dependencies) -> None:
        self.dependencies = dependencies
        self.known = CSharpIndex()
        self._query = _query(_QUERY)

    def index(self, file: SourceFile) -> None:
        """Learn string/bool constants, global usings, the project's own attribute and annotation presets."""
        learn(file, self.known)

    def detect(self, file: SourceFile) -> Iterator[Tool | Exclusion]:
        """The tools ``file`` defines, or why it is left out."""
        yield from trigger_tools(file, self.dependencies, self.known.constants)  # Azure Functions
        if not any(m in file.lower for m in MARKERS):
            return
        candidate = _CANDIDATE.search(file.data) is not None
        if (namespace := sdk_namespace(file)) is not None:
            if candidate or defined_types(file):
                yield Exclusion(file.path, "sdk-source", f"namespace {namespace}")
            return
        if defined := defined_types(file):
            yield Exclusion(file.path, "type-definition", f"defines {', '.join(sorted(defined))}")
            return
        imported = _USING.search(file.data) is not None or any(
            d == "" or file.path.startswith(d + "/") for d in self.known.global_dirs)
        found = list(self._rows(file, imported)) if candidate else []
        tools = [row for row in found if isinstance(row, Tool)]
        yield from found
        client = b"mcpclient" in file.lower and any(h in file.lower for h in _HINTS)
        if not tools and client and _CLIENT.search(file.data):
            yield Exclusion(file.path, "client-code", "MCP client reading tool annotations")

    def _rows(self, file: SourceFile, imported: bool) -> Iterator[Tool | Exclusion]:
        captures = tree_sitter.QueryCursor(self._query).captures(file.tree.root_node)
        unattributed = 0
        nodes = [n for key in ("attribute", "call", "new") for n in captures.get(key, [])]
        for node in sorted(nodes, key=lambda n: n.start_byte):
            if node.type == "attribute":
                row = self._attribute(file, node, imported)
                unattributed += row is None and on_method(node)
            elif node.type == "invocation_expression":
                row = self._create(file, node, imported)
            else:
                row = self._protocol_tool(file, node) if imported else None
            if row is not None:
                yield row
        if unattributed:
            if self._own_attribute(file):
                detail = f"{unattributed} uses of the project's own McpServerToolAttribute"
                yield Exclusion(file.path, "not-sdk", detail)
            else:
                detail = f"{unattributed} [McpServerTool] without ModelContextProtocol"
                yield Exclusion(file.path, "unattributed", detail)

    def _attributed(self, file: SourceFile, imported: bool) -> bool:
        if imported:
            return True
        return not self._own_attribute(file) and self.dependencies.find(SDKS[SDK].packages, file.path) is not None

    def _own_attribute(self, file: SourceFile) -> bool:
        """Whether ``file`` sees the project's own ``McpServerToolAttribute`` (imports or lives in its namespace)."""
        names = set(_USEDNAMESPACE.findall(file.data)) | set(NAMESPACE.findall(file.data))
        return any(own == b"" or own in names for own in self.known.own_attribute)

    def _attribute(self, file: SourceFile, node: tree_sitter.Node, imported: bool) -> Tool | None:
        name_node = node.child_by_field_name("name")
        if name_node is None or last_name(file, name_node) not in ATTRIBUTE_NAMES:
            return None
        qualified = file.text(name_node).startswith("ModelContextProtocol.")
        method = node.parent.parent if node.parent is not None else None
        if method is None or method.type not in METHODS:
            return None
        if not (qualified or self._attributed(file, imported)):
            return None
        found = declared(attribute_pairs(file, node), file, self.known, "attribute", title_in_annotations=True)
        method_name = file.text(method.child_by_field_name("name"))
        name = found.name if found.name_written else derive_name(method_name, returns_async(method, file))
        return _tool(file, node, name, f"attribute{found.built if found.name_written else ''}", found)

    def _create(self, file: SourceFile, node: tree_sitter.Node, imported: bool) -> Tool | None:
        function = node.child_by_field_name("function")
        if function is None or function.type != "member_access_expression":
            return None
        target = function.child_by_field_name("expression")
        if file.text(function.child_by_field_name("name")) != "Create" or target is None:
            return None
        if last_name(file, target) != "McpServerTool" or not self._attributed(file, imported):
            return None
        args = [a for a in (node.child_by_field_name("arguments") or node).children if a.type == "argument"]
        options = self._options(file, args)
        first = args[0].named_children[-1] if args and args[0].named_children else None
        attribute = mcp_attribute(file, first) if first is not None else None
        method_name, method = self._target(file, first)
        if attribute is None and method is not None and mcp_attribute(file, method) and not options.name_written:
            return None  # the [McpServerTool] method is already a row of its own
        if method is None and first is not None and ((first.type == "identifier" and _reflected(file, node))
                                                     or b"GetMethod" in file.data[first.start_byte : first.end_byte]):
            return None  # a MethodInfo found by reflection: the method it names is counted where it is declared
        base = Declared()
        if attribute is not None:
            base = declared(attribute_pairs(file, attribute), file, self.known, "attribute", title_in_annotations=True)
        found = overlay(base, options)
        if found.name_written:
            return _tool(file, node, found.name, "create", found)
        is_async = returns_async(method, file) if method is not None else (method_name or "").endswith("Async")
        return _tool(file, node, derive_name(method_name, is_async) if method_name else None, "create", found)

    def _options(self, file: SourceFile, args: list[tree_sitter.Node]) -> Declared:
        if len(args) < 2:
            return Declared()
        value = args[-1].named_children[-1]
        if value.type.endswith("object_creation_expression"):
            return declared(initializer_pairs(file, value), file, self.known, "options", title_in_annotations=True)
        name = last_name(file, value)
        if value.type in ("identifier", "member_access_expression") and name in self.known.presets:
            return Declared(annotations=self.known.presets[name].with_source(f"preset:{name}"))
        return Declared(name_written=True, annotations=Annotations(source="dynamic"))

    def _target(self, file: SourceFile, target: tree_sitter.Node | None) -> tuple[str | None, tree_sitter.Node | None]:
        """The method name a ``Create`` target names (method group or ``nameof``), and its declaration here."""
        if target is None:
            return None, None
        text = file.text(target)
        if "nameof(" in text:
            name = text.rsplit("nameof(", 1)[1].split(")", 1)[0].rsplit(".", 1)[-1].strip()
        elif target.type in ("identifier", "member_access_expression"):
            name = last_name(file, target)
        else:
            return None, None
        return name, find_method(file, name)

    def _protocol_tool(self, file: SourceFile, node: tree_sitter.Node) -> Tool | None:
        kind = node.child_by_field_name("type")
        if kind is None or last_name(file, kind) != "Tool":
            return None
        pairs = list(initializer_pairs(file, node))
        if not any(key == "Name" for key, _ in pairs):
            return None
        found = declared(iter(pairs), file, self.known, "inline", title_in_annotations=False)
        return _tool(file, node, found.name, f"protocol-tool{found.built}", found)


def _reflected(file: SourceFile, node: tree_sitter.Node) -> bool:
    """Whether the method around ``node`` looks methods up by reflection (``GetMethod(s)``)."""
    parent = node.parent
    while parent is not None and parent.type not in ("method_declaration", "local_function_statement",
                                                     "constructor_declaration"):
        parent = parent.parent
    return parent is not None and b"GetMethod" in file.data[parent.start_byte : parent.end_byte]


def _tool(file: SourceFile, node: tree_sitter.Node, name: str | None, form: str, found: Declared) -> Tool:
    ann = found.annotations
    via = ann.source if ann.source.startswith("preset:") else "direct"
    return Tool(path=file.path, line=file.line(node), sdk=SDK, tool_name=name, rule=f"csharp.{SDK}.{form}",
                annotations=ann, via=via, tool_title=found.tool_title)


def _query(source: str) -> tree_sitter.Query:
    """A compiled C# query (compiled once per process)."""
    return compiled("tree_sitter_c_sharp", "language", source)
