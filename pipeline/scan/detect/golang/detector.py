"""Go tool definitions: the official go-sdk, mark3labs/mcp-go and metoro-io/mcp-golang.

Forms (``rule`` = ``go.<sdk>.<form>``), with the line each row reports:

- ``add-tool``: a ``pkg.Tool{...}`` literal passed straight to ``AddTool`` (``mcp.AddTool(s, &mcp.Tool{..}, h)``,
  ``mcp.AddTool[In, Out](..)``, ``s.AddTool(..)``); ``tool-literal``: such a literal anywhere else, including
  each elided ``{...}`` of a ``[]*mcp.Tool{...}`` or ``map[K]mcp.Tool{...}``. Line: the literal's first line
  (``mcp.Tool{``, or the ``{`` of an elided element). Works for go-sdk and mcp-go ``Tool`` literals.
- ``new-tool`` / ``raw-schema``: mcp-go ``mcp.NewTool(..)`` / ``mcp.NewToolWithRawSchema(..)``; line of the call.
- ``register-tool``: mcp-golang ``x.RegisterTool(name, description, handler)`` (no annotations exist there).
- ``mirror-literal``: a ``pkg.Tool{...}`` literal of the project's own package that mirrors an SDK's
  types (``mirrors``), read as that SDK's.
- ``wrapper`` / ``wrapper-literal``: a call of a project function whose single tool definition
  (an mcp-go ``NewTool`` call / a ``Tool{}`` literal, which mcp-go does not pre-fill) takes its name
  from a parameter (phase 1); line of the call, ``via="wrapper:<function>"``. A literal passed to a project
  helper that has a ``pkg.Tool`` parameter keeps its own form and gets ``via="wrapper:<helper>"``.

The package name comes from the file's imports (aliases included), never from a variable's name.
Annotations: ``inline`` (a ``ToolAnnotations{}`` / ``ToolAnnotation{}`` literal, mcp-go's
``WithToolAnnotation(..)`` included, since it replaces the pre-filled struct), ``options`` (mcp-go
``With*HintAnnotation`` / ``WithTitleAnnotation`` helpers), ``preset:<name>`` (a variable or function
returning a literal, one level), ``dynamic`` (anything else). A file whose only MCP content is a
``ToolAnnotations`` type definition, an SDK copy, or client code reading hints is an ``Exclusion``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.golang.index import Project
from pipeline.scan.detect.golang.mirrors import builder_mirrored, mirror_imports, mirrored
from pipeline.scan.detect.golang.read import Reading, fill
from pipeline.scan.detect.golang.scope import Scope
from pipeline.scan.detect.golang.syntax import (
    IMPORT_MARKERS,
    UNIT_MARKER,
    Node,
    arguments,
    callee,
    captures,
    read_imports,
    worth_indexing,
)
from pipeline.scan.detect.golang.units import Unit, outer_call, read_unit, units
from pipeline.scan.detect.model import Exclusion, Tool
from pipeline.scan.detect.source import SourceFile

_TYPE_DEFINITION = re.compile(rb"\btype\s+toolannotations?\s+struct\b")
_TOOL_TYPE = re.compile(rb"\btype\s+tool\s+struct\b")
#: lower-cased MCP client calls (go-sdk ``mcp.NewClient`` / ``session.ListTools``, mcp-go ``client.New*MCPClient``)
_CLIENT_CALLS = (b"mcp.newclient(", b"client.newclient(", b"listtools(", b"mcpclient(", b".tools(ctx")
_HINT_READS = (b".readonlyhint", b".destructivehint", b".idempotenthint", b".openworldhint")


def _imports_sdk(lower: bytes) -> bool:
    return any(marker in lower for marker in IMPORT_MARKERS)


class GoDetector:
    """Finds the tool definitions of a tree's Go files (see the module docstring)."""

    def __init__(self, dependencies: Dependencies) -> None:
        self.dependencies = dependencies
        self.project = Project()
        self._ready = False
        self.mirrors: dict[str, str] = {}
        """folder -> SDK of the project's packages that mirror an SDK's tool types (``mirrors``)."""
        self._mirror_files: set[str] = set()
        self.builders: dict[str, str] = {}
        """folder -> SDK of the project's packages that keep mcp-go's builder API over an SDK's types."""

    def index(self, file: SourceFile) -> None:
        """Phase 1: constants, annotation presets, tool helpers and wrappers of SDK files."""
        if _imports_sdk(file.lower) and worth_indexing(file.lower):
            self.project.learn(file)
        self.project.learn_exported(file)
        if (mirror := mirrored(file, self.dependencies)) is not None:
            self.mirrors[mirror[0]] = mirror[1]
            self._mirror_files.add(file.path)
        if (builder := builder_mirrored(file, self.dependencies)) is not None:
            self.builders[builder[0]] = builder[1]

    def detect(self, file: SourceFile) -> Iterator[Tool | Exclusion]:
        """Phase 2: the tool definitions of ``file``, or why an MCP-looking file is left out."""
        if not self._ready:
            self.project.finish()
            self._ready = True
        imports_tools = _imports_sdk(file.lower) or self._imports_mirror(file.lower)
        defines = imports_tools and UNIT_MARKER.search(file.lower) is not None
        if not (defines or self.project.mentions_wrapper(file.lower)):
            yield from _exclusions(file, _imports_sdk(file.lower), file.path in self._mirror_files)
            return
        caps = captures(file.tree.root_node, self.project.wrapper_names)
        specs = caps.get("import", [])
        imports = mirror_imports(file, specs, self.mirrors, read_imports(file, specs), self.builders)
        scope = self.project.scope(file, imports, local=caps.get("const", []))
        tools = [*self._definitions(scope, caps), *self._wrapper_calls(scope, caps)]
        yield from sorted(tools, key=lambda tool: tool.line)
        if not tools:
            yield from _exclusions(file, bool(scope.imports.sdks), file.path in self._mirror_files)

    def _imports_mirror(self, lower: bytes) -> bool:
        """Whether lower-cased content may import one of the project's mirror packages."""
        return any(f'/{folder}"'.lower().encode() in lower for folder in (*self.mirrors, *self.builders) if folder)

    def _definitions(self, scope: Scope, caps: dict[str, list[Node]]) -> Iterator[Tool]:
        for unit in units(scope, caps):
            if (scope.file.path, unit.node.start_byte) not in self.project.owned:
                form, via = self._context(scope, unit)
                yield _row(scope.file, unit.node, unit.sdk, form, read_unit(scope, unit), via=via)

    def _context(self, scope: Scope, unit: Unit) -> tuple[str, str]:
        form = "tool-literal" if unit.kind == "literal" else unit.kind
        if unit.kind == "literal" and _package_of(scope, unit.node) in scope.imports.mirrors:
            form = "mirror-literal"
        call = outer_call(unit.node)
        if call is None:
            return form, "direct"
        package, name = callee(scope.file, call)
        sdk_call = package is not None and (package in scope.imports.tools or package in scope.imports.golang)
        if not sdk_call and name in self.project.tool_helpers:
            return form, f"wrapper:{name}"
        if unit.kind == "literal" and name == "AddTool" and package is not None:
            return "add-tool", "direct"
        return form, "direct"

    def _wrapper_calls(self, scope: Scope, caps: dict[str, list[Node]]) -> Iterator[Tool]:
        for call in caps.get("call", []):
            package, name = callee(scope.file, call)
            if name not in self.project.wrappers or package in scope.imports.tools or \
                    (scope.file.path, call.start_byte) in self.project.owned:
                continue
            args = arguments(call)
            wrapper = self.project.wrapper(scope.file.path, package, name, len(args))
            if wrapper is not None and wrapper.reading is not None:
                reading = fill(wrapper.reading, scope, args, wrapper.options)
                form = "wrapper-literal" if wrapper.unit.kind == "literal" else "wrapper"
                yield _row(scope.file, call, wrapper.unit.sdk, form, reading, via=f"wrapper:{name}")


