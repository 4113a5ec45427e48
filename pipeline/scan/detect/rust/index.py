"""Phase 1 of the Rust detector: the project's annotation presets and tool wrappers.

- A preset is a ``const``/``static`` whose value, or a ``fn`` returning ``ToolAnnotations`` whose
  last expression, reads as annotations (``fn read_only() -> ToolAnnotations { .. }``).
- A wrapper is a project ``fn`` returning a ``..Tool..`` type that builds a tool (``Tool::new``,
  ``ToolInfo::new``, a ``Tool { .. }`` literal) from one of its own parameters as the name; each
  call of it (``name(..)``, ``name::<T>(..)``, or ``x.name(..)`` for a method) is a tool.
  Hints written as the wrapper's parameters are read from each call's arguments.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import tree_sitter

from pipeline.scan.detect.model import DYNAMIC, Annotations
from pipeline.scan.detect.rust.annotations import Evaluator
from pipeline.scan.detect.rust.forms import Found, builder_tool, constructor, struct_tool
from pipeline.scan.detect.rust.values import Resolver
from pipeline.scan.detect.source import SourceFile, parser_for
from pipeline.scan.detect.syntax import Node, capture_map, compiled, enclosing, named

QUERY = """
(attribute_item) @attr
(call_expression function: [(scoped_identifier) (generic_function) (identifier)] @fn) @call
(call_expression function: (field_expression field: (field_identifier) @method)) @mcall
(struct_expression) @struct
(struct_item name: (type_identifier) @typename)
(field_expression field: (field_identifier) @field)
(const_item) @const
(static_item) @const
(function_item) @function
"""


_TOOL_TYPE = re.compile(r"\b(?:Tool|ToolInfo|TypedTool\w*|SimpleTool)\b")
_VEC = re.compile(rb"(?<![\w!])vec!(?=\s*[\[(])")


def query() -> tree_sitter.Query:
    """The query every Rust phase runs once per file."""
    return compiled("tree_sitter_rust", "language", QUERY)


def captures(file: SourceFile) -> dict[str, list[Node]]:
    """Every capture of ``QUERY`` in ``file``, in source order.

    tree-sitter leaves macro bodies as token trees, so ``vec![Tool::new(..), ..]`` would hide its
    tools: ``vec!`` is blanked to spaces (same offsets and lines) and the array parsed as code.
    """
    def run() -> dict[str, list[Node]]:
        root = file.tree.root_node if b"vec!" not in file.data else parser_for("tree_sitter_rust", "language").parse(
            _VEC.sub(b"    ", file.data)).root_node
        return capture_map(query(), root)

    return file.kept("rust", run)


@dataclass(frozen=True)
class Wrapper:
    """A project function that defines one tool per call."""

    name: str
    path: str
    sdk: str
    name_index: int
    """position of the parameter holding the tool name."""
    found: Found
    """the tool the wrapper builds, hints as ``param:<i>`` where they come from parameters."""
    method: bool = False
    """a method (``&self``), called as ``x.name(..)``."""


def presets(file: SourceFile, nodes: dict[str, list[Node]], resolve: Resolver) -> Iterator[tuple[str, Annotations]]:
    """(name, annotations) of every preset ``file`` defines."""
    evaluator = Evaluator(file, resolve)
    for item in nodes.get("const", []):
        value = item.child_by_field_name("value")
        if value is not None and "ToolAnnotations" in file.text(item.child_by_field_name("type")):
            yield from _readable(file.text(item.child_by_field_name("name")), evaluator.evaluate(value))
    for item in nodes.get("function", []):
        if "ToolAnnotations" in file.text(item.child_by_field_name("return_type")):
            body = [n for n in named(item.child_by_field_name("body") or item) if "comment" not in n.type]
            if body:
                yield from _readable(file.text(item.child_by_field_name("name")), evaluator.evaluate(body[-1]))


def _readable(name: str, annotations: Annotations) -> Iterator[tuple[str, Annotations]]:
    if annotations.source not in (DYNAMIC, "none"):
        yield name, annotations


def wrappers(file: SourceFile, nodes: dict[str, list[Node]], sdk: str, resolve: Resolver) -> Iterator[Wrapper]:
    """Every function of ``file`` that builds a tool named by one of its parameters."""
    definitions = [n for n in nodes.get("call", []) if constructor(file, n)] + nodes.get("struct", [])
    seen: set[int] = set()
    for node in definitions:
        item = enclosing_function(node)
        returns = file.text(item.child_by_field_name("return_type")) if item is not None else ""
        wanted = item is not None and item.id not in seen and _TOOL_TYPE.search(returns) is not None
        params = parameters(file, item) if item is not None and wanted else {}
        index = _name_parameter(file, node, params) if params else None
        if item is None or index is None:
            continue
        evaluator = Evaluator(file, resolve, params)
        found = builder_tool(file, node, evaluator) if node.type == "call_expression" else (
            struct_tool(file, node, evaluator))
        if found is not None:
            seen.add(item.id)
            method = any(p.type == "self_parameter" for p in named(item.child_by_field_name("parameters") or item))
            yield Wrapper(file.text(item.child_by_field_name("name")), file.path, sdk, index, found, method)


def parameters(file: SourceFile, function: Node) -> dict[str, int]:
    """Parameter name -> position (``self`` not counted)."""
    params = [p for p in named(function.child_by_field_name("parameters") or function) if p.type == "parameter"]
    return {file.text(p.child_by_field_name("pattern")).removeprefix("mut ").strip(): i for i, p in enumerate(params)}


def enclosing_function(node: Node) -> Node | None:
    """The nearest ``fn`` around ``node``."""
    return enclosing(node, ("function_item",))


def _name_parameter(file: SourceFile, node: Node, params: dict[str, int]) -> int | None:
    if node.type == "call_expression":
        args = named(node.child_by_field_name("arguments") or node)
        first = args[0] if args else None
    else:
        first = next((f.child_by_field_name("value") for f in named(node.child_by_field_name("body") or node)
                      if f.type == "field_initializer" and file.text(f.child_by_field_name("field")) == "name"), None)
    if first is None:
        return None
    text = file.text(first).split(".")[0].strip().lstrip("&")
    return params.get(text)
