"""The Python libraries the detector knows: standalone decorators, ``from_function`` owners, and the
server SDK a file's imports point to when a receiver does not resolve to its constructor."""

from __future__ import annotations

from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.python_scope import Kind, Scope
from pipeline.scan.detect.sdks import SDKS

#: standalone decorators: (package prefix, function name, sdk, form, keyword holding the name)
DECORATORS = (
    ("fastmcp.contrib", "mcp_tool", "python-fastmcp", "mixin-decorator", "name"),
    ("fastmcp", "tool", "python-fastmcp", "standalone-decorator", "name"),
    ("claude_agent_sdk", "tool", "python-claude-agent-sdk", "decorator", "name"),
    ("langchain_core", "tool", "langchain", "decorator", "name"),
    ("langchain", "tool", "langchain", "decorator", "name"),
    ("crewai", "tool", "crewai", "decorator", "name"),
    ("crewai_tools", "tool", "crewai", "decorator", "name"),
    ("agents", "function_tool", "openai-agents", "decorator", "name_override"),
    ("strands", "tool", "strands", "decorator", "name"),
    ("agno", "tool", "agno", "decorator", "name"),
    ("smolagents", "tool", "smolagents", "decorator", "name"),
)
#: packages whose ``X.from_function`` defines a tool
FROM_FUNCTION = {"fastmcp": "python-fastmcp", "langchain_core": "langchain", "langchain": "langchain"}
FASTMCP = Kind("python-fastmcp", "fastmcp")


def fallback(scope: Scope, dependencies: Dependencies, path: str) -> Kind | None:
    """The server SDK a file's imports point to, for a receiver that does not resolve."""
    quals = set(scope.imports.values())
    if scope.imported_from("fastmcp"):
        return FASTMCP
    if scope.imported_from("mcp.server.mcpserver", "mcp_types") or "mcp.server.MCPServer" in quals:
        return Kind("python-mcp", "v2")
    if scope.imported_from("mcp.server.fastmcp") or "mcp.server.FastMCP" in quals:
        return Kind("python-mcp", "v1")
    if scope.imported_from("mcp"):
        return FASTMCP if dependencies.find(SDKS["python-fastmcp"].packages, path) else Kind("python-mcp", "v1")
    return None


def declared(dependencies: Dependencies, path: str) -> Kind | None:
    """The MCP server SDK the nearest manifest declares, unless it also declares an agent framework
    whose ``@agent.tool`` looks the same."""
    if dependencies.find(SDKS["pydantic-ai"].packages, path):
        return None
    if dependencies.find(SDKS["python-fastmcp"].packages, path):
        return FASTMCP
    found = dependencies.find(("mcp",), path)
    if found is None:
        return None
    return Kind("python-mcp", "v2" if (found.version or "").lstrip(">=~^ ").startswith("2") else "v1")


def matches(qual: str, prefix: str, name: str) -> bool:
    """Whether ``qual`` is function ``name`` of package ``prefix`` (or a submodule)."""
    return qual.startswith(prefix + ".") and qual.rsplit(".", 1)[-1] == name


KNOWN_ROOTS = frozenset(p[0].split(".")[0] for p in DECORATORS) | {"fastmcp", "mcp", "pydantic_ai"}
