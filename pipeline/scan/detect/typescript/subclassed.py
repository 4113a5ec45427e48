"""A project's own subclass of the SDK's ``McpServer`` whose methods add tools: each call of such a
method outside the class is one tool, read as the SDK's ``server.tool(...)`` overloads read it.

::

    export class CustomMcpServer extends McpServer {
      addToolWithReadAccess(name: string, ...rest: any[]) { ... super.tool(...) / registerTool.call(this, ...) }
    }
    server.addToolWithReadAccess("labels-list", "List all labels.", { ... }, async () => ...);
    server.registerTool(ListApps);   // registerTool({ name, description, cb }: ToolArgs) { this.tool(name, ...) }

A method counts when its name says ``tool`` and its body calls the SDK's ``tool`` or
``registerTool`` (directly, through ``super``, or with ``.call``/``.apply``), or another method of
the class that does (``this.addWithMode(...)``); calls inside the class itself (one method handing
its arguments to another) are the methods' own plumbing, not tools.
A call with one argument, an object or a constant holding one, is a method that takes the tool as
an object (``registerTool({ name, description, cb })``): the name is the object's ``name``. The row
is ``typescript.ts-mcp.tool`` ``via="wrapper:<method>"``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import named
from pipeline.scan.detect.typescript.imports import seen_from
from pipeline.scan.detect.typescript.values import Node, Ref

if TYPE_CHECKING:
    from pipeline.scan.detect.typescript.classes import Subclasses

#: the SDK's server class, as the subclass names its base
SERVER_BASES = ("McpServer",)
#: a registration in a method's body: ``tool(``/``registerTool(``, through ``super.`` or ``.call(``
_REGISTERS = re.compile(rb"\b(?:registerTool|tool)\s*(?:\.\s*(?:call|apply)\s*)?\(")
#: a call of another method of the class: ``this.name(``
_OWN_CALL = re.compile(rb"\bthis\s*\.\s*([A-Za-z_$][\w$]*)\s*\(")


def server_methods(subclasses: Subclasses) -> dict[str, list[Ref]]:
    """Method name -> the subclasses of ``McpServer`` whose method of that name adds a tool."""
    found: dict[str, list[Ref]] = {}
    for base in SERVER_BASES:
        for file, cls in subclasses.extending(base):
            if b"modelcontextprotocol" not in file.data.lower():
                continue
            for name in _adding(file, cls):
                found.setdefault(name, []).append(Ref(file, cls))
    return found


def _adding(file: SourceFile, cls: Node) -> list[str]:
    """The methods of ``cls`` named for a tool that register one, directly or through the class's others."""
    body = cls.child_by_field_name("body")
    methods = [m for m in named(body) if m.type == "method_definition"] if body is not None else []
    calls: dict[str, set[str]] = {}
    registering: set[str] = set()
    for method in methods:
        label, block = method.child_by_field_name("name"), method.child_by_field_name("body")
        if label is None or block is None:
            continue
        text = block.text or b""
        calls[file.text(label)] = {c.decode() for c in _OWN_CALL.findall(text)}
        if _REGISTERS.search(text):
            registering.add(file.text(label))
    while more := {name for name, called in calls.items() if name not in registering and called & registering}:
        registering |= more
    return sorted(name for name in registering if "tool" in name.lower())


#: the SDK's own method names: a subclass's method of such a name is read only where the subclass is seen
_SDK_METHODS = frozenset(("registerTool", "tool"))


def method_call(call: Ref, name: str, methods: dict[str, list[Ref]]) -> bool:
    """Whether ``call`` (of the method ``name``) adds a tool through a subclass's method: outside the
    classes themselves, and for a method named as the SDK's, where a subclass is seen."""
    classes = methods.get(name)
    return classes is not None and not inside(call, classes) and (name not in _SDK_METHODS or seen(call, classes))


def seen(call: Ref, classes: list[Ref]) -> bool:
    """Whether the file of ``call`` sees one of ``classes``: defines it, or imports the module that does
    (a method named as the SDK's or a wrapper's, ``registerTool``, is the subclass's only there)."""
    homes = [c.file.path for c in classes]
    name = next((c.file.text(n) for c in classes if (n := c.node.child_by_field_name("name")) is not None), "")
    return seen_from(call.file.path, call.file.data, name, homes, member=True) is not None


def inside(call: Ref, classes: list[Ref]) -> bool:
    """Whether ``call`` lies in the body of one of ``classes`` (the methods' own plumbing)."""
    return any(c.file.path == call.file.path and _within(call.node, c.node) for c in classes)


def _within(node: Node, outer: Node) -> bool:
    return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte
