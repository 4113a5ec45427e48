"""Helpers the handler finders share: the nodes around a registration line, a named function of
the repository, an object field's key and value."""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import Node
from pipeline.scan.effects.languages import Syntax, nodes_of
from pipeline.scan.effects.model import Handler
from pipeline.scan.effects.shelf import Shelf

Located = tuple[Handler, SourceFile | None, Node | None]


def made(kind: str, file: SourceFile, node: Node) -> Located:
    """A located handler of ``kind``."""
    return Handler(file.path, file.line(node), kind), file, node


def at_line(file: SourceFile, line: int) -> Iterator[Node]:
    """The nodes around ``line``'s first token, from the innermost outwards."""
    lines = file.kept("effects-lines", lambda: file.data.split(b"\n"))
    text = lines[line - 1] if 0 < line <= len(lines) else b""
    column = len(text) - len(text.lstrip())
    node: Node | None = file.tree.root_node.descendant_for_point_range((line - 1, column), (line - 1, column))
    while node is not None:
        yield node
        node = node.parent


def named(shelf: Shelf, file: SourceFile, syntax: Syntax, name: str) -> Located | None:
    """A function of the repository named ``name``: this file's first, else the only one."""
    local = shelf.definitions(file).get(name, [])
    if local:
        return made("reference", file, local[0])
    found = shelf.named(name, syntax.language)
    return made("reference", *found[0]) if len(found) == 1 else None


def key_value(pair: Node) -> tuple[Node | None, Node | None]:
    """The key and value of an object's field, a keyword argument or a Go keyed element."""
    key = pair.child_by_field_name("key") or pair.child_by_field_name("name")
    value = pair.child_by_field_name("value")
    if pair.type == "keyed_element" and len(pair.named_children) == 2:
        key, value = pair.named_children
        key = key.named_children[0] if key.type == "literal_element" and key.named_children else key
        value = value.named_children[0] if value.type == "literal_element" and value.named_children else value
    return key, value


def function_argument(shelf: Shelf, file: SourceFile, syntax: Syntax, call: Node) -> Located | None:
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return None
    for arg in reversed([a for a in arguments.named_children if a.type != "comment"]):
        value = arg.child_by_field_name("value") if arg.type == "keyword_argument" else arg
        if value is None:
            continue
        if value.type in syntax.functions:
            return made("inline", file, value)
        if value.type in ("identifier", "member_expression", "attribute", "selector_expression"):
            found = named(shelf, file, syntax, file.text(value).rsplit(".", 1)[-1])
            if found is not None:
                return found
        if value.type in syntax.calls:
            inner = function_argument(shelf, file, syntax, value)
            if inner is not None:
                return inner
            target = value.child_by_field_name("function")  # a factory of the repository's: Handler(deps)
            factory = named(shelf, file, syntax, file.text(target).rsplit(".", 1)[-1]) if target is not None else None
            if factory is not None:
                return factory
    return None


def beside(shelf: Shelf, file: SourceFile, syntax: Syntax, call: Node) -> Located | None:
    """A handler written beside the registration's call: returned with it (Go's ``return
    mcp.NewTool(...), func(...) {...}``), or the call's value held in a name (``tool :=
    mcp.NewTool(...)``) that a later call of the same function registers with a handler."""
    parent = call.parent
    if parent is not None and parent.type == "expression_list":
        for sibling in parent.named_children:
            if sibling.type in syntax.functions:
                return made("inline", file, sibling)
    holder = parent.parent if parent is not None and parent.type == "expression_list" else parent
    if holder is None or holder.type not in ("short_var_declaration", "assignment_statement", "var_spec",
                                             "variable_declarator", "assignment", "assignment_expression"):
        return None
    left = holder.child_by_field_name("left") or holder.child_by_field_name("name")
    name = file.text(left).split(",")[0].strip() if left is not None else ""
    scope = holder.parent
    while scope is not None and scope.type not in syntax.functions and scope.type not in ("module", "program",
                                                                                        "source_file"):
        scope = scope.parent
    if not name or scope is None:
        return None
    for node in nodes_of(file, syntax.calls, scope):
        arguments = node.child_by_field_name("arguments")
        if node.start_byte > call.end_byte and arguments is not None and any(
                file.text(a) == name for a in arguments.named_children):
            found = function_argument(shelf, file, syntax, node)
            if found is not None:
                return found
    return None
