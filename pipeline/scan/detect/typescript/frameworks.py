"""The registration forms of TypeScript MCP frameworks beside the official SDK, each attributed by
the file's imports: what one call defines, as (sdk, form, definitions), or None.

- ``ts-fastmcp`` (punkpeye fastmcp, litemcp): ``server.addTool({...})``, ``server.addTools([...])``;
- ``ts-tmcp`` (tmcp): ``server.tool({ name, ... }, fn)``, ``defineTool({...}, fn)``;
- ``ts-azure-functions``: ``app.mcpTool(name, { toolName, ... })``.
"""

from __future__ import annotations

from pipeline.scan.detect.model import NO_ANNOTATIONS
from pipeline.scan.detect.typescript import forms
from pipeline.scan.detect.typescript.annotations import ToolInfo
from pipeline.scan.detect.typescript.imports import Imports
from pipeline.scan.detect.typescript.resolver import Resolver
from pipeline.scan.detect.typescript.values import Ref, arguments, unwrap

#: what a tool object argument may be written as: a literal, a constant, a factory's call
OBJECTISH = ("object", "identifier", "call_expression")


def framework_form(res: Resolver, call: Ref, name: str, member: bool, imports: Imports
                   ) -> tuple[str, str, forms.Found] | None:
    """The definitions ``call`` (of ``name``; ``member``: ``x.name(...)``) makes in a framework."""
    args = arguments(call.node)
    first = unwrap(args[0]).type if args else ""
    if name in ("tool", "defineTool") and member == (name == "tool") and imports.tmcp and first in OBJECTISH:
        return "ts-tmcp", "tool" if member else "define-tool", forms.object_tools(res, call, False)
    if member and name in ("addTool", "addTools") and imports.fastmcp:
        many = name == "addTools"
        return "ts-fastmcp", "add-tools" if many else "add-tool", forms.object_tools(res, call, many)
    if member and name == "mcpTool" and imports.azure_functions and len(args) >= 2:
        options = res.resolve(call.at(args[1]))[0]
        named = res.string(res.get(options, "toolName")) if options.node.type == "object" else None
        return "ts-azure-functions", "trigger", [(call, ToolInfo(named, None, NO_ANNOTATIONS))]
    return None
