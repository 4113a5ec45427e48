"""TypeScript/JavaScript syntax helpers for the detector: literals, object keys, and references.

A ``Ref`` is a node together with the file it comes from, so that values defined in one file
(presets, tool lists) can be read while detecting another. ``Env`` maps a name to the node it
stands for: a project wrapper's parameters bound to one call site's arguments, or a loop
variable bound to one element of a tool list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import tree_sitter

from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import named, unquote

Node = tree_sitter.Node

#: wrappers around an expression that do not change its value
TRANSPARENT = frozenset(
    {"parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression",
     "await_expression", "type_assertion"}
)
FUNCTIONS = frozenset({"function_declaration", "function_expression", "arrow_function", "method_definition",
                       "function", "generator_function_declaration"})
PRIMITIVES = frozenset({"true", "false", "string", "number", "template_string", "null", "undefined"})


@dataclass(frozen=True)
class Ref:
    """A syntax node and the file it belongs to."""

    file: SourceFile
    """the file holding ``node``."""
    node: Node
    """the node (an expression, a declaration or a function)."""

    def text(self) -> str:
        """The node's source text."""
        return self.file.text(self.node)

    def at(self, node: Node) -> Ref:
        """Another node of the same file."""
        return Ref(self.file, node)


Env = dict[str, Ref]
#: looks a name up among the project's constants: (name, file asking) -> the value's Ref
Lookup = Callable[[str, SourceFile], Ref | None]


def unwrap(node: Node) -> Node:
    """``node`` without parentheses, type assertions, ``await`` and ``!``."""
    while node.type in TRANSPARENT and node.named_child_count:
        node = node.named_children[0]
    return node


def string_value(ref: Ref | None) -> str | None:
    """The value of a plain string literal (or of an object's key a loop over ``Object.entries``
    binds: ``{ kv_get: {...} }``), or ``None``."""
    if ref is None:
        return None
    node = unwrap(ref.node)
    if node.type == "property_identifier":
        return ref.file.text(node)
    if node.type not in ("string", "template_string"):
        return None
    return unquote(ref.file.text(node))


def callee(node: Node) -> tuple[str, Node] | None:
    """For a call, the called name and its node (``x.y.registerTool`` -> ``registerTool``, also
    cast: ``(x.registerTool as T)(...)``)."""
    function = node.child_by_field_name("function")
    if function is None:
        return None
    function = unwrap(function)
    if function.type == "member_expression":
        function = function.child_by_field_name("property") or function
    if function.type not in ("identifier", "property_identifier"):
        return None
    return (function.text or b"").decode("utf-8", "replace"), function


def arguments(node: Node) -> list[Node]:
    """The arguments of a call or ``new`` expression (comments left out)."""
    args = node.child_by_field_name("arguments")
    return [a for a in named(args) if a.type != "comment"] if args is not None else []


def key_name(ref: Ref, lookup: Lookup) -> tuple[str | None, bool]:
    """The key a pair's key node names, and whether it came from a constant (``[READ_ONLY]``)."""
    node = ref.node
    if node.type in ("property_identifier", "identifier", "number"):
        return ref.text(), False
    if node.type == "string":
        return unquote(ref.text()), False
    if node.type == "computed_property_name" and node.named_child_count:
        inner = unwrap(node.named_children[0])
        if inner.type == "string":
            return unquote(ref.file.text(inner)), False
        held = lookup(ref.file.text(inner), ref.file)
        return (string_value(held), True) if held is not None else (None, False)
    return None, False


def entries(ref: Ref, lookup: Lookup) -> Iterator[tuple[str | None, Ref, bool]]:
    """An object literal's members as (key, value, key-from-constant); spreads give key ``None``;
    an enum's members with a value (``ECHO = "echo"``) as an object's."""
    for child in named(ref.node):
        if child.type == "enum_assignment":
            member, value = child.child_by_field_name("name"), child.child_by_field_name("value")
            if member is not None and value is not None:
                yield ref.file.text(member), ref.at(value), False
        elif child.type == "pair":
            key_node, value = child.child_by_field_name("key"), child.child_by_field_name("value")
            if key_node is not None and value is not None:
                key, constant = key_name(ref.at(key_node), lookup)
                yield key, ref.at(value), constant
        elif child.type == "shorthand_property_identifier":
            yield ref.file.text(child), ref.at(child), False
        elif child.type == "spread_element" and child.named_child_count:
            yield None, ref.at(child.named_children[0]), False
        elif child.type == "method_definition" and (name := child.child_by_field_name("name")) is not None:
            yield ref.file.text(name), ref.at(child), False


def string_of(node: Node) -> Node:
    """A string literal a string method is called on (```...`.trim()``: a description), else ``node``."""
    function = node.child_by_field_name("function") if node.type == "call_expression" else None
    owner = function.child_by_field_name("object") if function is not None and function.type == "member_expression" \
        else None
    return unwrap(owner) if owner is not None and unwrap(owner).type in ("string", "template_string") else node
