"""Kotlin tool definitions: the Kotlin SDK's ``Tool(..)`` and ``Server.addTool(name = ..)``.

Lines: the start of the ``addTool`` call (receiver included) or of the ``Tool(`` constructor, or
the call of a project wrapper. ``RegisteredTool(Tool(..), h)`` and ``addTool(Tool(..), h)`` give
one row each, from the ``Tool(..)``.
"""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.scan.detect.jvm.common import (
    POSITIONAL,
    Imports,
    Knowledge,
    calls_query,
    captured,
    preset,
    query,
    with_pairs,
)
from pipeline.scan.detect.jvm.nodes import Found, enclosing
from pipeline.scan.detect.model import NO_ANNOTATIONS, Annotations
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import Node, named

KOTLIN_SDK = ("io.modelcontextprotocol.kotlin.sdk",)
#: ``addTool(name, description, inputSchema, title, outputSchema, toolAnnotations, ..)`` in 0.7.x and later
_ADD_TOOL = {"name": 0, "title": 3, "toolAnnotations": 5}
_COMMENTS = ("line_comment", "block_comment", "multiline_comment")

_CALLS_OF = """
(call_expression . (identifier) @_f (#any-of? @_f {names})) @c
(call_expression . (navigation_expression (identifier) @_g .) (#any-of? @_g {names})) @c
"""
_DECLARATIONS = query("tree_sitter_kotlin", "[(property_declaration) (function_declaration)] @d")
Args = tuple[list[Node], dict[str, Node]]


def callee(node: Node, file: SourceFile) -> str:
    """The called name: ``addTool`` for ``server.addTool(..)``, ``Tool`` for ``Tool(..)``."""
    first = node.named_children[0] if node.named_child_count else None
    if first is None or first.type not in ("identifier", "navigation_expression"):
        return ""
    return file.text(first).rsplit(".", 1)[-1].strip()


def call_args(node: Node, file: SourceFile) -> Args:
    """Positional and named arguments of a call."""
    positional: list[Node] = []
    by_name: dict[str, Node] = {}
    values = next((c for c in node.children if c.type == "value_arguments"), None)
    for arg in named(values) if values is not None else []:
        parts = [c for c in named(arg) if c.type not in _COMMENTS]
        if not parts:
            continue
        if any(c.type == "=" for c in arg.children) and len(parts) >= 2:
            by_name[file.text(parts[0])] = parts[-1]
        else:
            positional.append(parts[-1])
    return positional, by_name


def pick(args: Args, key: str, index: int | None) -> Node | None:
    """The argument named ``key``, else the positional one at ``index``."""
    positional, by_name = args
    if key in by_name:
        return by_name[key]
    return positional[index] if index is not None and index < len(positional) else None


def parameters(function: Node | None, file: SourceFile) -> list[str]:
    """The parameter names of a function declaration."""
    params = next((c for c in function.children if c.type == "function_value_parameters"), None) if function else None
    if params is None:
        return []
    return [file.text(p.named_children[0]) for p in named(params) if p.type == "parameter" and p.named_child_count]


