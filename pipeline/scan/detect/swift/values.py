"""Reading Swift values for the Swift detector: labelled call arguments, literals, annotations.

``Tool.Annotations(title:readOnlyHint:destructiveHint:idempotentHint:openWorldHint:)`` (also
spelled ``.init(..)``) is read as ``inline`` annotations; a name that refers to a shared
``Tool.Annotations`` value is resolved through the presets learned in phase 1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import tree_sitter

from pipeline.scan.detect.model import DYNAMIC, FALSE, NO_ANNOTATIONS, TRUE, UNSET, Annotations, hint_field
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import Node, capture_map, compiled, named

QUERY = """
(import_declaration) @import
(call_expression) @call
(function_declaration) @function
(property_declaration) @property
(class_declaration) @class
(navigation_suffix suffix: (simple_identifier) @nav)
"""
ANNOTATION_TYPES = ("Tool.Annotations", "MCP.Tool.Annotations", ".init", "Annotations")
Arguments = list[tuple[str | None, Node]]


def query() -> tree_sitter.Query:
    """The query both Swift phases run once per file."""
    return compiled("tree_sitter_swift", "language", QUERY)


def captures(file: SourceFile) -> dict[str, list[Node]]:
    """Every capture of ``QUERY`` in ``file``, in source order."""
    return file.kept("swift", lambda: capture_map(query(), file.tree.root_node))


def callee(file: SourceFile, call: Node) -> str:
    """The called expression's text (``Tool``, ``Tool.Annotations``, ``.init``, ``makeTool``)."""
    return file.text(call.children[0]).replace(" ", "") if call.children else ""


def call_arguments(file: SourceFile, call: Node) -> Arguments:
    """(label or None, value) of each argument of a call."""
    suffix = next((c for c in call.children if c.type == "call_suffix"), None)
    values = next((c for c in named(suffix) if c.type == "value_arguments"), None) if suffix else None
    found: Arguments = []
    for argument in named(values) if values is not None else []:
        label = argument.child_by_field_name("name")
        value = argument.child_by_field_name("value")
        if value is not None:
            found.append((file.text(label) if label is not None else None, value))
    return found


def attribute_arguments(file: SourceFile, attribute: Node) -> Arguments:
    """(label, value) pairs written inside ``@Attr(label: value, ..)``."""
    children = [c for c in attribute.children if c.type not in ("(", ")", ",", "@", "user_type")]
    found: Arguments = []
    for index, child in enumerate(children[:-2]):
        if child.type == "simple_identifier" and children[index + 1].type == ":":
            found.append((file.text(child), children[index + 2]))
    return found


def string_value(file: SourceFile, node: Node | None) -> str | None:
    """The value of a plain one-line string literal (no interpolation)."""
    if node is None or node.type != "line_string_literal":
        return None
    parts = named(node)
    if any(p.type != "line_str_text" for p in parts):
        return None
    return "".join(file.text(p) for p in parts)


def bool_value(file: SourceFile, node: Node | None, params: dict[str, int] | None = None) -> str:
    """``true``/``false`` for a literal, ``unset`` for ``nil``, ``param:<i>`` in a wrapper, else ``dynamic``."""
    text = file.text(node).strip()
    if node is not None and node.type == "boolean_literal":
        return TRUE if text == "true" else FALSE
    if text in ("", "nil"):
        return UNSET
    return f"param:{params[text]}" if params and text in params else DYNAMIC


def labelled_annotations(file: SourceFile, arguments: Arguments, source: str, params: dict[str, int]) -> Annotations:
    """Annotations from labelled arguments (``title:``, ``readOnlyHint:`` ..)."""
    result = Annotations(source=source)
    for label, value in arguments:
        if label == "title" and file.text(value) != "nil":
            title = string_value(file, value)
            result = replace(result, title=title, title_state=TRUE if title is not None else DYNAMIC)
        elif label is not None and (hint := hint_field(label)) is not None:
            result = result.with_hint(hint, bool_value(file, value, params))
    return result


def evaluate(
    file: SourceFile, node: Node | None, presets: Callable[[str], Annotations | None], params: dict[str, int]
) -> Annotations:
    """The annotations an ``annotations:`` argument declares."""
    if node is None or file.text(node) == "nil":
        return NO_ANNOTATIONS
    if node.type == "call_expression" and callee(file, node) in ANNOTATION_TYPES:
        return labelled_annotations(file, call_arguments(file, node), "inline", params)
    if node.type in ("simple_identifier", "prefix_expression", "navigation_expression"):
        name = file.text(node).split(".")[-1].strip()
        preset = presets(name)
        if preset is not None:
            return replace(preset, source=f"preset:{name}")
    return Annotations(source="dynamic")
