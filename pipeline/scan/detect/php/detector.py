"""PHP tool definitions: the official ``mcp/sdk``, ``php-mcp/server`` and ``laravel/mcp``.

Forms (rule ``php.<sdk>.<form>``):

- ``attribute``: ``#[McpTool(name: .., annotations: new ToolAnnotations(..))]`` on a method or an
  invokable class, the attribute resolved through ``use`` statements to
  ``Mcp\\Capability\\Attribute\\McpTool`` (``php-mcp-sdk``) or ``PhpMcp\\Server\\Attributes\\McpTool``
  (``php-php-mcp``). Name: ``name:``, else the method name, else (``__invoke`` or a class
  attribute) the short class name. Line: the attribute's line.
- ``add-tool`` / ``with-tool``: ``Server::builder()->addTool(handler, name:, title:, description:,
  annotations:)`` (mcp/sdk) and ``Server::make()->withTool(handler, name:, description:, annotations:)``
  (php-mcp/server), in files importing the SDK's ``Server``/builder class. Name: ``name:``, else from a
  ``[Cls::class, 'method']`` / ``Cls::class`` handler (closures: unresolved). Line: the method name's line.
- ``tool-class``: laravel/mcp classes (see ``laravel``). Line: the class declaration's first line
  (its first attribute when it has any).

Annotations: ``new ToolAnnotations(readOnlyHint: ..)`` is ``inline``, with positional arguments
``positional`` (title, readOnly, destructive, idempotent, openWorld); arrays are ``inline``, or
``constant`` when keys are constants; laravel's class attributes are ``attribute``; a global/class
constant, function or static method returning one of those is ``preset:<name>`` (one level).
Exclusions: a project's own ``McpTool``/``ToolAnnotations``/hint attribute class
(``type-definition``), a copy of an SDK's own classes outside ``vendor/`` (``sdk-source``), and MCP
client code (``client-code``: imports ``Mcp\\Client`` or ``PhpMcp\\Client`` and defines no tool).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.model import Exclusion, Tool
from pipeline.scan.detect.php.annotations import TOOL_ANNOTATIONS, AnnotationReader
from pipeline.scan.detect.php.laravel import LaravelReader
from pipeline.scan.detect.php.syntax import (
    Scope,
    arguments,
    captures,
    class_name,
    declared_name,
    enclosing_class,
    scope_of,
    string_value,
)
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import Node, named


@dataclass(frozen=True)
class Form:
    """Where one SDK's attribute or builder method takes its parameters."""

    sdk: str
    """SDK key."""
    rule: str
    """the form part of the rule."""
    name: int
    """position of ``name``."""
    title: int | None
    """position of the tool-level ``title`` (``None``: no such parameter)."""
    annotations: int
    """position of ``annotations``."""


ATTRIBUTES = {
    "Mcp\\Capability\\Attribute\\McpTool": Form("php-mcp-sdk", "attribute", 0, 1, 3),
    "PhpMcp\\Server\\Attributes\\McpTool": Form("php-php-mcp", "attribute", 0, None, 2),
}
#: builder method -> (form, classes one of which the file must import)
MANUAL = {
    "addTool": (Form("php-mcp-sdk", "add-tool", 1, 2, 4), ("Mcp\\Server", "Mcp\\Server\\Builder")),
    "withTool": (Form("php-php-mcp", "with-tool", 1, None, 3),
                 ("PhpMcp\\Server\\Server", "PhpMcp\\Server\\ServerBuilder")),
}
#: php-mcp/laravel's facade: ``Mcp::tool([Handler::class, 'method'])->name('x')->annotations(new ToolAnnotations(...))``
FACADE = "PhpMcp\\Laravel\\Facades\\Mcp"
#: class names a project may define itself (type-definition) or copy from an SDK (sdk-source)
TYPE_NAMES = frozenset({"McpTool", "ToolAnnotations", "IsReadOnly", "IsDestructive", "IsIdempotent", "IsOpenWorld"})
SDK_NAMESPACES = ("Mcp\\", "PhpMcp\\", "Laravel\\Mcp\\")
SDK_CLASSES = frozenset(ATTRIBUTES) | TOOL_ANNOTATIONS | {"Mcp\\Server\\Builder", "PhpMcp\\Server\\ServerBuilder",
                                                         "Laravel\\Mcp\\Server\\Tool"}
