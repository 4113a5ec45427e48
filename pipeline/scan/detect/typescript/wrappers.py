"""A TypeScript/JavaScript project's own wrappers: functions that register one tool per call.

A wrapper is a named function whose body registers a tool named by one of its parameters
(``function defineTool(server, name, opts, cb) { server.registerTool(name, ...) }``); its call
sites are the tools. Once every file is indexed, wrappers of wrappers are found the same way
(``scopedTool(name, ...)`` calling ``registerTool(name, ...)``, a registration context's method
called by each app), up to ``MAX_WRAPPER_DEPTH`` deep. A call reaches a wrapper it can see
(``Wrappers.visible``): one its file defines, imports by name, or, for a method call, one
defined by a module its file imports. Several functions may share a name.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, replace

from pipeline.scan.detect.source import GRAMMARS, SourceFile, extension
from pipeline.scan.detect.syntax import capture_map, compiled
from pipeline.scan.detect.typescript.functions import enclosing_function, function_name, member_keys, params
from pipeline.scan.detect.typescript.imports import seen_from
from pipeline.scan.detect.typescript.values import Node, Ref, arguments, callee, entries, unwrap

_CALLS = "(call_expression) @call (new_expression) @new"
#: how many wrappers deep a registration is followed (a wrapper of a wrapper of ``registerTool``...)
MAX_WRAPPER_DEPTH = 3


def captures(file: SourceFile, source: str = _CALLS) -> dict[str, list[Node]]:
    """Calls and ``new`` expressions of ``file`` (or what another query ``source`` captures)."""
    _, module, function = GRAMMARS[extension(file.path)]
    return file.kept(source, lambda: capture_map(compiled(module, function, source), file.tree.root_node))


#: where a wrapper takes the tool's name: (position of the parameter, key when it is destructured)
Slot = tuple[int, str | None]


@dataclass(frozen=True)
class Wrapper:
    """A project's own function that registers one tool per call."""

    name: str
    """the function's name (call sites use it)."""
    sdk: str
    """the SDK its registration call belongs to."""
    function: Ref
    """the function node (its parameters are bound to each call's arguments)."""
    call: Ref
    """the registration call in its body (for a wrapper of a wrapper, the call of ``inner``)."""
    slot: Slot
    """the parameter that names the tool."""
    inner: Wrapper | None = None
    """the wrapper ``call`` calls, when this one wraps another (followed down to the registration)."""
    home: str | None = None
    """for a function a factory returns, the file of the variable it is bound to (its name there)."""

    @property
    def where(self) -> str:
        """The path of the file whose name for the wrapper this is."""
        return self.home or self.function.file.path


