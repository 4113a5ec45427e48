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

from pipeline.scan.detect.csharp.nodes import initializer_pairs, last_name
from pipeline.scan.detect.model import DYNAMIC, HINT_FIELDS, TRUE, UNSET, Annotations, hint_field
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import boolean, unquote

Node = tree_sitter.Node

#: the attribute's properties that put an annotations object on the wire
ANNOTATION_KEYS = frozenset({"Title", "ReadOnly", "Destructive", "Idempotent", "OpenWorld"})
_NOT_ALNUM = re.compile(r"[^0-9A-Za-z]+")


@dataclass
class CSharpIndex:
    """What phase 1 learns across the tree's C# files."""

    constants: dict[str, str | None] = field(default_factory=dict)
    """``const string``/``const bool`` field name -> value (None when two fields disagree)."""
    presets: dict[str, Annotations] = field(default_factory=dict)
    """static field/property name -> annotations of its ``ToolAnnotations``/options initializer."""
    global_dirs: set[str] = field(default_factory=set)
    """folders of files with a ``global using ModelContextProtocol...``; it covers the files below
    (a global using applies to its own project, not to the other projects of a monorepo)."""
    own_attribute: set[bytes] = field(default_factory=set)
    """namespaces in which the tree defines its own ``McpServerToolAttribute`` (not the SDK's);
    a file that imports one of them (or lives in it) uses that attribute."""


@dataclass(frozen=True)
class Declared:
    """What one initializer or attribute argument list declares."""

    name: str | None = None
    name_written: bool = False
    tool_title: str | None = None
    annotations: Annotations = field(default_factory=Annotations)
    built: str = ""
    """``-built`` for a name the source builds (``Prefix + nameof(Search)``), ``-dynamic`` when a
    part of it is not known: the suffix of the row's form."""


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


#: a ``const string`` or ``const bool`` field: its name and value as written
CONST = re.compile(rb"\bconst\s+(?:string|bool)\s+(\w+)\s*=\s*(\"[^\"\\\n]*\"|true|false)\s*;")


def constants_of(data: bytes) -> dict[str, str | None]:
    """The ``const`` fields of a file by name (``None`` where two of a name disagree)."""
    found: dict[str, str | None] = {}
    for name, value in CONST.findall(data):
        text, key = value.decode("utf-8", "replace").strip('"'), name.decode()
        found[key] = text if found.get(key, text) == text else None
    return found


def constant(file: SourceFile, node: Node, index: CSharpIndex) -> str | None:
    """The value of the ``const`` a name stands for: a plain name is looked for in its own file
    first (``ToolName`` is a constant of many classes), then in the tree."""
    name = last_name(file, node)
    if node.type == "identifier" and (own := file.kept("csharp-constants", lambda: constants_of(file.data)).get(name)):
        return own
    return index.constants.get(name)


def string_value(file: SourceFile, node: Node | None, index: CSharpIndex) -> str | None:
    """A string literal, ``nameof(X.Y)``, a known ``const string``, or a ``+`` of them
    (``Prefix + nameof(Search)``); else None."""
    if node is None:
        return None
    if node.type == "binary_expression" and file.text(node.child_by_field_name("operator")) == "+":
        parts = [string_value(file, node.child_by_field_name(side), index) for side in ("left", "right")]
        return None if None in parts else "".join(p for p in parts if p is not None)
    if node.type == "parenthesized_expression" and node.named_children:
        return string_value(file, node.named_children[0], index)
    if node.type == "invocation_expression" and file.text(node.child_by_field_name("function")) == "nameof":
        args = node.child_by_field_name("arguments")
        return last_name(file, args).strip("()") if args is not None else None
    if node.type in ("identifier", "member_access_expression"):
        return constant(file, node, index)
    return unquote(file.text(node))


def hint_value(file: SourceFile, node: Node, index: CSharpIndex) -> str:
    """``true``/``false`` for a literal or a known ``const bool``, else ``dynamic``."""
    text = file.text(node)
    if node.type in ("identifier", "member_access_expression"):
        text = constant(file, node, index) or text
    return boolean(text)


def declared(pairs: Iterator[tuple[str, Node]], file: SourceFile, index: CSharpIndex,
             source: str, title_in_annotations: bool) -> Declared:
    """Fold ``Key = value`` pairs into a ``Declared``; ``title_in_annotations`` when ``Title`` sets both titles."""
    name: str | None = None
    name_written, tool_title, built = False, None, ""
    ann = Annotations()
    for key, value in pairs:
        if key == "Name":
            name, name_written = string_value(file, value, index), True
            built = ("-built" if name is not None else "-dynamic") if value.type == "binary_expression" else ""
        elif key == "Title":
            title = string_value(file, value, index)
            ann = _titled(ann, title, source) if title_in_annotations else ann
            tool_title = title
        elif key == "Annotations":
            ann = annotations_value(file, value, index)
        elif (hint := hint_field(key)) is not None and key in ANNOTATION_KEYS:
            ann = ann.with_hint(hint, hint_value(file, value, index)).with_source(source)
    return Declared(name, name_written, tool_title, ann, built)


_HINT_KEYS = frozenset({"ReadOnlyHint", "DestructiveHint", "IdempotentHint", "OpenWorldHint"})


def overlay(base: Declared, top: Declared) -> Declared:
    """``top`` (Create's options) over ``base`` (the target's attribute): what the SDK's ``DeriveOptions`` does."""
    if top.annotations.source == "none" and not top.name_written and top.tool_title is None:
        return base
    if base.annotations.source == "none" and not base.name_written and base.tool_title is None:
        return top
    ann = base.annotations
    for hint in HINT_FIELDS:
        if getattr(top.annotations, hint) != UNSET:
            ann = ann.with_hint(hint, getattr(top.annotations, hint))
    if top.annotations.title_state != UNSET:
        ann = replace(ann, title=top.annotations.title, title_state=top.annotations.title_state)
    ann = ann.with_source(top.annotations.source if top.annotations.source != "none" else ann.source)
    name_written = top.name_written or base.name_written
    name = top.name if top.name_written else base.name
    return Declared(name, name_written, top.tool_title or base.tool_title, ann)


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
