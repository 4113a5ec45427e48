"""Reading the C# SDK's tool forms: ``[McpServerTool(...)]`` attributes, ``McpServerToolCreateOptions``
initializers and protocol ``new Tool { Annotations = new ToolAnnotations {...} }`` literals.

Values are read from tree-sitter-c-sharp nodes. Names follow the SDK's rule
(``AIFunctionMcpServerTool.DeriveName`` in modelcontextprotocol/csharp-sdk): the method name, minus an
``Async`` suffix when the method returns ``Task``/``ValueTask``/``IAsyncEnumerable``, with characters that
are not ASCII letters or digits replaced by ``_`` and trimmed, then ``JsonNamingPolicy.SnakeCaseLower``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import tree_sitter

from pipeline.scan.detect.model import DYNAMIC, TRUE, Annotations, hint_field
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import boolean, named, unquote

Node = tree_sitter.Node

#: the attribute's properties that put an annotations object on the wire
ANNOTATION_KEYS = frozenset({"Title", "ReadOnly", "Destructive", "Idempotent", "OpenWorld"})
_ASYNC_TYPES = ("Task", "ValueTask", "IAsyncEnumerable")
_NOT_ALNUM = re.compile(r"[^0-9A-Za-z]+")


@dataclass
class CSharpIndex:
    """What phase 1 learns across the tree's C# files."""

    constants: dict[str, str | None] = field(default_factory=dict)
    """``const string``/``const bool`` field name -> value (None when two fields disagree)."""
    presets: dict[str, Annotations] = field(default_factory=dict)
    """static field/property name -> annotations of its ``ToolAnnotations``/options initializer."""
    global_sdk: bool = False
    """a ``global using ModelContextProtocol...`` somewhere in the tree."""
    own_attribute: bool = False
    """the project defines its own ``McpServerToolAttribute`` (not the SDK's)."""


@dataclass(frozen=True)
class Declared:
    """What one initializer or attribute argument list declares."""

    name: str | None = None
    name_written: bool = False
    tool_title: str | None = None
    annotations: Annotations = field(default_factory=Annotations)


def snake_case_lower(name: str) -> str:
    """``JsonNamingPolicy.SnakeCaseLower.ConvertName`` (System.Text.Json's separator policy), ASCII input."""
    out: list[str] = []
    state = "start"
    for i, char in enumerate(name):
        if char.isupper():
            upper_run_ends = i + 1 < len(name) and name[i + 1].islower()
            if state in ("lower", "space") or (state == "upper" and upper_run_ends):
                out.append("_")
            out.append(char.lower())
            state = "upper"
        elif char.islower() or char.isdigit():
            out.append("_" if state == "space" else "")
            out.append(char)
            state = "lower"
        elif char == " ":
            state = "space" if state != "start" else state
        else:
            out.append(char)
            state = "start"
    return "".join(out)


def derive_name(method: str, is_async: bool) -> str:
    """The tool name the SDK derives from a method name."""
    name = method
    if is_async and name.endswith("Async") and len(name) > len("Async"):
        name = name[: -len("Async")]
    name = _NOT_ALNUM.sub("_", name).strip("_") or method
    return snake_case_lower(name)


def returns_async(method: Node, file: SourceFile) -> bool:
    """Whether a method declaration's return type is one the SDK treats as async."""
    returns = method.child_by_field_name("returns") or method.child_by_field_name("type")
    if returns is None:
        return False
    base = file.text(returns).split("<", 1)[0].rsplit(".", 1)[-1].strip()
    return base in _ASYNC_TYPES


def last_name(file: SourceFile, node: Node) -> str:
    """The last dotted segment of a (qualified) name or member access, generics dropped."""
    return file.text(node).split("<", 1)[0].rsplit(".", 1)[-1].strip()


