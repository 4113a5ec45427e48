"""Phase 2 for Python: the tools decorated functions declare (``@mcp.tool``, fastmcp 3's ``@tool``,
``@agent.tool``, a wrapper's ``@registry.tool``, Azure Functions' ``@app.mcp_tool_trigger``), and
how a receiver is resolved to an SDK object (shared with the call forms of ``forms``).
"""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.scan.detect.model import NO_ANNOTATIONS, Tool
from pipeline.scan.detect.python.rules import DECORATORS, KNOWN_ROOTS, matches
from pipeline.scan.detect.python.scope import (
    Kind,
    Node,
    classify,
    keywords,
    parameters,
    positionals,
    string_value,
    text,
)
from pipeline.scan.detect.python.wrapped import Rows
from pipeline.scan.detect.syntax import enclosing

#: the key of Azure Functions' MCP extension (its tool trigger declares no hints)
AZURE_FUNCTIONS = "python-azure-functions"


class DecoratedForms(Rows):
    """The decorated tools of one file."""

    def decorated(self, node: Node) -> Iterator[Tool]:
        """The tools one decorated definition declares (one per matching decorator)."""
        definition = node.child_by_field_name("definition")
        if definition is None or definition.type != "function_definition":
            return
        fn = text(self.data, definition.child_by_field_name("name"))
        for decorator in (c for c in node.children if c.type == "decorator"):
            expression = decorator.named_children[0] if decorator.named_children else None
            if expression is None:
                continue
            called = expression.type == "call"
            callee = expression.child_by_field_name("function") if called else expression
            args = expression.child_by_field_name("arguments") if called else None
            found = self._decorator(decorator, callee, args, called, fn)
            if found is not None:
                self.counted.add(fn)
                yield found

    def _decorator(self, at: Node, callee: Node | None, args: Node | None, called: bool, fn: str) -> Tool | None:
        qual = self.scope.qualify(callee) or ""
        for prefix, name, sdk, form, keyword in DECORATORS:
            if matches(qual, prefix, name):
                if sdk == "python-claude-agent-sdk":
                    first = positionals(args)[:1]
                    return self._row(at, sdk, form, string_value(self.data, first[0]) if first else None, args)
                return self._row(at, sdk, form, self._name(args, keyword, fn), args)
        if callee is not None and callee.type == "attribute" and (found := self._trigger(at, callee, args)):
            return found
        if callee is not None and callee.type == "attribute":
            return self._method_decorator(at, callee, args, called, fn)
        wrapper = self._function_wrapper(callee)
        if wrapper is not None:
            return self._wrapped(at, wrapper, None, args, fn)
        return None

    def _trigger(self, at: Node, callee: Node, args: Node | None) -> Tool | None:
        """Azure Functions' MCP tool trigger (``azure.functions``): ``@app.mcp_tool_trigger(tool_name=...)``
        or ``@app.generic_trigger(type="mcpToolTrigger", toolName=...)``; it declares no hints."""
        method = text(self.data, callee.child_by_field_name("attribute"))
        if method not in ("mcp_tool_trigger", "generic_trigger") or \
                not any(q.startswith("azure.functions") for q in self.scope.imports.values()):
            return None
        given = keywords(self.data, args)
        if method == "generic_trigger" and string_value(self.data, given.get("type")) != "mcpToolTrigger":
            return None
        named = given.get("tool_name", given.get("toolName"))
        return self._tool(at, AZURE_FUNCTIONS, "trigger", self._literal(named) if named is not None else None,
                          NO_ANNOTATIONS)

    def _method_decorator(self, at: Node, callee: Node, args: Node | None, called: bool, fn: str) -> Tool | None:
        method = text(self.data, callee.child_by_field_name("attribute"))
        receiver = callee.child_by_field_name("object")
        bound = self.scope.receiver(receiver)
        if bound is not None and bound.startswith("wrapper:"):
            wrapper = self.index.wrapper_classes.get(bound[8:], {}).get(method)
            return self._wrapped(at, wrapper, text(self.data, receiver), args, fn) if wrapper else None
        kind = classify(bound) if bound else self._unresolved(receiver) if method == "tool" else None
        if kind is None:
            return None
        if kind.flavor == "agent":
            return self._row(at, kind.sdk, "agent-decorator", self._name(args, "name", fn), args) \
                if method in ("tool", "tool_plain") else None
        if method != "tool" or kind.flavor == "lowlevel" or (not called and kind.flavor != "fastmcp"):
            return None  # the official SDK raises TypeError on a bare @mcp.tool
        form = "decorator-v2" if kind.flavor == "v2" else "decorator"
        name = self._name(args, "name", fn)
        namespace = self._namespace(at, receiver) if kind.flavor == "fastmcp" else None
        if namespace is not None:  # served by the server it is mounted on as namespace_name
            form = f"{form}-mounted" if namespace else f"{form}-mounted-dynamic"
            name = f"{namespace}_{name}" if namespace and name else None
        return self._row(at, kind.sdk, form, name, args)

    def _namespace(self, at: Node, receiver: Node | None) -> str | None:
        """The namespace of the server ``receiver`` names at ``at``, where it is mounted (``mounts``):
        the object's, or the class's it is ``self`` of, or the function's that returns it."""
        if receiver is None or receiver.type != "identifier":
            return None
        owner = enclosing(at, ("class_definition",))
        function = enclosing(at, ("function_definition",))
        return self.index.mounts.namespace(
            self.file.path, text(self.data, receiver),
            text(self.data, owner.child_by_field_name("name")) if owner is not None else None,
            text(self.data, function.child_by_field_name("name")) if function is not None else None)

    def _receiver_kind(self, function: Node) -> Kind | None:
        bound = self.scope.receiver(function.child_by_field_name("object"))
        if bound is not None:
            return classify(bound)
        return self._unresolved(function.child_by_field_name("object"))

    def _unresolved(self, receiver: Node | None) -> Kind | None:
        """A receiver bound to nothing known: the file's MCP imports decide, else the manifest for an
        object imported from a module of the tree (whose file may not have been kept) or for a
        parameter of the function around the registration (``def register_tools(mcp): @mcp.tool()``
        in a module importing no MCP package, called with the server by the module that makes it)."""
        if self.fallback is not None or receiver is None or receiver.type != "identifier":
            return self.fallback
        name = text(self.data, receiver)
        qual = self.scope.imports.get(name)
        if qual is not None:
            return self.declared if qual.split(".")[0] not in KNOWN_ROOTS else None
        return self.declared if name in parameters(enclosing(receiver, ("function_definition",))) else None
