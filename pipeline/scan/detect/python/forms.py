"""Phase 2 for Python: the registration forms of one file, as ``Tool`` rows.

Decorated functions (``decorated``) and calls (``mcp.add_tool(fn)``, ``mcp.tool(fn)``,
``mcp.tool(...)(fn)``, ``Tool.from_function(fn)``, low-level ``types.Tool(name=...)``). Lines: a
decorated tool is on its decorator's line, every other form on the first line of its call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from pipeline.scan.detect.model import NO_ANNOTATIONS, Tool
from pipeline.scan.detect.python.context import a_parameter, calls_super, expected, returned
from pipeline.scan.detect.python.decorated import DecoratedForms
from pipeline.scan.detect.python.index import server_bases
from pipeline.scan.detect.python.loops import loop_iterated
from pipeline.scan.detect.python.rules import FROM_FUNCTION
from pipeline.scan.detect.python.scope import (
    Kind,
    Node,
    classify,
    function_name,
    keywords,
    positionals,
    string_value,
    text,
)
from pipeline.scan.detect.python.tables import entries, unpacking
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import enclosing


class FileForms(DecoratedForms):
    """Finds the tools of one file: its decorated functions (``DecoratedForms``) and its calls."""

    # -- calls --------------------------------------------------------------------------------
    def call(self, node: Node) -> list[Tool]:
        """The tools a call defines (several for ``mcp.add_tool(fn)`` in a loop over a list)."""
        function = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if function is None or (node.parent is not None and node.parent.type == "decorator"):
            return []
        method = text(self.data, function.child_by_field_name("attribute")) if function.type == "attribute" else None
        if method in ("add_tool", "tool"):
            return self._mounted(node, function, self._register_call(node, function, method, args))
        bare = function.type == "identifier" and text(self.data, function) == "add_tool"
        if bare and self._given_add_tool(function, args):  # def register_tools(add_tool), given mcp.add_tool
            return self._register_call(node, function, "add_tool", args)
        if function.type == "call":
            return self._mounted(node, function.child_by_field_name("function"), self._applied(node, function, args))
        if method == "from_function":
            return self._from_function(node, function, args)
        found = self._low_level(node, function, args)
        return [found] if found is not None else []

    def _mounted(self, node: Node, function: Node | None, tools: list[Tool]) -> list[Tool]:
        """``tools`` (registered by calling ``function`` on a FastMCP server) as served by the server
        that server is mounted on: named ``<namespace>_<name>`` (``mounts``)."""
        receiver = function.child_by_field_name("object") if function is not None and function.type == "attribute" \
            else None
        kind = self._receiver_kind(function) if tools and function is not None and function.type == "attribute" \
            else None
        namespace = self._namespace(node, receiver) if kind is not None and kind.flavor == "fastmcp" else None
        if namespace is None:
            return tools
        return [replace(t, tool_name=f"{namespace}_{t.tool_name}" if namespace and t.tool_name else None,
                        rule=f"{t.rule}-mounted" if namespace else f"{t.rule}-mounted-dynamic") for t in tools]

    def private_table(self, node: Node) -> Tool | None:
        """``mcp._tool_manager._tools[key] = tool``: a tool written into a FastMCP server's own table,
        past its API (rule ``private-table``); named by a literal key, else ``dynamic``."""
        table = node.child_by_field_name("left")
        manager = table.child_by_field_name("value") if table is not None else None
        owner = manager.child_by_field_name("object") if manager is not None else None
        server = owner.child_by_field_name("object") if owner is not None else None
        kind = classify(self.scope.receiver(server)) if server is not None else None  # a known server only
        if kind is None or kind.flavor not in ("fastmcp", "v1", "v2"):
            return None
        key = table.child_by_field_name("subscript") if table is not None else None
        name = string_value(self.data, key)
        return self._tool(node, kind.sdk, "private-table" if name is not None else "private-table-dynamic", name,
                          NO_ANNOTATIONS)

    def _given_add_tool(self, function: Node, args: Node | None) -> bool:
        """Whether a bare ``add_tool(fn, ...)`` calls the SDK's method a function was given
        (``def register_tools(add_tool):``) on a function of its own, not on one it passes on."""
        first = positionals(args)[:1]
        iterated = loop_iterated(self.data, first[0]) if first and first[0].type == "identifier" else None
        given = iterated if iterated is not None and iterated.type == "identifier" else first[0] if first else None
        passed_on = given is not None and given.type == "identifier" and a_parameter(self.data, given)
        return a_parameter(self.data, function) and not passed_on

    def _plumbing(self, node: Node, function: Node | None, given: Node | None) -> bool:
        """Whether ``node`` is the plumbing of the project's subclass of an SDK server: a method
        passing on to ``self.add_tool`` a function it is given (``given``, its own ``tool()``), or a
        ``Tool(**data)`` (``function`` ``None``, ``given`` its arguments) rebuilding what its
        ``list_tools()`` lists. Its own tools (``self.tool(find, name=...)``) are tools."""
        receiver = function.child_by_field_name("object") if function is not None else None
        if function is not None and (receiver is None or text(self.data, receiver) != "self"):
            return False
        if function is not None and not (given is not None and given.type == "identifier" and
                                         a_parameter(self.data, given)):
            return False
        if function is None and not (given is not None and given.named_children and
                                     all(c.type == "dictionary_splat" for c in given.named_children)):
            return False
        owner = enclosing(node, ("class_definition",))
        if owner is None:
            return False
        name = text(self.data, owner.child_by_field_name("name"))
        return name in self.index.server_classes or bool(server_bases(self.data, self.scope, owner))

    def _register_call(self, node: Node, function: Node, method: str, args: Node | None) -> list[Tool]:
        """``mcp.add_tool(fn)`` / ``mcp.tool(fn)``; in a loop over a list of functions, one row per
        function, at its place in the list (a loop over anything else names no tool)."""
        kind = self._receiver_kind(function)
        given = keywords(self.data, args)
        first = positionals(args)[:1] or [given[k] for k in ("fn", "func") if k in given][:1]
        if kind is None or kind.flavor in ("lowlevel", "agent") or not first or first[0].type == "string":
            return []
        if calls_super(function) or self._plumbing(node, function, first[0]) or \
                self.index.decorated_elsewhere(self.scope.imports.get(text(self.data, first[0])), self.file.path):
            return []  # an SDK subclass's own ``tool`` passing its arguments on; a tool counted where it is defined
        if method == "tool" and kind.flavor != "fastmcp":
            return []
        if first[0].type not in ("identifier", "attribute") or self._defined_elsewhere(first[0]):
            return []
        form = "call" if method == "tool" else "add-tool-v2" if kind.flavor == "v2" else "add-tool"
        def new(where: SourceFile, element: Node) -> bool:  # a function of this file not counted already
            return where is not self.file or not self._defined_elsewhere(element)

        return self._function_rows(node, kind.sdk, form, args, first[0], keep=new)

    def _function_rows(self, node: Node, sdk: str, form: str, args: Node | None, given: Node, *,
                       keep: Callable[[SourceFile, Node], bool] = lambda where, element: True) -> list[Tool]:
        """The row of a registration of the function ``given``; in a loop over a list of functions,
        one row per function ``keep`` keeps, at its place in the list (a loop over anything else
        names no tool); named by a loop over a table of tuples, one row per tuple (``tables``)."""
        tabled = self._tabled(sdk, form, args, given)
        if tabled:
            return tabled
        listed = self._loop_functions(given)
        if listed is None:
            return [self._row(node, sdk, form, self._name(args, "name", function_name(self.data, given)), args)]
        if not listed:
            return [self._row(node, sdk, form, self._name(args, "name", None), args)]
        site = (self.file.path, self.file.line(node))  # the loop's registration: its conditions apply too
        return [replace(self._row(element, sdk, form, function_name(where.data, element), args, at=where), site=site)
                for where, element in listed if keep(where, element)]

    def _tabled(self, sdk: str, form: str, args: Node | None, function: Node | None) -> list[Tool]:
        """One row per tuple when ``name=`` is a variable of a loop unpacking a table (rule ``*-table``)."""
        name = keywords(self.data, args).get("name")
        shape = unpacking(self.data, name, function) if name is not None else None
        found = entries(self.file, self.scope.imports, self.index.modules, shape) if shape is not None else []
        return [self._row(e.node, sdk, f"{form}-table", e.name, args, at=e.file) for e in found]

    def _defined_elsewhere(self, reference: Node) -> bool:
        """Whether ``add_tool(x)`` adds a tool already counted (from ``from_function`` or ``@tool``)."""
        return text(self.data, reference) in self.counted

    def _applied(self, node: Node, inner: Node, outer_args: Node | None) -> list[Tool]:
        """``mcp.tool(...)(fn)`` and a wrapper applied the same way; in a loop over a list of
        functions, one row per function, at its place in the list."""
        function = inner.child_by_field_name("function")
        first = positionals(outer_args)[:1]
        if not first:
            return []
        reference = function_name(self.data, first[0])
        wrapper = self._function_wrapper(function)
        if wrapper is not None:  # wrap(mcp, "name", ...)(fn)
            return _listed(self._wrapped(node, wrapper, None, inner.child_by_field_name("arguments"), reference))
        if function is None or function.type != "attribute":
            return []
        method = text(self.data, function.child_by_field_name("attribute"))
        bound = self.scope.receiver(function.child_by_field_name("object"))
        if bound is not None and bound.startswith("wrapper:"):  # registry.tool(...)(fn)
            found = self.index.wrapper_classes.get(bound[8:], {}).get(method)
            instance = text(self.data, function.child_by_field_name("object"))
            return _listed(self._wrapped(node, found, instance, inner.child_by_field_name("arguments"), reference)
                           if found else None)
        kind = self._receiver_kind(function) if method == "tool" else None
        if kind is None or kind.flavor in ("lowlevel", "agent"):
            return []
        form = "decorator-v2" if kind.flavor == "v2" else "decorator"
        return self._function_rows(node, kind.sdk, form, inner.child_by_field_name("arguments"), first[0])

    def _from_function(self, node: Node, function: Node, args: Node | None) -> list[Tool]:
        qual = self.scope.qualify(function.child_by_field_name("object")) or ""
        sdk = FROM_FUNCTION.get(qual.split(".")[0])
        if sdk is None or not qual.rsplit(".", 1)[-1].endswith("Tool"):  # not Prompt.from_function
            return []
        given = keywords(self.data, args)
        first = positionals(args)[:1]
        reference = first[0] if first else given.get("fn", given.get("func"))
        if node.parent is not None and node.parent.type == "assignment":
            self.counted.add(text(self.data, node.parent.child_by_field_name("left")))
        tabled = self._tabled(sdk, "from-function", args, reference)
        if tabled:
            return tabled
        looped = reference is not None and loop_iterated(self.data, reference) is not None
        name = self._name(args, "name", None if looped else function_name(self.data, reference))  # not `fn`
        return [self._row(node, sdk, "from-function", name, args)]

    def _low_level(self, node: Node, function: Node, args: Node | None) -> Tool | None:
        qual = self.scope.qualify(function) or ""
        if qual != "mcp_types.Tool" and not (qual.startswith("mcp.") and qual.endswith(".Tool")):
            return None
        if not self._serves_tool_list(node) or self._plumbing(node, None, args):
            return None
        given = keywords(self.data, args)
        v2 = "input_schema" in given or self.fallback == Kind("python-mcp", "v2") or b"on_list_tools" in self.file.lower
        return self._row(node, "python-mcp", "lowlevel-tool-v2" if v2 else "lowlevel-tool",
                         self._name(args, "name", None), args)

    def _serves_tool_list(self, node: Node) -> bool:
        if expected(node):  # assert tools == ListToolsResult(tools=[Tool(...)]): a client's expectation
            return False
        if b"list_tools" in self.file.lower or b"listtoolsresult" in self.file.lower:
            return True
        if self.index.serves_tools and returned(node):
            return True
        parent = node.parent
        while parent is not None and parent.type != "assignment":
            parent = parent.parent
        target = parent.child_by_field_name("left") if parent is not None else None
        return target is not None and text(self.data, target) in self.index.tool_lists


def _listed(found: Tool | None) -> list[Tool]:
    return [found] if found is not None else []
