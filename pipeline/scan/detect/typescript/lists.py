"""The tool object literals a TypeScript/JavaScript list expression holds.

``tool_objects`` follows array literals (and what ``NAME.push(x)`` adds to one), constants,
spreads, a record of tool objects, ``Object.values``/``Object.entries``, list methods
(``.map``, ``.filter`` ...), a helper returning an array or object literal, and both
branches of ``cond ? a : b``.
"""

from __future__ import annotations

from pipeline.scan.detect.syntax import descendants
from pipeline.scan.detect.typescript.functions import declared_before, enclosing_function, returned_object
from pipeline.scan.detect.typescript.resolver import Resolver
from pipeline.scan.detect.typescript.values import TRANSPARENT, Node, Ref, arguments, entries, unwrap

_LIST_METHODS = frozenset({"map", "filter", "concat", "slice", "flat", "sort", "toSorted"})


def tool_objects(res: Resolver, ref: Ref, depth: int = 0) -> list[Ref]:
    """The tool object literals a list expression holds (arrays, constants, spreads, ``.map``...)."""
    if depth > 4:
        return []
    target, _ = res.resolve(ref)
    node = target.node
    if node.type == "array":
        found: list[Ref] = []
        for element in node.named_children:
            inner = element.named_children[0] if element.type == "spread_element" else element
            inner_ref = target.at(inner)
            found.extend([inner_ref] if inner.type == "object" else tool_objects(res, inner_ref, depth + 1))
        for pushed in _pushed(target):
            found.extend([pushed] if pushed.node.type == "object" else tool_objects(res, pushed, depth + 1))
        return found
    if node.type == "object":
        if res.get(target, "name") is not None or (depth > 0 and not _record_of_objects(res, target)):
            return [target]  # a tool, or an element of a list: { capability: "core", schema: actSchema }
        return [tool for key, value, _ in entries(target, res.consts) if key is not None
                for tool in tool_objects(res, value, depth + 1)] + \
            [tool for value in _assigned(target) for tool in tool_objects(res, value, depth + 1)]
    if node.type == "call_expression":
        return _call_list(res, target, depth)
    if node.type == "identifier" and (value := top_level_value(target)) is not None:
        return tool_objects(res, value, depth + 1)  # const tools = allTools.filter(...), not a literal
    if node.type in ("identifier", "shorthand_property_identifier") and \
            (value := declared_before(target, target.text())) is not None:
        return tool_objects(res, value, depth + 1)  # a handler's own: const tools = ro ? [...] : all; return { tools }
    if node.type == "ternary_expression":  # ro ? [read] : [read, write]: every object either branch lists
        branches = [node.child_by_field_name(side) for side in ("consequence", "alternative")]
        found = [o for b in branches if b is not None for o in tool_objects(res, target.at(b), depth + 1)]
        return list({(o.file.path, o.node.start_byte): o for o in found}.values())
    return []


def _record_of_objects(res: Resolver, obj: Ref) -> bool:
    """Whether every member of ``obj`` is an object (``{ search: {...}, fetch: SEARCH }``: a record
    of tools), not the fields of one."""
    values = [value for key, value, _ in entries(obj, res.consts) if key is not None]
    return bool(values) and all(unwrap(res.resolve(v)[0].node).type == "object" for v in values)


def _declared(literal: Ref) -> tuple[str, Node] | None:
    """The name of the ``const NAME = <literal>`` holding a literal, and the function (or file)
    that declares it: where code adds to it."""
    declarator = literal.node.parent
    while declarator is not None and declarator.type in TRANSPARENT:
        declarator = declarator.parent
    name_node = declarator.child_by_field_name("name") if declarator is not None and \
        declarator.type == "variable_declarator" else None
    if name_node is None or name_node.type != "identifier" or declarator is None:
        return None
    return literal.file.text(name_node), enclosing_function(declarator) or literal.file.tree.root_node


def _pushed(array: Ref) -> list[Ref]:
    """What ``NAME.push(x)`` adds to an array literal declared as ``const NAME = [...]``, within the
    function (or file) that declares it: ``const tools = []; tools.push({...}); return { tools }``."""
    declared = _declared(array)
    if declared is None:
        return []
    name, scope = declared
    found: list[Ref] = []
    for call in descendants(scope, ["call_expression"]):
        function = call.child_by_field_name("function")
        if function is not None and function.type == "member_expression" and \
                array.file.text(function.child_by_field_name("property")) == "push" and \
                array.file.text(function.child_by_field_name("object")) == name:
            found.extend(array.at(unwrap(a)) for a in arguments(call))
    return found


def _assigned(obj: Ref) -> list[Ref]:
    """The objects keyed assignments add to an empty object literal declared as ``const NAME = {}``,
    within the function (or file) that declares it: ``NAME['get_messages'] = {...}``, ``NAME.x = {...}``."""
    declared = _declared(obj) if not obj.node.named_child_count else None
    if declared is None:
        return []
    name, scope = declared
    found: list[Ref] = []
    for assignment in descendants(scope, ["assignment_expression"]):
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        base = left.child_by_field_name("object") if left is not None and \
            left.type in ("subscript_expression", "member_expression") else None
        if base is not None and right is not None and obj.file.text(base) == name and unwrap(right).type == "object":
            found.append(obj.at(unwrap(right)))
    return found


def _call_list(res: Resolver, call: Ref, depth: int) -> list[Ref]:
    function = call.node.child_by_field_name("function")
    args = arguments(call.node)
    if function is None:
        return []
    if function.type == "member_expression":
        prop, base = function.child_by_field_name("property"), function.child_by_field_name("object")
        method = call.file.text(prop)
        if method in ("values", "entries") and call.file.text(base) == "Object" and args:
            return tool_objects(res, call.at(args[0]), depth + 1)
        if method in _LIST_METHODS and base is not None:
            return tool_objects(res, call.at(base), depth + 1)
        return []
    helper = res.functions(call.file.text(function), call.file)
    body = returned_object(helper.node) if helper is not None else None
    return tool_objects(res, helper.at(body), depth + 1) if helper is not None and body is not None else []


def top_level_value(name: Ref) -> Ref | None:
    """The value a file's top-level ``const NAME = ...`` gives a name no constant lookup follows (an
    alias or a call: ``const tools = allTools.filter(...)``); ``None`` when it is declared otherwise."""
    wanted = name.text()
    for statement in name.file.tree.root_node.named_children:
        declaration = statement.child_by_field_name("declaration") if statement.type == "export_statement" \
            else statement
        if declaration is None or declaration.type not in ("lexical_declaration", "variable_declaration"):
            continue
        for declarator in declaration.named_children:
            value = declarator.child_by_field_name("value")
            if declarator.type == "variable_declarator" and value is not None and value != name.node and \
                    name.file.text(declarator.child_by_field_name("name")) == wanted:
                return name.at(value)
    return None
