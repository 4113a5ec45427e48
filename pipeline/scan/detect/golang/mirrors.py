"""Go projects that mirror the SDK's tool types: their own ``Tool`` / ``ToolAnnotations`` structs.

A server that supports more than one Go SDK (containers/kubernetes-mcp-server) writes its tools
with its own types, ``api.Tool{Name: ..., Annotations: api.ToolAnnotations{ReadOnlyHint: ptr.To(true)}}``,
and converts them to the SDK's at run time. A package is such a mirror when one of its files
declares a ``ToolAnnotations`` struct with the hint fields, its module's ``go.mod`` requires an
MCP SDK, and it is not ``package mcp`` (a copy of an SDK's types keeps the SDK's package name).
A file importing a mirror package reads its ``Tool{}`` literals as that SDK's, rule
``go.<sdk>.mirror-literal``.

A project may also keep mcp-go's builder API over another SDK's types after moving off mcp-go
(sammcj/mcp-devtools' ``mcpapi``): a package, not ``package mcp``, that declares ``NewTool(`` and at
least two ``With...HintAnnotation(`` options, in a module that requires an MCP SDK, is a builder
mirror; its ``NewTool`` calls are read as mcp-go's are (``go.<sdk>.new-tool``).
"""

from __future__ import annotations

import re
from dataclasses import replace
from posixpath import dirname

from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.golang.syntax import Imports, Node
from pipeline.scan.detect.sdks import SDKS
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import unquote

_ANNOTATIONS_TYPE = re.compile(rb"\btype\s+toolannotations?\s+struct\b")
_HINT_FIELDS = (b"readonlyhint", b"destructivehint", b"idempotenthint", b"openworldhint")
_SDK_PACKAGE = re.compile(rb"^\s*package\s+mcp\s*$", re.MULTILINE)
_BUILDER = re.compile(rb"^func\s+NewTool\s*\(", re.MULTILINE)
_HINT_OPTION = re.compile(rb"^func\s+With\w*HintAnnotation\s*\(", re.MULTILINE)
#: the SDK a mirror stands for: the first its module requires, in this order
_SDKS = ("go-official", "go-mcp-go")


def mirrored(file: SourceFile, dependencies: Dependencies) -> tuple[str, str] | None:
    """(folder, SDK) when ``file`` mirrors an SDK's types: it declares a ``ToolAnnotations`` struct
    with at least two hint fields, outside ``package mcp``, in a module that requires an MCP SDK.
    The folder is relative to the module's ``go.mod``, as import paths end with it."""
    lower = file.lower
    if _ANNOTATIONS_TYPE.search(lower) is None or sum(field in lower for field in _HINT_FIELDS) < 2:
        return None
    return _in_module(file, dependencies)


def builder_mirrored(file: SourceFile, dependencies: Dependencies) -> tuple[str, str] | None:
    """(folder, SDK) when ``file`` is a builder mirror: ``NewTool(`` and two ``With...HintAnnotation(``
    options declared outside ``package mcp``, in a module that requires an MCP SDK."""
    if b"func newtool" not in file.lower or _BUILDER.search(file.data) is None:
        return None
    if len(_HINT_OPTION.findall(file.data)) < 2:
        return None
    return _in_module(file, dependencies)


def _in_module(file: SourceFile, dependencies: Dependencies) -> tuple[str, str] | None:
    """(folder relative to the module, SDK) of a file outside ``package mcp`` whose module requires an SDK."""
    if _SDK_PACKAGE.search(file.data) is not None:
        return None
    for sdk in _SDKS:
        if (found := dependencies.find(SDKS[sdk].packages, file.path)) is not None:
            folder = dirname(file.path)
            root = found.directory
            return (folder[len(root) + 1 :] if root and folder.startswith(root + "/") else folder), sdk
    return None


def mirror_imports(file: SourceFile, specs: list[Node], mirrors: dict[str, str], imports: Imports,
                   builders: dict[str, str] | None = None) -> Imports:
    """``imports`` with the file's imports of mirror packages (folder -> SDK) and builder mirrors added
    as tool packages: an import path that ends with a mirror's folder, under its alias or its last
    path element."""
    found, built = _imported(file, specs, mirrors), _imported(file, specs, builders or {})
    if not found and not built:
        return imports
    return replace(imports, tools={**imports.tools, **found, **built}, mirrors=frozenset(found),
                   builders=frozenset(built))


def _imported(file: SourceFile, specs: list[Node], folders: dict[str, str]) -> dict[str, str]:
    """Local name -> SDK of the packages among ``folders`` (folder -> SDK) that the file imports."""
    found = {}
    for spec in specs if folders else []:
        path = unquote(file.text(spec.child_by_field_name("path"))) or ""
        sdk = next((s for folder, s in folders.items() if folder and (path + "/").endswith("/" + folder + "/")), None)
        if sdk is not None:
            found[file.text(spec.child_by_field_name("name")) or path.rsplit("/", 1)[-1]] = sdk
    return found
