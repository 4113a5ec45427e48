"""Phase 2 for Python: the uses of the project's own wrappers (the rows themselves are ``rows``).

A wrapper (``wrappers``) is used as a decorator, ``@wrap(mcp, "name", annotations=X)``,
``@registry.tool(...)``, or as a call applied to a function, ``wrap(mcp, "name")(fn)``; either
use gives one ``wrapper`` row, on the line of the decorator or of the call. The call's
arguments are bound to the wrapper's parameters: the tool is named by the argument the wrapper
forwards as ``name`` (else a ``name=`` keyword, else the function), its annotations and title are
those forwarded (or given as keywords, passed on through ``**kwargs``; a hint the wrapper writes as one of
its parameters, ``ToolAnnotations(readOnlyHint=read_only)``, takes the argument or the default), and a server passed for
the parameter the wrapper registers on gives the SDK; when it does not resolve, the using file's
imports do, then the wrapper's own module, then the nearest manifest.
"""

from __future__ import annotations

from pipeline.scan.detect.model import DYNAMIC, FALSE, HINT_FIELDS, TRUE, Annotations, Tool
from pipeline.scan.detect.python.annotations import Entry
from pipeline.scan.detect.python.loops import loop_elements, loop_iterated
from pipeline.scan.detect.python.rows import RowBuilder
from pipeline.scan.detect.python.rules import KNOWN_ROOTS
from pipeline.scan.detect.python.scope import (
    Kind,
    Node,
    classify,
    function_name,
    keywords,
    last_name,
    string_value,
    text,
)
from pipeline.scan.detect.python.wrappers import Wrapper
from pipeline.scan.detect.source import SourceFile


