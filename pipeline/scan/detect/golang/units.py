"""Where Go tool definitions sit in a file: the units the Go detector turns into rows.

A unit is a ``pkg.Tool{Name: ...}`` literal (go-sdk or mcp-go, ``&`` or not; one without a
``Name`` is a zero value or a schema holder, not a tool), an elided ``{Name: ...}``
element of a ``[]pkg.Tool`` / ``[]*pkg.Tool`` / ``map[K]pkg.Tool`` literal, an mcp-go
``pkg.NewTool(...)`` / ``pkg.NewToolWithRawSchema(...)`` call, or an mcp-golang
``x.RegisterTool(name, description, handler)`` call; ``pkg`` is resolved from the imports.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from pipeline.scan.detect.golang.read import Reading, read_new_tool, read_raw_schema, read_tool_literal, reassigned
from pipeline.scan.detect.golang.scope import Scope
from pipeline.scan.detect.golang.syntax import Node, arguments, callee, literal_fields, qualified, unwrap
from pipeline.scan.detect.syntax import enclosing, named

COLLECTIONS = ("slice_type", "array_type", "implicit_length_array_type", "map_type")
#: function nodes whose parameters a wrapper's tool may use
FUNCTIONS = ("function_declaration", "method_declaration")


@dataclass(frozen=True)
class Unit:
    """One tool definition in a file."""

    node: Node
    """the literal, elided ``{...}`` or call."""
    sdk: str
    kind: str
    """``literal`` (a ``Tool{}`` body), ``new-tool``, ``raw-schema`` or ``register-tool``."""
    body: Node | None = None
    """the ``literal_value`` of a literal."""


def units(scope: Scope, caps: dict[str, list[Node]]) -> Iterator[Unit]:
    """Every tool definition of a file, in source order by kind (literals, then calls)."""
    for literal in caps.get("literal", []):
        yield from _literal_units(scope, literal)
    for call in caps.get("call", []):
        unit = _call_unit(scope, call)
        if unit is not None:
            yield unit


def _tool_sdk(scope: Scope, type_node: Node | None) -> str | None:
    found = qualified(scope.file, type_node)
    if found is None or found[1] != "Tool":
        return None
    return scope.imports.tools.get(found[0])


def _literal_units(scope: Scope, literal: Node) -> Iterator[Unit]:
    type_node = literal.child_by_field_name("type")
    body = literal.child_by_field_name("body")
    if type_node is None or body is None:
        return
    if (sdk := _tool_sdk(scope, type_node)) is not None and type_node.type == "qualified_type":
        if _named(scope, body):
            yield Unit(literal, sdk, "literal", body)
        return
    if type_node.type not in COLLECTIONS:
        return
    element = type_node.child_by_field_name("value" if type_node.type == "map_type" else "element")
    if (sdk := _tool_sdk(scope, element)) is None:
        return
    for item in named(body):
        value = item.child_by_field_name("value") if item.type == "keyed_element" else item
        inner = unwrap(value) if value is not None and value.type == "literal_element" else None
        if inner is not None and inner.type == "literal_value" and _named(scope, inner):
            yield Unit(inner, sdk, "literal", inner)


def _named(scope: Scope, body: Node) -> bool:
    """Whether a ``Tool`` literal's body writes its ``Name`` (a tool without one is never listed)."""
    return "Name" in literal_fields(scope.file, body)


def _call_unit(scope: Scope, call: Node) -> Unit | None:
    package, name = callee(scope.file, call)
    if package is None:
        return None
    if package in scope.imports.builders and name == "NewTool":  # a project's mcp-go-style builder
        return Unit(call, scope.imports.tools[package], "new-tool")
    if scope.imports.tools.get(package) == "go-mcp-go":
        kind = {"NewTool": "new-tool", "NewToolWithRawSchema": "raw-schema"}.get(name)
        return Unit(call, "go-mcp-go", kind) if kind else None
    if scope.imports.golang and name == "RegisterTool" and len(arguments(call)) >= 2:
        return Unit(call, "go-mcp-golang", "register-tool")
    return None


def enclosing_function(node: Node) -> Node | None:
    """The named function or method whose body holds ``node``."""
    return enclosing(node, FUNCTIONS)


def parameters(scope: Scope, function: Node) -> tuple[dict[str, int], int, bool]:
    """A function's parameter names -> position, its arity, and whether it is variadic."""
    params: dict[str, int] = {}
    position, variadic = 0, False
    for declaration in named(function.child_by_field_name("parameters") or function):
        if declaration.type not in ("parameter_declaration", "variadic_parameter_declaration"):
            continue
        variadic = variadic or declaration.type == "variadic_parameter_declaration"
        names = [c for c in named(declaration) if c.type == "identifier"]
        for key in [scope.file.text(n) for n in names] or [f"#{position}"]:
            params[key] = position
            position += 1
    return params, position, variadic


