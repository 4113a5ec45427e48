"""Reading tool definitions and their annotations from TypeScript/JavaScript values.

Names are followed through a ``Resolver`` (``resolver``). Helpers that return an
object literal (``readOnly("T")``) are evaluated with their parameters bound. Hint keys
must be the wire names (``readOnlyHint`` ...): the TypeScript SDKs pass the object through, so
``readOnly: true`` would reach a client under that non-spec name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from pipeline.scan.detect.model import DYNAMIC, FALSE, NO_ANNOTATIONS, TRUE, WIRE_NAMES, Annotations
from pipeline.scan.detect.typescript.functions import enclosing_function, returned_name, returned_object
from pipeline.scan.detect.typescript.resolver import Resolver, bind
from pipeline.scan.detect.typescript.values import Ref, arguments, entries

#: wire name -> canonical hint field (the only keys the TypeScript SDKs send as hints)
HINT_KEYS = {wire: canonical for canonical, wire in WIRE_NAMES.items()}


@dataclass(frozen=True)
class ToolInfo:
    """What a tool definition says: its name, tool-level title and annotations."""

    name: str | None
    title: str | None
    annotations: Annotations
    preset: str | None = None
    """the shared object or helper the annotations came from."""


def read_annotations(res: Resolver, ref: Ref, depth: int = 0) -> tuple[Annotations, str | None]:
    """The annotations an expression declares, and the preset they came from."""
    target, name = res.resolve(ref)
    node = target.node
    if node.type == "object":
        found, preset = _read_object(res, target, depth)
        for hint in _mutated(target):
            found = found.with_hint(hint, DYNAMIC)
        return (found.with_source(f"preset:{name}"), name) if name else (found, preset)
    if node.type in ("undefined", "null"):
        return NO_ANNOTATIONS, None
    if node.type == "call_expression" and depth == 0:
        return _helper(res, target)
    consequence, alternative = node.child_by_field_name("consequence"), node.child_by_field_name("alternative")
    if node.type == "ternary_expression" and consequence is not None and alternative is not None:
        return _either(read_annotations(res, target.at(consequence), depth)[0],
                       read_annotations(res, target.at(alternative), depth)[0]), None
    return Annotations(source="dynamic"), None


def _mutated(obj: Ref) -> frozenset[str]:
    """The hints assigned to a constant object after it is made (``annotations.readOnlyHint = true``
    in its function or module, often in a ``switch``): decided at run time, so ``dynamic``."""
    declarator = obj.node.parent
    name = declarator.child_by_field_name("name") if declarator is not None else None
    if declarator is None or declarator.type != "variable_declarator" or name is None or name.type != "identifier":
        return frozenset()
    scope, file = enclosing_function(declarator) or obj.file.tree.root_node, obj.file
    return file.kept(f"mutated:{declarator.start_byte}", lambda: _assigned(file.text(scope), file.text(name)))


def _assigned(text: str, name: str) -> frozenset[str]:
    """The hints ``text`` assigns as members of ``name`` (``name.readOnlyHint =``, ``name["openWorldHint"] =``)."""
    if f"{name}." not in text and f"{name}[" not in text:
        return frozenset()
    wire = "|".join(HINT_KEYS)
    pattern = rf"(?<![\w$.]){re.escape(name)}\s*(?:\.\s*({wire})|\[\s*[\"']({wire})[\"']\s*\])\s*=(?!=)"
    return frozenset(HINT_KEYS[a or b] for a, b in re.findall(pattern, text))


def _either(first: Annotations, second: Annotations) -> Annotations:
    """``cond ? a : b``: a hint both branches write alike keeps its value; one written in either
    branch only, or differently, is ``dynamic`` (decided at run time)."""
    found = Annotations(source="dynamic")
    for hint in HINT_KEYS.values():
        one, other = getattr(first, hint), getattr(second, hint)
        if one != "unset" or other != "unset":
            found = found.with_hint(hint, one if one == other else DYNAMIC)
    return found


def _helper(res: Resolver, call: Ref) -> tuple[Annotations, str | None]:
    called = helper_object(res, call)
    if called is None:
        return Annotations(source="dynamic"), None
    helper, body = called
    name = call.file.text(call.node.child_by_field_name("function"))
    env = bind(helper, [call.at(a) for a in arguments(call.node)], res)
    found, _ = _read_object(res.bound(env), body, 1)
    for hint in _mutated(body):
        found = found.with_hint(hint, DYNAMIC)
    return found.with_source(f"preset:{name}"), name


def helper_object(res: Resolver, call: Ref) -> tuple[Ref, Ref] | None:
    """The project's function ``call`` calls and the object literal it returns: as written, or
    the local constant it returns by name (``registryCommands(dir)``, ``annotationsFor(kind)``)."""
    function = call.node.child_by_field_name("function")
    helper = res.functions(call.file.text(function), call.file) if function is not None else None
    if helper is None:
        return None
    body = returned_object(helper.node)
    if body is None and (name := returned_name(helper.node)) is not None:
        found = res.resolve(helper.at(name))[0]
        return (helper, found) if found.node.type == "object" else None
    return (helper, helper.at(body)) if body is not None and body.type == "object" else None


def _read_object(res: Resolver, obj: Ref, depth: int) -> tuple[Annotations, str | None]:
    found, preset, constant = Annotations(source="inline"), None, False
    for key, value, from_constant in entries(obj, res.consts):
        if key is None:
            if depth == 0:
                inner, preset_name = read_annotations(res, value, depth + 1)
                found, preset = _merge(found, inner), preset_name or preset
            continue
        constant = constant or from_constant
        if key in HINT_KEYS:
            found = found.with_hint(HINT_KEYS[key], _literal(res, value))
        elif key == "title":
            title = res.string(value)
            found = replace(found, title=title, title_state=TRUE if title is not None else DYNAMIC)
    source = f"preset:{preset}" if preset else "constant" if constant else "inline"
    return found.with_source(source), preset


def _merge(base: Annotations, extra: Annotations) -> Annotations:
    for hint in HINT_KEYS.values():
        if (value := getattr(extra, hint)) != "unset":
            base = base.with_hint(hint, value)
    if extra.title_state != "unset":
        base = replace(base, title=extra.title, title_state=extra.title_state)
    return base


def _literal(res: Resolver, ref: Ref) -> str:
    value, _ = res.resolve(ref)
    return {"true": TRUE, "false": FALSE}.get(value.node.type, DYNAMIC)


def tool_info(res: Resolver, obj: Ref, name_key: str = "name",
              annotation_paths: tuple[tuple[str, ...], ...] = (("annotations",),)) -> ToolInfo:
    """Name, title and annotations of a tool object literal (or a config object)."""
    target, _ = res.resolve(obj)
    if target.node.type != "object":
        return ToolInfo(None, None, Annotations(source="dynamic"))
    name = res.string(res.get(target, name_key))
    title = res.string(res.get(target, "title"))
    for keys in annotation_paths:
        value = res.path(target, keys)
        if value is not None:
            found, preset = read_annotations(res, value)
            return ToolInfo(name, title, found, preset)
    return ToolInfo(name, title, NO_ANNOTATIONS)
