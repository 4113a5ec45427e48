"""What the Ruby detector reads of a file: the files it requires, the constant a value is assigned to,
a tool written as a class (its name, description and annotations), and its compiled queries."""

from __future__ import annotations

import re

import tree_sitter

from pipeline.scan.detect.model import Annotations
from pipeline.scan.detect.ruby.forms import (
    DSL_HINTS,
    RubyIndex,
    annotations_of,
    fast_mcp_name,
    hash_items,
    string,
    with_title,
)
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import boolean, compiled, named

#: the two Ruby SDKs (``sdks.SDKS`` keys)
OFFICIAL, FAST = "ruby-mcp", "ruby-fast-mcp"
#: a ``require`` / ``require_relative`` line, and what it loads
REQUIRE = re.compile(rb"^(?:\xef\xbb\xbf)?[ \t]*require(?:_relative)?[ \t(]+[\"']([^\"']+)[\"']", re.M)



def required(data: bytes) -> set[str]:
    found: set[str] = set()
    for path in REQUIRE.findall(data):
        text = path.decode("utf-8", "replace")
        last = text.rsplit("/", 1)[-1]
        if last in ("fast_mcp", "fast-mcp") or text.startswith(("fast_mcp/", "fast-mcp/")):
            found.add(FAST)
        elif text == "mcp" or text.startswith("mcp/") or (text.startswith(".") and last == "mcp"):
            found.add(OFFICIAL)
    return found


def assigned_constant(file: SourceFile, node: tree_sitter.Node) -> str | None:
    """The constant ``node`` is assigned to (``PingTool = Class.new(...)``), if any."""
    parent = node.parent
    left = parent.child_by_field_name("left") if parent is not None and parent.type == "assignment" else None
    if left is None or left.type not in ("constant", "scope_resolution"):
        return None
    return file.text(left).rsplit("::", 1)[-1]


def read_class(file: SourceFile, node: tree_sitter.Node, sdk: str,
                known: RubyIndex) -> tuple[bool, str | None, str | None, Annotations]:
    """(whether tool_name is written, its literal value, tool-level title, annotations) from a class body."""
    body = node.child_by_field_name("body")
    name: str | None = None
    title: str | None = None
    ann, dsl, written = Annotations(), False, False
    for stmt in named(body) if body is not None else []:
        method = file.text(stmt.child_by_field_name("method")) if stmt.type == "call" else file.text(stmt)
        if stmt.type not in ("call", "identifier") or stmt.child_by_field_name("receiver") is not None:
            continue
        args = stmt.child_by_field_name("arguments")
        first = named(args)[0] if args is not None and named(args) else None
        if method == "tool_name" and first is not None:
            name, written = string(file, first), True
            name = fast_mcp_name(name) if name is not None and sdk == FAST else name
        elif method == "title" and sdk == OFFICIAL:
            title = string(file, first)
        elif method == "title" and first is not None:
            ann, dsl = with_title(ann, string(file, first)), True
        elif method == "annotations" and args is not None:
            ann = annotations_of(file, hash_items(args), known)
        elif method in DSL_HINTS and sdk == FAST:
            ann, dsl = ann.with_hint(DSL_HINTS[method], boolean(file.text(first)) if first else "true"), True
    if dsl and ann.source == "none":
        ann = ann.with_source("options")
    return written, name, title, ann


def query(source: str) -> tree_sitter.Query:
    """A compiled Ruby query (compiled once per process)."""
    return compiled("tree_sitter_ruby", "language", source)
