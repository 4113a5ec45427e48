"""Tool names a loop builds from a template: one registration, one tool per element of a list of
strings or per key of a known object (a CRUD family, an endpoint table):

    for (const entity of ["project", "task"]) server.tool(`create_${entity}`, ...)
    for (const key of Object.keys(ENDPOINTS)) server.tool(`gh_${key}`, ...)

Each element is bound to the loop variable and the registration read again, so the name is the
template's text with the element in place (``create_project``); the rows are at the
registration's line. A list of anything but strings, or an object the resolver cannot follow,
gives nothing here (the loop's other readings apply).
"""

from __future__ import annotations

from pipeline.scan.detect.syntax import descendants, named
from pipeline.scan.detect.typescript.forms import Found, Reader
from pipeline.scan.detect.typescript.resolver import Resolver
from pipeline.scan.detect.typescript.values import Ref, arguments, unwrap


def template_names(arg: Ref) -> set[str]:
    """The names a template literal's substitutions read (``create_${entity}`` -> ``entity``)."""
    node = unwrap(arg.node)
    if node.type != "template_string":
        return set()
    subs = [c for c in node.named_children if c.type == "template_substitution"]
    return {arg.file.text(n) for sub in subs for n in [sub, *descendants(sub, ("identifier",))]
            if n.type == "identifier"}


def each_templated(res: Resolver, call: Ref, read: Reader, pattern: Ref, listed: Ref) -> Found:
    """One definition per string element (or object key) the loop binds to ``pattern`` when the
    registration's name is a template reading it; empty otherwise."""
    args = arguments(call.node)
    if pattern.node.type != "identifier" or not args or \
            call.file.text(pattern.node) not in template_names(call.at(args[0])):
        return []
    found: Found = []
    names: set[str] = set()
    for element in _strings(res, listed):
        for _, info in read(res.bound({call.file.text(pattern.node): element}), call):
            if info.name and info.name not in names:
                names.add(info.name)
                found.append((call, info))
    return found


def _strings(res: Resolver, listed: Ref) -> list[Ref]:
    """The string elements of the array ``listed`` stands for, or the keys of ``Object.keys(X)``."""
    node = unwrap(listed.node)
    function = node.child_by_field_name("function") if node.type == "call_expression" else None
    if function is not None and listed.file.text(function) == "Object.keys":
        args = arguments(node)
        target = res.resolve(listed.at(args[0]))[0] if args else listed
        if target.node.type != "object":
            return []
        keys = [c.child_by_field_name("key") if c.type == "pair" else c for c in named(target.node)
                if c.type in ("pair", "shorthand_property_identifier")]
        return [target.at(k) for k in keys if k is not None and k.type in ("property_identifier", "string")]
    target = res.resolve(listed)[0]
    if target.node.type != "array":
        return []
    elements = [e for e in target.node.named_children if e.type != "comment"]
    return [target.at(e) for e in elements] if elements and all(e.type == "string" for e in elements) else []
