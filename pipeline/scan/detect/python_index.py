"""Phase 1 for Python: what a tree defines once and uses elsewhere.

- constants holding a hint name (``READ_ONLY_HINT = "readOnlyHint"``);
- shared annotation objects (``READ_ONLY = ToolAnnotations(...)``, dicts of hints) and helpers
  returning one (``def read_only(title): return ToolAnnotations(..., title=title)``);
- module-level objects (``mcp = FastMCP(...)``, ``registry = ToolRegistry(mcp)``) so that a
  receiver imported from another module resolves to its constructor;
- the project's own registration wrappers: a class method or a function whose body calls
  ``<x>.tool(...)`` / ``<x>.add_tool(...)`` on an SDK object, on ``self.<attr>`` or on a parameter
  (a decorator that does not call the SDK is not a wrapper);
- names of module-level lists that a low-level ``list_tools`` handler returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.scan.detect.model import hint_field
from pipeline.scan.detect.python_annotations import Entry, Helper, Presets, entries, is_hint_entries
from pipeline.scan.detect.python_scope import Kind, Node, Scope, classify, keywords, last_name, text
from pipeline.scan.detect.syntax import descendants, unquote

REGISTER_METHODS = ("tool", "add_tool")


@dataclass(frozen=True)
class ObjectDef:
    """A module-level variable built by a call: ``name = Callee(first_arg, ...)``."""

    callee: str | None
    """qualified callee, when the file imports it."""
    callee_name: str
    """last name of the callee (a wrapper class is matched by it)."""
    first_arg: str
    """text of the first positional argument ('' if none)."""


@dataclass(frozen=True)
class Wrapper:
    """A project's own registration helper."""

    name: str
    """``Class.method`` or ``function``."""
    receiver: str
    """text of the receiver the wrapper calls the SDK on (``mcp``, ``self._mcp``)."""
    kind: Kind | None
    """the SDK, when the wrapper's own module tells it."""
    inner_annotations: tuple[Entry, ...] | None
    """annotations the wrapper itself passes, when written as a literal."""


@dataclass
class ProjectIndex:
    """Everything phase 1 learnt about one tree."""

    presets: Presets = field(default_factory=Presets)
    objects: dict[str, ObjectDef] = field(default_factory=dict)
    wrapper_classes: dict[str, dict[str, Wrapper]] = field(default_factory=dict)
    wrapper_functions: dict[str, Wrapper] = field(default_factory=dict)
    wrapper_bodies: set[tuple[str, int]] = field(default_factory=set)
    """(path, start byte) of every wrapper definition: calls inside them are not tools."""
    tool_lists: set[str] = field(default_factory=set)

    def learn(self, path: str, data: bytes, scope: Scope, found: dict[str, list[Node]], sdk: Kind | None) -> None:
        """Record what one file defines (``found``: captures of the detector's query)."""
        for node in found.get("assign", []):
            self._assignment(path, data, scope, node)
        for node in found.get("return", []):
            self._helper(data, node)
        for node in found.get("decorated", []):
            self._list_handler(data, node)
        for node in found.get("call", []):
            self._on_list_tools(data, node)
            self._wrapper(path, data, scope, node, sdk)

    def _assignment(self, path: str, data: bytes, scope: Scope, node: Node) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None or left.type != "identifier":
            return
        name = text(data, left)
        value = unquote(text(data, right)) if right.type == "string" else None
        if value is not None and (value == "title" or _hint(value)):
            self.presets.constants[name] = "title" if value == "title" else _hint(value) or ""
        elif is_hint_entries(found := entries(data, right)) and found is not None:
            self.presets.objects.setdefault(name, []).append((path, tuple(found)))
        elif right.type == "call" and _module_level(node):
            function = right.child_by_field_name("function")
            args = right.child_by_field_name("arguments")
            first = next((c for c in args.named_children if c.type != "keyword_argument"), None) if args else None
            self.objects[name] = ObjectDef(scope.qualify(function), last_name(data, function) or "", text(data, first))

    def _helper(self, data: bytes, node: Node) -> None:
        """A function returning a ``ToolAnnotations(...)`` or a dict of hints is a helper."""
        value = node.named_children[0] if node.named_children else None
        found = entries(data, value) if value is not None and value.type in ("call", "dictionary") else None
        function = _enclosing(node, "function_definition")
        if function is not None and found is not None and is_hint_entries(found):
            self.presets.helpers[text(data, function.child_by_field_name("name"))] = Helper(
                _params(data, function), tuple(found))

    def _wrapper(self, path: str, data: bytes, scope: Scope, call: Node, sdk: Kind | None) -> None:
        """A top-level function or a method whose body passes its arguments on to ``<x>.tool(...)``."""
        function = call.child_by_field_name("function")
        if function is None or function.type != "attribute" or not _passes_through(call):
            return
        if text(data, function.child_by_field_name("attribute")) not in REGISTER_METHODS:
            return
        definition = _outermost_function(call)
        receiver = text(data, function.child_by_field_name("object"))
        if definition is None or not _registers_on(data, scope, definition, function.child_by_field_name("object")):
            return
        name, owner = text(data, definition.child_by_field_name("name")), _owner_class(data, definition)
        if name == "__init__" or (owner is None and not _top_level(definition)):
            return
        inner = entries(data, keywords(data, call.child_by_field_name("arguments")).get("annotations"))
        kind = classify(scope.bindings.get(receiver)) or sdk
        wrapper = Wrapper(f"{owner}.{name}" if owner else name, receiver, kind, tuple(inner) if inner else None)
        if owner:
            self.wrapper_classes.setdefault(owner, {})[name] = wrapper
        elif not receiver.startswith("self."):
            self.wrapper_functions[name] = wrapper
        self.wrapper_bodies.add((path, definition.start_byte))

    def _list_handler(self, data: bytes, node: Node) -> None:
        decorators = [text(data, d) for d in node.children if d.type == "decorator"]
        if any(".list_tools(" in d for d in decorators):
            self._returned_names(data, node.child_by_field_name("definition"))

    def _on_list_tools(self, data: bytes, node: Node) -> None:
        handler = keywords(data, node.child_by_field_name("arguments")).get("on_list_tools")
        if handler is not None and handler.type == "identifier":
            self.tool_lists.add(text(data, handler))

    def _returned_names(self, data: bytes, definition: Node | None) -> None:
        for ret in descendants(definition, ("return_statement",)) if definition else []:
            self.tool_lists.update(text(data, n) for n in descendants(ret, ("identifier",)))


