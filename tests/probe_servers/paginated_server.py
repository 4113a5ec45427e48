"""A low-level ``mcp`` Server whose tools/list answer comes in pages of three, with ``nextCursor``.

Seven tools ``tool_0`` .. ``tool_6``: even ones are read-only, ``tool_6`` has no annotations.
The cursor is the offset of the next page, as text.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

PAGE = 3
SCHEMA = {"type": "object", "properties": {}}


def _tool(n: int) -> types.Tool:
    annotations = None if n == 6 else types.ToolAnnotations(read_only_hint=n % 2 == 0)
    return types.Tool(name=f"tool_{n}", input_schema=SCHEMA, annotations=annotations)


TOOLS = [_tool(n) for n in range(7)]


async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    """One page of ``TOOLS``, from the offset the cursor holds."""
    start = int(params.cursor) if params is not None and params.cursor else 0
    end = start + PAGE
    return types.ListToolsResult(tools=TOOLS[start:end], next_cursor=str(end) if end < len(TOOLS) else None)


async def main() -> None:
    """Serve over stdio until stdin closes."""
    server: Server[Any] = Server("census-probe-paginated", on_list_tools=list_tools)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
