"""The Ruby detector's naming rules and the fields the corpus does not compare (titles, rules)."""

from __future__ import annotations

import pytest
from detect_helpers import run_language

from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.model import TRUE, Exclusion, Tool
from pipeline.scan.detect.ruby.detector import RubyDetector
from pipeline.scan.detect.ruby.forms import fast_mcp_name, underscore


@pytest.mark.parametrize(
    ("name", "expected"),
    [("GreetingTool", "greeting_tool"), ("Admin::HTMLParserTool", "html_parser_tool"), ("SHA2Tool", "sha2_tool"),
     ("Get-ItTool", "get_it_tool")],
)
def test_underscore_matches_the_mcp_gem(name: str, expected: str) -> None:
    assert underscore(name) == expected


def test_fast_mcp_name_strips_and_cuts() -> None:
    assert fast_mcp_name("Billing::RefundTool") == "BillingRefundTool"
    assert fast_mcp_name("x" * 70) == "x" * 64


def _detect(source: str) -> list[Tool | Exclusion]:
    return run_language(RubyDetector(Dependencies()), {"tool.rb": source})


def test_class_title_is_the_tool_title() -> None:
    [tool] = _detect('require "mcp"\nclass AddTool < MCP::Tool\n  title "Add"\n'
                     '  annotations(title: "Sum", read_only_hint: true)\nend\n')
    assert isinstance(tool, Tool)
    assert (tool.tool_title, tool.annotations.title, tool.annotations.title_state) == ("Add", "Sum", TRUE)
    assert (tool.rule, tool.line, tool.tool_name) == ("ruby.ruby-mcp.subclass", 2, "add_tool")


def test_define_title_keyword_is_the_tool_title() -> None:
    [tool] = _detect('require "mcp"\nt = MCP::Tool.define(name: "a", title: "A") { |server_context:| nil }\n')
    assert isinstance(tool, Tool)
    assert (tool.tool_title, tool.annotations.source, tool.rule) == ("A", "none", "ruby.ruby-mcp.define")


def test_interpolated_tool_name_is_not_resolved() -> None:
    [tool] = _detect('require "mcp"\nclass XTool < MCP::Tool\n  tool_name "x_#{ENV["N"]}"\nend\n')
    assert isinstance(tool, Tool)
    assert tool.tool_name is None
