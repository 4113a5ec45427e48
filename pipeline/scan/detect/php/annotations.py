"""Annotation values in PHP source: ``new ToolAnnotations(...)`` (named or positional),
``ToolAnnotations::fromArray([...])``, array literals (``['readOnlyHint' => true]``), and,
one level away, presets (global or class constants, functions and static methods returning
one of those) and constants holding a hint's wire name (``[Hints::READ_ONLY => true]``)."""

from __future__ import annotations

from dataclasses import replace

from pipeline.scan.detect.model import DYNAMIC, NO_ANNOTATIONS, TRUE, UNSET, Annotations, hint_field
from pipeline.scan.detect.php.syntax import (
    Scope,
    arguments,
    class_name,
    declared_name,
    enclosing_class,
    string_value,
)
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import Node, boolean, named

#: the SDKs' annotation classes (``mcp/sdk`` and ``php-mcp/schema``)
TOOL_ANNOTATIONS = frozenset({"Mcp\\Schema\\ToolAnnotations", "PhpMcp\\Schema\\ToolAnnotations"})
#: constructor parameters, in order: (title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint)
POSITIONS = ("title", "read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint")
_REFERENCES = ("class_constant_access_expression", "name", "qualified_name", "function_call_expression",
               "scoped_call_expression")


def field_of(key: str) -> str | None:
    """The canonical field (or ``title``) for an annotations key as written."""
    return "title" if key == "title" else hint_field(key)


class AnnotationReader:
    """Reads annotation expressions; knows the presets and key constants learned by ``learn``."""

    def __init__(self) -> None:
        self.presets: dict[str, Annotations] = {}
        self.keys: dict[str, str] = {}

    def learn(self, file: SourceFile, found: dict[str, list[Node]], scope: Scope) -> None:
        """Record the presets and hint-key constants ``file`` defines (phase 1)."""
        for declaration in found.get("const", []):
            owner = declared_name(file, enclosing_class(declaration))
            for element in named(declaration):
                if element.type == "const_element" and len(element.named_children) >= 2:
                    name, value = element.named_children[0], element.named_children[-1]
                    self._learn_value(file, _key(owner, file.text(name)), value, scope)
        for function in found.get("function", []) + found.get("method", []):
            owner = declared_name(file, enclosing_class(function)) if function.type == "method_declaration" else ""
            returned = _single_return(function)
            if returned is not None:
                self._learn_value(file, _key(owner, declared_name(file, function)), returned, scope)

    def _learn_value(self, file: SourceFile, key: str, value: Node, scope: Scope) -> None:
        text = string_value(file, value)
        if text is not None:
            if (field := field_of(text)) is not None:
                self.keys[key] = field
            return
        literal = self.literal(file, value, scope)
        if literal is not None:
            self.presets[key] = literal

    def read(self, file: SourceFile, node: Node | None, scope: Scope) -> Annotations:
        """The annotations an argument declares: literal, preset (one level) or ``dynamic``."""
        if node is None or (node.type == "null"):
            return NO_ANNOTATIONS
        literal = self.literal(file, node, scope)
        if literal is not None:
            return literal
        key = self.reference(file, node)
        if key is not None and key in self.presets:
            return self.presets[key].with_source(f"preset:{key}")
        return Annotations(source=DYNAMIC)

    def reference(self, file: SourceFile, node: Node) -> str | None:
        """The preset key a constant, function or static method reference names."""
        if node.type not in _REFERENCES:
            return None
        if node.type in ("name", "qualified_name"):
            return _short(file.text(node))
        if node.type == "function_call_expression":
            return _short(file.text(node.child_by_field_name("function")))
        scope_name = class_name(file, node)
        if scope_name in ("self", "static"):
            scope_name = declared_name(file, enclosing_class(node))
        member = node.child_by_field_name("name") or node.named_children[-1]
        return _key(_short(scope_name), file.text(member))

    def literal(self, file: SourceFile, node: Node, scope: Scope) -> Annotations | None:
        """The annotations of a ``new ToolAnnotations``, ``fromArray`` or array literal, else ``None``."""
        if node.type == "object_creation_expression" and _is_annotations(scope, class_name(file, node)):
            return self._constructor(file, node)
        if node.type == "scoped_call_expression" and _is_annotations(scope, class_name(file, node)) \
                and file.text(node.child_by_field_name("name")) == "fromArray":
            given = arguments(file, node).get("data", 0)
            return self._array(file, given) if given is not None else None
        if node.type == "array_creation_expression":
            return self._array(file, node)
        return None

    def _constructor(self, file: SourceFile, node: Node) -> Annotations:
        given = arguments(file, node)
        found = Annotations(source="positional" if given.positional else "inline")
        for position, value in enumerate(given.positional[: len(POSITIONS)]):
            found = _set(file, found, POSITIONS[position], value)
        for key, value in given.keywords.items():
            if (field := field_of(key)) is not None:
                found = _set(file, found, field, value)
        return found

    def _array(self, file: SourceFile, node: Node) -> Annotations | None:
        if node.type != "array_creation_expression":
            return None
        found, source = Annotations(), "inline"
        for element in named(node):
            if element.type != "array_element_initializer" or len(element.named_children) != 2:
                continue
            key, value = element.named_children
            field = field_of(text) if (text := string_value(file, key)) is not None else None
            if field is None and (ref := self.reference(file, key)) is not None and ref in self.keys:
                field, source = self.keys[ref], "constant"
            if field is not None:
                found = _set(file, found, field, value)
        return found.with_source(source)


def _set(file: SourceFile, found: Annotations, field: str, value: Node) -> Annotations:
    if field != "title":
        return found.with_hint(field, UNSET if value.type == "null" else boolean(file.text(value)))
    if value.type == "null":
        return found
    title = string_value(file, value)
    state = TRUE if title is not None else DYNAMIC
    return replace(found, title=title, title_state=state)


def _is_annotations(scope: Scope, written: str) -> bool:
    return scope.resolve(written) in TOOL_ANNOTATIONS or _short(written) == "ToolAnnotations"


def _single_return(function: Node) -> Node | None:
    body = function.child_by_field_name("body")
    returns = [s for s in named(body) if s.type == "return_statement"] if body is not None else []
    if len(returns) != 1 or not returns[0].named_children:
        return None
    return returns[0].named_children[0]


def _short(name: str) -> str:
    return name.rsplit("\\", 1)[-1]


def _key(owner: str, name: str) -> str:
    return f"{owner}::{name}" if owner else name
