"""Tools a server answers but never lists: rule ``<language>.<sdk>.call-handler-only``.

A low-level server may set a ``tools/call`` handler and no ``tools/list`` handler at all: a client's
``tools/list`` then fails (the SDK answers "method not found"), yet the names the call handler
compares with are tools an agent told of them can call::

    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      if (request.params.name === "process-instruction") { ... }

Such a tree would otherwise show no tool. In a tree with no tool row and nothing that answers
``tools/list`` (``nearby.serves_list``), every name a call handler compares the requested name
with (``params.name === "x"``, ``name == "x"``), after the handler is set and within
``_HANDLER_BYTES`` of it, is one row, unannotated, at the comparison's line, where the nearest
manifest declares an MCP SDK.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.literals import TOOL_NAME, sdk_of
from pipeline.scan.detect.model import Tool
from pipeline.scan.detect.source import SourceFile

#: where a call handler is set: TypeScript's ``setRequestHandler(CallToolRequestSchema``, Python's ``@x.call_tool()``
_HANDLER = re.compile(rb"setRequestHandler\(\s*(?:[\w.]+\.)?CallToolRequestSchema\b|@[\w.]+\.call_tool\(")
#: the requested name compared with a literal
_COMPARED = re.compile(rb"\bname\s*===?\s*(?P<q>[\"'])(?P<name>[^\"'\\\n]{1,128})(?P=q)")
_HANDLER_BYTES = 20000


def unlisted_tools(file: SourceFile, language: str, dependencies: Dependencies) -> Iterator[Tool]:
    """The names ``file``'s call handlers answer (see the module's docstring for when they count)."""
    sdk = sdk_of(language, file.path, dependencies)
    if sdk == "protocol":
        return
    seen: set[str] = set()
    for handler in _HANDLER.finditer(file.data):
        for found in _COMPARED.finditer(file.data, handler.end(), handler.end() + _HANDLER_BYTES):
            name = found["name"].decode("utf-8", "replace")
            if TOOL_NAME.match(name) and name not in seen:
                seen.add(name)
                yield Tool(file.path, file.data.count(b"\n", 0, found.start()) + 1, sdk, name,
                           f"{language}.{sdk}.call-handler-only")
