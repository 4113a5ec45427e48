"""Java and Kotlin detectors (sdk-idioms.md sections 7 and 8).

Java: the official SDK's ``McpSchema.Tool`` (1.x builder ``.name("x")``, 2.0 ``builder("x", schema)``,
``new McpSchema.Tool(..)``) with ``ToolAnnotations`` written positionally, with the 2.0 builder, or
as a preset (a field or helper method, one level, across files); Spring AI ``@McpTool``, Quarkus
``@Tool``, codeboyzhou ``@McpTool`` (MCP, no hints); Spring AI ``@Tool`` (MCP only when the module
declares an MCP server starter, as is a ``FunctionToolCallback.builder("name", fn)`` there: the
starter serves ``ToolCallback`` beans) and LangChain4j ``@Tool`` (look-alikes). Annotation-driven tools
are named after the method unless ``name =`` is written. Kotlin: ``Tool(..)`` and
``Server.addTool(name = ..)``. Both languages follow a project's own wrapper (a method defining a
tool from its parameters) to its call sites.

A file is parsed only when it holds a marker of these libraries or of a learned wrapper; a
file whose registration-like calls import no SDK yields nothing; a file reading hints as an
MCP client is recorded as ``client-code``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Protocol

from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.jvm.common import (
    OBJECT_FORMS,
    Imports,
    Knowledge,
    Wrapper,
    client_exclusion,
    client_side,
    constant,
    file_exclusions,
    in_sdk_package,
    string_value,
)
from pipeline.scan.detect.jvm.java import JavaFile
from pipeline.scan.detect.jvm.kotlin import KotlinFile
from pipeline.scan.detect.jvm.kotlin import parameters as kotlin_parameters
from pipeline.scan.detect.jvm.nodes import Found, enclosing
from pipeline.scan.detect.jvm.nodes import parameters as java_parameters
from pipeline.scan.detect.model import Annotations, Exclusion, Tool
from pipeline.scan.detect.sdks import SDKS
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import Node

JAVA_MARKERS = (b"modelcontextprotocol", b"springaicommunity", b"springframework.ai", b"quarkiverse.mcp",
                b"dev.langchain4j", b"codeboyzhou", b"thought2code", b"toolannotations")
KOTLIN_MARKERS = (b"modelcontextprotocol", b"toolannotations")
Markers = tuple[re.Pattern[bytes], ...]
# Byte patterns over the lower-cased text, each starting with a literal (an alternation at the
# start of a pattern makes Python's re try every position, several times slower).
#: what makes a file worth parsing in ``index``: a preset's declaration, or a tool definition
#: whose name is an identifier (a wrapper's parameter)
JAVA_INDEX: Markers = (re.compile(rb"toolannotations\s+\w+\s*[=(]"),
                       re.compile(rb"\.name\(\s*[a-z_]\w*\s*\)"), re.compile(rb"tool\.builder\(\s*[a-z_]\w*\s*[,)]"),
                       re.compile(rb"new\s+(?:mcpschema\.)?tool\(\s*[a-z_]\w*\s*,"))
KOTLIN_INDEX: Markers = (re.compile(rb"val\s[^\n=]*=\s*(?:[\w.]+\.)?toolannotations\("),
                         re.compile(rb"fun\s[^\n=]*=\s*(?:[\w.]+\.)?toolannotations\("),
                         re.compile(rb"tool\((?=\s*(?:name\s*=\s*)?[a-z_]\w*\s*[,)])"))
#: what a file that defines a tool holds, wrapper calls aside
JAVA_DEFINES: Markers = (re.compile(rb"tool\s*\.\s*builder\s*\("), re.compile(rb"new\s+[\w.]*tool\s*\("),
                         re.compile(rb"@[\w.]*tool\b"), re.compile(rb"functiontoolcallback\s*\.\s*builder\s*\("),
                         re.compile(rb"newtool\s*\("))
KOTLIN_DEFINES: Markers = (re.compile(rb"tool\s*\("),)


#: the SDKs' own registration names: a project method of one of them is read as the SDK's
_SDK_NAMES = ("addTool", "Tool", "builder")


class _Reader(Protocol):
    file: SourceFile

    def definitions(self) -> Iterator[Found]: ...
    def declarations(self) -> Iterator[tuple[str, Node]]: ...
    def resolve(self, node: Node | None, depth: int = 0) -> Annotations: ...


class _JvmDetector:
    """The two phases shared by both languages; subclasses say how to read a file."""

    markers: tuple[bytes, ...] = ()
    index_markers: Markers = ()
    define_markers: Markers = ()
    function = "method_declaration"

    def __init__(self, dependencies: Dependencies) -> None:
        self.dependencies = dependencies
        self.knowledge = Knowledge()
        self._indexed: list[tuple[SourceFile, Imports]] = []
        """the files phase 1 read: where wrappers of wrappers are looked for before phase 2."""
        self._deepened = False

    def _reader(self, file: SourceFile, imports: Imports) -> _Reader:
        raise NotImplementedError

    def _parameters(self, function: Node | None, file: SourceFile) -> list[str]:
        raise NotImplementedError

    def _wanted(self, file: SourceFile) -> bool:
        lower = file.lower
        return any(m in lower for m in self.markers) or any(m in lower for m in self.knowledge.wrapper_markers)

    def index(self, file: SourceFile) -> None:
        """Learn presets (``ToolAnnotations`` fields, properties, helpers) and wrappers."""
        if not self._wanted(file) or not any(m.search(file.lower) for m in self.index_markers):
            return
        imports = Imports.of(file.data)
        if any(e.reason == "sdk-source" for e in file_exclusions(file, imports)):
            return
        reader = self._reader(file, imports)
        for name, value in reader.declarations():
            hints = reader.resolve(value, depth=1)
            if hints.source not in ("none", "dynamic"):
                self.knowledge.presets[name] = hints
        self._indexed.append((file, imports))
        for found in reader.definitions():
            self._learn_wrapper(reader, found)

    def _deepen(self) -> None:
        """Wrappers of wrappers, once phase 1 has learnt the wrappers: a function handing its own
        parameter to a wrapper as the tool's name is a wrapper in turn (``register(name, ...)``
        calling a private ``track(name, ...)`` that calls ``addTool``), up to three deep."""
        if self._deepened:
            return
        self._deepened = True
        for _ in range(2):
            known = len(self.knowledge.wrappers)
            for file, imports in self._indexed:
                if any(m in file.lower for m in self.knowledge.wrapper_markers):
                    reader = self._reader(file, imports)
                    for found in reader.definitions():
                        self._learn_wrapper(reader, found, outer=True)
            if len(self.knowledge.wrappers) == known:
                return

    def _learn_wrapper(self, reader: _Reader, found: Found, *, outer: bool = False) -> None:
        """A function whose definition (``outer``: whose wrapper call) takes the tool's name from
        one of its parameters is a wrapper."""
        function = enclosing(found.node, self.function)
        params = self._parameters(function, reader.file)
        name = reader.file.text(found.name_expr)
        if function is None or (found.form == "wrapper") != outer or name not in params:
            return
        wrapper_name = reader.file.text(function.child_by_field_name("name"))
        if wrapper_name in _SDK_NAMES or wrapper_name in self.knowledge.wrappers:
            return  # an SDK's own overload, not a project wrapper; or one known already
        annotations = reader.file.text(found.annotations_expr)
        index = params.index(annotations) if annotations in params else None
        fixed = found.annotations if found.annotations_expr is None or index is not None else \
            reader.resolve(found.annotations_expr)
        self.knowledge.add_wrapper(Wrapper(wrapper_name, found.sdk, tuple(params), params.index(name), index, fixed))

    def detect(self, file: SourceFile) -> Iterator[Tool | Exclusion]:
        """The tool definitions of ``file``, or why it is left out."""
        self._deepen()
        if not self._wanted(file):
            return
        imports = Imports.of(file.data)
        exclusions = list(file_exclusions(file, imports))
        yield from exclusions
        if any(e.reason == "sdk-source" for e in exclusions):
            return
        rows: list[Tool] = []
        lower = file.lower
        if any(m.search(lower) for m in self.define_markers) or any(m in lower for m in self.knowledge.wrapper_markers):
            reader = self._reader(file, imports)
            rows = [tool for found in reader.definitions() if (tool := self._tool(reader, found)) is not None]
        if in_sdk_package(imports):  # the SDK's own machinery builds tools it is given: only named ones are tools
            rows = [tool for tool in rows if tool.tool_name is not None]
        if rows and (side := client_side(file)) is not None:  # what a server lists to a client
            kept = [tool for tool in rows if tool.rule.rsplit(".", 1)[-1] not in OBJECT_FORMS]
            if len(kept) < len(rows):
                yield Exclusion(file.path, "client-code", f"builds the tools a server lists to a client ({side})")
            rows = kept
        yield from rows
        if not rows and (client := client_exclusion(file)) is not None:
            yield client

    def _tool(self, reader: _Reader, found: Found) -> Tool | None:
        file = reader.file
        if found.name_expr is not None and self._in_wrapper(reader, found):
            return None  # the template inside a wrapper (of a wrapper): its calls are the tools
        name = string_value(file, found.name_expr) if found.name_expr is not None else found.default_name
        if name == "" and found.form == "attribute":  # @McpTool(name = ""): the SDKs fall back to the method's name
            name = found.default_name
        if name is None and found.name_expr is not None and found.name_expr.type == "identifier":
            name = constant(file, file.text(found.name_expr))
        annotations = found.annotations if found.annotations_expr is None else reader.resolve(found.annotations_expr)
        via = "direct"
        if found.form == "wrapper":
            via = f"wrapper:{file.text(_called(found.node))}"
        elif annotations.source.startswith("preset:"):
            via = annotations.source
        sdk = SDKS[found.sdk]
        return Tool(file.path, file.line(found.node), sdk.key, name, f"{sdk.language}.{sdk.key}.{found.form}",
                    annotations, via, string_value(file, found.title_expr), is_mcp=sdk.is_mcp)

    def _in_wrapper(self, reader: _Reader, found: Found) -> bool:
        """Whether ``found`` takes its name from a parameter of a wrapper around it (a known one, or a
        project method named as the SDK's ``addTool`` that hands its name on to a wrapper)."""
        function = enclosing(found.node, self.function)
        name = reader.file.text(function.child_by_field_name("name")) if function is not None else ""
        wrapper = self.knowledge.wrappers.get(name)
        if wrapper is not None:
            return reader.file.text(found.name_expr) in wrapper.params
        return found.form == "wrapper" and name in _SDK_NAMES and \
            reader.file.text(found.name_expr) in self._parameters(function, reader.file)


def _called(node: Node) -> Node | None:
    name = node.child_by_field_name("name")
    if name is not None:
        return name
    first = node.named_children[0] if node.named_child_count else None
    if first is not None and first.type == "navigation_expression":
        return first.named_children[-1]
    return first


class JavaDetector(_JvmDetector):
    """Java: the official SDK, Spring AI, Quarkus, codeboyzhou; Spring AI / LangChain4j ``@Tool`` look-alikes."""

    markers = JAVA_MARKERS
    index_markers = JAVA_INDEX
    define_markers = JAVA_DEFINES

    def _reader(self, file: SourceFile, imports: Imports) -> _Reader:
        starter = None
        if b"springframework.ai.tool" in file.lower:
            starter = self.dependencies.find(SDKS["java-spring-ai-tool-mcp"].packages, file.path)
        inside = starter is not None and (not starter.directory or file.path.startswith(starter.directory + "/"))
        return JavaFile(file, imports, self.knowledge, inside)

    def _parameters(self, function: Node | None, file: SourceFile) -> list[str]:
        return java_parameters(function, file)


class KotlinDetector(_JvmDetector):
    """Kotlin: the official Kotlin SDK (``io.modelcontextprotocol.kotlin.sdk``)."""

    markers = KOTLIN_MARKERS
    index_markers = KOTLIN_INDEX
    define_markers = KOTLIN_DEFINES
    function = "function_declaration"

    def _reader(self, file: SourceFile, imports: Imports) -> _Reader:
        return KotlinFile(file, imports, self.knowledge)

    def _parameters(self, function: Node | None, file: SourceFile) -> list[str]:
        return kotlin_parameters(function, file)
