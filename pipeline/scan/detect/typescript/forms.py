"""The registration forms of the TypeScript/JavaScript tool libraries, read into ``ToolInfo``.

Each reader takes a call (as a ``Ref``) and a ``Resolver`` and returns the tool definitions the
call makes, each with the node whose line is reported:

- ``registerTool(name, config, cb)`` (TS SDK v1/v2 and the wrappers that hand out ``McpServer``);
- legacy ``tool(name, [desc], [schemaOrAnnotations], [annotations], cb)``: the annotations are the
  object after the schema, or a lone object whose values are all primitives (a zod shape holds
  ``z.`` calls; an empty object is a shape), mirroring the SDK's ``isZodRawShapeCompat`` test;
- object forms (fastmcp ``addTool``/``addTools``, OpenClaw ``registerTool({...})``, low-level
  ``tools: [...]`` lists): one definition per tool object literal.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pipeline.scan.detect.model import NO_ANNOTATIONS
from pipeline.scan.detect.syntax import descendants
from pipeline.scan.detect.typescript.annotations import HINT_KEYS, ToolInfo, read_annotations, tool_info
from pipeline.scan.detect.typescript.functions import params, returned_object
from pipeline.scan.detect.typescript.lists import tool_objects
from pipeline.scan.detect.typescript.resolver import Resolver
from pipeline.scan.detect.typescript.values import PRIMITIVES, Node, Ref, arguments, entries, unwrap

Found = list[tuple[Ref, ToolInfo]]
#: reads the definitions one registration call makes
Reader = Callable[[Resolver, Ref], Found]
_STRINGS = frozenset({"string", "template_string", "binary_expression"})
#: what an argument resolves to when its value cannot be read: the name itself
_NAMES = frozenset({"identifier", "member_expression", "property_identifier"})


def register_tool(res: Resolver, call: Ref) -> Found:
    """``server.registerTool(name, { title, annotations, ... }, cb)``."""
    return _registered(res, call, [call.at(a) for a in arguments(call.node)])


def register_app_tool(res: Resolver, call: Ref) -> Found:
    """``registerAppTool(server, name, { title, annotations, _meta: { ui } }, cb)`` of the MCP Apps
    extension (``@modelcontextprotocol/ext-apps/server``): ``registerTool``'s arguments, after the server
    it calls ``registerTool`` on."""
    return _registered(res, call, [call.at(a) for a in arguments(call.node)][1:])


def _registered(res: Resolver, call: Ref, args: list[Ref]) -> Found:
    """The tool of a ``registerTool``-shaped call: ``args`` are the name, the config and the callback."""
    if len(args) < 2:
        return []
    info = tool_info(res, args[1])
    name = res.string(args[0])
    return [(call, ToolInfo(name, info.title, info.annotations, info.preset))]


def legacy_tool(res: Resolver, call: Ref) -> Found:
    """``server.tool(...)`` in any of its six overloads."""
    args = [call.at(a) for a in arguments(call.node)]
    if len(args) < 2:
        return []
    middle = args[1:-1]
    if middle and (_stringish(res, middle[0]) or len(middle) == 3):
        middle = middle[1:]
    chosen = middle[1] if len(middle) >= 2 else middle[0] if middle and _annotations_like(res, middle[0]) else None
    if chosen is not None and _zod_shape(chosen):
        chosen = None  # tool(name, description, params.shape, cb): a parameter schema, no annotations
    found, preset = read_annotations(res, chosen) if chosen is not None else (NO_ANNOTATIONS, None)
    return [(call, ToolInfo(res.string(args[0]), None, found, preset))]


def _zod_shape(ref: Ref) -> bool:
    """Whether an argument is a Zod object's ``.shape`` (what ``tool()`` takes as parameters)."""
    node = unwrap(ref.node)
    prop = node.child_by_field_name("property") if node.type == "member_expression" else None
    return prop is not None and ref.file.text(prop) == "shape"


def _stringish(res: Resolver, ref: Ref) -> bool:
    """Whether a ``tool(...)`` argument is the description: a string as written, or a name or
    member (``command.description``) that stands for one; where the value cannot be read (a
    constant of a file the detector does not keep), a name that says so (``RUN_TESTS_DESCRIPTION``)."""
    node, target = unwrap(ref.node), unwrap(res.resolve(ref)[0].node)
    if node.type in _STRINGS or target.type in _STRINGS:
        return True
    named = node.child_by_field_name("property") if node.type == "member_expression" else node
    return target.type in _NAMES and named is not None and "desc" in ref.file.text(named).lower()


def _annotations_like(res: Resolver, ref: Ref) -> bool:
    target, _ = res.resolve(ref)
    if target.node.type != "object":
        return False
    items = list(entries(target, res.consts))
    if any(key in HINT_KEYS for key, _, _ in items):
        return True
    return bool(items) and all(k is not None and unwrap(v.node).type in PRIMITIVES for k, v, _ in items)


def object_tools(res: Resolver, call: Ref, many: bool, name_key: str = "name") -> Found:
    """Tool objects passed to ``addTool(obj)`` / ``addTools([...])`` / ``registerTool(obj)``.

    An inline object reports the call's line; an object reached through a constant, a list or
    a factory (``createTool(deps)`` returning a literal) reports the object literal's line.
    """
    args = arguments(call.node)
    if not args:
        return []
    first = call.at(args[0])
    objects = tool_objects(res, first) if many else one_object(res, first)
    return [(call if o.node == unwrap(first.node) else o, tool_info(res, o, name_key)) for o in objects]


