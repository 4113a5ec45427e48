"""A small population census for the coverage and population-report tests: seven synthetic trees,
one of each coverage reason, and an entry whose source is missing."""

from __future__ import annotations

from pathlib import Path

from synth import tarball

from pipeline.census import Census
from pipeline.manifest import load
from pipeline.settings import Settings
from pipeline.store import Store

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
    lines = ['[census]\nname = "population"\n']
    for i, (repo, tree) in enumerate(TREES.items()):
        commit = f"{i + 1:x}" * 40
        (tmp_path / f"{i}.tar.gz").write_bytes(tarball(tree, root=f"r{i}", commit=commit))
        lines.append(f'[[repos]]\nrepo = "{repo}"\ncommit = "{commit}"\nsource = "{i}.tar.gz"\n')
    lines.append(f'[[repos]]\nrepo = "acme/gone"\ncommit = "{"f" * 40}"\nsource = "missing.tar.gz"\n')
    (tmp_path / "m.toml").write_text("\n".join(lines))
    settings = Settings(db_path=tmp_path / "c.duckdb", cache_dir=tmp_path / "cache", api_url="http://127.0.0.1:9")
    census = Census(load(tmp_path / "m.toml"), settings)
    with Store(settings.db_path) as store:
        assert len(list(census.run(store))) == len(TREES) + 1
    census.close()
    return settings.db_path
