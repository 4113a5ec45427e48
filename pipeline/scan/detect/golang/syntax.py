"""Go syntax helpers for the Go detector: imports, queries, literal fields and value reading.

Values are read one level deep: a literal, a pointer helper around a literal (``boolPtr(false)``,
``jsonschema.Ptr(true)``, ``new(false)``), the address of a variable bound to a literal in the
same file (``&additive`` with ``additive := false``), or a project constant learned in phase 1.
Inside a wrapper's body a parameter is a ``Param``: the call site supplies its value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

import tree_sitter

from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import capture_map, compiled, named, unquote

Node = tree_sitter.Node

#: import path -> SDK key, for the packages that define tools
TOOL_PACKAGES = {
    "github.com/modelcontextprotocol/go-sdk/mcp": "go-official",
    "github.com/mark3labs/mcp-go/mcp": "go-mcp-go",
    "github.com/strowk/foxy-contexts/pkg/mcp": "go-foxy-contexts",
    "github.com/acrmp/mcp": "go-acrmp",
}
#: import path -> SDK key, for mcp-golang (its registration is ``server.RegisterTool``)
GOLANG_PACKAGE = "github.com/metoro-io/mcp-golang"
#: lower-cased import prefixes of the SDKs
IMPORT_MARKERS = (b"github.com/modelcontextprotocol/go-sdk", b"github.com/mark3labs/mcp-go",
                  b"github.com/metoro-io/mcp-golang", b"github.com/strowk/foxy-contexts", b"github.com/acrmp/mcp")
#: lower-cased text of a tool definition: without it, an SDK file defines no tool
UNIT_MARKER = re.compile(rb"\.tool\s*\{|\.newtool(?:withrawschema)?\s*\(|\.registertool\s*\(")
#: lower-cased text of what phase 1 learns, each (pattern, what must end just before it): a preset
#: ``x = &mcp.ToolAnnotations{`` / ``return mcp.ToolAnnotation{``, a ``tool mcp.Tool`` parameter, a
#: tool named by a variable (``Name: name``, ``mcp.NewTool(name``). Patterns start with a literal: fast.
_INDEX_MARKERS = (
    (re.compile(rb"\.toolannotations?\s*\{"), re.compile(rb"(?:=|return)\s*&?\s*\w+\Z")),
    (re.compile(rb"\.tool\s*[,)]"), re.compile(rb"[(,]\s*\w+\s+\*?\w+\Z")),
    (re.compile(rb"name:\s*[a-z_]\w*\s*[,}\r\n]"), None),
    (re.compile(rb"\.newtool(?:withrawschema)?\(\s*[a-z_]\w*\s*[,)]"), None),
)


def worth_indexing(lower: bytes) -> bool:
    """Whether lower-cased Go source may hold a preset, a tool helper or a wrapper (phase 1)."""
    for pattern, before in _INDEX_MARKERS:
        for found in pattern.finditer(lower):
            if before is None or before.search(lower, max(0, found.start() - 80), found.start()):
                return True
    return False

#: the SDK calls that define tools (``pkg.NewTool(``, ``server.RegisterTool(``)
SDK_CALLS = ("NewTool", "NewToolWithRawSchema", "RegisterTool")
_DETECT = """
(import_spec) @import
(const_spec) @const
(composite_literal type: (qualified_type name: (type_identifier) @_type (#eq? @_type "Tool"))) @literal
(composite_literal type: [(slice_type) (array_type) (implicit_length_array_type) (map_type)]) @literal
"""
_INDEX = """
(var_spec) @var
(short_var_declaration) @short
(composite_literal type: (qualified_type name: (type_identifier) @_type
  (#match? @_type "^ToolAnnotations?$"))) @literal
(function_declaration) @function
(method_declaration) @function
"""


def _names(names: tuple[str, ...]) -> str:
    return " ".join('"' + name.replace('"', "") + '"' for name in names)


@cache
def query(wrappers: tuple[str, ...] = (), index: bool = False) -> tree_sitter.Query:
    """The Go nodes a phase reads: tool literals, SDK calls and calls of the project's ``wrappers``
    (plus, for phase 1, declarations and annotation literals). Built once per set of wrappers."""
    calls = _names(SDK_CALLS + wrappers)
    patterns = _DETECT + (_INDEX if index else "") + (
        f"(call_expression function: (selector_expression field: (field_identifier) @_call (#any-of? @_call {calls})))"
        " @call\n"
    )
    if wrappers:
        patterns += f"(call_expression function: (identifier) @_call (#any-of? @_call {_names(wrappers)})) @call\n"
    return compiled("tree_sitter_go", "language", patterns)


def captures(root: Node, wrappers: tuple[str, ...] = (), index: bool = False) -> dict[str, list[Node]]:
    """The captures of ``query(wrappers, index)`` under ``root``, each list in source order, deduplicated."""
    return capture_map(query(wrappers, index), root)


@dataclass(frozen=True)
class Imports:
    """What a Go file imports of the MCP SDKs, by the local package name."""

    tools: dict[str, str] = field(default_factory=dict)
    """local name -> SDK key, for packages whose ``Tool`` / ``NewTool`` define tools."""
    golang: frozenset[str] = frozenset()
    """local names of metoro-io/mcp-golang."""
    sdks: frozenset[str] = frozenset()
    """SDK keys imported in any package (servers, clients)."""
    mirrors: frozenset[str] = frozenset()
    """local names (among ``tools``) of the project's own packages that mirror an SDK's types."""
    builders: frozenset[str] = frozenset()
    """local names (among ``tools``) of the project's own packages that keep mcp-go's builder API."""


def read_imports(file: SourceFile, specs: list[Node]) -> Imports:
    """The SDK imports of a file from its ``import_spec`` nodes (aliases resolved)."""
    tools: dict[str, str] = {}
    golang: set[str] = set()
    sdks: set[str] = set()
    for spec in specs:
        path = unquote(file.text(spec.child_by_field_name("path"))) or ""
        alias = file.text(spec.child_by_field_name("name"))
        if path in TOOL_PACKAGES:
            tools[alias or "mcp"] = TOOL_PACKAGES[path]
        elif path == GOLANG_PACKAGE:
            golang.add(alias or "mcp_golang")
        for prefix, key in (("github.com/modelcontextprotocol/go-sdk", "go-official"),
                            ("github.com/mark3labs/mcp-go", "go-mcp-go"), (GOLANG_PACKAGE, "go-mcp-golang"),
                            ("github.com/strowk/foxy-contexts", "go-foxy-contexts"),
                            ("github.com/acrmp/mcp", "go-acrmp")):
            if path == prefix or path.startswith(prefix + "/"):
                sdks.add(key)
    return Imports(tools, frozenset(golang), frozenset(sdks))


def unwrap(node: Node | None) -> Node | None:
    """The expression inside a ``literal_element`` or parentheses."""
    while node is not None and node.type in ("literal_element", "parenthesized_expression"):
        inner = [c for c in named(node) if c.type != "comment"]
        node = inner[0] if inner else None
    return node


def literal_fields(file: SourceFile, body: Node | None) -> dict[str, Node]:
    """``Key: value`` pairs of a ``literal_value`` (values unwrapped)."""
    fields: dict[str, Node] = {}
    for element in named(body) if body is not None else []:
        if element.type == "keyed_element":
            key, value = unwrap(element.child_by_field_name("key")), unwrap(element.child_by_field_name("value"))
            if key is not None and value is not None:
                fields[file.text(key)] = value
    return fields


def qualified(file: SourceFile, node: Node | None) -> tuple[str, str] | None:
    """(package, name) of a ``pkg.Name`` type, through a pointer (``*pkg.Name``)."""
    while node is not None and node.type == "pointer_type":
        node = named(node)[-1] if named(node) else None
    if node is None or node.type != "qualified_type":
        return None
    return file.text(node.child_by_field_name("package")), file.text(node.child_by_field_name("name"))


def callee(file: SourceFile, call: Node) -> tuple[str | None, str]:
    """(operand, name) of a call's function: ``pkg.F(`` -> (pkg, F), ``F(`` -> (None, F)."""
    function = call.child_by_field_name("function")
    if function is not None and function.type == "selector_expression":
        operand = function.child_by_field_name("operand")
        plain = operand is not None and operand.type == "identifier"
        return (file.text(operand) if plain else "", file.text(function.child_by_field_name("field")))
    return None, file.text(function)


def arguments(call: Node) -> list[Node]:
    """The arguments of a call, comments left out."""
    args = call.child_by_field_name("arguments")
    return [a for a in named(args) if a.type != "comment"] if args is not None else []


def strip_address(node: Node | None) -> Node | None:
    """The operand of ``&x``, else the node itself."""
    node = unwrap(node)
    operator = node.child_by_field_name("operator") if node is not None else None
    if node is not None and node.type == "unary_expression" and operator is not None and operator.type == "&":
        return unwrap(node.child_by_field_name("operand"))
    return node
