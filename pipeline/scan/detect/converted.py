"""Anthropic-format tool definitions that a server converts to the protocol's shape.

A definition written for a model's API (``{ name, description, input_schema }``) is no MCP tool,
unless the server lists it: its package's ``tools/list`` answer converts it (``inputSchema:
d.input_schema``), as a server that keeps its tools in that format does. Then ``literals`` reads such
objects as protocol literals in that package (``literal_tools(..., snake=True)``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.sdks import SDKS
from pipeline.scan.detect.source import SourceFile

#: a file that converts definitions to the protocol's shape (reads ``x.input_schema``, writes
#: ``inputSchema:``) where it answers ``tools/list``
_READS_SNAKE, _WRITES_WIRE = re.compile(rb"\.input_schema\b"), re.compile(rb"\binputSchema\s*:")
_ANSWERS_LIST = re.compile(rb"ListToolsRequestSchema|[\"']tools/list[\"']|\blist_tools\b")


def converters(files: Iterable[SourceFile]) -> tuple[str, ...]:
    """The paths of the files that answer ``tools/list`` and convert Anthropic-format definitions
    (``input_schema``) to the protocol's (``inputSchema: def.input_schema...``) there: in their
    package such objects are tools a server lists (``same_package``); a converter elsewhere serves a
    model's API (an LLM playground's), not MCP's."""
    return tuple(f.path for f in files if b"input_schema" in f.data and _READS_SNAKE.search(f.data)
                 and _WRITES_WIRE.search(f.data) and _ANSWERS_LIST.search(f.data))


def same_package(language: str, path: str, others: Iterable[str], dependencies: Dependencies) -> bool:
    """Whether one of ``others`` lies in the package of ``path``: the nearest manifest declaring an MCP
    SDK of ``language`` is the same (or neither has one)."""
    names = tuple(p for s in SDKS.values() if s.language == language and s.is_mcp for p in s.packages)
    home = dependencies.find(names, path)
    return any(dependencies.find(names, other) == home for other in others)
