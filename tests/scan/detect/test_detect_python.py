"""Focused checks of the Python detector on tiny in-memory trees (real parsing, no mocks)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.scan.detect.corpus import detect_files
from pipeline.scan.detect.model import Tool
from pipeline.scan.detect.python.prefilter import SHAPE_WORDS, has_call_shape, imports_any


def _tools(files: dict[str, str]) -> list[Tool]:
    found = detect_files({path: text.encode() for path, text in files.items()}).tools
    return sorted(found, key=lambda t: (t.path, t.line))


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


WRAP = (
    "def wrap(server, name, **extra):\n"
    "    def deco(fn):\n"
    "        server.tool(name=name, **extra)(fn)\n"
    "        return fn\n"
    "    return deco\n"
)


def test_a_wrapper_applied_as_a_call_names_its_tool_from_the_bound_argument() -> None:
    use = (
        "from wrap import wrap\nfrom mcp.server.fastmcp import Context\n\n"
        "class H:\n    def __init__(self, server):\n"
        "        wrap(server, 'first', title='First', annotations={'readOnlyHint': True})(self.one)\n"
        "        wrap(server, name='second')(self.two)\n"
    )
    first, second = _tools({"wrap.py": WRAP, "use.py": use})
    assert (first.tool_name, first.line, first.tool_title) == ("first", 6, "First")
    assert first.annotations.read_only_hint == "true"
    assert (second.tool_name, second.rule, second.via) == ("second", "python.python-mcp.wrapper", "wrapper:wrap")


def test_a_wrapper_use_without_mcp_imports_takes_the_nearest_manifest() -> None:
    use = "from a.wrap import wrap\n\ndef install(server):\n    wrap(server, 'x')(print)  # tool\n"
    [tool] = _tools({"a/wrap.py": WRAP, "a/use.py": use,
                     "a/requirements.txt": "fastmcp>=2\n", "b/pyproject.toml": "[project]\ndependencies=['mcp']\n"})
    assert (tool.path, tool.sdk, tool.tool_name) == ("a/use.py", "python-fastmcp", "x")


def test_a_server_passed_to_a_wrapper_decides_its_sdk() -> None:
    app = "from fastmcp import FastMCP\nmcp = FastMCP('x')\n"
    use = "from app import mcp\nfrom wrap import wrap\n\n@wrap(mcp, 'ping')\ndef ping(): ...\n"
    [tool] = _tools({"app.py": app, "wrap.py": WRAP, "use.py": use, "requirements.txt": "mcp\n"})
    assert (tool.sdk, tool.tool_name, tool.line) == ("python-fastmcp", "ping", 4)
    assert tool.rule == "python.python-fastmcp.wrapper"


def test_a_function_registering_fixed_tools_on_a_parameter_is_not_a_wrapper() -> None:
    source = "from mcp.types import ToolAnnotations\n\ndef register(mcp):\n    mcp.tool(title='A')(alpha)\n"
    [tool] = _tools({"r.py": source, "pyproject.toml": "[project]\ndependencies = ['mcp>=1.23']\n"})
    assert (tool.sdk, tool.tool_name, tool.tool_title) == ("python-mcp", "alpha", "A")
    assert tool.rule == "python.python-mcp.decorator"
    plain = "def register(registry):\n    registry.tool(title='A')(alpha)\n"
    assert _tools({"r.py": plain, "pyproject.toml": "[project]\ndependencies = ['mcp>=1.23']\n"}) == []


def test_a_wrapper_method_applied_as_a_call_is_one_wrapper_row() -> None:
    registry = (
        "from fastmcp import FastMCP\nmcp = FastMCP('x')\n\nclass Registry:\n"
        "    def __init__(self, server):\n        self._server = server\n"
        "    def tool(self, name=None, **kw):\n"
        "        def deco(fn):\n            return self._server.tool(name=name, **kw)(fn)\n        return deco\n\n"
        "registry = Registry(mcp)\n"
    )
    use = "from app import registry\n\nregistry.tool(name='lookup')(find)\n"
    [tool] = _tools({"app.py": registry, "use.py": use})
    assert (tool.path, tool.tool_name, tool.sdk) == ("use.py", "lookup", "python-fastmcp")
    assert tool.via == "wrapper:Registry.tool"


IMPORT_LINE = re.compile(
    rb"(?m)^[ \t]*(?:from|import)[ \t][^\n]*(?:mcp|claude_agent_sdk|langchain|crewai|agents|pydantic_ai|strands"
    rb"|agno|smolagents)"
)
_PIECES = st.sampled_from([b"from", b"import", b" ", b"\t", b"\n", b"\r", b"mcp", b"agents", b"strands", b"x", b".",
                           b"fromage", b"#", b"agno", b"smol", b"langchain"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=30).map(b"".join))
def test_imports_any_finds_exactly_what_the_import_line_expression_finds(source: bytes) -> None:
    assert imports_any(source) == (IMPORT_LINE.search(source) is not None)


SHAPE = re.compile(
    rb"@[\w.]*tool\b|\.(?:add_)?tool\s*\(|add_tool\(|\.tool\b(?!\s*[.=])|list_tools|from_function|function_tool"
    rb"|toolannotations"
    rb"|readonlyhint|read_only_hint|destructivehint|destructive_hint|idempotenthint|idempotent_hint|openworldhint"
    rb"|open_world_hint|class (?:fastmcp|mcpserver)"
)
NAMED_TOOL_CALL = re.compile(rb"Tool\s*\(")
_SHAPE_PIECES = st.sampled_from([b"tool", b"Tool", b"TOOL", b"tools", b"@", b".", b"(", b" ", b"\n", b"\t", b"=", b"x",
                                 b"_", b"add_", b"9", b"-", b"mcp", b"list_tools", b"hint", b"readonlyhint",
                                 b"class fastmcp", b"@mcp.", b"\xff"])


@settings(max_examples=800, deadline=None)
@given(st.lists(_SHAPE_PIECES, max_size=25).map(b"".join))
def test_the_shape_is_exactly_what_the_shape_expressions_find(source: bytes) -> None:
    lower = source.lower()
    expected = SHAPE.search(lower) is not None or NAMED_TOOL_CALL.search(source) is not None
    assert (any(word in lower for word in SHAPE_WORDS) or has_call_shape(lower, source)) == expected


def test_calls_of_other_tools_and_mocks_of_tool_are_not_shapes() -> None:
    for text in (b"await session.call_tool('x')", b"mock_mcp.tool.call_count", b"mcp.tool = MagicMock()",
                 b"handler.handle_tool(request)"):
        assert not has_call_shape(text.lower(), text), text
    for text in (b"mcp.tool(fn)", b"server.add_tool(fn)", b"StructuredTool(name='x')", b"@ mcp.tool\ndef f(): ...",
                 b"register = mcp.tool"):
        assert has_call_shape(text.lower(), text), text


def test_a_client_listing_tools_teaches_phase_one_nothing() -> None:
    """A test client that calls ``session.list_tools()`` is not read in phase 1, so its own
    ``NAME`` constant does not make the server's ambiguous; a tool-list handler still is read."""
    server = ("from mcp.server.fastmcp import FastMCP\nNAME = 'search'\nmcp = FastMCP('x')\n\n"
              "@mcp.tool(name=NAME)\ndef find(): ...\n")
    client = "NAME = 'other'\n\nasync def check(session):\n    return await session.list_tools()\n"
    [tool] = _tools({"server.py": server, "tests/test_client.py": client})
    assert tool.tool_name == "search"
    lowlevel = ("from mcp.server.lowlevel import Server\nfrom mcp import types\nserver = Server('x')\n"
                "TOOLS = [types.Tool(name='a', inputSchema={}), types.Tool(name='b', inputSchema={})]\n\n"
                "@server.list_tools()\nasync def handle():\n    return TOOLS\n")
    assert [t.tool_name for t in _tools({"s.py": lowlevel})] == ["a", "b"]


def test_a_tool_in_a_clients_assertion_is_not_a_definition() -> None:
    """``assert tools == ListToolsResult(tools=[Tool(...)])`` in a client test states what a server
    lists; it defines nothing (the server's own ``@mcp.tool()`` is the row)."""
    from pipeline.scan.detect.corpus import detect_files

    test = (b"from mcp import ClientSession\nfrom mcp.types import ListToolsResult, Tool\n\n"
            b"async def test_list(session: ClientSession):\n    tools = await session.list_tools()\n"
            b"    assert tools == ListToolsResult(tools=[Tool(name='add', inputSchema={})])\n")
    server = (b"from mcp.server import Server\nfrom mcp.types import Tool\n\napp = Server('x')\n\n"
              b"@app.list_tools()\nasync def list_tools():\n    return [Tool(name='add', inputSchema={})]\n")
    found = detect_files({"tests/test_worker.py": test, "src/server.py": server}).tools
    assert [(t.path, t.tool_name) for t in found] == [("src/server.py", "add")]
