"""Evaluating a Rust annotations expression to ``Annotations``.

Understood: rmcp/pmcp builders (``ToolAnnotations::new().read_only(true)``,
``.with_read_only(true)``, ``ToolAnnotations::with_title("T")``), rmcp's positional
``ToolAnnotations::from_raw(title, ro, de, id, ow)``, struct literals
``ToolAnnotations { read_only_hint: Some(true), ..Default::default() }``, ``json!({...})``
objects with camelCase keys, ``Some(..)``/``&``/``.clone()`` around any of them, local ``let``
bindings, and one level of presets (a ``const``/``static`` or a helper ``fn`` returning
``ToolAnnotations``) through the resolver.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.scan.detect.model import DYNAMIC, HINT_FIELDS, NO_ANNOTATIONS, Annotations, hint_field
from pipeline.scan.detect.rust.values import (
    Resolver,
    bool_value,
    path_segments,
    token_annotations,
    token_pairs,
    with_title,
)
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import Node, named

DYNAMIC_ANNOTATIONS = Annotations(source="dynamic")
_PASS_THROUGH = ("clone", "into", "to_owned", "unwrap_or_default")
_STARTERS = ("new", "default")


def arguments(node: Node) -> list[Node]:
    """The argument expressions of a call (comments left out)."""
    args = node.child_by_field_name("arguments")
    return [a for a in named(args) if "comment" not in a.type] if args is not None else []


@dataclass
class Evaluator:
    """Reads annotations expressions of one file; ``params`` maps a wrapper's parameters to indexes."""

    file: SourceFile
    resolve: Resolver
    params: dict[str, int] = field(default_factory=dict)
    depth: int = 0

    def evaluate(self, node: Node | None) -> Annotations:
        """The annotations an expression declares (``dynamic`` source when unreadable)."""
        if node is None or self.depth > 4:
            return DYNAMIC_ANNOTATIONS
        node = self._strip(node)
        text = self.file.text(node).strip()
        if text == "None":
            return NO_ANNOTATIONS
        if node.type == "struct_expression":
            return self._struct(node)
        if node.type == "macro_invocation" and text.split("!")[0].split("::")[-1] == "json":
            return self._json(node)
        if node.type == "call_expression":
            return self._chain(node)
        if node.type in ("identifier", "scoped_identifier", "field_expression"):
            return self.resolve(text.split("::")[-1].split(".")[-1], node) or DYNAMIC_ANNOTATIONS
        return DYNAMIC_ANNOTATIONS

    def _strip(self, node: Node) -> Node:
        while True:
            if node.type in ("reference_expression", "parenthesized_expression") and named(node):
                node = named(node)[-1]
                continue
            if node.type == "call_expression":
                function, args = node.child_by_field_name("function"), arguments(node)
                if function is not None and self.file.text(function) == "Some" and len(args) == 1:
                    node = args[0]
                    continue
                method = function.child_by_field_name("field") if function is not None else None
                if function is not None and not args and self.file.text(method) in _PASS_THROUGH:
                    node = function.child_by_field_name("value") or node
                    continue
            return node

    def _struct(self, node: Node) -> Annotations:
        name = path_segments(self.file, node.child_by_field_name("name") or node)
        if name[-1:] != ["ToolAnnotations"]:
            return DYNAMIC_ANNOTATIONS
        result = Annotations(source="inline")
        for entry in named(node.child_by_field_name("body") or node):
            if entry.type == "field_initializer":
                key, value = self.file.text(entry.child_by_field_name("field")), entry.child_by_field_name("value")
            elif entry.type == "shorthand_field_initializer" and named(entry):
                key, value = self.file.text(named(entry)[0]), named(entry)[0]
            else:
                continue
            if key == "title":
                result = with_title(result, self.file, value)
            elif (hint := hint_field(key)) is not None:
                result = result.with_hint(hint, bool_value(self.file, value, self.params))
        return result

    def _json(self, node: Node) -> Annotations:
        tree = next((c for c in node.children if c.type == "token_tree"), None)
        inner = next((c for c in named(tree) if c.type == "token_tree"), None) if tree is not None else None
        return token_annotations(self.file, token_pairs(self.file, inner or tree), "inline")

    def _chain(self, node: Node) -> Annotations:
        calls: list[tuple[str, list[Node]]] = []
        current = node
        while current.type == "call_expression":
            function = current.child_by_field_name("function")
            if function is None or function.type != "field_expression":
                break
            calls.append((self.file.text(function.child_by_field_name("field")), arguments(current)))
            current = function.child_by_field_name("value") or current
        result = self._base(current)
        for method, args in reversed(calls):
            result = self._apply(result, method, args)
        return result

    def _base(self, node: Node) -> Annotations:
        if node.type != "call_expression":
            return Evaluator(self.file, self.resolve, self.params, self.depth + 1).evaluate(node)
        segments = path_segments(self.file, node.child_by_field_name("function") or node)
        args = arguments(node)
        if segments[-2:-1] == ["ToolAnnotations"]:
            return self._constructor(segments[-1], args)
        if len(segments) >= 1 and segments[-1] not in ("Some", "from"):
            return self.resolve(segments[-1], node) or DYNAMIC_ANNOTATIONS
        return DYNAMIC_ANNOTATIONS

    def _constructor(self, method: str, args: list[Node]) -> Annotations:
        if method in _STARTERS:
            return Annotations(source="options")
        if method == "with_title" and len(args) == 1:
            return with_title(Annotations(source="options"), self.file, args[0])
        if method == "from_raw" and len(args) == 5:
            result = with_title(Annotations(source="positional"), self.file, args[0])
            for hint, value in zip(HINT_FIELDS, args[1:], strict=True):
                result = result.with_hint(hint, bool_value(self.file, value, self.params))
            return result
        return DYNAMIC_ANNOTATIONS

    def _apply(self, result: Annotations, method: str, args: list[Node]) -> Annotations:
        if result.source == DYNAMIC:
            return result
        if method == "with_title" and len(args) == 1:
            return with_title(result, self.file, args[0])
        hint = hint_field(method)
        if hint is not None and len(args) == 1:
            return result.with_hint(hint, bool_value(self.file, args[0], self.params))
        return result
