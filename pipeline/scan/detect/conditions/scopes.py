"""What the condition walk needs to know of the functions, declarations and classes it passes:
their names, whether a function is a callback run where it is written, whether a node sits in a
function's body, and the scope in which a name's uses are looked for."""

from __future__ import annotations

import re
from collections.abc import Iterator

import tree_sitter

from pipeline.scan.detect.conditions.grammar import Grammar

Node = tree_sitter.Node

_IDENTIFIER = re.compile(r"[$A-Za-z_][\w$]*\Z")
_BODIES = frozenset({"function_body", "block", "statement_block", "statements", "body_statement",
                     "compound_statement"})
#: a value that is itself a registration's result (``const t = server.tool(...)``), not a definition
_REGISTERS = re.compile(r"(?:\.|->|::)\s*(?:register\w*|add_?tools?|define_?tool|tool)\s*[(<]"
                        r"|(?:^|[^\w$.])(?:register\w*|add_?tools?)\s*[(<]", re.IGNORECASE)


def text(node: Node | None) -> str:
    """The source text of ``node`` ('' for ``None``)."""
    return "" if node is None else (node.text or b"").decode("utf-8", errors="replace")


def inside(node: Node, outer: Node) -> bool:
    """Whether ``node`` lies within ``outer``."""
    return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte


def is_callback(function: Node, grammar: Grammar) -> bool:
    """Whether ``function`` is passed where it is written (``tools.forEach(t => ...)``, a Ruby
    block): its body runs under the conditions around the call."""
    return function.parent is not None and function.parent.type in grammar.callback_parents


def in_body(function: Node, node: Node) -> bool:
    """Whether ``node`` sits in ``function``'s body below its first line (on that line it may be
    the function's own header: a decorator, an annotation, the line a tool is placed at)."""
    if node.start_point[0] == function.start_point[0]:
        return False
    body = function.child_by_field_name("body")
    if body is None:
        body = next((c for c in function.named_children if c.type in _BODIES), None)
    return body is None or inside(node, body)


def function_name(function: Node, grammar: Grammar) -> tuple[str, Node] | None:
    """A function's name and the node declaring it: the function itself, or the declaration of the
    variable it is assigned to (``const f = () => ...``)."""
    own = function.child_by_field_name("name")
    if own is not None:
        name = _identifier(text(own))
        return (name, function) if name is not None else None
    parent = function.parent
    while parent is not None and parent.type in ("expression_list", "parenthesized_expression"):
        parent = parent.parent
    if parent is not None and parent.type in grammar.declarations:
        bound = declared(parent)
        return (bound[0], parent) if bound is not None and inside(function, bound[1]) else None
    return None


def class_name(node: Node) -> str | None:
    """A class declaration's name."""
    return _identifier(text(node.child_by_field_name("name")))


def declared(declaration: Node) -> tuple[str, Node] | None:
    """The name a declaration binds and the value node it binds it to, when the name is a plain
    identifier (``a, b := ...`` and ``self.x = ...`` bind none)."""
    name = next((n for f in ("name", "left", "pattern") if (n := declaration.child_by_field_name(f)) is not None),
                None)
    if name is None:  # Kotlin: val x = ...
        name = next((c for c in declaration.named_children if c.type == "variable_declaration"), None)
    value = next((v for f in ("value", "right") if (v := declaration.child_by_field_name(f)) is not None), None)
    if value is None and declaration.named_children and declaration.named_children[-1] != name:
        value = declaration.named_children[-1]  # C#, Kotlin: the value is no field
    identifier = _identifier(text(name))
    return (identifier, value) if identifier is not None and value is not None else None


def registers(value: Node) -> bool:
    """Whether a declared value is a registration's result rather than a tool's definition."""
    return _REGISTERS.search(text(value).split("\n", 1)[0]) is not None


def scope_of(node: Node, grammar: Grammar) -> Node:
    """The function (or the file) a name declared at ``node`` is visible in."""
    scope = node.parent
    while scope is not None and scope.type not in grammar.functions:
        if scope.parent is None:
            return scope
        scope = scope.parent
    return scope if scope is not None else node


def _identifier(name: str) -> str | None:
    name = name.strip()
    return name if _IDENTIFIER.match(name) else None


_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")


def words(data: bytes, name: str, start: int = 0, end: int | None = None) -> Iterator[int]:
    """The offsets of ``name`` as a whole word (``$`` counts as a letter) in ``data[start:end]``."""
    needle, stop = name.encode(), len(data) if end is None else end
    at = data.find(needle, start, stop)
    while at != -1:
        after = at + len(needle)
        if (at == 0 or data[at - 1] not in _WORD) and (after >= len(data) or data[after] not in _WORD):
            yield at
        at = data.find(needle, at + 1, stop)
