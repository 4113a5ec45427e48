"""A small population census for the coverage and population-report tests: seven synthetic trees,
one of each coverage reason, and an entry whose source is missing."""

from __future__ import annotations

from pathlib import Path

from tree_census import tree_census

SDK = b'{"name": "s", "dependencies": {"@modelcontextprotocol/sdk": "^1.12.0"}}'
TREES: dict[str, dict[str, bytes | tuple[str, str]]] = {
    "acme/tools": {"server.py": b"from fastmcp import FastMCP\nmcp = FastMCP('n')\n\n@mcp.tool\ndef ping(): ...\n",
                   "pyproject.toml": b'[project]\nname = "t"\ndependencies = ["fastmcp"]\n'},
    "acme/remote": {"package.json": SDK, "src/server.ts": (
        b'import { Server } from "@modelcontextprotocol/sdk/server/index.js";\n'
        b'import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";\n'
        b'const server = new Server({ name: "r", version: "1" }, { capabilities: { tools: {} } });\n'
        b'server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await fetchTools() }));\n')},
    "acme/moved": {"README.md": b"# old\n\nThis server has moved to https://github.com/acme/new-home.\n",
                   "package.json": SDK, "index.js": b"console.log('gone')\n"},
    "acme/list": {"README.md": b"# Awesome MCP servers\n\n- https://github.com/acme/tools\n"},
    "acme/sdk": {"package.json": SDK, "examples/echo.ts": (
        b'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\n'
        b'const server = new McpServer({ name: "e", version: "1" });\n'
        b'server.tool("echo", "Echo", {}, async () => ({ content: [] }));\n')},
    "acme/lisp": {"package.json": SDK, "src/server.clj": b'(def tools [{:name "x" :readOnlyHint true}])\n'},
    "acme/quiet": {"package.json": SDK, "index.js": b"console.log('hello')\n"},
    "acme/fork": {"package.json": (b'{"name": "f", "repository": {"type": "git", "url": "git+https://github.com/'
                                   b'upstream/server.git"}, "dependencies": {"@modelcontextprotocol/sdk": "1"}}'),
                  "index.js": b"console.log('see upstream')\n"},
    "acme/docs": {"package.json": SDK, "docs/index.md": b"# The server's documentation\n", "logo.svg": b"<svg/>"},
    "acme/inspector": {"package.json": SDK, "src/inspect.ts": (
        b'import { Client } from "@modelcontextprotocol/sdk/client/index.js";\n'
        b'export const client = new Client({ name: "inspector", version: "1" });\n')},
    "acme/prompts": {"package.json": SDK, "src/server.ts": (
        b'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\n'
        b'const server = new McpServer({ name: "p", version: "1" });\n'
        b'server.registerPrompt("summarize", { description: "Summarize" }, () => ({ messages: [] }));\n')},
}
def population_census(tmp_path: Path) -> Path:
    """The census database of ``TREES`` (manifest ``population``) built under ``tmp_path``."""
    gone = f'[[repos]]\nrepo = "acme/gone"\ncommit = "{"f" * 40}"\nsource = "missing.tar.gz"\n'
    db, statuses = tree_census(tmp_path, "population", TREES, extra=gone)
    assert len(statuses) == len(TREES) + 1
    return db
