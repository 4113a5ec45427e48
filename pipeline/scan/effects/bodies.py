"""What a function's body holds, read once per function and shared by every tool that reaches
it: its calls (``calls``), the names it binds from the tool's input and to string literals
(``bound``), and whether its name says it keeps the server's own cache (``housekeeping``)."""

from __future__ import annotations

import re

from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import Node, walk
from pipeline.scan.effects import model
from pipeline.scan.effects.calls import Call, call_of, input_rooted
from pipeline.scan.effects.languages import Syntax, nodes_of, string_value

#: words naming a function that keeps the server's own cache or telemetry (``getCacheDir``,
#: ``save_cache``): the local files it writes or deletes are the server's, not a tool's effect
_HOUSEKEEPING = frozenset({"cache", "caches", "cached", "caching", "telemetry", "analytics", "metrics", "logger",
                           "logging"})
#: the effects set aside in such a function: a local file written or deleted
LOCAL_CHANGES = frozenset({model.WRITE_LOCAL, model.DELETE_LOCAL})
_CALL_KINDS = ("call_expression", "new_expression", "call")
_BINDINGS = ("identifier", "shorthand_property_identifier_pattern")
_ASSIGNMENTS = {"variable_declarator": ("name", "value"), "assignment_expression": ("left", "right"),
                "assignment": ("left", "right"), "short_var_declaration": ("left", "right"),
                "assignment_statement": ("left", "right"), "var_spec": ("name", "value"),
                "let_declaration": ("pattern", "value")}


def housekeeping(name: str | None) -> bool:
    """Whether a function's name says it keeps the server's cache or telemetry (``getCacheDir``)."""
    words = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", name or "")
    return any(word.lower() in _HOUSEKEEPING for word in words)


def calls(file: SourceFile, node: Node) -> list[tuple[Node, Call]]:
    """The calls below ``node`` in source order (closures written inside it included), read once."""
    def read() -> list[tuple[Node, Call]]:
        return [(n, call) for n in _below(file, node)
                if n.type in _CALL_KINDS and (call := call_of(file, n)) is not None]
    return file.kept(f"effects-calls:{node.start_byte}:{node.end_byte}", read)


def _below(file: SourceFile, node: Node) -> list[Node]:
    """The calls and assignments below ``node``, in source order, by one query."""
    return file.kept(f"effects-below:{node.start_byte}:{node.end_byte}",
                     lambda: nodes_of(file, (*_CALL_KINDS, *_ASSIGNMENTS), node))


def bound(file: SourceFile, syntax: Syntax, node: Node,
            inputs: frozenset[str]) -> tuple[frozenset[str], dict[str, str]]:
    """The names a function binds from its input (``url = args.url``, ``const { url } = args``),
    and those it binds to a string literal, in two passes over its assignments."""
    names, constants = set(inputs), {}
    assignments = _assignments(file, syntax, node)
    for _ in range(2):
        for targets, value, constant in assignments:
            if constant is not None:
                constants[targets[0]] = constant
            elif input_rooted(value, frozenset(names)):
                names.update(targets)
    return frozenset(names), constants


def _assignments(file: SourceFile, syntax: Syntax, node: Node) -> list[tuple[list[str], str, str | None]]:
    """The assignments below ``node``, in source order, read once: the names bound, the value's
    text, and the string it holds when it is a literal bound to one name."""
    def read() -> list[tuple[list[str], str, str | None]]:
        found: list[tuple[list[str], str, str | None]] = []
        for assignment in (n for n in _below(file, node) if n.type in _ASSIGNMENTS):
            left_field, right_field = _ASSIGNMENTS[assignment.type]
            left, right = assignment.child_by_field_name(left_field), assignment.child_by_field_name(right_field)
            if left is None or right is None:
                continue
            targets = [file.text(n) for n in walk(left) if n.type in _BINDINGS]
            value = right.named_children[0] if right.type == "expression_list" and right.named_children else right
            constant = string_value(file, value) if value.type in syntax.strings and len(targets) == 1 else None
            found.append((targets, file.text(value), constant))
        return found
    return file.kept(f"effects-assignments:{node.start_byte}:{node.end_byte}", read)
