"""The condition a loop puts on what its body registers: the filter of the list it runs over.

``for (const t of tools.filter((t) => enabled.includes(t.group))) server.tool(...)``, the same
through a name (``const tools = all.filter(...)``), ``tools.filter(...).forEach((t) => ...)``,
Python's ``for fn in [f for f in TOOLS if f.group in settings.toolsets]`` and ``filter(pred, xs)``:
each element is registered only when the predicate holds, so a predicate that reads configuration
(``reading``) is the registration's condition, as written (an arrow function's body, a
comprehension's ``if``). A loop over a list it does not filter puts none, and an element the
predicate keeps whatever the configuration (``t.group === "core" || enabled.includes(t.group)`` for
``{ name: "ping", group: "core" }``: ``always_kept``) stays unconditional.
"""

from __future__ import annotations

import re

import tree_sitter

from pipeline.scan.detect.conditions.branches import Guard, one_line
from pipeline.scan.detect.conditions.scopes import text

Node = tree_sitter.Node

#: loops whose body runs once per element of the node in their ``right`` field
_LOOPS = frozenset({"for_in_statement", "for_statement"})
#: methods that run a callback once per element of their receiver
_EACH = frozenset({"forEach", "map", "flatMap", "for_each"})
_COMPREHENSIONS = frozenset({"list_comprehension", "generator_expression", "set_comprehension"})
_DECLARATIONS = frozenset({"variable_declarator", "assignment"})


def loop_guard(parent: Node, child: Node) -> Guard | None:
    """The filter ``parent`` (a loop, or a call running a callback per element) puts on its body
    ``child``, when the list it runs over is filtered; ``None`` otherwise."""
    iterated = _iterated(parent, child)
    predicate = _predicate(iterated, parent) if iterated is not None else None
    return Guard(one_line(predicate), parent.id, "loop") if predicate else None


def _iterated(parent: Node, child: Node) -> Node | None:
    if parent.type in _LOOPS and (right := parent.child_by_field_name("right")) is not None:
        return right if child != right and child.start_byte >= right.end_byte else None
    if parent.type == "call_expression" and child.type == "arguments":  # list.forEach((t) => ...)
        function = parent.child_by_field_name("function")
        method = function.child_by_field_name("property") if function is not None else None
        if function is not None and function.type == "member_expression" and text(method) in _EACH:
            return function.child_by_field_name("object")
    return None


def _predicate(iterated: Node, at: Node, depth: int = 0) -> str | None:
    """The predicate filtering ``iterated`` (a filter call, a comprehension's ``if``, or the value a
    name is given before ``at``)."""
    if depth > 2:
        return None
    if iterated.type in _COMPREHENSIONS:
        clauses = [c for c in iterated.named_children if c.type == "if_clause"]
        return " and ".join(text(c.named_children[0]) for c in clauses if c.named_children) or None
    if iterated.type in ("call_expression", "call"):
        function = iterated.child_by_field_name("function")
        arguments = iterated.child_by_field_name("arguments")
        given = [a for a in arguments.named_children if a.type != "comment"] if arguments is not None else []
        if function is not None and function.type == "member_expression" and \
                text(function.child_by_field_name("property")) == "filter" and given:
            return _body(given[0])
        if function is not None and text(function) == "filter" and len(given) == 2:  # Python filter(pred, xs)
            return _body(given[0])
        return None
    if iterated.type == "identifier":
        value = _value_before(iterated, at)
        return _predicate(value, at, depth + 1) if value is not None else None
    return None


def _body(predicate: Node) -> str:
    """What a predicate tests: an arrow function's or lambda's body, else the predicate's text."""
    body = predicate.child_by_field_name("body") if predicate.type in ("arrow_function", "lambda") else None
    return text(body if body is not None else predicate)


def _value_before(name: Node, at: Node) -> Node | None:
    """The value the last declaration of ``name`` before ``at``, in a scope around ``at``, gives it."""
    wanted, scope, found = text(name), at.parent, None
    while scope is not None and found is None:
        for statement in scope.named_children:
            if statement.start_byte >= at.start_byte:
                break
            for node in (statement, *statement.named_children, *(g for c in statement.named_children
                                                                  for g in c.named_children)):
                if node.type in _DECLARATIONS:
                    left = node.child_by_field_name("name") or node.child_by_field_name("left")
                    if text(left) == wanted:
                        found = node.child_by_field_name("value") or node.child_by_field_name("right")
        scope = scope.parent
    return found


#: one alternative of a predicate comparing an element (or its field) with a literal: ``t.group === "core"``
_COMPARED = re.compile(r"""\(*\s*[\w$]+(?:\??\.([\w$]+))?\s*={2,3}\s*(["'])([^"'\n]*)\2\s*\)*""")
_ALTERNATIVES = re.compile(r"\|\||\bor\b")


def always_kept(predicate: str, element: str) -> bool:
    """Whether one alternative of ``predicate`` compares the element, or one of its fields, with a
    literal the element's own text holds (``group: "core"``, ``(ping, "core")``): the element is kept
    whatever the configuration says."""
    for alternative in _ALTERNATIVES.split(predicate):
        compared = _COMPARED.fullmatch(alternative.strip())
        if compared is None:
            continue
        field, _, literal = compared.groups()
        quoted = rf"""["']{re.escape(literal)}["']"""
        pattern = rf"""\b{re.escape(field)}["']?\s*[:=]\s*{quoted}""" if field else rf"(?:^|[(\[,\s]){quoted}\s*[,)\]]"
        if re.search(pattern, element):
            return True
    return False
