"""Where a tool's handler is: the function, closure or method its registration runs.

Read from the registration outwards, in any of the languages the analysis follows:

1. a function under the registration's decorator (``@mcp.tool()``);
2. a function argument of the registration call, written there or named (the last one wins:
   ``server.tool(name, schema, handler)``; a wrapper call ``withAuth(fn)`` is opened);
3. a function-valued field or method of the tool's object or class (``execute``, ``handler``, ``run``);
4. the branch of a dispatcher that tests the tool's name (``case "name":``, ``if name == "name"``),
   or the value of a name-to-handler table (``{"name": handler}``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from pipeline.scan.detect.source import SourceFile, language_of
from pipeline.scan.detect.syntax import Node
from pipeline.scan.effects import dispatch
from pipeline.scan.effects.languages import SYNTAXES, Syntax, function_name, nodes_of
from pipeline.scan.effects.model import Handler
from pipeline.scan.effects.places import Located, at_line, beside, function_argument, key_value, made, named
from pipeline.scan.effects.shelf import Shelf

#: the fields and methods of a tool object or class that run the tool
MEMBER_NAMES = ("execute", "handler", "handle", "run", "call", "callback", "cb", "fn", "func", "invoke", "_run",
                "_arun", "arun", "_call", "__call__", "_execute", "impl", "action", "resolve", "process",
                "Handle", "Execute", "Run", "Call", "Handler", "run_tool", "call_tool")
_COMMENTS = ("attribute_item", "line_comment", "block_comment")



def locate(shelf: Shelf, path: str, line: int, tool_name: str | None) -> Located:
    """The handler of the tool registered at ``path``:``line`` (named ``tool_name``)."""
    file = shelf.get(path)
    language = language_of(path)
    if file is None or language not in SYNTAXES:
        return Handler(None, None, "none", "file not read" if file is None else "language not followed"), None, None
    syntax = SYNTAXES[language]
    for finder in (_decorated, _attributed, _argument, _member, _element):
        found = finder(shelf, file, syntax, line)
        if found is not None:
            return found
    if tool_name:
        found = dispatch.by_name(shelf, file, syntax, tool_name, line, dispatch.name_expression(file, syntax, line))
        if found is not None:
            return found
    found = dispatch.generic(shelf, file, syntax)
    if found is not None:
        return found
    return Handler(None, None, "none", "no function at the registration"), None, None


def _decorated(shelf: Shelf, file: SourceFile, syntax: Syntax, line: int) -> Located | None:
    for node in at_line(file, line):
        if node.type == "decorated_definition":
            definition = node.child_by_field_name("definition")
            if definition is not None and definition.type in syntax.functions:
                return made("decorated", file, definition)
            return None
        if node.type in syntax.functions and file.line(node) == line and node.type != "lambda":
            return made("decorated", file, node) if syntax.language in ("python", "rust") else None
    return None


def _attributed(shelf: Shelf, file: SourceFile, syntax: Syntax, line: int) -> Located | None:
    """Rust: the item an attribute on ``line`` marks: a function (``#[tool] async fn name``), or a
    struct whose ``impl`` holds the method that runs it (``#[mcp_tool] struct WriteFile`` and
    ``impl WriteFile { fn run_tool }``, in any file of the package)."""
    attribute = next((n for n in at_line(file, line) if n.type == "attribute_item"), None)
    item = attribute.next_named_sibling if attribute is not None else None
    while item is not None and item.type in _COMMENTS:
        item = item.next_named_sibling
    if item is None or item.type not in ("function_item", "struct_item", "enum_item"):
        return None
    if item.type == "function_item":
        return made("decorated", file, item)
    name = file.text(item.child_by_field_name("name"))
    pattern = re.compile(rb"\bimpl\b[^{;]*?\b" + re.escape(name.encode()) + rb"\b[^{;]*\{")
    root = shelf.package(file.path)
    for other in [file, *(f for p, f in sorted(shelf.files.items()) if p != file.path and shelf.in_package(p, root))]:
        if language_of(other.path) != "rust" or pattern.search(other.data) is None:
            continue
        for block in nodes_of(other, ("impl_item",), other.tree.root_node):
            if other.text(block.child_by_field_name("type")).split("<")[0] == name:
                for method in _class_methods(other, syntax, block):
                    return made("member", other, method)
    return None


def _argument(shelf: Shelf, file: SourceFile, syntax: Syntax, line: int) -> Located | None:
    for node in _inside_line(file, line, syntax.calls):
        found = function_argument(shelf, file, syntax, node) or beside(shelf, file, syntax, node)
        if found is not None:
            return found
    for depth, node in enumerate(at_line(file, line)):
        if node.type in syntax.calls and file.line(node) <= line:
            found = function_argument(shelf, file, syntax, node)
            if found is not None:
                return found
        if depth > 12 or node.type in syntax.functions:
            return None
    return None


def _element(shelf: Shelf, file: SourceFile, syntax: Syntax, line: int) -> Located | None:
    """A function named as an element of the list a loop registers (``tools = [get_company, ...]``,
    ``(list_items, "core")``): the row is placed at the element, the handler is that function."""
    for depth, node in enumerate(at_line(file, line)):
        if node.type in ("identifier", "attribute") and node.parent is not None and \
                node.parent.type in ("list", "tuple", "array", "expression_list"):
            return named(shelf, file, syntax, file.text(node).rsplit(".", 1)[-1])
        if depth > 2:
            return None
    return None


def _member(shelf: Shelf, file: SourceFile, syntax: Syntax, line: int) -> Located | None:
    for node in [*_objects_from(file, line, syntax), *at_line(file, line)]:
        if node.type in ("object", "dictionary", "composite_literal", "literal_value", "call", "argument_list"):
            for pair in node.named_children:
                key, value = key_value(pair)
                if key is not None and file.text(key).strip("'\"") in MEMBER_NAMES:
                    if pair.type in syntax.functions:
                        return made("member", file, pair)
                    if value is not None and value.type in syntax.functions:
                        return made("member", file, value)
                    if value is not None and value.type in ("identifier", "member_expression", "attribute",
                                                            "selector_expression"):
                        found = named(shelf, file, syntax, file.text(value).rsplit(".", 1)[-1])
                        if found is not None:
                            return found
        if node.type in syntax.classes:
            for method in _class_methods(file, syntax, node):
                return made("member", file, method)
            return None
    return None


def _objects_from(file: SourceFile, line: int, syntax: Syntax) -> list[Node]:
    """The object literals inside the outermost node that starts on ``line``, to five levels:
    ``const tool = (ctx) => ({ ..., execute: fn })`` is registered at the ``const``."""
    return _inside_line(file, line, frozenset({"object", "dictionary", "composite_literal", "literal_value"})
                        | syntax.classes, same_line=False)


def _inside_line(file: SourceFile, line: int, types: frozenset[str], same_line: bool = True) -> list[Node]:
    """The nodes of ``types`` inside the outermost node that starts on ``line`` (to five levels),
    those that start on ``line`` only when ``same_line``: ``var X = lib.MustTool("name", ..., fn)``
    is registered at the ``var``."""
    top = None
    for node in at_line(file, line):
        if file.line(node) != line:
            break
        top = node
    found: list[Node] = []
    level = [top] if top is not None else []
    for _ in range(5):
        level = [c for n in level for c in n.named_children]
        found.extend(n for n in level if n.type in types and (not same_line or file.line(n) == line))
    return found


def _class_methods(file: SourceFile, syntax: Syntax, node: Node) -> Iterator[Node]:
    body = node.child_by_field_name("body")
    if body is None:
        return
    methods: dict[str, Node] = {}
    for child in body.named_children:
        target = child.child_by_field_name("definition") if child.type == "decorated_definition" else child
        if target is not None and target.type in syntax.functions:
            methods.setdefault(function_name(file, target) or "", target)
    for name in MEMBER_NAMES:
        if name in methods:
            yield methods[name]
            return


