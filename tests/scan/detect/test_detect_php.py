"""Focused tests of the PHP detector's helpers, with real parsing."""

from __future__ import annotations

import pytest

from pipeline.scan.detect.deps import Dependencies, Dependency
from pipeline.scan.detect.model import Tool
from pipeline.scan.detect.php.detector import PhpDetector
from pipeline.scan.detect.php.laravel import kebab
from pipeline.scan.detect.php.syntax import captures, scope_of, string_value
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import walk

ATTRIBUTED = b"""<?php
namespace App;
use Mcp\\Capability\\Attribute\\McpTool;
final class T { #[McpTool(name: 'x')] public function x(): void {} }
"""


@pytest.mark.parametrize(
    ("name", "expected"),
    [("CurrentWeatherTool", "current-weather-tool"), ("Ping", "ping"), ("ping", "ping"),
     ("GetHTTPStatus", "get-h-t-t-p-status"), ("Tool2Go", "tool2-go")],
)
def test_kebab_follows_laravel_str_kebab(name: str, expected: str) -> None:
    assert kebab(name) == expected


def test_scope_resolves_aliases_groups_and_namespace() -> None:
    file = SourceFile("a.php", b"""<?php
namespace App\\Mcp;
use Laravel\\Mcp\\Server\\{Tool, Attributes\\Name as N};
use Mcp\\Capability\\Attribute as Attr;
use function App\\helper;
""")
    scope = scope_of(file, captures(file))
    assert scope.resolve("Tool") == "Laravel\\Mcp\\Server\\Tool"
    assert scope.resolve("N") == "Laravel\\Mcp\\Server\\Attributes\\Name"
    assert scope.resolve("Attr\\McpTool") == "Mcp\\Capability\\Attribute\\McpTool"
    assert scope.resolve("\\Other\\Tool") == "Other\\Tool"
    assert scope.resolve("BaseTool") == "App\\Mcp\\BaseTool"
    assert scope.resolve("helper") == "App\\Mcp\\helper"
    assert scope.imports("App\\helper")


def test_interpolated_strings_are_not_literals() -> None:
    file = SourceFile("a.php", b'<?php $a = "x$y"; $b = "plain"; $c = \'it\\\'s\';')
    strings = [n for n in walk(file.tree.root_node) if n.type in ("string", "encapsed_string")]
    assert [string_value(file, n) for n in strings] == [None, "plain", "it's"]


def test_files_without_markers_are_not_parsed() -> None:
    detector = PhpDetector(Dependencies())
    file = SourceFile("a.php", b"<?php $toolbox->register('x');")
    detector.index(file)
    assert list(detector.detect(file)) == []
    assert file._tree is None


def test_mcp_namespace_of_another_sdk_is_not_attributed() -> None:
    other = Dependencies([Dependency("", "logiscape/mcp-sdk-php", "^1.0")])
    assert list(PhpDetector(other).detect(SourceFile("t.php", ATTRIBUTED))) == []
    both = Dependencies([Dependency("", "logiscape/mcp-sdk-php", "^1.0"), Dependency("", "mcp/sdk", "^0.2")])
    found = list(PhpDetector(both).detect(SourceFile("t.php", ATTRIBUTED)))
    assert [t.tool_name for t in found if isinstance(t, Tool)] == ["x"]