CLIENTS = ("Mcp\\Client", "PhpMcp\\Client")
#: another SDK using the ``Mcp\\`` namespace: when it is the one declared, ``Mcp\\`` imports are not mcp/sdk
OTHER_MCP_NAMESPACE = ("logiscape/mcp-sdk-php",)
#: ``Arguments.get``: a parameter's value by name or position
_Getter = Callable[[str, int], "Node | None"]
#: lower-cased bytes without which a file defines no preset, hint-key constant or laravel base class
INDEX_MARKERS = (b"toolannotations", b"hint'", b'hint"', b"laravel\\mcp\\server")
#: lower-cased bytes without which a file defines no tool and needs no exclusion
DETECT_MARKERS = (b"mcptool", b"addtool", b"withtool", b"laravel\\mcp", b"toolannotations", b"mcp\\client",
                  b"laravel\\facades\\mcp",
                  b"isreadonly", b"isdestructive", b"isidempotent", b"isopenworld")


class PhpDetector:
    """Finds PHP tool definitions; one instance per tree."""

    def __init__(self, dependencies: Dependencies) -> None:
        self.dependencies = dependencies
        self.annotations = AnnotationReader()
        self.laravel = LaravelReader()
        self._base_markers: tuple[bytes, ...] = ()

    def index(self, file: SourceFile) -> None:
        """Phase 1: presets, hint-key constants and the project's laravel ``Tool`` base classes."""
        if not any(marker in file.lower for marker in INDEX_MARKERS):
            return
        found = captures(file)
        scope = scope_of(file, found)
        self.annotations.learn(file, found, scope)
        self.laravel.learn(file, found.get("class", []), scope)
        self._base_markers = tuple(b.rsplit("\\", 1)[-1].lower().encode() for b in self.laravel.bases)

    def detect(self, file: SourceFile) -> Iterator[Tool | Exclusion]:
        """Phase 2: the tools ``file`` defines, or why it is left out."""
        if not any(m in file.lower for m in DETECT_MARKERS + self._base_markers):
            return
        found = captures(file)
        scope = scope_of(file, found)
        if (excluded := self._excluded(file, found, scope)) is not None:
            yield excluded
            return
        tools = [*self._attributes(file, found, scope), *self._manual(file, found, scope),
                 *self._facade(file, found, scope), *self.laravel.tools(file, found.get("class", []), scope)]
        yield from tools
        clients = [c for c in CLIENTS if scope.imports(c)]
        if not tools and clients:
            yield Exclusion(file.path, "client-code", f"imports {clients[0]}")

    def _excluded(self, file: SourceFile, found: dict[str, list[Node]], scope: Scope) -> Exclusion | None:
        for declaration in found.get("class", []):
            name = declared_name(file, declaration)
            fqn = f"{scope.namespace}\\{name}" if scope.namespace else name
            if fqn in SDK_CLASSES or (name in TYPE_NAMES and scope.namespace.startswith(SDK_NAMESPACES)):
                return Exclusion(file.path, "sdk-source", f"defines {fqn}")
            if name in TYPE_NAMES:
                return Exclusion(file.path, "type-definition", f"defines {fqn}")
        return None

    def _attributes(self, file: SourceFile, found: dict[str, list[Node]], scope: Scope) -> Iterator[Tool]:
        for attribute in found.get("attribute", []):
            form = ATTRIBUTES.get(scope.resolve(class_name(file, attribute)))
            if form is None or not self._attributable(form.sdk, file.path):
                continue
            target = attribute.parent.parent.parent if attribute.parent and attribute.parent.parent else None
            default = _default_name(file, target)
            yield self._tool(file, attribute, form, default=default, get=arguments(file, attribute).get, scope=scope)

    def _manual(self, file: SourceFile, found: dict[str, list[Node]], scope: Scope) -> Iterator[Tool]:
        calls = sorted(found.get("call", []), key=_method_position)
        for call in calls:
            method = call.child_by_field_name("name")
            form, classes = MANUAL.get(file.text(method), (None, ()))
            imported = set(scope.classes.values())
            if form is None or method is None or not imported.intersection(classes):
                continue
            if not self._attributable(form.sdk, file.path):
                continue
            given = arguments(file, call)
            handler = given.get("handler", 0)
            default = _handler_name(file, handler)
            if handler is not None and handler.type == "member_access_expression" and \
                    scope.namespace.startswith(SDK_NAMESPACES):
                continue  # an SDK's own code passing on what it is given (php-mcp/laravel's registrar)
            yield self._tool(file, method, form, default=default, get=given.get, scope=scope)

    def _facade(self, file: SourceFile, found: dict[str, list[Node]], scope: Scope) -> Iterator[Tool]:
        """``Mcp::tool(handler)`` / ``Mcp::tool('name', handler)`` of php-mcp/laravel, with the name and
        annotations its chained ``->name(...)`` and ``->annotations(...)`` give."""
        for call in found.get("static", []):
            method, owner = call.child_by_field_name("name"), call.child_by_field_name("scope")
            if method is None or owner is None or file.text(method) != "tool" or \
                    scope.resolve(file.text(owner)) != FACADE:
                continue
            given = arguments(file, call).positional
            chained = dict(_chain(file, call))
            written = chained.get("name", given[0] if len(given) == 2 else None)
            default = _handler_name(file, given[-1]) if given else None
            values = {"name": written, "annotations": chained.get("annotations")}
            yield self._tool(file, method, _FACADE_FORM, default=default, scope=scope, get=_lookup(values))

    def _tool(self, file: SourceFile, at: Node, form: Form, *, default: str | None,
              get: _Getter, scope: Scope) -> Tool:
        written = get("name", form.name)
        name = string_value(file, written) if written is not None else default
        title = get("title", form.title) if form.title is not None else None
        found = self.annotations.read(file, get("annotations", form.annotations), scope)
        via = "preset:" + found.source.split(":", 1)[1] if found.source.startswith("preset:") else "direct"
        return Tool(file.path, file.line(at), form.sdk, name, f"php.{form.sdk}.{form.rule}", found, via,
                    tool_title=string_value(file, title))

    def _attributable(self, sdk: str, path: str) -> bool:
        """``Mcp\\`` is also logiscape's namespace: trust it unless only that SDK is declared."""
        if sdk != "php-mcp-sdk" or self.dependencies.find(("mcp/sdk",), path) is not None:
            return True
        return self.dependencies.find(OTHER_MCP_NAMESPACE, path) is None


