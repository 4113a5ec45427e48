"""The C# detector's naming rule and the fields the corpus does not compare (titles, rules)."""

from __future__ import annotations

import pytest
from detect_helpers import run_language

from pipeline.scan.detect.csharp.detector import CSharpDetector
from pipeline.scan.detect.csharp.forms import derive_name, snake_case_lower
from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.model import DYNAMIC, TRUE, Exclusion, Tool


@pytest.mark.parametrize(
    ("name", "expected"),
    [("GetWeather", "get_weather"), ("XMLReader", "xml_reader"), ("SHA512Hash", "sha512_hash"),
     ("already_snake", "already_snake"), ("Echo", "echo"), ("IOStream2Go", "io_stream2_go")],
)
def test_snake_case_lower_follows_system_text_json(name: str, expected: str) -> None:
    assert snake_case_lower(name) == expected


def test_async_suffix_is_dropped_only_for_async_methods() -> None:
    assert derive_name("GetWeatherAsync", is_async=True) == "get_weather"
    assert derive_name("GetWeatherAsync", is_async=False) == "get_weather_async"
    assert derive_name("Async", is_async=True) == "async"


def _detect(source: str) -> list[Tool | Exclusion]:
    return run_language(CSharpDetector(Dependencies()), {"Tools.cs": source})


def test_title_sets_tool_title_and_annotations_title() -> None:
    [tool] = _detect('using ModelContextProtocol.Server;\nclass T {\n  [McpServerTool(Title = "Add")]\n'
                     '  public static int Add(int a, int b) => a + b;\n}\n')
    assert isinstance(tool, Tool)
    assert (tool.tool_title, tool.annotations.title, tool.annotations.title_state) == ("Add", "Add", TRUE)
    assert (tool.rule, tool.line, tool.tool_name) == ("csharp.csharp-mcp.attribute", 3, "add")


def test_interpolated_title_is_dynamic() -> None:
    [tool] = _detect('using ModelContextProtocol.Server;\nclass T {\n  [McpServerTool(Title = $"A {x}")]\n'
                     '  public static int Add() => 1;\n}\n')
    assert isinstance(tool, Tool)
    assert (tool.annotations.title, tool.annotations.title_state, tool.annotations.source) == (None, DYNAMIC,
                                                                                             "attribute")


def test_readonly_keyword_alone_is_not_a_tool() -> None:
    assert _detect("using ModelContextProtocol.Server;\nclass T { private readonly int ReadOnly = 1; }\n") == []


def test_protocol_tool_title_is_tool_level_only() -> None:
    [tool] = _detect('using ModelContextProtocol.Protocol;\nvar t = new Tool { Name = "x", Title = "X" };\n')
    assert isinstance(tool, Tool)
    assert (tool.tool_title, tool.annotations.title, tool.annotations.source) == ("X", None, "none")


def test_create_from_a_method_found_by_reflection_is_not_a_second_row() -> None:
    """``McpServerTool.Create(method)`` where ``method`` comes from ``GetMethod(s)`` re-creates a
    tool declared elsewhere (its ``[McpServerTool]`` method is the row); ``Create`` from a method
    group or a lambda is a definition."""
    source = """using ModelContextProtocol.Server;
public class Calc {
    [McpServerTool(Name = "calculate", ReadOnly = true)]
    public static int Calculate(int a) => a;
    public static int Double(int a) => a * 2;
    public static void Wire(List<McpServerTool> tools) {
        var calculateMethod = typeof(Calc).GetMethod(nameof(Calculate))!;
        tools.Add(McpServerTool.Create(calculateMethod));
        tools.Add(McpServerTool.Create(Double));
    }
}
"""
    names = [t.tool_name or "" for t in _detect(source) if isinstance(t, Tool)]
    assert sorted(names) == ["calculate", "double"]
