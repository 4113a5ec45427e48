"""The Rust detector: rmcp, rust-mcp-sdk, pmcp, mcp-core and mcp-spec tool definitions.

Forms (rule ``rust.<sdk>.<form>``):

- ``attribute``: rmcp / mcp-core ``#[tool(name = .., title = .., annotations(read_only_hint = ..))]``
  on a fn (name defaults to the fn identifier; rmcp's pre-0.2 ``annotations = { readOnlyHint: .. }``
  too), rust-mcp-sdk ``#[mcp_tool(name = .., title = .., read_only_hint = ..)]`` on a struct (the
  macro requires ``name``; ``title`` is the tool-level title), pmcp ``#[mcp_tool(annotations(read_only
  = ..))]`` on a fn (name defaults to the fn identifier). Line: the attribute's line.
- ``builder``: ``Tool::new(name, ..)`` / ``Tool::new_with_raw`` (rmcp), ``ToolInfo::new`` /
  ``ToolInfo::with_annotations`` / ``TypedTool::new`` / ``SimpleTool::new`` (pmcp), with the
  chained ``.annotate(..)`` / ``.with_annotations(..)`` / ``.annotations(..)`` / ``.with_title(..)``,
  pmcp's zero-argument ``.read_only()``, or a later ``t.annotations = ..`` assignment. Line: the call.
- ``struct``: a ``Tool { name: .., annotations: .. }`` literal. Line: the literal.
- ``wrapper``: each call of a project fn that builds a tool from its ``name`` parameter (calls
  in its own file, or in files that ``use`` it by name). Line: the call.

Tools built in a closure or loop over a list are one row (name not a literal): lists are not
expanded. ``vec![..]`` bodies are parsed as code (tree-sitter leaves macro bodies as tokens).

A macro attribute is attributed by the crates the file names (``use rmcp::..``, ``rmcp::..``
paths); a file naming none is not MCP, except a file with rmcp's own ``#[tool_router]`` when the
nearest Cargo.toml declares ``rmcp`` (modules that reach rmcp through ``use super::*``).
Exclusions: a file defining ``struct ToolAnnotations`` (``type-definition``, or ``sdk-source``
when it also defines the builder methods), a file that imports an SDK, defines no tool and reads
hint fields (``client-code``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import replace

from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.model import Annotations, Exclusion, Tool, substitute
from pipeline.scan.detect.rust.annotations import Evaluator, arguments
from pipeline.scan.detect.rust.forms import (
    ATTRIBUTES,
    CONSTRUCTORS,
    CRATES,
    IMPORT,
    Found,
    attached,
    attribute_tool,
    builder_tool,
    constructor,
    struct_tool,
)
from pipeline.scan.detect.rust.index import Wrapper, captures, enclosing_function, presets, wrappers
from pipeline.scan.detect.rust.values import path_segments, string_value
from pipeline.scan.detect.sdks import SDKS
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import Node, named

MARKERS = (b"rmcp", b"pmcp", b"rust_mcp", b"mcp_core", b"mcp_spec", b"toolannotations")
_ORDER = ("rust-rmcp", "rust-pmcp", "rust-mcp-sdk", "rust-mcp-core", "rust-mcp-spec")
_HINT_FIELDS = frozenset({"read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint"})
_CRATE_PATHS = tuple(f"{crate}::".encode() for crate in CRATES)
#: a file can define a preset or a wrapper only if it names the annotations type or a constructor
_INDEX_MARKERS = (b"toolannotations", b"tool::new", b"toolinfo", b"tool {", b"typedtool", b"simpletool")
_ANNOTATIONS_TYPE = re.compile(rb"\bstruct\s+ToolAnnotations\b")
_MACRO_SOURCE = re.compile(rb"#\[proc_macro_attribute\]\s*pub\s+fn\s+(?:tool|mcp_tool)\b")
_SDK_METHODS = (b"fn read_only(", b"fn with_read_only(", b"fn from_raw(")


class RustDetector:
    """Finds Rust MCP tool definitions; one instance per tree."""

    def __init__(self, dependencies: Dependencies) -> None:
        self.dependencies = dependencies
        self.presets: dict[str, Annotations] = {}
        self.wrappers: dict[str, Wrapper] = {}

    def index(self, file: SourceFile) -> None:
        """Phase 1: learn presets and wrappers from files that name an MCP crate."""
        if not any(m in file.lower for m in _INDEX_MARKERS):
            return
        sdks = self.sdks(file)
        if not sdks or _defines_annotations_type(file):
            return
        nodes = captures(file)
        self.presets.update(presets(file, nodes, lambda name, node: None))
        for wrapper in wrappers(file, nodes, sdks[0], self._resolver(file)):
            self.wrappers.setdefault(wrapper.name, wrapper)

    def detect(self, file: SourceFile) -> Iterator[Tool | Exclusion]:
        """Phase 2: the tool rows of ``file`` (or why it is left out)."""
        called = [w for w in self.wrappers if w.lower().encode() in file.lower]
        if not called and not any(m in file.lower for m in MARKERS):
            return
        if (why := _defines_annotations_type(file)) is not None:
            yield Exclusion(file.path, why, "defines struct ToolAnnotations or the tool macro")
            return
        sdks, nodes = self.sdks(file), captures(file)
        rows = list(self._definitions(file, nodes, sdks)) if sdks else []
        rows.extend(self._wrapper_calls(file, nodes))
        yield from rows
        if not rows and sdks and _reads_hints(file, nodes):
            yield Exclusion(file.path, "client-code", "reads tool annotation hints, defines no tool")

    def sdks(self, file: SourceFile) -> list[str]:
        """The MCP SDKs ``file`` names, in a fixed order (manifest only for ``#[tool_router]``)."""
        if not any(m in file.lower for m in MARKERS):
            return []
        present = [crate for crate in _CRATE_PATHS if crate in file.data]
        named_crates = {CRATES[m.decode()] for m in IMPORT.findall(file.data)} if present else set()
        rmcp = self.dependencies.find(SDKS["rust-rmcp"].packages, file.path)
        if not named_crates and b"#[tool_router" in file.data and rmcp is not None:
            named_crates.add("rust-rmcp")
        return [sdk for sdk in _ORDER if sdk in named_crates]

    def _definitions(self, file: SourceFile, nodes: dict[str, list[Node]], sdks: list[str]) -> Iterator[Tool]:
        evaluator = Evaluator(file, self._resolver(file))
        for item in nodes.get("attr", []):
            attribute = named(item)[0] if named(item) else None
            macro = path_segments(file, attribute.children[0]) if attribute and attribute.children else []
            sdk = _attribute_sdk(file, item, macro, sdks)
            if sdk is not None and (found := attribute_tool(file, item, sdk)) is not None:
                yield self._row(file, found, sdk)
        for call in nodes.get("call", []):
            if (kind := constructor(file, call)) is not None and not self._inside_wrapper(file, call):
                sdk = next((s for s in sdks if s in CONSTRUCTORS[kind[0]][0]), None)
                if sdk is not None:
                    yield self._row(file, builder_tool(file, call, evaluator), sdk)
        for node in nodes.get("struct", []):
            if not self._inside_wrapper(file, node) and (found := struct_tool(file, node, evaluator)) is not None:
                yield self._row(file, found, sdks[0])

    def _wrapper_calls(self, file: SourceFile, nodes: dict[str, list[Node]]) -> Iterator[Tool]:
        """Calls of a wrapper: in its own file, or in a file that imports it by name and defines
        no fn of the same name."""
        if not self.wrappers:
            return
        visible = {name for name, w in self.wrappers.items() if w.path == file.path or _imports(file, name)}
        calls = [(c, False) for c in nodes.get("call", [])] + [(c, True) for c in nodes.get("mcall", [])]
        for call, is_method in sorted(calls, key=lambda pair: pair[0].start_byte):
            function = call.child_by_field_name("function") or call
            if function.type == "scoped_identifier":
                continue
            segments = path_segments(file, function.child_by_field_name("field") or function if is_method else function)
            wrapper = self.wrappers.get(segments[-1]) if segments else None
            if wrapper is None or wrapper.name not in visible or wrapper.method != is_method:
                continue
            if self._inside_wrapper(file, call):
                continue
            args = arguments(call)
            name = string_value(file, args[wrapper.name_index]) if wrapper.name_index < len(args) else None
            annotations = substitute(wrapper.found.annotations, [file.text(a) for a in args])
            found = replace(wrapper.found, node=call, name=name, annotations=annotations)
            yield self._row(file, found, wrapper.sdk, via=f"wrapper:{wrapper.name}", form="wrapper")

    def _row(self, file: SourceFile, found: Found, sdk: str, via: str = "direct", form: str = "") -> Tool:
        source = found.annotations.source
        if via == "direct" and source.startswith("preset:"):
            via = source
        return Tool(
            path=file.path, line=file.line(found.node), sdk=sdk, tool_name=found.name,
            rule=f"{SDKS[sdk].language}.{sdk}.{form or found.form}", annotations=found.annotations,
            via=via, tool_title=found.tool_title, is_mcp=SDKS[sdk].is_mcp,
        )

    def _inside_wrapper(self, file: SourceFile, node: Node) -> bool:
        function = enclosing_function(node)
        if function is None:
            return False
        wrapper = self.wrappers.get(file.text(function.child_by_field_name("name")))
        return wrapper is not None and wrapper.path == file.path

    def _resolver(self, file: SourceFile) -> Callable[[str, Node], Annotations | None]:
        def resolve(name: str, node: Node) -> Annotations | None:
            local = _local_binding(file, name, node)
            if local is not None:
                return Evaluator(file, resolve, depth=1).evaluate(local)
            preset = self.presets.get(name)
            return replace(preset, source=f"preset:{name}") if preset is not None else None

        return resolve


def _attribute_sdk(file: SourceFile, item: Node, macro: list[str], sdks: list[str]) -> str | None:
    """The SDK of a ``#[tool]`` / ``#[mcp_tool]`` attribute, from its path or the file's crates."""
    if not macro or macro[-1] not in ATTRIBUTES:
        return None
    if len(macro) > 1:
        qualified = CRATES.get(macro[0])
        return qualified if qualified in ATTRIBUTES[macro[-1]] else None
    candidates = [s for s in sdks if s in ATTRIBUTES[macro[-1]]]
    if len(candidates) > 1 and macro[-1] == "mcp_tool":
        target = attached(item)
        return "rust-mcp-sdk" if target is not None and target.type == "struct_item" else "rust-pmcp"
    return candidates[0] if candidates else None


def _imports(file: SourceFile, name: str) -> bool:
    """Whether ``file`` brings ``name`` into scope (``use ..::name``, ``use ..::{name}``, ``use ..::*``)
    without defining a fn of that name itself."""
    if re.search(rb"\bfn\s+" + re.escape(name.encode()) + rb"\b", file.data):
        return False
    return re.search(rb"\buse\s[^;]*(?:\b" + re.escape(name.encode()) + rb"\b|\*)", file.data) is not None


def _local_binding(file: SourceFile, name: str, node: Node) -> Node | None:
    """The value of the nearest earlier ``let name = ..`` in an enclosing block."""
    parent = node.parent
    while parent is not None and parent.type != "function_item":
        if parent.type == "block":
            for statement in named(parent):
                if statement.start_byte >= node.start_byte:
                    break
                pattern = statement.child_by_field_name("pattern") if statement.type == "let_declaration" else None
                if pattern is not None and file.text(pattern).removeprefix("mut ").strip() == name:
                    return statement.child_by_field_name("value")
        parent = parent.parent
    return None


def _defines_annotations_type(file: SourceFile) -> str | None:
    """``type-definition`` / ``sdk-source`` when ``file`` defines its own ``struct ToolAnnotations``."""
    if b"proc_macro_attribute" in file.data and _MACRO_SOURCE.search(file.data):
        return "sdk-source"
    if b"toolannotations" not in file.lower or not _ANNOTATIONS_TYPE.search(file.data):
        return None
    return "sdk-source" if any(m in file.data for m in _SDK_METHODS) else "type-definition"


def _reads_hints(file: SourceFile, nodes: dict[str, list[Node]]) -> bool:
    return any(file.text(n) in _HINT_FIELDS for n in nodes.get("field", []))
