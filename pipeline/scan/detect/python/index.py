"""Phase 1 for Python: what a tree defines once and uses elsewhere.

- constants holding a hint name (``READ_ONLY_HINT = "readOnlyHint"``);
- shared annotation objects (``READ_ONLY = ToolAnnotations(...)``, dicts of hints) and helpers
  returning one (``def read_only(title): return ToolAnnotations(..., title=title)``);
- module-level objects (``mcp = FastMCP(...)``, ``registry = ToolRegistry(mcp)``) so that a
  receiver imported from another module resolves to its constructor;
- the project's own registration wrappers (``wrappers``): a class method or a function whose
  body passes what it is given on to ``<x>.tool(...)`` / ``<x>.add_tool(...)``, or a decorator
  factory that makes a tool definition's ``ToolAnnotations`` from its own parameters (and the
  names ``functools.partial`` gives it);
- names of module-level lists that a low-level ``list_tools`` handler returns.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from pipeline.scan.detect.model import hint_field
from pipeline.scan.detect.python.annotations import Helper, Presets, entries, is_hint_entries
from pipeline.scan.detect.python.constants import class_constant, constant_key, module_level
from pipeline.scan.detect.python.loops import module_list
from pipeline.scan.detect.python.mounts import Mounts
from pipeline.scan.detect.python.scope import Kind, Node, Scope, classify, keywords, last_name, module_paths, text
from pipeline.scan.detect.python.wrappers import Wrapper, definition_decorator_at, parameters, wrapper_at
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import descendants, enclosing, unquote, upper_constant

#: a module-level string constant, ``%s`` for its name: ``TOOL_A = "alpha"``
_PY_CONSTANT = rb"""(?m)^%s[ \t]*(?::[^=\n]*)?=[ \t]*(?:"([^"\\\n]*)"|'([^'\\\n]*)')[ \t]*(?:#.*)?$"""
#: the SDK objects a project may subclass to make its own server class
SERVER_FLAVORS = ("fastmcp", "v1", "v2")

@dataclass(frozen=True)
class ObjectDef:
    """A module-level variable built by a call: ``name = Callee(first_arg, ...)``."""

    callee: str | None
    """qualified callee, when the file imports it."""
    callee_name: str
    """last name of the callee (a wrapper class is matched by it)."""
    first_arg: str
    """text of the first positional argument ('' if none)."""


