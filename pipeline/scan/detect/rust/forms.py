"""The Rust tool-definition forms: macro attributes, constructor chains and ``Tool { .. }`` literals.

Each function reads one definition node and returns a ``Found`` (name, line, annotations,
tool-level title) that the detector turns into a ``Tool`` row once the SDK is known.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.scan.detect.model import NO_ANNOTATIONS, TRUE, Annotations
from pipeline.scan.detect.rust.annotations import Evaluator, arguments
from pipeline.scan.detect.rust.values import path_segments, string_value, token_annotations, token_pairs
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import Node, named

#: crate roots in ``use``/paths -> SDK key
CRATES = {
    "rmcp": "rust-rmcp", "rust_mcp_sdk": "rust-mcp-sdk", "rust_mcp_macros": "rust-mcp-sdk",
    "pmcp": "rust-pmcp", "pmcp_macros": "rust-pmcp", "mcp_core": "rust-mcp-core", "mcp_core_macros": "rust-mcp-core",
    "mcp_spec": "rust-mcp-spec",
}
IMPORT = re.compile(rb"(?<![\w:])(" + b"|".join(k.encode() for k in CRATES) + rb")::")
#: attribute macro name -> SDKs it may belong to (resolved by the file's imports)
ATTRIBUTES = {"tool": ("rust-rmcp", "rust-mcp-core"), "mcp_tool": ("rust-mcp-sdk", "rust-pmcp")}
#: constructor type -> (SDKs, constructors, index of the annotations argument or -1)
CONSTRUCTORS = {
    "Tool": (("rust-rmcp", "rust-pmcp", "rust-mcp-sdk", "rust-mcp-core", "rust-mcp-spec"), ("new", "new_with_raw"), -1),
    "ToolInfo": (("rust-pmcp",), ("new", "with_annotations"), 3),
    "TypedTool": (("rust-pmcp",), ("new", "new_with_schema", "new_validated"), -1),
    "TypedSyncTool": (("rust-pmcp",), ("new", "new_with_schema"), -1),
    "TypedToolWithOutput": (("rust-pmcp",), ("new",), -1),
    "SimpleTool": (("rust-pmcp",), ("new",), -1),
}
_ANNOTATE = ("annotate", "with_annotations", "annotations")
_CONVENIENCE = ("read_only", "destructive", "idempotent", "open_world")
_SKIPPED = ("attribute_item", "line_comment", "block_comment")


@dataclass(frozen=True)
class Found:
    """One tool definition read from source, before SDK attribution."""

    node: Node
    form: str
    name: str | None
    annotations: Annotations
    tool_title: str | None = None


def attribute_tool(file: SourceFile, item: Node, sdk: str) -> Found | None:
    """``#[tool(..)]`` (rmcp, mcp-core) or ``#[mcp_tool(..)]`` (rust-mcp-sdk, pmcp) on a fn or struct."""
    target = attached(item)
    attribute = named(item)[0] if named(item) else None
    if target is None or attribute is None or target.type not in ("function_item", "struct_item"):
        return None
    if (target.type == "struct_item") != (sdk == "rust-mcp-sdk"):
        return None
    pairs = token_pairs(file, attribute.child_by_field_name("arguments"))
    values = dict(pairs)
    name = string_value(file, values.get("name"))
    if name is None and sdk != "rust-mcp-sdk" and "name" not in values:
        name = file.text(target.child_by_field_name("name"))
    title = string_value(file, values.get("title"))
    if sdk == "rust-mcp-sdk":
        hints = token_annotations(file, [p for p in pairs if p[0] not in ("title", "name")], "attribute")
        declared = any(v != "unset" for v in _hints(hints))
        return Found(item, "attribute", name, hints if declared else NO_ANNOTATIONS, title)
    inner = values.get("annotations")
    annotations = token_annotations(file, token_pairs(file, inner), "attribute") if inner else NO_ANNOTATIONS
    return Found(item, "attribute", name, annotations, title)


def attached(item: Node) -> Node | None:
    """The item an attribute is written on (the next sibling that is not an attribute or comment)."""
    node = item.next_named_sibling
    while node is not None and node.type in _SKIPPED:
        node = node.next_named_sibling
    return node


