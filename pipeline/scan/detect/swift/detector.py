"""The Swift detector: the official SDK (``import MCP``) and Cocoanetics/SwiftMCP (``import SwiftMCP``).

Forms (rule ``swift.<sdk>.<form>``):

- ``swift-mcp`` ``constructor``: ``Tool(name: "x", title: .., description: .., inputSchema: ..,
  annotations: .init(title: .., readOnlyHint: ..))`` (also ``.init(name:..inputSchema:..)`` where
  the type is inferred, ``Tool.Annotations(..)`` spelled out, and a shared ``Tool.Annotations``
  value as a preset). Line: the call. ``title:`` on the Tool is the tool-level title.
- ``swift-swiftmcp`` ``attribute``: ``@MCPTool(hints: [.readOnly, .idempotent])`` or the older
  ``@MCPTool(readOnlyHint: true)`` on a method; the name is ``name:`` or the method name, converted
  by ``@MCPServer(toolNaming: .snakeCase | .pascalCase)``. Line: the attribute. Listed hints are
  ``true``; the OptionSet cannot say ``false``.
- ``wrapper``: each call of a project func that builds ``Tool(name: <its parameter>, ..)``.

Files are attributed by ``import MCP`` / ``import SwiftMCP``; ``import MCPTool`` (the
promptping-ai fork's ``@Tool struct`` macro) is not an MCP SDK here and gives no row.
Exclusions: a file defining its own ``ToolAnnotations``/``Annotations`` type with hint fields
(``type-definition``; ``sdk-source`` when nested in ``struct Tool`` or when the file declares the
``MCPTool`` macro itself), and a file importing an SDK that defines no tool but reads hints
(``client-code``, e.g. ``tool.annotations.readOnlyHint`` in a ``Client``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.model import Annotations, Exclusion, Tool, substitute
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.swift import calls
from pipeline.scan.detect.swift.values import (
    attribute_arguments,
    call_arguments,
    callee,
    captures,
    evaluate,
    string_value,
)
from pipeline.scan.detect.syntax import Node, named

MARKERS = (b"import mcp", b"swiftmcp", b"mcptool", b"readonlyhint", b"toolannotations")
IMPORTS = {"MCP": "swift-mcp", "SwiftMCP": "swift-swiftmcp"}
_HINTS = frozenset({"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"})


@dataclass(frozen=True)
class Wrapper:
    """A project func that builds one official-SDK ``Tool`` per call."""

    name: str
    path: str
    params: tuple[tuple[str, str | None], ...]
    """(internal name, argument label or None for ``_``) of each parameter."""
    defaults: tuple[str | None, ...]
    """each parameter's default value as written (``readOnly: Bool = false``), used where a call leaves it out."""
    name_index: int
    annotations: Annotations
    tool_title: str | None