@dataclass
class ProjectIndex:
    """Everything phase 1 learnt about one tree."""

    presets: Presets = field(default_factory=Presets)
    objects: dict[str, list[tuple[str, ObjectDef]]] = field(default_factory=dict)
    """variable name -> (path, definition) of every module-level object of that name."""
    wrapper_classes: dict[str, dict[str, Wrapper]] = field(default_factory=dict)
    wrapper_functions: dict[str, Wrapper] = field(default_factory=dict)
    wrapper_bodies: set[tuple[str, int]] = field(default_factory=set)
    """(path, start byte) of every wrapper definition: calls inside them are not tools."""
    tool_lists: set[str] = field(default_factory=set)
    serves_tools: bool = False
    """whether the tree has a low-level tool-list handler (``@server.list_tools()``, ``on_list_tools=``):
    then a ``Tool(...)`` a function returns is one it lists (mcp-obsidian's tool handler classes)."""
    decorated: dict[str, set[str]] = field(default_factory=dict)
    """function name -> the files where ``@<server>.tool`` decorates a function of that name."""
    modules: dict[str, SourceFile] = field(default_factory=dict)
    """every Python file kept for the detector, by path (a list another module imports is read there)."""
    _looked_up: dict[str, str | None] = field(default_factory=dict)
    mounts: Mounts = field(default_factory=Mounts)
    """servers mounted on another under a namespace (``mounts``)."""
    server_classes: dict[str, str] = field(default_factory=dict)
    """a project's subclasses of an SDK server class, by name -> the SDK class's qualified name
    (``class GitGuardianFastMCP(FastMCP)``): an object another module builds with one is a server."""
    names: dict[str, str | None] = field(default_factory=dict)
    """string constants a tool name may be read from: ``NAME = "x"`` at module level and
    ``STATUS = "git_status"`` in a class body (key ``Class.STATUS``); None when defined twice
    with different values."""

    def learn_classes(self, data: bytes, scope: Scope, found: dict[str, list[Node]]) -> None:
        """Remember the classes of a file that subclass an SDK server class (``server_classes``)."""
        for node in found.get("class", []):
            for base in server_bases(data, scope, node):
                self.server_classes[text(data, node.child_by_field_name("name"))] = base

    def name_constant(self, expression: str) -> str | None:
        """The value of ``NAME``, ``Class.NAME`` or ``Class.NAME.value`` when it is a known constant:
        learnt in phase 1, else (``Class.NAME``) read from the class body of any kept file that
        defines the class (an ``Enum`` of tool names in a module that names no tool)."""
        key = expression.removesuffix(".value")
        if key in self.names or key.count(".") != 1:
            return self.names.get(key)
        if key not in self._looked_up:
            owner, member = key.split(".")
            self._looked_up[key] = class_constant(self.modules.values(), owner, member)
        return self._looked_up[key]

    def module_constant(self, name: str) -> str | None:
        """The value of a module-level upper-case constant ``NAME = "..."`` that some kept file of the
        tree holds, also one phase 1 did not parse (``config/consts.py`` names no tool): looked up
        when a tool's name is such a constant, once per name; ``None`` when files disagree."""
        if name not in self._looked_up:
            self._looked_up[name] = upper_constant(self.modules.values(), name, _PY_CONSTANT)
        return self._looked_up[name]

    def object_for(self, name: str, importer: str, module: str = "") -> ObjectDef | None:
        """The module-level object ``name`` as seen from the file ``importer``: the one in the
        module it imports from (``module``, dotted, relative or absolute) when that file is in
        the tree, else the one whose file shares the longest folder prefix with ``importer``."""
        found = self.objects.get(name, [])
        if len(found) <= 1:
            return found[0][1] if found else None
        wanted = module_paths(module, importer)
        exact = [made for path, made in found if any(path == w or path.endswith("/" + w) for w in wanted)]
        if exact:
            return exact[0]
        return max(found, key=lambda item: _shared_folders(item[0], importer))[1]

    def learn(self, path: str, data: bytes, scope: Scope, found: dict[str, list[Node]], sdk: Kind | None) -> None:
        """Record what one file defines (``found``: captures of the detector's query)."""
        for node in found.get("assign", []):
            self._assignment(path, data, scope, node)
        for node in found.get("return", []):
            self._helper(data, node)
        for node in found.get("decorated", []):
            self._decorated(path, data, node)
        for node in found.get("call", []):
            self._on_list_tools(data, node)
            self._wrapper(path, data, scope, node, sdk)
        for node in found.get("mount", []):
            self.mounts.learn(path, data, scope, node)
        self.learn_classes(data, scope, found)
        for node in found.get("annotations", []):
            if (made := definition_decorator_at(data, node, sdk)) is not None:
                self.wrapper_functions[made[0].name] = made[0]
                self.wrapper_bodies.add((path, made[1].start_byte))

    def name_aliases(self) -> None:
        """Make ``x = partial(wrapper, ...)`` (``functools.partial``) a name of that wrapper function."""
        for name, made in self.objects.items():
            for _, obj in made:
                if obj.callee_name == "partial" and (wrapper := self.wrapper_functions.get(obj.first_arg)):
                    self.wrapper_functions.setdefault(name, wrapper)

    def _assignment(self, path: str, data: bytes, scope: Scope, node: Node) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None or left.type != "identifier":
            return
        name = text(data, left)
        value = unquote(text(data, right)) if right.type == "string" else None
        if value is not None and (value == "title" or _hint(value)):
            self.presets.constants[name] = "title" if value == "title" else _hint(value) or ""
        elif value is not None and (key := constant_key(data, node, name)) is not None:
            self.names[key] = value if self.names.get(key, value) == value else None
        elif is_hint_entries(found := entries(data, right)) and found is not None:
            self.presets.objects.setdefault(name, []).append((path, tuple(found)))
        elif right.type == "call" and module_level(node):
            function = right.child_by_field_name("function")
            args = right.child_by_field_name("arguments")
            first = next((c for c in args.named_children if c.type != "keyword_argument"), None) if args else None
            made = ObjectDef(scope.qualify(function), last_name(data, function) or "", text(data, first))
            self.objects.setdefault(name, []).append((path, made))
        callee = last_name(data, right.child_by_field_name("function")) if right.type == "call" else None
        if callee and callee[:1].isupper():
            self.mounts.instance(path, name, callee)  # sub = ItemServer(): what mount(sub, ...) serves

    def _helper(self, data: bytes, node: Node) -> None:
        """A function returning a ``ToolAnnotations(...)`` or a dict of hints is a helper."""
        value = node.named_children[0] if node.named_children else None
        found = entries(data, value) if value is not None and value.type in ("call", "dictionary") else None
        function = enclosing(node, ("function_definition",))
        if function is not None and found is not None and is_hint_entries(found):
            self.presets.helpers[text(data, function.child_by_field_name("name"))] = Helper(
                parameters(data, function), tuple(found))

    def _wrapper(self, path: str, data: bytes, scope: Scope, call: Node, sdk: Kind | None) -> None:
        found = wrapper_at(data, scope, call, sdk)
        if found is None:
            return
        wrapper, definition, owner = found
        if owner:
            self.wrapper_classes.setdefault(owner, {})[wrapper.name.rsplit(".", 1)[-1]] = wrapper
        elif not wrapper.receiver.startswith("self."):
            self.wrapper_functions[wrapper.name] = wrapper
        self.wrapper_bodies.add((path, definition.start_byte))

    def imported_list(self, qualified: str | None, importer: str) -> list[tuple[SourceFile, Node]]:
        """The function references of a module-level list that ``importer`` imports (``qualified``:
        ``pkg.tools.read_tools``) from a file of the tree: ``read_tools = [list_incidents, ...]``."""
        module, _, name = (qualified or "").rpartition(".")
        found = module_file(self.modules, module, importer)
        return [(found, e) for e in module_list(found.data, found.tree.root_node, name)] if found is not None else []

    def decorated_elsewhere(self, qualified: str | None, importer: str) -> bool:
        """Whether the imported ``module.function`` is decorated as a tool in that module's file:
        ``sub_mcp.add_tool(search)`` registers again a tool counted where it is defined."""
        module, _, name = (qualified or "").rpartition(".")
        paths = self.decorated.get(name, ())
        wanted = module_paths(module, importer)
        return any(path == w or path.endswith("/" + w) for path in paths for w in wanted)

    def _decorated(self, path: str, data: bytes, node: Node) -> None:
        """A decorated function: a tool (``@<server>.tool``), or a low-level tool-list handler."""
        decorators = [text(data, d) for d in node.children if d.type == "decorator"]
        definition = node.child_by_field_name("definition")
        if definition is not None and any(_TOOL_DECORATOR.search(d) for d in decorators):
            self.decorated.setdefault(text(data, definition.child_by_field_name("name")), set()).add(path)
        if any(".list_tools(" in d for d in decorators):
            self.serves_tools = True
            self._returned_names(data, node.child_by_field_name("definition"))

    def _on_list_tools(self, data: bytes, node: Node) -> None:
        handler = keywords(data, node.child_by_field_name("arguments")).get("on_list_tools")
        if handler is not None:
            self.serves_tools = True
        if handler is not None and handler.type == "identifier":
            self.tool_lists.add(text(data, handler))

    def _returned_names(self, data: bytes, definition: Node | None) -> None:
        for ret in descendants(definition, ("return_statement",)) if definition else []:
            self.tool_lists.update(text(data, n) for n in descendants(ret, ("identifier",)))


_TOOL_DECORATOR = re.compile(r"^@[\w.]+\.tool\b")


def _hint(value: str) -> str | None:
    return hint_field(value) if value[:1].isalpha() and len(value) < 40 else None


def _shared_folders(path: str, other: str) -> int:
    shared = 0
    for a, b in zip(path.split("/")[:-1], other.split("/")[:-1], strict=False):
        if a != b:
            break
        shared += 1
    return shared


def server_bases(data: bytes, scope: Scope, node: Node) -> list[str]:
    """The SDK server classes (``FastMCP``, ``MCPServer``) a class definition extends, qualified."""
    bases = node.child_by_field_name("superclasses")
    found = [scope.qualify(base) for base in (bases.named_children if bases is not None else [])
             if base.type in ("identifier", "attribute")]
    return [qual for qual in found if qual and (kind := classify(qual)) is not None and kind.flavor in SERVER_FLAVORS]


def module_file(modules: Mapping[str, SourceFile], module: str, importer: str) -> SourceFile | None:
    """The file of the tree a dotted ``module`` is, seen from ``importer`` (``scope.module_paths``)."""
    wanted = module_paths(module, importer)
    return next((f for path, f in modules.items() for w in wanted if path == w or path.endswith("/" + w)), None)
