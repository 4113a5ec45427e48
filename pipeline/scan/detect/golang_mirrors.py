"""Go projects that mirror the SDK's tool types: their own ``Tool`` / ``ToolAnnotations`` structs.

A server that supports more than one Go SDK (containers/kubernetes-mcp-server) writes its tools
with its own types, ``api.Tool{Name: ..., Annotations: api.ToolAnnotations{ReadOnlyHint: ptr.To(true)}}``,
and converts them to the SDK's at run time. A package is such a mirror when one of its files
declares a ``ToolAnnotations`` struct with the hint fields, its module's ``go.mod`` requires an
MCP SDK, and it is not ``package mcp`` (a copy of an SDK's types keeps the SDK's package name).
A file importing a mirror package reads its ``Tool{}`` literals as that SDK's, rule
``go.<sdk>.mirror-literal``.
"""

from __future__ import annotations

import re
from dataclasses import replace
from posixpath import dirname

from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.golang_syntax import Imports, Node
from pipeline.scan.detect.sdks import SDKS
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import unquote

_ANNOTATIONS_TYPE = re.compile(rb"\btype\s+toolannotations?\s+struct\b")
_HINT_FIELDS = (b"readonlyhint", b"destructivehint", b"idempotenthint", b"openworldhint")
_SDK_PACKAGE = re.compile(rb"^\s*package\s+mcp\s*$", re.MULTILINE)
#: the SDK a mirror stands for: the first its module requires, in this order
_SDKS = ("go-official", "go-mcp-go")


def mirrored(file: SourceFile, dependencies: Dependencies) -> tuple[str, str] | None:
    """(folder, SDK) when ``file`` mirrors an SDK's types: it declares a ``ToolAnnotations`` struct
    with at least two hint fields, outside ``package mcp``, in a module that requires an MCP SDK.
    The folder is relative to the module's ``go.mod``, as import paths end with it."""
    lower = file.lower
    if _ANNOTATIONS_TYPE.search(lower) is None or sum(field in lower for field in _HINT_FIELDS) < 2:
        return None
    if _SDK_PACKAGE.search(file.data) is not None:
        return None
    for sdk in _SDKS:
        if (found := dependencies.find(SDKS[sdk].packages, file.path)) is not None:
            folder = dirname(file.path)
            root = found.directory
            return (folder[len(root) + 1 :] if root and folder.startswith(root + "/") else folder), sdk
    return None


def mirror_imports(file: SourceFile, specs: list[Node], mirrors: dict[str, str], imports: Imports) -> Imports:
    """``imports`` with the file's imports of mirror packages (folder -> SDK) added as tool packages:
    an import path that ends with a mirror's folder, under its alias or its last path element."""
    found = {}
    for spec in specs:
        path = unquote(file.text(spec.child_by_field_name("path"))) or ""
        sdk = next((s for folder, s in mirrors.items() if folder and (path + "/").endswith("/" + folder + "/")), None)
        if sdk is not None:
            found[file.text(spec.child_by_field_name("name")) or path.rsplit("/", 1)[-1]] = sdk
    if not found:
        return imports
    return replace(imports, tools={**imports.tools, **found}, mirrors=frozenset(found))
