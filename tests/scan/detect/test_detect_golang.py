"""The Go detector on small in-memory trees: what the corpus format does not compare."""

from __future__ import annotations

from detect_helpers import run_language

from pipeline.scan.detect import deps
from pipeline.scan.detect.golang.detector import GoDetector
from pipeline.scan.detect.golang.syntax import worth_indexing
from pipeline.scan.detect.model import DYNAMIC, TRUE, Exclusion, Tool

OFFICIAL = 'import "github.com/modelcontextprotocol/go-sdk/mcp"\n'
MCP_GO = 'import "github.com/mark3labs/mcp-go/mcp"\n'


def _detect(files: dict[str, str]) -> list[Tool | Exclusion]:
    return run_language(GoDetector(deps.Dependencies()), files)


def _tools(files: dict[str, str]) -> list[Tool]:
    return [t for t in _detect(files) if isinstance(t, Tool)]


def test_dynamic_title_and_tool_title() -> None:
    [tool] = _tools({"a.go": OFFICIAL + """
func f(s *mcp.Server) {
    s.AddTool(&mcp.Tool{Name: "x", Title: "Tool X",
        Annotations: &mcp.ToolAnnotations{Title: t("KEY", "X")}}, h)
}"""})
    assert tool.tool_title == "Tool X"
    assert tool.annotations.title is None
    assert tool.annotations.title_state == DYNAMIC
    assert tool.rule == "go.go-official.add-tool"
    assert tool.line == 4


def test_mcp_go_tool_title_is_not_the_annotations_title() -> None:
    [tool] = _tools({"a.go": MCP_GO + 'var t = mcp.NewTool("x", mcp.WithToolTitle("T"))\n'})
    assert (tool.tool_title, tool.annotations.title_state, tool.annotations.source) == ("T", "unset", "none")


def test_struct_after_options_drops_them() -> None:
    [tool] = _tools({"a.go": MCP_GO + """
var t = mcp.NewTool("x", mcp.WithTitleAnnotation("Old"), mcp.WithReadOnlyHintAnnotation(true),
    mcp.WithToolAnnotation(mcp.ToolAnnotation{OpenWorldHint: mcp.ToBoolPtr(false)}))
"""})
    assert tool.annotations.read_only_hint == "unset"
    assert tool.annotations.open_world_hint == "false"
    assert tool.annotations.title_state == "unset"
    assert tool.annotations.source == "inline"


def test_wrapper_literal_is_counted_at_calls_only() -> None:
    wrapper = OFFICIAL + """
func add(s *mcp.Server, name string) { s.AddTool(&mcp.Tool{Name: name,
    Annotations: &mcp.ToolAnnotations{Title: "Shared", ReadOnlyHint: true}}, nil) }
"""
    calls = 'package x\nfunc all() { add(s, "a"); add(s, "b") }\nfunc other() { pkg.add(s, "c", 1) }\n'
    tools = _tools({"w.go": wrapper, "calls.go": calls})
    assert [t.tool_name for t in tools] == ["a", "b"]
    assert {(t.via, t.annotations.title, t.annotations.title_state) for t in tools} == {("wrapper:add", "Shared", TRUE)}


def test_wrapper_call_resolves_in_its_own_package() -> None:
    wrapper = OFFICIAL + "func add(s *mcp.Server, name string) { s.AddTool(&mcp.Tool{Name: name}, nil) }\n"
    tools = _tools({"a/w.go": wrapper, "b/calls.go": 'func f() { add(s, "x") }\n'})
    assert tools == []


def test_no_import_no_tool() -> None:
    assert _detect({"a.go": 'import "example.com/agents/mcp"\nvar t = mcp.NewTool("x")\n'}) == []


def test_client_code_only_when_no_tool_is_defined() -> None:
    client = OFFICIAL + "func f() { r, _ := cs.ListTools(ctx, nil); _ = r.Tools[0].Annotations.ReadOnlyHint }\n"
    [found] = _detect({"c.go": client})
    assert isinstance(found, Exclusion)
    assert found.reason == "client-code"
    both = client + 'func g(s *mcp.Server) { s.AddTool(&mcp.Tool{Name: "x"}, nil) }\n'
    assert [type(x) for x in _detect({"c.go": both})] == [Tool]


def test_index_markers() -> None:
    assert worth_indexing(b"var ro = &mcp.toolannotations{readonlyhint: true}")
    assert worth_indexing(b"func newtool(toolset string, tool mcp.tool, scopes []string)")
    assert worth_indexing(b"s.addtool(&mcp.tool{name: name}, h)")
    assert not worth_indexing(b'mcp.addtool(s, &mcp.tool{name: "x", annotations: &mcp.toolannotations{}}, h)')