def constructor(file: SourceFile, call: Node) -> tuple[str, str] | None:
    """(type, constructor) when ``call`` is a known tool constructor such as ``Tool::new``."""
    segments = path_segments(file, call.child_by_field_name("function") or call)
    if len(segments) < 2 or segments[-2] not in CONSTRUCTORS:
        return None
    return (segments[-2], segments[-1]) if segments[-1] in CONSTRUCTORS[segments[-2]][1] else None


def builder_tool(file: SourceFile, call: Node, evaluator: Evaluator) -> Found:
    """A constructor call and the builder methods chained on it (``.annotate(..)``, ``.with_title(..)``)."""
    kind, method = constructor(file, call) or ("Tool", "new")
    args = arguments(call)
    index = CONSTRUCTORS[kind][2]
    annotations = NO_ANNOTATIONS
    if method == "with_annotations" and 0 <= index < len(args):
        annotations = evaluator.evaluate(args[index])
    title: str | None = None
    node = call
    while (step := _chained(file, node)) is not None:
        node, name, chained = step
        if name in _ANNOTATE and len(chained) == 1:
            annotations = evaluator.evaluate(chained[0])
        elif name == "with_title" and len(chained) == 1:
            title = string_value(file, chained[0])
        elif name in _CONVENIENCE and not chained:
            annotations = _convenience(annotations, name)
    for target, value in _assignments(file, node):
        if target == "annotations":
            annotations = evaluator.evaluate(value)
        elif target == "title":
            title = string_value(file, value)
    return Found(call, "builder", string_value(file, args[0]) if args else None, annotations, title)


def struct_tool(file: SourceFile, node: Node, evaluator: Evaluator) -> Found | None:
    """A ``Tool { name: .., annotations: Some(..), .. }`` literal."""
    fields = _fields(file, node)
    if path_segments(file, node.child_by_field_name("name") or node)[-1:] != ["Tool"] or "name" not in fields:
        return None
    value = fields.get("annotations")
    annotations = evaluator.evaluate(value) if value is not None else NO_ANNOTATIONS
    title = string_value(file, fields.get("title"))
    return Found(node, "struct", string_value(file, fields["name"]), annotations, title)


def _fields(file: SourceFile, node: Node) -> dict[str, Node]:
    found: dict[str, Node] = {}
    for entry in named(node.child_by_field_name("body") or node):
        key, value = entry.child_by_field_name("field"), entry.child_by_field_name("value")
        if entry.type == "field_initializer" and key is not None and value is not None:
            found[file.text(key)] = value
    return found


def _chained(file: SourceFile, node: Node) -> tuple[Node, str, list[Node]] | None:
    parent = node.parent
    if parent is None or parent.type != "field_expression" or parent.child_by_field_name("value") != node:
        return None
    call = parent.parent
    if call is None or call.type != "call_expression" or call.child_by_field_name("function") != parent:
        return None
    return call, file.text(parent.child_by_field_name("field")), arguments(call)


def _assignments(file: SourceFile, node: Node) -> list[tuple[str, Node]]:
    """``let mut t = Tool::new(..); t.annotations = Some(..);`` in the same block."""
    let = node.parent
    if let is None or let.type != "let_declaration":
        return []
    variable = file.text(let.child_by_field_name("pattern")).removeprefix("mut ").strip()
    found: list[tuple[str, Node]] = []
    sibling = let.next_named_sibling
    while sibling is not None:
        assignment = named(sibling)[0] if sibling.type == "expression_statement" and named(sibling) else None
        if assignment is not None and assignment.type == "assignment_expression":
            left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
            target = left.child_by_field_name("value") if left is not None else None
            if left is not None and right is not None and target is not None and file.text(target) == variable:
                found.append((file.text(left.child_by_field_name("field")), right))
        sibling = sibling.next_named_sibling
    return found


def _convenience(annotations: Annotations, method: str) -> Annotations:
    """pmcp's zero-argument ``.read_only()`` / ``.destructive()`` / ... on a typed tool."""
    result = annotations if annotations.declared else Annotations(source="options")
    if method == "destructive":
        result = result.with_hint("read_only_hint", "false")
    return result.with_hint(f"{method}_hint", TRUE)


def _hints(annotations: Annotations) -> list[str]:
    return [annotations.read_only_hint, annotations.destructive_hint,
            annotations.idempotent_hint, annotations.open_world_hint]
