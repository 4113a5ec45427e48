"""Whole-file checks of the C# detector: the SDK's own namespaces, and files declaring the SDK's type names."""

from __future__ import annotations

import re

from pipeline.scan.detect.source import SourceFile

_DEFINES = re.compile(rb"\b(?:class|record|struct)\s+(McpServerToolAttribute|ToolAnnotations|McpServerToolCreateOptions"
                      rb"|McpServerTool)\b")
_SDK_NAMESPACE = re.compile(rb"^(?:\xef\xbb\xbf)?[ \t]*namespace\s+(ModelContextProtocol(?:\.[\w.]+)?)", re.M)
_NOT_SDK = ("Test", "Conformance", "Sample")
#: cheap lower-case prefilters for _DEFINES
_DEFINE_MARKERS = (b"class mcpservertool", b"class toolannotations", b"record toolannotations",
                   b"struct toolannotations")


def sdk_namespace(file: SourceFile) -> str | None:
    """The SDK's own namespace when ``file`` declares one (tests, samples and conformance code aside)."""
    if b"namespace modelcontextprotocol" not in file.lower:
        return None
    found = _SDK_NAMESPACE.search(file.data)
    name = found.group(1).decode() if found else ""
    return name if name and not any(word in name for word in _NOT_SDK) else None


def defined_types(file: SourceFile) -> set[str]:
    """The SDK type names (``McpServerToolAttribute``, ``ToolAnnotations``...) ``file`` declares itself."""
    if not any(marker in file.lower for marker in _DEFINE_MARKERS):
        return set()
    return {name.decode() for name in _DEFINES.findall(file.data)}