class SwiftDetector:
    """Finds Swift MCP tool definitions; one instance per tree."""

    def __init__(self, dependencies: Dependencies) -> None:
        self.dependencies = dependencies
        self.presets: dict[str, Annotations] = {}
        self.wrappers: dict[str, Wrapper] = {}

    def index(self, file: SourceFile) -> None:
        """Phase 1: shared ``Tool.Annotations`` values and Tool-building funcs."""
        if "swift-mcp" not in self._sdks(file, None):
            return
        nodes = captures(file)
        for prop in nodes.get("property", []):
            value, name = prop.child_by_field_name("value"), prop.child_by_field_name("name")
            if name is not None and calls.annotations_value(file, value):
                self.presets[file.text(name).strip()] = evaluate(file, value, lambda _: None, {})
        for call in nodes.get("call", []):
            function = calls.enclosing_function(call) if calls.is_tool(file, call) else None
            if function is not None and (wrapper := self._wrapper(file, function, call)) is not None:
                self.wrappers.setdefault(wrapper.name, wrapper)

    def detect(self, file: SourceFile) -> Iterator[Tool | Exclusion]:
        """Phase 2: the tool rows of ``file`` (or why it is left out)."""
        called = [w for w in self.wrappers if w.lower().encode() + b"(" in file.lower]  # name( or x.name(
        if not called and not any(m in file.lower for m in MARKERS):
            return
        nodes = captures(file)
        if (why := calls.type_definition(file, nodes)) is not None:
            yield Exclusion(file.path, why, "defines its own tool annotations type")
            return
        sdks = self._sdks(file, nodes)
        rows = list(self._rows(file, nodes, sdks))
        yield from rows
        if not rows and sdks and any(file.text(n) in _HINTS for n in nodes.get("nav", [])):
            yield Exclusion(file.path, "client-code", "reads tool annotation hints, defines no tool")

    def _sdks(self, file: SourceFile, nodes: dict[str, list[Node]] | None) -> set[str]:
        if b"import mcp" not in file.lower and b"import swiftmcp" not in file.lower:
            return set()
        imports = (nodes or captures(file)).get("import", [])
        roots = {file.text(named(i)[-1]).split(".")[0] for i in imports if named(i)}
        return {IMPORTS[r] for r in roots if r in IMPORTS}

    def _rows(self, file: SourceFile, nodes: dict[str, list[Node]], sdks: set[str]) -> Iterator[Tool]:
        for call in nodes.get("call", []):
            if "swift-mcp" in sdks and calls.is_tool(file, call) and not self._inside_wrapper(file, call):
                yield self._constructor(file, call)
            elif (wrapper := self._called(file, call)) is not None:
                yield self._wrapper_call(file, call, wrapper)
        if "swift-swiftmcp" in sdks:
            for function in nodes.get("function", []):
                attribute = calls.attribute(file, function, "MCPTool")
                if attribute is not None:
                    yield self._swiftmcp(file, function, attribute)

    def _constructor(self, file: SourceFile, call: Node, params: dict[str, int] | None = None) -> Tool:
        args = dict(call_arguments(file, call))
        annotations = evaluate(file, args.get("annotations"), self.presets.get, params or {})
        via = annotations.source if annotations.source.startswith("preset:") else "direct"
        name, title = string_value(file, args.get("name")), string_value(file, args.get("title"))
        return calls.tool(file, call, "swift-mcp", name, form="constructor", annotations=annotations, via=via,
                     tool_title=title)

    def _called(self, file: SourceFile, call: Node) -> Wrapper | None:
        """The wrapper a call reaches: ``register(..)``, or a method call ``registry.register(..)``
        whose argument labels are the wrapper's (Swift files of a module see each other's types
        without importing them, so the labels are the evidence)."""
        called = callee(file, call)
        wrapper = self.wrappers.get(called)
        if wrapper is not None or "." not in called:
            return wrapper
        wrapper = self.wrappers.get(called.rsplit(".", 1)[-1])
        labels = {label for label, _ in call_arguments(file, call)}
        own = {label for _, label in wrapper.params} if wrapper is not None else set()
        named = wrapper is not None and wrapper.params[wrapper.name_index][1] in labels
        return wrapper if wrapper is not None and named and labels <= own else None

    def _wrapper(self, file: SourceFile, function: Node, call: Node) -> Wrapper | None:
        """A wrapper when the ``Tool(..)`` built in ``function`` is named by one of its parameters."""
        params = calls.parameters(file, function)
        internal = {name: i for i, (name, _) in enumerate(params)}
        name = file.text(dict(call_arguments(file, call)).get("name"))
        if name not in internal:
            return None
        tool = self._constructor(file, call, internal)
        return Wrapper(file.text(function.child_by_field_name("name")), file.path, params,
                       calls.defaults(file, function), internal[name], tool.annotations, tool.tool_title)

    def _wrapper_call(self, file: SourceFile, call: Node, wrapper: Wrapper) -> Tool:
        values = calls.bind(file, wrapper.params, call_arguments(file, call))
        written = [file.text(v) if v is not None else default or "None"
                   for v, default in zip(values, wrapper.defaults, strict=True)]
        annotations = substitute(wrapper.annotations, [w.replace("nil", "None") for w in written])
        name = string_value(file, values[wrapper.name_index])
        return calls.tool(file, call, "swift-mcp", name, form="wrapper", annotations=annotations,
                     via=f"wrapper:{wrapper.name}", tool_title=wrapper.tool_title)

    def _swiftmcp(self, file: SourceFile, function: Node, attribute: Node) -> Tool:
        args = attribute_arguments(file, attribute)
        name = string_value(file, dict(args).get("name")) or calls.convert(
            file.text(function.child_by_field_name("name")), calls.naming(file, function))
        return calls.tool(file, attribute, "swift-swiftmcp", name, form="attribute",
                          annotations=calls.hints(file, args))

    def _inside_wrapper(self, file: SourceFile, node: Node) -> bool:
        function = calls.enclosing_function(node)
        wrapper = self.wrappers.get(file.text(function.child_by_field_name("name"))) if function else None
        return wrapper is not None and wrapper.path == file.path
