"""The Python libraries the detector knows: standalone decorators, ``from_function`` owners, and the
server SDK a file's imports point to when a receiver does not resolve to its constructor."""

from __future__ import annotations

from pipeline.scan.detect.deps import Dependencies, Dependency
from pipeline.scan.detect.python.scope import Kind, Scope
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
        return FASTMCP if _server_manifest(dependencies, path) == FASTMCP else Kind("python-mcp", "v1")
    return None


def declared(dependencies: Dependencies, path: str) -> Kind | None:
    """The MCP server SDK the nearest manifest declares, unless it also declares an agent framework
    whose ``@agent.tool`` looks the same."""
    if _enclosing(dependencies, SDKS["pydantic-ai"].packages, path):
        return None
    return _server_manifest(dependencies, path)


def _server_manifest(dependencies: Dependencies, path: str) -> Kind | None:
    """``fastmcp`` or ``mcp`` (with its major version), whichever the nearest manifest enclosing
    ``path`` declares (``fastmcp`` when one manifest declares both)."""
    fast = _enclosing(dependencies, SDKS["python-fastmcp"].packages, path)
    found = _enclosing(dependencies, ("mcp",), path)
    if fast is not None and (found is None or len(fast.directory) >= len(found.directory)):
        return FASTMCP
    if found is None:
        return None
    return Kind("python-mcp", "v2" if (found.version or "").lstrip(">=~^ ").startswith("2") else "v1")


def _enclosing(dependencies: Dependencies, names: tuple[str, ...], path: str) -> Dependency | None:
    """The dependency from the nearest manifest whose folder holds ``path`` (another project's
    manifest in the same tree says nothing about this file)."""
    found = dependencies.find(names, path)
    if found is None or not (found.directory == "" or path.startswith(found.directory + "/")):
        return None
    return found


def matches(qual: str, prefix: str, name: str) -> bool:
    """Whether ``qual`` is function ``name`` of package ``prefix`` (or a submodule)."""
    return qual.startswith(prefix + ".") and qual.rsplit(".", 1)[-1] == name


KNOWN_ROOTS = frozenset(p[0].split(".")[0] for p in DECORATORS) | {"fastmcp", "mcp", "pydantic_ai"}
