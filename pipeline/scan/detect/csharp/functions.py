"""Azure Functions' MCP tool trigger, C# (``Microsoft.Azure.Functions.Worker.Extensions.Mcp``, key
``csharp-azure-functions``).

A function whose parameter carries ``[McpToolTrigger(name, description)]`` is one tool, on the
line of the attribute (rule ``csharp.csharp-azure-functions.trigger``). The name is the first
argument: a string, a ``const string`` of the tree (``ToolsInformation.HelloToolName``) or
``nameof(Method)``. The extension declares no hints (its trigger takes a name, a description,
properties and metadata), so each row's annotations are ``none``. Attribution: the file's
``using Microsoft.Azure.Functions.Worker.Extensions.Mcp`` or the nearest ``*.csproj`` referencing
that package.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import tree_sitter

from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.model import NO_ANNOTATIONS, Tool
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import capture_map, compiled, named, unquote

SDK = "csharp-azure-functions"
PACKAGE = "Microsoft.Azure.Functions.Worker.Extensions.Mcp"
_USING = re.compile(rb"^[ \t]*(?:global\s+)?using\s+Microsoft\.Azure\.Functions\.Worker\.Extensions\.Mcp\b", re.M)
_QUERY = '(attribute name: (_) @n (#match? @n "(^|[.])McpToolTrigger(Attribute)?$")) @trigger'


def trigger_tools(file: SourceFile, dependencies: Dependencies, constants: dict[str, str | None]) -> Iterator[Tool]:
    """One row per ``[McpToolTrigger(...)]`` of ``file`` that the package attributes."""
    if b"mcptooltrigger" not in file.lower:
        return
    if _USING.search(file.data) is None and dependencies.find((PACKAGE,), file.path) is None:
        return
    query = compiled("tree_sitter_c_sharp", "language", _QUERY)
    for node in capture_map(query, file.tree.root_node).get("trigger", []):
        yield Tool(path=file.path, line=file.line(node), sdk=SDK, tool_name=_name(file, node, constants),
                   rule=f"csharp.{SDK}.trigger", annotations=NO_ANNOTATIONS, via="direct")


def _name(file: SourceFile, attribute: tree_sitter.Node, constants: dict[str, str | None]) -> str | None:
    """The tool's name: the attribute's first positional argument, read as a string."""
    args = next((c for c in attribute.children if c.type == "attribute_argument_list"), None)
    first = next((a for a in named(args) if a.type == "attribute_argument" and a.child_by_field_name("name") is None),
                 None) if args is not None else None
    value = named(first)[-1] if first is not None and named(first) else None
    if value is None:
        return None
    text = file.text(value)
    if value.type == "string_literal":
        return unquote(text)
    if text.startswith("nameof(") and text.endswith(")"):
        return text[len("nameof(") : -1].rsplit(".", 1)[-1].strip()
    if value.type in ("identifier", "member_access_expression"):
        return constants.get(text.rsplit(".", 1)[-1])
    return None
