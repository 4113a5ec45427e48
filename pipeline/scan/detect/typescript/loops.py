"""Definitions that a TypeScript/JavaScript registration reaches indirectly.

- a loop over a known tool list (``for (const t of TOOLS) server.registerTool(t.name, ...)``,
  ``TOOLS.forEach((t) => server.tool(t.name, ...))``, ``TOOLS.forEach(({ name }) => ...)``):
  one definition per element of the list (an object, or a call of a factory returning one); a loop
  over an object's keys that reads each member (``const tool = TOOLS[key]``) is one over its members;
  a list it cannot follow is read from the objects of that shape (``shaped``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from pipeline.scan.detect.syntax import descendants, named
from pipeline.scan.detect.typescript.annotations import ToolInfo, helper_object, tool_info
from pipeline.scan.detect.typescript.forms import Found, Reader
from pipeline.scan.detect.typescript.functions import binds, declared_before, member_keys, params
from pipeline.scan.detect.typescript.keyed import bound, by_key, destructured_before, each_entry, entries_of, is_entries
from pipeline.scan.detect.typescript.lists import tool_objects
from pipeline.scan.detect.typescript.resolver import Resolver, bind
from pipeline.scan.detect.typescript.templates import each_templated, template_names
from pipeline.scan.detect.typescript.values import Node, Ref, arguments, unwrap

if TYPE_CHECKING:
    pass

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
    variables = {variable} if variable else \
        _name_sources(call.at(args[0])) | template_names(call.at(args[0])) if args else set()
    names = {*variables, *(derived for name in variables for derived in _derived_from(call, name))}
    node = call.node.parent
    while names and node is not None:
        for name in names:
            if node.type == "for_in_statement":
                left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
                if left is not None and right is not None and _binds(call, left, name, right):
                    return call.at(left), call.at(right)
            if node.type in ("arrow_function", "function_expression") and (found := _iterated(call, node, name)):
                return found
        node = node.parent
    return None


def _name_sources(arg: Ref) -> set[str]:
    """The names an object literal's ``name`` is written with (``{ name }``, ``name: toolName``,
    ``name: `web_${id}` ``): a loop variable among them makes the object one tool per element."""
    node, found = unwrap(arg.node), set()
    for child in named(node) if node.type == "object" else []:
        key, value = child.child_by_field_name("key"), child.child_by_field_name("value")
        if child.type == "shorthand_property_identifier" and arg.file.text(child) == "name":
            found.add("name")
        elif child.type == "pair" and key is not None and value is not None and arg.file.text(key) == "name":
            found.update(arg.file.text(n) for n in descendants(value, ("identifier",)))
    return found


def _derived_from(call: Ref, name: str) -> set[str]:
    """The names a ``const name = ...`` of the blocks around ``call`` (before it) is made from:
    ``const toolName = `cli-${commandName}`;`` makes ``toolName`` depend on the loop's ``commandName``."""
    value = declared_before(call, name) or destructured_before(call, name)
    return {call.file.text(n) for n in descendants(value.node, ("identifier",))} if value is not None else set()




def _binds(call: Ref, pattern: Node, variable: str, listed: Node) -> bool:
    """Whether a loop's ``pattern`` binds ``variable``: ``t`` or ``{ name, ... }``; an array pattern
    only over ``Object.entries(...)`` (``[name, tool]``: the other arrays' elements are no tools)."""
    if pattern.type == "array_pattern" and not is_entries(call.at(listed)):
        return False
    return binds(call.file, pattern, variable)


def _iterated(call: Ref, node: Node, variable: str) -> tuple[Ref, Ref] | None:
    first = params(node, call.file)[:1]
    outer = node.parent.parent if node.parent is not None else None
    target = outer.child_by_field_name("function") if outer is not None and outer.type == "call_expression" else None
    if not first or target is None or target.type != "member_expression":
        return None
    prop, base = target.child_by_field_name("property"), target.child_by_field_name("object")
    if prop is None or base is None or call.file.text(prop) not in _ITERATING:
        return None
    return (call.at(first[0]), call.at(base)) if _binds(call, first[0], variable, base) else None






#: finds the object literals shaped as a loop's elements: (the registration call, the key that
#: names a tool, every key it reads) -> the objects
Shaped = Callable[[Ref, str, frozenset[str]], list[Ref]]