def _hint(value: str) -> str | None:
    return hint_field(value) if value[:1].isalpha() and len(value) < 40 else None


def _top_level(node: Node) -> bool:
    parent = node.parent
    if parent is not None and parent.type == "decorated_definition":
        parent = parent.parent
    return parent is not None and parent.type == "module"


def _module_level(node: Node) -> bool:
    statement = node.parent
    return statement is not None and statement.parent is not None and statement.parent.type == "module"


def _params(data: bytes, node: Node) -> tuple[tuple[str, str | None], ...]:
    params = node.child_by_field_name("parameters")
    found: list[tuple[str, str | None]] = []
    for child in params.named_children if params is not None else []:
        if child.type in ("identifier", "typed_parameter"):
            ident = child if child.type == "identifier" else child.named_children[0]
            found.append((text(data, ident), None))
        elif child.type in ("default_parameter", "typed_default_parameter"):
            value = text(data, child.child_by_field_name("value"))
            found.append((text(data, child.child_by_field_name("name")), value))
    return tuple(p for p in found if p[0] not in ("self", "cls"))


def _enclosing(node: Node, kind: str) -> Node | None:
    parent = node.parent
    while parent is not None and parent.type != kind:
        parent = parent.parent
    return parent


def _outermost_function(node: Node) -> Node | None:
    """The function a wrapper is: a method, or the outermost function of the module."""
    found, parent = None, node.parent
    while parent is not None and parent.type != "class_definition":
        if parent.type == "function_definition":
            found = parent
        parent = parent.parent
    return found


def _registers_on(data: bytes, scope: Scope, definition: Node, receiver: Node | None) -> bool:
    """Whether the receiver is an SDK object, ``self.<x>``, an import or a parameter of the wrapper."""
    label = text(data, receiver)
    if label.startswith("self.") or classify(scope.bindings.get(label)) or label in scope.imports:
        return True
    if receiver is None or receiver.type != "identifier":
        return False
    functions = [definition, *(f for f in [_enclosing(receiver, "function_definition")] if f is not None)]
    return any(label in {p for p, _ in _params(data, f)} for f in functions)


def _passes_through(call: Node) -> bool:
    """Whether an SDK call registers what the wrapper is given: its result is returned or applied
    to a function (``mcp.tool(**kw)(fn)``), or it forwards ``**kwargs``."""
    parent = call.parent
    if parent is not None and parent.type == "return_statement":
        return True
    if parent is not None and parent.type == "call" and parent.child_by_field_name("function") == call:
        return True
    args = call.child_by_field_name("arguments")
    return any(c.type == "dictionary_splat" for c in (args.named_children if args is not None else []))


def _owner_class(data: bytes, node: Node) -> str | None:
    parent = node.parent
    while parent is not None and parent.type not in ("class_definition", "function_definition", "module"):
        parent = parent.parent
    if parent is None or parent.type != "class_definition":
        return None
    return text(data, parent.child_by_field_name("name"))