_FACADE_FORM = Form("php-php-mcp", "facade", 0, None, 0)


def _lookup(values: dict[str, Node | None]) -> _Getter:
    """A getter of ``values`` by name (positions unused)."""
    return lambda key, _position: values.get(key)


def _chain(file: SourceFile, call: Node) -> Iterator[tuple[str, Node]]:
    """The first argument of each method chained after ``call`` (``->name('x')->annotations(...)``)."""
    node = call
    while node.parent is not None and node.parent.type == "member_call_expression" and \
            node.parent.child_by_field_name("object") == node:
        node = node.parent
        method, given = node.child_by_field_name("name"), arguments(file, node).positional
        if method is not None and given:
            yield file.text(method), given[0]


def _method_position(call: Node) -> int:
    """Where a chained call's method name starts (chains nest, so the calls share a start)."""
    method = call.child_by_field_name("name")
    return method.start_byte if method is not None else call.start_byte


def _default_name(file: SourceFile, target: Node | None) -> str | None:
    """The SDK's name for an attributed method (its name) or invokable class (its short name)."""
    if target is None:
        return None
    if target.type == "method_declaration" and declared_name(file, target) != "__invoke":
        return declared_name(file, target)
    owner = target if target.type == "class_declaration" else enclosing_class(target)
    return declared_name(file, owner) or None


def _handler_name(file: SourceFile, handler: Node | None) -> str | None:
    """The name the SDK derives from a manual handler: the method, or an invokable class's short name."""
    if handler is None:
        return None
    if handler.type == "array_creation_expression":
        parts = [e.named_children[0] for e in named(handler) if e.type == "array_element_initializer"]
        method = string_value(file, parts[1]) if len(parts) == 2 else None
        if method is not None and method != "__invoke":
            return method
        return _class_of(file, parts[0]) if parts and method == "__invoke" else None
    return _class_of(file, handler)


def _class_of(file: SourceFile, node: Node) -> str | None:
    if node.type == "class_constant_access_expression" and file.text(node.named_children[-1]) == "class":
        return class_name(file, node).rsplit("\\", 1)[-1] or None
    text = string_value(file, node)
    return text.rsplit("\\", 1)[-1] if text else None
