"""What the Java and Kotlin readers share: a definition as first ``Found``, and the parts of a Java
syntax tree they walk (arguments, the enclosing node, a method's parameters, call chains)."""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.scan.detect.model import NO_ANNOTATIONS, Annotations
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import Node, named

_COMMENTS = ("line_comment", "block_comment")


@dataclass(frozen=True)
class Found:
    """One tool definition before its name and annotations are resolved."""

    node: Node
    sdk: str
    form: str
    name_expr: Node | None
    default_name: str | None = None
    title_expr: Node | None = None
    annotations_expr: Node | None = None
    annotations: Annotations = NO_ANNOTATIONS


def arguments(node: Node | None) -> list[Node]:
    """The argument expressions of an ``argument_list``."""
    return [c for c in named(node) if c.type not in _COMMENTS] if node is not None else []


def enclosing(node: Node, kind: str) -> Node | None:
    """The nearest ancestor of type ``kind``."""
    current = node.parent
    while current is not None and current.type != kind:
        current = current.parent
    return current


def parameters(method: Node | None, file: SourceFile) -> list[str]:
    """The parameter names of a method declaration."""
    params = method.child_by_field_name("parameters") if method is not None else None
    if params is None:
        return []
    return [file.text(p.child_by_field_name("name")) for p in named(params) if p.type.endswith("parameter")]


def chain_up(node: Node, file: SourceFile) -> list[tuple[str, list[Node]]]:
    """The calls chained after ``node`` (``.name("x").annotations(a).build()``)."""
    calls = []
    while node.parent is not None and node.parent.type == "method_invocation" and \
            node.parent.child_by_field_name("object") == node:
        node = node.parent
        calls.append((file.text(node.child_by_field_name("name")), arguments(node.child_by_field_name("arguments"))))
    return calls


def chain_down(node: Node, file: SourceFile) -> tuple[Node | None, list[tuple[str, list[Node]]]]:
    """The root object of a call chain and its calls, first call first."""
    calls = []
    while node.type == "method_invocation":
        calls.append((file.text(node.child_by_field_name("name")), arguments(node.child_by_field_name("arguments"))))
        nxt = node.child_by_field_name("object")
        if nxt is None:
            return None, calls[::-1]
        node = nxt
    return node, calls[::-1]