class Wrappers:
    """The wrappers of one tree, by name, and the registration calls inside them (``templates``:
    not tools themselves)."""

    def __init__(self) -> None:
        self.by_name: dict[str, list[Wrapper]] = defaultdict(list)
        """name -> the functions of that name that register a tool per call."""
        self.templates: set[tuple[str, int]] = set()
        """(path, start byte) of each registration call inside a wrapper."""
        self.modules: list[SourceFile] = []
        """every file of the tree: where wrappers of wrappers are looked for."""
        self._deepened = False
        self._sight: dict[tuple[str, str, bool], Wrapper | None] = {}

    def learn(self, file: SourceFile, call: Node, fn: Node | None, slot: Slot | None, *, sdk: str,
               inner: Wrapper | None = None) -> str | None:
        """The function ``fn`` around ``call`` is a wrapper when it is named and a parameter (``slot``)
        names the tool; its name, when it is a new one."""
        name = (function_name(fn, file) or _returned_by(fn, file)) if fn is not None else None
        if fn is None or slot is None or not name:
            return None
        if any(w.function.file is file and w.function.node == fn for w in self.by_name[name]):
            self.templates.add((file.path, call.start_byte))  # a second registration of the same wrapper
            return None
        self.by_name[name].append(Wrapper(name, sdk, Ref(file, fn), Ref(file, call), slot, inner))
        self.templates.add((file.path, call.start_byte))
        self._sight.clear()
        return name

    def deepen(self) -> None:
        """Wrappers of wrappers, once phase 1 has read every file: a named function that calls a
        wrapper it can reach (``visible``) with a tool name from its own parameters wraps it in
        turn (``scopedTool(name, ...)`` calling ``registerTool(name, ...)``, which calls the SDK),
        up to ``MAX_WRAPPER_DEPTH`` deep. Only files naming a new wrapper before a ``(`` are parsed."""
        if self._deepened:
            return
        self._deepened = True
        self._bind_returned()
        fresh = {name for name, found in self.by_name.items() if found}
        for _ in range(MAX_WRAPPER_DEPTH - 1):
            if not fresh:
                return
            shape = re.compile(rb"(?<![\w$])(?:%s)\s*(?:<[^()]{0,200}>)?\s*\(\s*(?![\"'`{])[A-Za-z_$]"
                               % b"|".join(re.escape(name.encode()) for name in sorted(fresh)))
            fresh = {name for file in self.modules if shape.search(file.data) is not None
                     for name in self._wrappers_of(file, fresh)}

    def given_tool(self, call: Ref) -> bool:
        """Whether ``call`` is a method of the tool object a wrapper around it is given
        (``tool.tool(sdk, args)`` in Speakeasy's registrar: the tool's handler, not a registration)."""
        function = call.node.child_by_field_name("function")
        receiver = function.child_by_field_name("object") if function is not None else None
        if receiver is None or receiver.type != "identifier":
            return False
        for wrapper in (w for found in self.by_name.values() for w in found):
            node, position = wrapper.function.node, wrapper.slot[0]
            if wrapper.function.file is call.file and node.start_byte <= call.node.start_byte < node.end_byte:
                patterns = params(node, call.file)
                if position < len(patterns) and call.file.text(patterns[position]) == call.file.text(receiver):
                    return True
        return False

    def _bind_returned(self) -> None:
        """A function a factory returns (``createRegisterTool(server)`` returning ``(name, config, cb)
        => server.registerTool(...)``) is a wrapper under the name of each variable bound to a call
        of the factory (``const registerTool = createRegisterTool(server)``), in that variable's file."""
        factories = {name.removesuffix(RETURNED): found for name, found in self.by_name.items()
                     if name.endswith(RETURNED) and found}
        if not factories:
            return
        names = b"|".join(re.escape(name.encode()) for name in sorted(factories))
        bound = re.compile(rb"\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=;]{0,200})?=\s*(?:await\s+)?(%s)"
                           rb"\s*(?:<[^()]{0,200}>)?\s*\(" % names)
        for file in self.modules:
            for alias, factory in bound.findall(file.data):
                self.by_name[alias.decode()] += [replace(w, name=alias.decode(), home=file.path)
                                                 for w in factories[factory.decode()]]

    def _wrappers_of(self, file: SourceFile, names: set[str]) -> list[str]:
        """The names of the new wrappers ``file`` defines around calls of the wrappers ``names``."""
        learnt = []
        for call in captures(file).get("call", []):
            called = callee(call)
            if called is None or called[0] not in names or (file.path, call.start_byte) in self.templates:
                continue
            inner = self.visible(called[0], file, called[1].type == "property_identifier")
            fn = enclosing_function(call)
            if inner is None or fn is None or inner.function.node == fn:
                continue
            slot = _forwarded_slot(file, call, fn, inner.slot)
            if (name := self.learn(file, call, fn, slot, sdk=inner.sdk, inner=inner)) is not None:
                learnt.append(name)
        return learnt

    def visible(self, name: str, file: SourceFile, member: bool) -> Wrapper | None:
        """The wrapper ``name`` a call in ``file`` reaches (``imports.seen_from``); looked
        up once per file, name and kind of call while no wrapper is added."""
        key = (name, file.path, member)
        if key not in self._sight:
            found = self.by_name.get(name) or []
            at = seen_from(file.path, file.data, name, [w.where for w in found], member=member)
            self._sight[key] = found[at] if at is not None else None
        return self._sight[key]