def string_value(file: SourceFile, node: Node | None, index: CSharpIndex) -> str | None:
    """A string literal, ``nameof(X.Y)`` or a known ``const string``; else None."""
    if node is None:
        return None
    if node.type == "invocation_expression" and file.text(node.child_by_field_name("function")) == "nameof":
        args = node.child_by_field_name("arguments")
        return last_name(file, args).strip("()") if args is not None else None
    if node.type in ("identifier", "member_access_expression"):
        return index.constants.get(last_name(file, node))
    return unquote(file.text(node))


def hint_value(file: SourceFile, node: Node, index: CSharpIndex) -> str:
    """``true``/``false`` for a literal or a known ``const bool``, else ``dynamic``."""
    text = file.text(node)
    if node.type in ("identifier", "member_access_expression"):
        text = index.constants.get(last_name(file, node)) or text
    return boolean(text)


def declared(pairs: Iterator[tuple[str, Node]], file: SourceFile, index: CSharpIndex,
             source: str, title_in_annotations: bool) -> Declared:
    """Fold ``Key = value`` pairs into a ``Declared``; ``title_in_annotations`` when ``Title`` sets both titles."""
    name: str | None = None
    name_written, tool_title = False, None
    ann = Annotations()
    for key, value in pairs:
        if key == "Name":
            name, name_written = string_value(file, value, index), True
        elif key == "Title":
            title = string_value(file, value, index)
            ann = _titled(ann, title, source) if title_in_annotations else ann
            tool_title = title
        elif key == "Annotations":
            ann = annotations_value(file, value, index)
        elif (hint := hint_field(key)) is not None and key in ANNOTATION_KEYS:
            ann = ann.with_hint(hint, hint_value(file, value, index)).with_source(source)
    return Declared(name, name_written, tool_title, ann)


_HINT_KEYS = frozenset({"ReadOnlyHint", "DestructiveHint", "IdempotentHint", "OpenWorldHint"})


def _titled(ann: Annotations, title: str | None, source: str) -> Annotations:
    return replace(ann, title=title, title_state=TRUE if title is not None else DYNAMIC, source=source)


def annotations_value(file: SourceFile, node: Node, index: CSharpIndex) -> Annotations:
    """The ``ToolAnnotations`` an ``Annotations = ...`` assignment gives (inline, preset or dynamic)."""
    if node.type in ("object_creation_expression", "implicit_object_creation_expression"):
        pairs = initializer_pairs(file, node)
        ann = Annotations(source="inline")
        for key, value in pairs:
            if key == "Title":
                title = string_value(file, value, index)
                ann = _titled(ann, title, "inline")
            elif (hint := hint_field(key)) is not None and key in _HINT_KEYS:
                ann = ann.with_hint(hint, hint_value(file, value, index))
        return ann
    name = last_name(file, node) if node.type in ("identifier", "member_access_expression") else ""
    if name in index.presets:
        return index.presets[name].with_source(f"preset:{name}")
    return Annotations(source=DYNAMIC)


def initializer_pairs(file: SourceFile, creation: Node) -> Iterator[tuple[str, Node]]:
    """``Key = value`` pairs of an object creation's ``{ ... }`` initializer."""
    init = creation.child_by_field_name("initializer")
    if init is None:
        init = next((c for c in creation.children if c.type == "initializer_expression"), None)
    for child in named(init) if init is not None else []:
        left, right = child.child_by_field_name("left"), child.child_by_field_name("right")
        if child.type == "assignment_expression" and left is not None and right is not None:
            yield file.text(left), right


def attribute_pairs(file: SourceFile, attribute: Node) -> Iterator[tuple[str, Node]]:
    """``Key = value`` arguments of an attribute."""
    args = next((c for c in attribute.children if c.type == "attribute_argument_list"), None)
    for arg in named(args) if args is not None else []:
        key = arg.child_by_field_name("name")
        values = [c for c in named(arg) if c != key]
        if arg.type == "attribute_argument" and key is not None and values:
            yield file.text(key), values[-1]