def one_object(res: Resolver, ref: Ref) -> list[Ref]:
    """The tool object literal ``ref`` stands for: itself, a constant's, or a factory's return (one level)."""
    target, _ = res.resolve(ref)
    if target.node.type == "object":
        return [target]
    if target.node.type == "call_expression" and (function := target.node.child_by_field_name("function")):
        helper = res.functions(target.file.text(function), target.file)
        body = returned_object(helper.node) if helper is not None else None
        returned = helper.at(body) if helper is not None and body is not None and body.type == "object" else None
        if helper is not None and returned is not None and not _decorates(returned, helper):
            return [returned]
    return []


def _decorates(obj: Ref, helper: Ref) -> bool:
    """Whether a helper's returned object only decorates a tool it is given (``{ ...tool, canList }``,
    no name of its own): that tool is defined elsewhere, this is no new definition."""
    spread, named = False, False
    names = {obj.file.text(p) for p in params(helper.node, helper.file) if p.type == "identifier"}
    for key, value, _ in entries(obj, lambda n, f: None):
        spread = spread or (key is None and unwrap(value.node).type == "identifier" and value.text() in names)
        named = named or key == "name"
    return spread and not named


def list_tools(res: Resolver, call: Ref) -> Found:
    """``setRequestHandler(ListToolsRequestSchema | 'tools/list', handler)``: every listed tool object."""
    if not lists_tools(call):
        return []
    return [(o, tool_info(res, o)) for value in tool_lists(res, call) for o in tool_objects(res, value)]


def tool_lists(res: Resolver, call: Ref) -> list[Ref]:
    """What a ``tools/list`` handler gives as ``tools`` (each ``tools:`` of the objects it returns)."""
    args = [call.at(a) for a in arguments(call.node)]
    handler = unwrap(args[1].node)
    if handler.type == "identifier":
        found = res.functions(args[1].text(), call.file)
        if found is None:
            return []
        handler_ref = found
    else:
        handler_ref = args[1].at(handler)
    lists = [handler_ref.at(p.child_by_field_name("value") or p) for p in descendants(handler_ref.node, ["pair"])
             if _key_is_tools(handler_ref, p)]
    lists += [handler_ref.at(s) for s in descendants(handler_ref.node, ["shorthand_property_identifier"])
              if handler_ref.file.text(s) == "tools"]
    return lists


def lists_tools(call: Ref) -> bool:
    """Whether ``call`` sets a ``tools/list`` handler (``setRequestHandler(ListToolsRequestSchema, ...)``)."""
    args = arguments(call.node)
    return len(args) >= 2 and _is_list_tools(call.at(args[0]))


def _is_list_tools(ref: Ref) -> bool:
    text = ref.text().strip("'\"`")
    return text == "tools/list" or text.rsplit(".", 1)[-1] == "ListToolsRequestSchema"


def _key_is_tools(ref: Ref, pair: Node) -> bool:
    key = pair.child_by_field_name("key")
    return key is not None and ref.file.text(key).strip("'\"") == "tools"


def create_tool(res: Resolver, call: Ref) -> Found:
    """Mastra ``createTool({ id, mcp: { annotations } })`` (older releases: top-level ``annotations``)."""
    args = arguments(call.node)
    if not args:
        return []
    info = tool_info(res, call.at(args[0]), "id", (("mcp", "annotations"), ("annotations",)))
    return [(call, info)]


def built_at_run_time(res: Resolver, value: Ref) -> bool:
    """Whether a ``tools`` value is made when the handler runs (``await api.list()``,
    ``Promise.all(items.map(...))``, ``registry.values().map(...)``, or a local holding one:
    ``const tools = await answer.json(); return { tools }``, ``const { tools } = await
    upstream.listTools()``: a proxy's): a call or an ``await``, not a list, or a list that spreads one;
    or a field of the class that code assigns something other than a list literal to
    (``tools: this._tools`` with ``this._tools = initInfo.tools``)."""
    made = ("await_expression", "call_expression")
    if any(unwrap(ref.node).type in made for ref in (value, res.resolve(value)[0])):
        return True
    node = unwrap(value.node)
    if node.type == "array":  # [...registry.values().map(p => ({ name: `${p.name}_search` })), ...]
        spreads = [value.at(e.named_children[0]) for e in node.named_children
                   if e.type == "spread_element" and e.named_children]
        return any(built_at_run_time(res, spread) for spread in spreads)
    if node.type in ("identifier", "shorthand_property_identifier"):  # const { tools } = await upstream.listTools()
        name = re.escape(value.file.text(node).encode())
        destructured = rb"\b(?:const|let|var)\s*\{[^{}]*\b%s\b[^{}]*\}\s*=\s*(?:await\b|[\w$.]+\s*\()" % name
        return re.search(destructured, value.file.data) is not None
    # a field the class fills later: this.tools = answer.tools
    prop = node.child_by_field_name("property") if node.type == "member_expression" else None
    base = node.child_by_field_name("object") if node.type == "member_expression" else None
    if prop is None or base is None or base.type != "this":
        return False
    filled = rb"this\.%s\s*=(?!=)\s*(?![\s\[])" % re.escape(value.file.text(prop).encode())
    return re.search(filled, value.file.data) is not None