class KotlinFile:
    """The tool definitions of one Kotlin file."""

    def __init__(self, file: SourceFile, imports: Imports, knowledge: Knowledge) -> None:
        self.file, self.imports, self.knowledge = file, imports, knowledge
        self.sdk = imports.any_from(KOTLIN_SDK)

    def definitions(self) -> Iterator[Found]:
        """Every tool definition written in the file."""
        names = ("Tool", "addTool", *sorted(self.knowledge.wrappers))
        for node in captured(calls_query("tree_sitter_kotlin", _CALLS_OF, names), self.file.tree.root_node):
            name = callee(node, self.file)
            found = None
            if name == "addTool" and self.sdk:
                found = self._add_tool(node)
            elif name == "Tool" and self.sdk and self.imports.resolves(self._written(node), KOTLIN_SDK):
                found = self._tool(node)
            elif name in self.knowledge.wrappers:
                found = self._wrapper_call(node, name)
            if found is not None:
                yield found

    def _written(self, node: Node) -> str:
        return self.file.text(node.named_children[0]).replace(" ", "")

    def _add_tool(self, node: Node) -> Found | None:
        args = call_args(node, self.file)
        first = pick(args, "name", 0)
        if first is None or (first.type == "call_expression" and callee(first, self.file) == "Tool") or \
                ("name" not in args[1] and first.type != "string_literal"):
            return None
        return Found(node, "kotlin-mcp", "add-tool", first, title_expr=pick(args, "title", _ADD_TOOL["title"]),
                     annotations_expr=pick(args, "toolAnnotations", _ADD_TOOL["toolAnnotations"]))

    def _tool(self, node: Node) -> Found:
        args = call_args(node, self.file)
        positional = args[0]
        title = args[1].get("title")
        # 0.7.x: Tool(name, title, ..); 0.8+: Tool(name, inputSchema, description, outputSchema, title, ..)
        for index in (1, 4):
            if title is None and index < len(positional) and positional[index].type == "string_literal":
                title = positional[index] if index == 1 or len(positional) > 5 else None
        return Found(node, "kotlin-mcp", "tool", pick(args, "name", 0), title_expr=title,
                     annotations_expr=pick(args, "annotations", 5))

    def _wrapper_call(self, node: Node, name: str) -> Found | None:
        wrapper = self.knowledge.wrappers[name]
        args = call_args(node, self.file)
        if wrapper.sdk != "kotlin-mcp" or len(args[0]) + len(args[1]) > len(wrapper.params):
            return None
        at_name, hints = wrapper.name_index, wrapper.annotations_index
        name_expr = pick(args, wrapper.params[at_name], at_name) if at_name is not None else None
        annotations = pick(args, wrapper.params[hints], hints) if hints is not None else None
        return Found(node, wrapper.sdk, "wrapper", name_expr, annotations_expr=annotations,
                     annotations=wrapper.annotations)

    def resolve(self, node: Node | None, depth: int = 0, locals_: bool = True) -> Annotations:
        """The annotations an expression stands for (presets one level; a local ``val`` is an alias)."""
        text = self.file.text(node).strip()
        if node is None or text == "null":
            return NO_ANNOTATIONS
        if node.type == "call_expression":
            name = callee(node, self.file)
            if name == "ToolAnnotations" and self.imports.resolves(self._written(node), KOTLIN_SDK):
                positional, by_name = call_args(node, self.file)
                source = "positional" if positional else "inline"
                pairs = list(zip(POSITIONAL, positional, strict=False)) + list(by_name.items())
                return with_pairs(Annotations(source=source), self.file, pairs)
            return preset(self.knowledge, name) or Annotations(source="dynamic")
        if node.type in ("identifier", "navigation_expression") and depth == 0:
            name = text.rsplit(".", 1)[-1].strip()
            local = self.local(node, name) if node.type == "identifier" and locals_ else None
            if local is not None:
                return self.resolve(local, depth, locals_=False)
            return preset(self.knowledge, name) or Annotations(source="dynamic")
        return Annotations(source="dynamic")

    def local(self, node: Node, name: str) -> Node | None:
        """The initial value of a local ``val``/``var`` ``name`` in the function around ``node``."""
        function = enclosing(node, "function_declaration")
        if function is None:
            return None
        for declaration in captured(_DECLARATIONS, function):
            if declaration.type == "property_declaration" and self._declared(declaration) == name:
                return _value(declaration)
        return None

    def _declared(self, declaration: Node) -> str:
        variable = next((c for c in declaration.children if c.type == "variable_declaration"), None)
        return self.file.text(variable.named_children[0]) if variable and variable.named_child_count else ""

    def declarations(self) -> Iterator[tuple[str, Node]]:
        """Properties and expression-bodied functions that hold an SDK ``ToolAnnotations``."""
        for node in captured(_DECLARATIONS, self.file.tree.root_node):
            if enclosing(node, "function_declaration") is not None:
                continue
            value = _value(node)
            if value is not None and value.type == "call_expression" and callee(value, self.file) == "ToolAnnotations":
                name = self._declared(node) if node.type == "property_declaration" else \
                    self.file.text(node.child_by_field_name("name"))
                yield name, value


def _value(declaration: Node) -> Node | None:
    """The expression after ``=`` of a property or an expression-bodied function."""
    holder = declaration
    if declaration.type == "function_declaration":
        holder = next((c for c in declaration.children if c.type == "function_body"), declaration)
    seen = False
    for child in holder.children:
        if seen and child.is_named:
            return child
        seen = seen or child.type == "="
    return None
