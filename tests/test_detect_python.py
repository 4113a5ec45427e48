"""Focused checks of the Python detector on tiny in-memory trees (real parsing, no mocks)."""

from __future__ import annotations

from pipeline.scan.detect import Detector
from pipeline.scan.detect.model import Tool


def _tools(files: dict[str, str]) -> list[Tool]:
    detector = Detector()
    for path, source in files.items():
        if detector.wants(path, len(source)):
            detector.add(path, source.encode())
    return sorted(detector.finish().tools, key=lambda t: (t.path, t.line))


def test_receiver_name_does_not_decide() -> None:
    source = "from fastmcp import FastMCP\nweird_name = FastMCP('x')\n\n@weird_name.tool\ndef ping(): ...\n"
    [tool] = _tools({"s.py": source})
    assert (tool.sdk, tool.tool_name, tool.line) == ("python-fastmcp", "ping", 4)
    assert tool.rule == "python.python-fastmcp.decorator"


def test_tool_decorator_without_mcp_import_is_not_a_tool() -> None:
    source = "class R:\n    def tool(self, f): return f\nmcp = R()\n\n@mcp.tool()\ndef ping(): ...\n"
    assert _tools({"s.py": source}) == []


def test_bare_decorator_of_official_sdk_registers_nothing() -> None:
    source = "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\n\n@mcp.tool\ndef ping(): ...\n"
    assert _tools({"s.py": source}) == []


def test_helper_arguments_are_substituted_by_keyword() -> None:
    helper = (
        "from mcp.types import ToolAnnotations\n"
        "def hints(title, writes=False):\n"
        "    return ToolAnnotations(title=title, readOnlyHint=writes, destructiveHint=writes)\n"
    )
    server = (
        "from fastmcp import FastMCP\nfrom hints import hints\nmcp = FastMCP('x')\n"
        "@mcp.tool(annotations=hints(title='Drop', writes=True))\ndef drop(): ...\n"
    )
    [tool] = _tools({"hints.py": helper, "server.py": server})
    assert tool.annotations.title == "Drop"
    assert (tool.annotations.read_only_hint, tool.annotations.destructive_hint) == ("true", "true")
    assert tool.via == "preset:hints" == tool.annotations.source


def test_server_imported_from_another_module_resolves() -> None:
    app = "from mcp.server.mcpserver import MCPServer\nmcp = MCPServer('x')  # tools live in tools.py\n"
    tools = "from app import mcp as server\n\n@server.tool(annotations={'read_only_hint': True})\ndef ro(): ...\n"
    [tool] = _tools({"app.py": app, "tools.py": tools})
    assert (tool.sdk, tool.rule, tool.annotations.read_only_hint) == (
        "python-mcp", "python.python-mcp.decorator-v2", "true")


def test_tool_level_title_is_not_the_annotations_title() -> None:
    source = "from fastmcp import FastMCP\nmcp = FastMCP('x')\n\n@mcp.tool(title='Ping')\ndef ping(): ...\n"
    [tool] = _tools({"s.py": source})
    assert (tool.tool_title, tool.annotations.title, tool.annotations.source) == ("Ping", None, "none")


def test_a_receiver_imported_from_another_module_resolves_to_its_constructor() -> None:
    app = "from mcp.server.mcpserver import MCPServer\nmcp = MCPServer('x')\n"
    tools = "from app import mcp\n\n@mcp.tool()\ndef ping(): ...\n"
    for tree in ({"app.py": app, "tools.py": tools}, {"app.py": app, "tools.py": tools, "requirements.txt": "mcp\n"}):
        [tool] = _tools(tree)
        assert (tool.path, tool.sdk, tool.rule) == ("tools.py", "python-mcp", "python.python-mcp.decorator-v2")