#: the suffix of the name a factory's returned wrapper is learnt under (no call can name it)
RETURNED = "()"


def _returned_by(fn: Node, file: SourceFile) -> str | None:
    """``factory()`` for an unnamed function that a named ``factory`` returns, else ``None``."""
    parent = fn.parent
    while parent is not None and parent.type in ("parenthesized_expression", "as_expression"):
        parent = parent.parent
    if parent is None or parent.type != "return_statement":
        return None
    factory = enclosing_function(parent)
    name = function_name(factory, file) if factory is not None else None
    return name + RETURNED if name else None


def element_keys(wrapper: Wrapper) -> tuple[str, frozenset[str]] | None:
    """For a wrapper given a whole tool object (``registerTool(tool)`` reading ``tool.name`` and
    ``tool.annotations``): the key that names the tool and every key it reads from that parameter."""
    position, key = wrapper.slot
    patterns = params(wrapper.function.node, wrapper.function.file)
    if key is not None or wrapper.inner is not None or position >= len(patterns):
        return None
    file = wrapper.function.file
    param = file.text(patterns[position])
    args = arguments(wrapper.call.node)
    first = unwrap(args[0]) if args else None
    if first is None or first.type != "member_expression" or file.text(first.child_by_field_name("object")) != param:
        return None
    return file.text(first.child_by_field_name("property")), member_keys(file, wrapper.function.node, param)


def name_slot(file: SourceFile, fn: Node, name: str | None) -> Slot | None:
    """The parameter of ``fn`` that binds ``name`` (``name`` itself, or ``{ name }``)."""
    for position, pattern in enumerate(params(fn, file)):
        if pattern.type == "identifier" and file.text(pattern) == name:
            return position, None
        shorthand = "shorthand_property_identifier_pattern"
        if pattern.type == "object_pattern" and any(
                p.type == shorthand and file.text(p) == name for p in pattern.named_children):
            return position, name
    return None


def registration_slot(file: SourceFile, call: Node, fn: Node, method: str) -> Slot | None:
    """The parameter of ``fn`` that names the tool ``call`` registers (its first argument, or an
    ``addTool({ name })`` object's name), if any."""
    args = arguments(call)
    if not args:
        return None
    subject = unwrap(args[0])
    if method == "addTool" and subject.type == "object":
        named = (_base_name(file, v.node) for k, v, _ in entries(Ref(file, subject), _nothing) if k in (None, "name"))
        return next((slot for name in named if (slot := name_slot(file, fn, name)) is not None), None)
    return name_slot(file, fn, _base_name(file, subject))


def _forwarded_slot(file: SourceFile, call: Node, fn: Node, inner: Slot) -> Slot | None:
    """The parameter of ``fn`` that ``call`` passes where the wrapper it calls takes the name."""
    args = arguments(call)
    position, key = inner
    if position >= len(args):
        return None
    arg = unwrap(args[position])
    if key is None:
        return name_slot(file, fn, _base_name(file, arg))
    values = [v for k, v, _ in entries(Ref(file, arg), _nothing) if k == key] if arg.type == "object" else []
    return name_slot(file, fn, _base_name(file, values[-1].node)) if values else None


def _nothing(_name: str, _file: SourceFile) -> None:
    return None


def _base_name(file: SourceFile, node: Node) -> str | None:
    """The name an argument is read from: ``opts.name`` -> ``opts``, ``name || "x"`` -> ``name``."""
    node = unwrap(node)
    operator = node.child_by_field_name("operator") if node.type == "binary_expression" else None
    if operator is not None and file.text(operator) in ("||", "??") and (left := node.child_by_field_name("left")):
        node = unwrap(left)
    while node.type == "member_expression" and (base := node.child_by_field_name("object")) is not None:
        node = base
    return file.text(node) if node.type in ("identifier", "shorthand_property_identifier") else None