def _row(file: SourceFile, node: Node, sdk: str, form: str, reading: Reading, *, via: str) -> Tool:
    if via == "direct" and reading.preset is not None:
        via = f"preset:{reading.preset}"
    return Tool(file.path, file.line(node), sdk, reading.name, f"go.{sdk}.{form}", reading.annotations, via,
                reading.tool_title)


def _package_of(scope: Scope, literal: Node) -> str | None:
    """The package a ``pkg.Tool{}`` literal's type is written with (``None`` for an elided element)."""
    type_node = literal.child_by_field_name("type") if literal.type == "composite_literal" else None
    package = type_node.child_by_field_name("package") if type_node is not None else None
    return scope.file.text(package) if package is not None else None


def _exclusions(file: SourceFile, imports_sdk: bool, mirror: bool = False) -> Iterator[Exclusion]:
    lower = file.lower
    if b"toolannotation" in lower and (found := _TYPE_DEFINITION.search(lower)) is not None:
        copy = _TOOL_TYPE.search(lower) is not None and not mirror
        yield Exclusion(file.path, "sdk-source" if copy else "type-definition", found.group().decode())
    elif imports_sdk and any(c in lower for c in _CLIENT_CALLS) and any(h in lower for h in _HINT_READS):
        yield Exclusion(file.path, "client-code", "reads tool hints through an MCP client")
