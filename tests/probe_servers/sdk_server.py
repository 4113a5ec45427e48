"""An MCP server written with the official ``mcp`` SDK (``MCPServer``), with known tools.

Run as a stdio server: ``python sdk_server.py``. ``http_server.py`` serves the same tools
over Streamable HTTP. The expected wire values are in ``tests/runtime/test_probe.py``.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("census-probe-sdk", log_level="WARNING")


@server.tool(annotations=ToolAnnotations(title="Search notes", read_only_hint=True, destructive_hint=False,
                                         idempotent_hint=True, open_world_hint=False))
def search_notes(query: str) -> str:
    """All four hints and an annotations title, written in v2's snake_case."""
    return query


@server.tool(title="Delete a note", annotations=ToolAnnotations.model_validate({"destructiveHint": True}))
def delete_note(note_id: int) -> str:
    """One hint only, written with its camelCase alias; a tool-level title."""
    return str(note_id)


@server.tool(annotations=ToolAnnotations(read_only_hint=False, open_world_hint=True))
def add_note(text: str) -> str:
    """Two hints of four."""
    return text


@server.tool()
def ping() -> str:
    """No annotations at all."""
    return "pong"


if __name__ == "__main__":
    server.run()
