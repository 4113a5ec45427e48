"""The content rules: what a tree's files say of their own role, beyond their paths. A .NET
project file that references a test SDK makes its folder a test project; a Rust item under a
test attribute is test code (``rust_test_lines``, read from the syntax tree the detector parsed)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

#: a .NET project that references one of these is a test project
TEST_SDKS = re.compile(
    rb"""Include\s*=\s*["'](Microsoft\.NET\.Test\.Sdk|xunit(?:\.v3)?|NUnit|MSTest(?:\.TestFramework)?|TUnit)["']"""
    rb"""|Sdk\s*=\s*["'](MSTest\.Sdk)["']|<(IsTestProject)>\s*true\s*<""", re.IGNORECASE)
PROJECT_FILES = (".csproj", ".fsproj", ".vbproj")
#: test names that are a convention the language does not enforce (Python, PHP): such a file is a
#: test only if it reads like one. awslabs' ``tools/rg/test_migration.py`` wraps the ElastiCache
#: TestMigration API and registers a shipped tool; a pytest module asserts, a PHPUnit one asserts
UNENFORCED_NAMES = re.compile(rb"(?:^|/)(?:test_[^/]*|[^/]*_test|tests)\.py\Z|[a-z0-9]Test\.php\Z")
#: ``UNENFORCED_NAMES`` for decoded paths
UNENFORCED_PATHS = re.compile(UNENFORCED_NAMES.pattern.decode())
#: a file larger than this is not read for its content (its name decides)
MAX_READ_BYTES = 2 << 20
#: what a test's file holds: an assertion, or its framework's name
TEST_MARKERS = re.compile(rb"\bassert|\bpytest\b|\bunittest\b|\bTestCase\b|\bPHPUnit\b|\bexpect\(|\bPest\b")
#: ``PROJECT_FILES`` as the endings of raw member names
PROJECT_ENDINGS = tuple(ending.encode() for ending in PROJECT_FILES)



class SyntaxNode(Protocol):
    """What ``rust_test_lines`` reads of a tree-sitter node."""

    @property
    def type(self) -> str:
        """the node's grammar type."""

    @property
    def children(self) -> Sequence[SyntaxNode]:
        """its children, in order."""

    @property
    def text(self) -> bytes | None:
        """its source bytes."""

    @property
    def start_point(self) -> tuple[int, int]:
        """(row, column) where it starts, 0-based."""

    @property
    def end_point(self) -> tuple[int, int]:
        """(row, column) where it ends, 0-based."""


#: ``#[cfg(test)]``, ``#[cfg(all(test, ...))]``, ``#[test]``, ``#[tokio::test]``, ``#[rstest]``
_RUST_TEST_ATTRIBUTE = re.compile(
    rb"#\s*!?\s*\[\s*(?:cfg\s*\(\s*(?:all\s*\(\s*)?test\b|(?:\w+::)*(?:test|rstest|test_case)\s*[\](])")
#: a span that reaches every line of a file
_WHOLE_FILE = (1, 1 << 30)


def rust_test_lines(root: SyntaxNode) -> list[tuple[int, int]]:
    """The 1-based line spans of the Rust items under a test attribute (``#[cfg(test)] mod
    tests { .. }``, ``#[test] fn ..``), in modules at any depth."""
    spans: list[tuple[int, int]] = []
    pending = False
    for node in root.children:
        if node.type == "inner_attribute_item" and _RUST_TEST_ATTRIBUTE.match(node.text or b""):
            return [_WHOLE_FILE]  # #![cfg(test)]: the whole module
        if node.type == "attribute_item":
            pending = pending or bool(_RUST_TEST_ATTRIBUTE.match(node.text or b""))
            continue
        if node.type in ("line_comment", "block_comment"):
            continue
        if pending:
            spans.append((node.start_point[0] + 1, node.end_point[0] + 1))
        elif node.type in ("mod_item", "impl_item", "declaration_list"):
            spans.extend(rust_test_lines(node))
        pending = False
    return spans
