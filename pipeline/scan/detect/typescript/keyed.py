"""Loops over an object's members rather than a list's elements (``pipeline.scan.detect.typescript.loops``).

- ``for (const [name, tool] of Object.entries(TOOLS))``: the key and the member, each pair
  (``entries``, ``each_entry``);
- ``for (const k in TOOLS)`` or ``for (const k of Object.keys(TOOLS))`` that reads each member
  before the registration (``const tool = TOOLS[k]``, ``const { name } = TOOLS[k]``): a loop over
  the members (``by_key``); a name the registration reads may come from such a destructuring
  (``destructured_before``). ``bound`` binds a loop's variables to one element or member.
"""

from __future__ import annotations

from pipeline.scan.detect.syntax import descendants, named
from pipeline.scan.detect.typescript.annotations import helper_object
from pipeline.scan.detect.typescript.forms import Found, Reader
from pipeline.scan.detect.typescript.functions import binds
from pipeline.scan.detect.typescript.resolver import Resolver
from pipeline.scan.detect.typescript.values import Env, Ref, arguments, unwrap


def destructured_before(call: Ref, name: str) -> Ref | None:
    """The value a ``const { name, ... } = value`` of the loop body around ``call`` destructures ``name`` from."""
    node = call.node.parent
    while node is not None and node.type not in ("for_in_statement", "program"):
        node = node.parent
    body = node.child_by_field_name("body") if node is not None and node.type == "for_in_statement" else None
    for declarator in descendants(body, ["variable_declarator"]) if body is not None else ():
        pattern, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
        if pattern is not None and value is not None and pattern.type == "object_pattern" and \
                declarator.start_byte < call.node.start_byte and binds(call.file, pattern, name):
            return call.at(value)
    return None


def is_entries(listed: Ref) -> bool:
    """Whether ``listed`` is ``Object.entries(...)``."""
    node = unwrap(listed.node)
    function = node.child_by_field_name("function") if node.type == "call_expression" else None
    return function is not None and listed.file.text(function) == "Object.entries"


def entries_of(res: Resolver, listed: Ref) -> list[tuple[Ref, Ref]]:
    """(key, value) of each member of the object ``Object.entries(X)`` iterates (X followed one level)."""
    args = arguments(unwrap(listed.node))
    target, _ = res.resolve(listed.at(args[0])) if args else (listed, None)
    if target.node.type == "call_expression" and (called := helper_object(res, target)) is not None:
        target = called[1]  # a helper that returns the object: registryCommands(dir)
    if target.node.type != "object":
        return []
    pairs: list[tuple[Ref, Ref]] = []
    for child in named(target.node):
        key, value = child.child_by_field_name("key"), child.child_by_field_name("value")
        if child.type == "pair" and key is not None and value is not None and key.type != "computed_property_name":
            pairs.append((target.at(key), target.at(value)))
        elif child.type == "shorthand_property_identifier":
            pairs.append((target.at(child), target.at(child)))
    return pairs


def each_entry(res: Resolver, call: Ref, read: Reader, pattern: Ref, pairs: list[tuple[Ref, Ref]]) -> Found:
    """What ``read`` finds at ``call`` with ``[key, value]`` bound to each member of an object (the
    value destructured when the pattern does); at the value's object literal, else at the key."""
    parts = pattern.node.named_children
    found: Found = []
    for key, value in pairs:
        target, _ = res.resolve(value)
        env: Env = {pattern.file.text(parts[0]): key} if parts and parts[0].type == "identifier" else {}
        if len(parts) > 1:
            env.update(bound(res, pattern.at(parts[1]), target))
        where = target if target.node.type == "object" else key
        found.extend((where, info) for _, info in read(res.bound(env), call))
    return found


def by_key(call: Ref, pattern: Ref, listed: Ref) -> tuple[Ref, Ref] | None:
    """A loop over an object's keys that reads each member (``for (const k in TOOLS)`` or ``of
    Object.keys(TOOLS)``, then ``const tool = TOOLS[k]`` or ``const { name } = TOOLS[k]`` before the
    call): the member's pattern and the object, so the loop reads as one over its members."""
    loop = pattern.node.parent
    keys = unwrap(listed.node)
    function = keys.child_by_field_name("function") if keys.type == "call_expression" else None
    if function is not None and listed.file.text(function) == "Object.keys" and (args := arguments(keys)):
        target = listed.at(unwrap(args[0]))
    elif loop is not None and loop.type == "for_in_statement" and \
            any(child.type == "in" for child in loop.children):
        target = listed
    else:
        return None
    if pattern.node.type != "identifier":
        return None
    body = loop.child_by_field_name("body") if loop is not None else None
    for declarator in descendants(body, ["variable_declarator"]) if body is not None else ():
        value, name = declarator.child_by_field_name("value"), declarator.child_by_field_name("name")
        value = unwrap(value) if value is not None else None
        if value is None or name is None or value.type != "subscript_expression" or \
                declarator.start_byte >= call.node.start_byte:
            continue
        base, index = value.child_by_field_name("object"), value.child_by_field_name("index")
        index = unwrap(index) if index is not None else None
        if base is not None and index is not None and call.file.text(base) == target.text() and \
                call.file.text(index) == pattern.text():
            return call.at(name), target
    return None


def bound(res: Resolver, pattern: Ref, element: Ref) -> Env:
    """The loop variables ``pattern`` binds to one element: itself, or its destructured keys."""
    if pattern.node.type != "object_pattern":
        return {pattern.text(): element}
    env: Env = {}
    for part in pattern.node.named_children:
        if part.type == "shorthand_property_identifier_pattern" and \
                (value := res.get(element, key := pattern.file.text(part))) is not None:
            member = unwrap(value.node).type == "member_expression"  # { name: ToolName.ECHO }: the enum's value
            env[key] = res.resolve(value)[0] if member else value
    return env
