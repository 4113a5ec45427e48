"""A project's registration wrapper that registers only under a condition: ``function addTool(tool) {
if (enabled.has(tool.name)) server.addTool(tool) }``, or with an early exit, ``if (readOnly &&
!tool.annotations?.readOnlyHint) return;``. A tool registered through it (``via`` ``wrapper:<name>``)
is conditional when every registration call in the wrapper's body sits under such a condition (the
condition may read the tool's own fields as well as the configuration)."""

from __future__ import annotations

import re

import tree_sitter

from pipeline.scan.detect.conditions.branches import Guard
from pipeline.scan.detect.conditions.exits import Guards
from pipeline.scan.detect.conditions.grammar import Grammar
from pipeline.scan.detect.conditions.scopes import declared, is_callback, text, words
from pipeline.scan.detect.conditions.uses import common_guard, guards_above

Node = tree_sitter.Node

#: call nodes of the grammars
CALLS = frozenset({"call_expression", "call", "method_invocation", "invocation_expression", "member_call_expression",
                   "function_call_expression", "scoped_call_expression"})
#: what a registration call is named (lower case, no ``_``): ``server.tool``, ``registerTool``, ``AddTool``
REGISTERING = frozenset({"tool", "registertool", "addtool", "registerapptool", "definetool", "addtools",
                         "registertools", "mcptool"})
_CALLEE = re.compile(r"([A-Za-z_]\w*)\s*(?:<[^()]*>|\[[^()]*\])?\s*\Z")


def definitions(data: bytes, root: Node, grammar: Grammar, name: str) -> list[Node]:
    """The named functions (not callbacks) called ``name`` in a file (``data``, its tree's ``root``):
    ``function name(...)``, ``def name``, ``func (r *R) name``, ``const name = (...) => ...``."""
    found = []
    for start in words(data, name):
        leaf = root.descendant_for_byte_range(start, start + len(name.encode()))
        parent = leaf.parent if leaf is not None else None
        if parent is None:
            continue
        if parent.type in grammar.declarations and (bound := declared(parent)) is not None \
                and bound[0] == name and bound[1].type in grammar.functions:
            parent = bound[1]
        elif parent.child_by_field_name("name") != leaf:
            continue
        if parent.type in grammar.functions and not is_callback(parent, grammar):
            found.append(parent)
    return found


def registration_guard(function: Node, grammar: Grammar, guards: Guards) -> Guard | None:
    """The condition every registration call in ``function``'s body sits under (``common_guard``:
    none where it registers on both sides of a branch, or makes no registration)."""
    calls: list[Node] = []
    stack = list(function.named_children)
    while stack:
        node = stack.pop()
        if node.type in CALLS and _registers(node):
            calls.append(node)
        stack.extend(node.named_children)
    return common_guard([guards_above(call, function, grammar, guards)
                         for call in sorted(calls, key=lambda c: c.start_byte)])


def registration_on(node: Node, row: int) -> Node | None:
    """The first registration call starting on ``row`` (0-based) within ``node``."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.start_point[0] == row and current.type in CALLS and _registers(current):
            return current
        stack.extend(reversed([c for c in current.named_children
                               if c.start_point[0] <= row <= c.end_point[0]]))
    return None


def _registers(call: Node) -> bool:
    head = text(call).split("(", 1)[0].split("\n", 1)[0]
    callee = _CALLEE.search(head)
    return callee is not None and callee.group(1).lower().replace("_", "") in REGISTERING
