"""Small tree-sitter-c-sharp helpers for the C# detector: names, attributes, initializers, declarations."""

from __future__ import annotations

from collections.abc import Iterator

import tree_sitter

from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import named

Node = tree_sitter.Node

ATTRIBUTE_NAMES = frozenset({"McpServerTool", "McpServerToolAttribute"})
METHODS = frozenset({"method_declaration", "local_function_statement"})
CONTAINERS = frozenset({"compilation_unit", "global_statement", "namespace_declaration", "class_declaration",
                        "file_scoped_namespace_declaration", "declaration_list", "struct_declaration",
                        "record_declaration"})
_ASYNC_TYPES = ("Task", "ValueTask", "IAsyncEnumerable")


def returns_async(method: Node, file: SourceFile) -> bool:
    """Whether a method declaration's return type is one the SDK treats as async."""
    returns = method.child_by_field_name("returns") or method.child_by_field_name("type")
    if returns is None:
        return False
    base = file.text(returns).split("<", 1)[0].rsplit(".", 1)[-1].strip()
    return base in _ASYNC_TYPES


def last_name(file: SourceFile, node: Node) -> str:
    """The last dotted segment of a (qualified) name or member access, generics dropped."""
    return file.text(node).split("<", 1)[0].rsplit(".", 1)[-1].strip()


def initializer_pairs(file: SourceFile, creation: Node) -> Iterator[tuple[str, Node]]:
    """``Key = value`` pairs of an object creation's ``{ ... }`` initializer."""
    init = creation.child_by_field_name("initializer")
    if init is None:
        init = next((c for c in creation.children if c.type == "initializer_expression"), None)
    for child in named(init) if init is not None else []:
        left, right = child.child_by_field_name("left"), child.child_by_field_name("right")
        if child.type == "assignment_expression" and left is not None and right is not None:
            yield file.text(left), right


def attribute_pairs(file: SourceFile, attribute: Node) -> Iterator[tuple[str, Node]]:
    """``Key = value`` arguments of an attribute."""
    args = next((c for c in attribute.children if c.type == "attribute_argument_list"), None)
    for arg in named(args) if args is not None else []:
        key = arg.child_by_field_name("name")
        values = [c for c in named(arg) if c != key]
        if arg.type == "attribute_argument" and key is not None and values:
            yield file.text(key), values[-1]


def mcp_attribute(file: SourceFile, owner: Node) -> Node | None:
    """The ``[McpServerTool]`` attribute on a method or lambda, if any."""
    for attributes in owner.children:
        for attribute in named(attributes) if attributes.type == "attribute_list" else []:
            name = attribute.child_by_field_name("name")
            if attribute.type == "attribute" and name is not None and last_name(file, name) in ATTRIBUTE_NAMES:
                return attribute
    return None


def find_method(file: SourceFile, name: str) -> Node | None:
    """The declaration of method ``name`` in ``file`` (members and top-level local functions), if any."""
    marker = name.encode()
    if marker not in file.data:
        return None
    stack = [file.tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in METHODS and file.text(node.child_by_field_name("name")) == name:
            return node
        if node.type in CONTAINERS:
            stack.extend(node.children)
    return None


def initial_value(node: Node) -> Node | None:
    """The object creation a field, variable or property is initialised with (``=`` or ``=>``)."""
    value = node.child_by_field_name("value") if node.type == "property_declaration" else node.named_children[-1]
    if value is not None and value.type == "arrow_expression_clause" and value.named_children:
        value = value.named_children[-1]
    return value if value is not None and value.type.endswith("object_creation_expression") else None


def is_member(node: Node) -> bool:
    """Whether a declarator or property is a member (field/property), not a method's local variable."""
    if node.type == "property_declaration":
        return True
    declaration = node.parent.parent if node.parent is not None else None
    return declaration is not None and declaration.type == "field_declaration"


def on_method(attribute: Node) -> bool:
    """Whether an attribute decorates a method or local function (not a lambda or a class)."""
    owner = attribute.parent.parent if attribute.parent is not None else None
    return owner is not None and owner.type in METHODS
