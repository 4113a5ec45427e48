"""An MCP server written with standalone ``fastmcp`` (not the official SDK), with known tools."""

from __future__ import annotations

from fastmcp import FastMCP
from mcp.types import ToolAnnotations

server = FastMCP("census-probe-fastmcp")


@server.tool(annotations={"readOnlyHint": True, "openWorldHint": True})
def fetch_page(url: str) -> str:
    """Hints given as a dict with the wire's camelCase keys."""
    return url


@server.tool(annotations=ToolAnnotations(title="Drop table", destructive_hint=True, idempotent_hint=False))
def drop_table(name: str) -> str:
    """Hints given as the SDK's ToolAnnotations, with a title."""
    return name


@server.tool
def version() -> str:
    """No annotations; registered with the bare decorator fastmcp allows."""
    return "1"


if __name__ == "__main__":
    server.run(show_banner=False)
