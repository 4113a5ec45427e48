"""Definitions that a TypeScript/JavaScript registration reaches indirectly.

- a loop over a known tool list (``for (const t of TOOLS) server.registerTool(t.name, ...)``,
  ``TOOLS.forEach((t) => server.tool(t.name, ...))``, ``TOOLS.forEach(({ name }) => ...)``):
  one definition per element of the list;
- Mastra: the names under which ``new MCPServer({ tools: { key: value } })`` registers tools,
  by the value's variable name or by the position of an inline ``createTool(...)``.
"""

from __future__ import annotations

from pipeline.scan.detect.typescript_annotations import Resolver, tool_objects
from pipeline.scan.detect.typescript_forms import Found, Reader
from pipeline.scan.detect.typescript_values import Env, Node, Ref, arguments, entries, params, unwrap

_ITERATING = frozenset({"forEach", "map", "flatMap"})


def _base(ref: Ref) -> str | None:
    node = unwrap(ref.node)
    while node.type == "member_expression" and (inner := node.child_by_field_name("object")) is not None:
        node = inner
    return ref.file.text(node) if node.type == "identifier" else None


def loop_list(call: Ref) -> tuple[Ref, Ref] | None:
    """The loop variable a call's first argument depends on (an identifier, or an object
    pattern that binds it), and the list it iterates."""
    args = arguments(call.node)
    variable = _base(call.at(args[0])) if args else None
    node = call.node.parent
    while variable and node is not None:
        if node.type == "for_in_statement":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None and _binds(call, left, variable):
                return call.at(left), call.at(right)
        if node.type in ("arrow_function", "function_expression") and (found := _iterated(call, node, variable)):
            return found
        node = node.parent
    return None


def _binds(call: Ref, pattern: Node, variable: str) -> bool:
    """Whether a loop's ``pattern`` binds ``variable``: ``t`` or ``{ name, ... }``."""
    if pattern.type == "object_pattern":
        return any(p.type == "shorthand_property_identifier_pattern" and call.file.text(p) == variable
                   for p in pattern.named_children)
    return call.file.text(pattern) == variable


def _iterated(call: Ref, node: Node, variable: str) -> tuple[Ref, Ref] | None:
    first = params(node, call.file)[:1]
    if not first or not _binds(call, first[0], variable):
        return None
    outer = node.parent.parent if node.parent is not None else None
    target = outer.child_by_field_name("function") if outer is not None and outer.type == "call_expression" else None
    if target is None or target.type != "member_expression":
        return None
    prop, base = target.child_by_field_name("property"), target.child_by_field_name("object")
    if prop is None or base is None or call.file.text(prop) not in _ITERATING:
        return None
    return call.at(first[0]), call.at(base)


def expand_loop(res: Resolver, call: Ref, read: Reader) -> Found:
    """One definition per element of the list a registration loops over (empty when none)."""
    loop = loop_list(call)
    if loop is None:
        return []
    pattern, listed = loop
    found: Found = []
    for element in tool_objects(res, listed):
        found.extend((element, info) for _, info in read(res.bound(_bound(res, pattern, element)), call))
    return found


def _bound(res: Resolver, pattern: Ref, element: Ref) -> Env:
    """The loop variables ``pattern`` binds to one element: itself, or its destructured keys."""
    if pattern.node.type != "object_pattern":
        return {pattern.text(): element}
    env: Env = {}
    for part in pattern.node.named_children:
        if part.type == "shorthand_property_identifier_pattern" and \
                (value := res.get(element, key := pattern.file.text(part))) is not None:
            env[key] = value
    return env


def mastra_names(res: Resolver, registered: list[Ref]) -> tuple[dict[str, str], dict[tuple[str, int], str]]:
    """Tool keys of every Mastra ``MCPServer``: by variable name, and by inline call position."""
    names: dict[str, str] = {}
    positions: dict[tuple[str, int], str] = {}
    for ref in registered:
        _collect(res, res.resolve(ref)[0], names, positions, 0)
    return names, positions


def _collect(res: Resolver, target: Ref, names: dict[str, str], positions: dict[tuple[str, int], str],
             depth: int) -> None:
    if target.node.type != "object":
        return
    for key, value, _ in entries(target, res.consts):
        node = unwrap(value.node)
        if key is None and depth == 0:
            _collect(res, res.resolve(value)[0], names, positions, 1)
        elif key is not None and node.type in ("identifier", "shorthand_property_identifier"):
            names[value.file.text(node)] = key
        elif key is not None and node.type == "call_expression":
            positions[(value.file.path, node.start_byte)] = key