class Rows(RowBuilder):
    """Turns the registrations of one file into ``Tool`` rows; knows the project's wrappers."""

    def definition(self, node: Node) -> Tool | None:
        """A tool built as an object of the project's own class (``definitions``): it
        declares at least one hint, and the file or its package uses an MCP SDK."""
        from pipeline.scan.detect.python.definitions import definition_call  # imported by the trees with such calls
        call = definition_call(self.data, node)
        kind = self.fallback or self.declared
        if call is None or kind is None:
            return None
        annotations = self.reader.read(call.annotations)
        if not any(getattr(annotations, hint) in (TRUE, FALSE) for hint in HINT_FIELDS):
            return None
        name = self._literal(call.name) if call.name is not None else last_name(self.data, call.function)
        title = string_value(self.data, call.title)
        return self._tool(node, kind.sdk, "definition", name, annotations, title=title)

    # -- wrappers -----------------------------------------------------------------------------
    def _function_wrapper(self, callee: Node | None) -> Wrapper | None:
        """The project wrapper function an identifier names (not one of a known package)."""
        if callee is None or callee.type != "identifier":
            return None
        local = text(self.data, callee)
        qual = self.scope.imports.get(local)
        if qual is not None and qual.split(".")[0] in KNOWN_ROOTS:
            return None
        return self.index.wrapper_functions.get(qual.rsplit(".", 1)[-1] if qual else local)

    def _wrapped(self, at: Node, wrapper: Wrapper, instance: str | None, args: Node | None,
                 fn: str | None, *, where: SourceFile | None = None) -> Tool | None:
        """The row of one use of ``wrapper`` (``instance``: the wrapper object a method is called on)."""
        bound = _bind(self.data, wrapper.params, args)
        kind = self._wrapper_kind(wrapper, instance, bound)
        if kind is None:
            return None

        def given(keyword: str) -> Node | None:
            param = wrapper.forwarded(keyword)
            return bound.get(param) if param is not None else keywords(self.data, args).get(keyword)

        if given("annotations") is None and wrapper.unread:
            annotations = Annotations(source=DYNAMIC)  # computed inside the wrapper
        elif given("annotations") is not None or wrapper.inner_annotations is None:
            annotations = self.reader.read(given("annotations"))
        else:
            inner = [self._bound_entry(entry, wrapper, bound) for entry in wrapper.inner_annotations]
            annotations = self.reader.resolve(inner, {}).with_source("inline")
        if wrapper.forwarded("name") is not None:
            named = given("name")
            name = string_value(self.data, named) if named is not None else fn
        else:
            name = self._name(args, "name", fn)
        title = string_value(self.data, given("title"))
        return self._tool(at, kind.sdk, "wrapper", name, annotations, via=f"wrapper:{wrapper.name}", title=title,
                          at=where)

    def _bound_entry(self, entry: Entry, wrapper: Wrapper, bound: dict[str, Node]) -> Entry:
        """An inner annotation whose value is a parameter of the wrapper takes what this use binds
        to it, else the parameter's default (``read_only=True`` at the use, ``read_only=False``
        in the ``def``); without either it stays the parameter (``dynamic``)."""
        kind, key, value = entry
        default = dict(wrapper.defaults).get(value)
        if value in bound:
            return kind, key, text(self.data, bound[value])
        return (kind, key, default) if default is not None else entry

    def _loop_functions(self, reference: Node) -> list[tuple[SourceFile, Node]] | None:
        """The functions a loop variable takes, from a list of this file or of the module it imports
        the list from (``for tool in read_tools:``); ``None``: no loop variable; empty: not known."""
        listed = loop_elements(self.data, reference)
        if listed is None or listed:
            return [(self.file, element) for element in listed] if listed is not None else None
        iterated = loop_iterated(self.data, reference)
        imported = self.scope.imports.get(text(self.data, iterated)) if iterated is not None else None
        return self.index.imported_list(imported, self.file.path) if iterated is not None and \
            iterated.type == "identifier" else []

    def wrapper_call(self, node: Node) -> list[Tool]:
        """A plain call of a project wrapper that passes the tool's function on to ``add_tool``
        (``add_read_only_tool(mcp, list_incidents)``): one row, or one per function of the list a
        loop runs over (``for tool in read_tools: add_read_only_tool(mcp, tool)``)."""
        wrapper = self._function_wrapper(node.child_by_field_name("function"))
        param = wrapper.forwarded("fn") if wrapper is not None else None
        args = node.child_by_field_name("arguments")
        given = _bind(self.data, wrapper.params, args).get(param) if wrapper is not None and param else None
        if wrapper is None or given is None:
            return []
        listed = self._loop_functions(given)
        if not listed:
            named = function_name(self.data, given) if listed is None else None
            found = self._wrapped(node, wrapper, None, args, named)
            return [found] if found is not None else []
        rows = [self._wrapped(element, wrapper, None, args, function_name(where.data, element), where=where)
                for where, element in listed]
        return [row for row in rows if row is not None]

    def _wrapper_kind(self, wrapper: Wrapper, instance: str | None, bound: dict[str, Node]) -> Kind | None:
        if instance is not None and (arg := self.scope.wrapper_args.get(instance)):
            kind = classify(self.scope.bindings.get(arg)) or self._object_kind(arg)
            if kind is not None:
                return kind
        if wrapper.receiver in wrapper.params:  # registers on the server it is given
            server = bound.get(wrapper.receiver)
            return classify(self.scope.receiver(server)) or self.fallback or wrapper.kind or self.declared
        return wrapper.kind or self._object_kind(wrapper.receiver) or self.fallback

    def _object_kind(self, name: str) -> Kind | None:
        found = self.index.object_for(name, self.file.path)
        return classify(found.callee) if found is not None else None


def _bind(data: bytes, params: tuple[str, ...], args: Node | None) -> dict[str, Node]:
    """The arguments of a call by the parameter they fill: by position, then by keyword."""
    bound: dict[str, Node] = {}
    for child in args.named_children if args is not None else []:
        if child.type == "list_splat":
            break  # positions after a *splat are unknown
        if child.type not in ("keyword_argument", "dictionary_splat", "comment") and len(bound) < len(params):
            bound[params[len(bound)]] = child
    return {**bound, **keywords(data, args)}