def expand_loop(res: Resolver, call: Ref, read: Reader, shaped: Shaped | None = None,
                keys: tuple[str, frozenset[str]] | None = None) -> tuple[Found, bool]:
    """One definition per element of the list a registration loops over (empty when none), and
    whether the elements were guessed: when the list cannot be followed (built by a function,
    passed in as a parameter) or its elements name no tool (records built from another list),
    ``shaped`` gives the objects that have the keys the registration reads from the loop variable
    (``keys``, when the caller knows them: a wrapper reading them from the element it is given)."""
    loop = loop_list(call)
    if loop is None:
        return [], False
    pattern, listed = by_key(call, *loop) or loop
    if templated := each_templated(res, call, read, pattern, listed):  # `create_${entity}` over ["project", ...]
        return templated, False
    if pattern.node.type == "array_pattern":  # for (const [name, tool] of Object.entries(TOOLS))
        return each_entry(res, call, read, pattern, entries_of(res, listed)), False
    made = _made(res, listed)
    found = _each_made(call, read, pattern, made) if made else _each(
        res, call, read, pattern, tool_objects(res, listed), guessed=False)
    if any(info.name for _, info in found) or shaped is None or (keys := keys or read_keys(call, pattern)) is None:
        return found, False
    guessed = _each(res, call, read, pattern, shaped(call, *keys), guessed=True)
    return (guessed, True) if guessed else (found, False)


def _each(res: Resolver, call: Ref, read: Reader, pattern: Ref, elements: list[Ref], *, guessed: bool) -> Found:
    """What ``read`` finds at ``call`` with the loop variable bound to each element in turn."""
    found: Found = []
    for element in elements:
        infos = [info for _, info in read(res.bound(bound(res, pattern, element)), call)]
        found.extend((element, _own_annotations(res, element, info) if guessed else info) for info in infos)
    return found


def _made(res: Resolver, listed: Ref) -> list[tuple[Ref, Resolver, Ref]]:
    """For a list literal whose elements are calls of a project factory returning a tool object
    (``[makeTool("list_contacts", ...), makeTool(...)]``): each call, a resolver with the factory's
    parameters bound to its arguments, and the object it returns. Empty for any other list."""
    target, _ = res.resolve(listed)
    if target.node.type != "array":
        return []
    made: list[tuple[Ref, Resolver, Ref]] = []
    for element in (e for e in target.node.named_children if e.type != "comment"):
        at = target.at(element)
        found = helper_object(res, at) if element.type == "call_expression" else None
        if found is None:
            return []
        helper, obj = found
        made.append((at, res.within(helper, bind(helper, [at.at(a) for a in arguments(element)], res)), obj))
    return made


def _each_made(call: Ref, read: Reader, pattern: Ref, made: list[tuple[Ref, Resolver, Ref]]) -> Found:
    """What ``read`` finds at ``call`` with the loop variable bound to each factory's object, read
    with that factory's parameters bound; placed at the factory's call."""
    found: Found = []
    for at, scoped, obj in made:
        found.extend((at, info) for _, info in read(scoped.bound(bound(scoped, pattern, obj)), call))
    return found






def _own_annotations(res: Resolver, element: Ref, info: ToolInfo) -> ToolInfo:
    """A shaped element's own ``annotations`` (the wire field's name) where the registration
    passes something the detector cannot follow (a record built from the element)."""
    if info.annotations.source != "dynamic" or res.get(element, "annotations") is None:
        return info
    own = tool_info(res, element)
    return replace(info, annotations=own.annotations, preset=own.preset)


def read_keys(call: Ref, pattern: Ref) -> tuple[str, frozenset[str]] | None:
    """The key of the loop variable that names the tool (the call's first argument) and every key
    the call reads from it (``tool.name``, ``tool.annotations``; or the names it destructures)."""
    args = arguments(call.node)
    first = unwrap(args[0]) if args else None
    if first is None:
        return None
    if pattern.node.type == "object_pattern":
        keys = frozenset(call.file.text(p) for p in pattern.node.named_children
                         if p.type == "shorthand_property_identifier_pattern")
        name = call.file.text(first)
        return (name, keys) if name in keys else None
    variable = pattern.text()
    keys = member_keys(call.file, call.node, variable)
    if first.type != "member_expression" or call.file.text(first.child_by_field_name("object")) != variable:
        return None
    return call.file.text(first.child_by_field_name("property")), keys