def option_parameter(scope: Scope, function: Node) -> int | None:
    """The position of a function's ``...mcp.ToolOption`` parameter (mcp-go option helpers), if any."""
    declarations = [d for d in named(function.child_by_field_name("parameters") or function)
                    if d.type in ("parameter_declaration", "variadic_parameter_declaration")]
    last = declarations[-1] if declarations else None
    if last is None or last.type != "variadic_parameter_declaration":
        return None
    found = qualified(scope.file, last.child_by_field_name("type"))
    if found is None or found[1] != "ToolOption" or scope.imports.tools.get(found[0]) != "go-mcp-go":
        return None
    return parameters(scope, function)[1] - 1


def takes_tool(scope: Scope, function: Node) -> bool:
    """Whether a function has a ``pkg.Tool`` / ``*pkg.Tool`` parameter (a project's tool helper)."""
    parameters_node = function.child_by_field_name("parameters")
    for declaration in named(parameters_node) if parameters_node is not None else []:
        if _tool_sdk(scope, declaration.child_by_field_name("type")) is not None:
            return True
    return False


def outer_call(node: Node) -> Node | None:
    """The call that takes ``node`` (or ``&node``) directly as an argument."""
    current = node
    if current.parent is not None and current.parent.type == "unary_expression":
        current = current.parent
    parent = current.parent
    if parent is None or parent.type != "argument_list" or parent.parent is None:
        return None
    return parent.parent if parent.parent.type == "call_expression" else None


def read_unit(scope: Scope, unit: Unit) -> Reading:
    """What a unit writes: its name, tool title and annotations (as a later ``tool.Annotations = X``
    replaces them)."""
    if unit.kind == "literal" and unit.body is not None:
        reading = read_tool_literal(scope, unit.body)
    elif unit.kind == "new-tool":
        reading = read_new_tool(scope, unit.node)
    else:
        reading = read_raw_schema(scope, unit.node)  # raw-schema and register-tool: a name, no annotations
    value = later_annotations(scope, unit.node) if unit.kind != "register-tool" else None
    return reading if value is None else reassigned(scope, reading, value)


def later_annotations(scope: Scope, node: Node) -> Node | None:
    """The value a later ``VAR.Annotations = value`` gives the tool ``node`` makes, when ``node`` is
    bound to ``VAR`` in a function (``tool := mcp.NewTool(..)``): the last such assignment before
    ``VAR`` is bound again."""
    name = _bound_to(scope, node) if b".annotations" in scope.file.lower else None
    function = enclosing(node, (*FUNCTIONS, "func_literal")) if name is not None else None
    if name is None or function is None:
        return None
    word, data = re.escape(name.encode()), scope.file.data
    rebound = re.compile(rb"(?<![\w.])%s\s*:?=(?!=)" % word).search(data, node.end_byte, function.end_byte)
    limit = rebound.start() if rebound is not None else function.end_byte
    assigned = re.compile(rb"(?<![\w.])%s\.Annotations\s*=(?!=)" % word).finditer(data, node.end_byte, limit)
    values = [_assigned_value(scope, found.start()) for found in assigned]
    return next((value for value in reversed(values) if value is not None), None)


def _assigned_value(scope: Scope, at: int) -> Node | None:
    """The value of the assignment statement that starts at byte ``at``."""
    node = scope.file.tree.root_node.descendant_for_byte_range(at, at)
    statement = enclosing(node, ("assignment_statement",)) if node is not None else None
    right = statement.child_by_field_name("right") if statement is not None else None
    return next(iter(named(right)), None) if right is not None else None


def _bound_to(scope: Scope, node: Node) -> str | None:
    """The variable a definition is the value of (``tool := ..``, ``var tool = ..``, ``tool = ..``)."""
    current = node
    while current.parent is not None and current.parent.type in ("unary_expression", "expression_list"):
        current = current.parent
    holder = current.parent
    if holder is None or holder.type not in ("short_var_declaration", "var_spec", "assignment_statement"):
        return None
    value = holder.child_by_field_name("right") or holder.child_by_field_name("value")
    left = holder.child_by_field_name("left") or holder.child_by_field_name("name")
    if value is None or left is None or not value.start_byte <= node.start_byte < value.end_byte:
        return None
    names = list(named(left)) if left.type == "expression_list" else [left]
    return scope.file.text(names[0]) if len(names) == 1 and names[0].type == "identifier" else None
