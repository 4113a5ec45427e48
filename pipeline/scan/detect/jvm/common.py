"""What the Java and Kotlin detectors share: imports, literal values, presets, wrappers, exclusions.

Imports are read with a regular expression over the bytes (no parse needed); a simple name
resolves to a package when the file imports it by name or imports its package with ``*``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache

import tree_sitter

from pipeline.scan.detect.model import FALSE, NO_ANNOTATIONS, TRUE, UNSET, Annotations, Exclusion, hint_field
from pipeline.scan.detect.paths import relevant
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import boolean, compiled, unquote

Node = tree_sitter.Node

#: starts with a literal (fast to scan); ``of`` checks that only blanks precede it on its line
_IMPORT = re.compile(rb"import[ \t]+(?:static[ \t]+)?([\w.`]+?)(\.\*)?[ \t]*(?:as[ \t]+\w+)?[ \t]*;?[ \t]*$", re.M)
_PACKAGE = re.compile(rb"^[ \t]*package[ \t]+([\w.]+)", re.M)
_TYPE_DEFINITION = tuple(re.compile(kind + rb"\s+ToolAnnotations\b") for kind in (b"class", b"record", b"interface"))
#: packages whose own sources define the registration API (a copy of them is ``sdk-source``)
SDK_PACKAGES = ("io.modelcontextprotocol", "org.springaicommunity.mcp", "org.springframework.ai.mcp",
                "io.quarkiverse.mcp", "com.github.codeboyzhou.mcp", "com.github.thought2code.mcp")
_SDK_API = re.compile(rb"\b(?:class|record|interface)\s+(?:ToolAnnotations|McpSchema|Tool)\b"
                      rb"|@interface\s+(?:McpTool|Tool)\b|\bfun\s+addTool\b")
#: lower-cased bytes of MCP client code that reads hints
CLIENT_MARKERS = (b"mcptoolmetadatakeys", b"dev.langchain4j.mcp", b"io.modelcontextprotocol.client",
                  b"modelcontextprotocol.kotlin.sdk.client", b"listtools(")


#: a query not compiled yet: (grammar module, pattern); compiled on first use, once per process
Query = tuple[str, str]


def query(module: str, pattern: str) -> Query:
    """A tree-sitter query over the grammar of ``module``, compiled when first run (compiling
    costs milliseconds: module constants must not pay it at import)."""
    return module, pattern


def captured(q: Query, root: Node) -> list[Node]:
    """Every node captured by ``q`` under ``root`` (captures named ``_x`` aside), in source order."""
    found = tree_sitter.QueryCursor(compiled(q[0], "language", q[1])).captures(root)
    nodes = [n for name, group in found.items() if not name.startswith("_") for n in group]
    return sorted(nodes, key=lambda n: n.start_byte)


@cache
def calls_query(module: str, template: str, names: tuple[str, ...]) -> Query:
    """A query for calls of the project wrappers ``names`` (``{names}`` in ``template``)."""
    return query(module, template.replace("{names}", " ".join(f'"{n}"' for n in names)))


@dataclass(frozen=True)
class Imports:
    """The imports and package of one file."""

    package: str
    names: tuple[str, ...]
    """fully qualified imported names."""
    wildcards: tuple[str, ...]
    """packages imported with ``*``."""

    @classmethod
    def of(cls, data: bytes) -> Imports:
        """Read the imports of a Java or Kotlin file."""
        names: list[str] = []
        wildcards: list[str] = []
        for found in _IMPORT.finditer(data):
            if data[data.rfind(b"\n", 0, found.start()) + 1 : found.start()].strip():
                continue
            name = found.group(1).decode(errors="replace").replace("`", "")
            (wildcards if found.group(2) else names).append(name)
        package = _PACKAGE.search(data)
        return cls(package.group(1).decode() if package else "", tuple(names), tuple(wildcards))

    def any_from(self, prefixes: tuple[str, ...]) -> bool:
        """Whether the file imports anything from (or sits in) one of ``prefixes``."""
        every = (self.package, *self.names, *self.wildcards)
        return any(_under(name, p) for name in every for p in prefixes)

    def qualified(self, written: str) -> tuple[str, ...]:
        """The fully qualified names ``written`` (``Tool``, ``McpSchema.Tool``, ``a.b.Tool``) may stand for."""
        head, _, rest = written.partition(".")
        if head[:1].islower() and rest:
            return (written,)
        tail = "." + rest if rest else ""
        by_name = [n + tail for n in self.names if n.endswith("." + head) or n == head]
        if by_name:
            return tuple(by_name)
        return tuple(f"{w}.{written}" for w in (*self.wildcards, self.package) if w)

    def resolves(self, written: str, prefixes: tuple[str, ...]) -> bool:
        """Whether ``written`` names something under one of ``prefixes``."""
        return any(_under(q, p) for q in self.qualified(written) for p in prefixes)


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


#: a Kotlin string template: ``$name`` or ``${expression}``
_KOTLIN_TEMPLATE = re.compile(r"\$[A-Za-z_{]")


def string_value(file: SourceFile, node: Node | None) -> str | None:
    """The value of a plain string literal node (no interpolation), else ``None``."""
    if node is None or node.type != "string_literal":
        return None
    if any(c.type in ("interpolation", "string_interpolation", "interpolated_expression",
                      "interpolated_identifier") for c in node.children):
        return None
    text = file.text(node)
    if file.path.endswith((".kt", ".kts")) and _KOTLIN_TEMPLATE.search(text):
        return None  # "$plugin.$name": the Kotlin grammar leaves templates as plain string content
    return unquote(text)


def constant(file: SourceFile, name: str) -> str | None:
    """The value of a string constant ``name`` declared in ``file`` (``static final String NAME = "x";``,
    ``const val NAME = "x"``), or ``None``."""
    if not name.isidentifier():
        return None
    found = re.search(rb"(?<![\w.])" + name.encode() + rb"\s*(?::\s*String\s*)?=\s*(\"[^\"\\\n$]*\")\s*;?\s*$",
                      file.data, re.M)
    return unquote(found.group(1).decode(errors="replace")) if found else None


def hint_value(text: str) -> str:
    """``true``/``false`` for a Java/Kotlin boolean literal (``Boolean.TRUE`` too), ``unset`` for
    ``null``, else ``dynamic``."""
    value = text.strip()
    if value == "null":
        return UNSET
    if value in ("Boolean.TRUE", "java.lang.Boolean.TRUE"):
        return TRUE
    if value in ("Boolean.FALSE", "java.lang.Boolean.FALSE"):
        return FALSE
    return boolean(value)


def with_title(found: Annotations, file: SourceFile, node: Node) -> Annotations:
    """``found`` with the annotations title written as ``node``."""
    if file.text(node).strip() == "null":
        return found
    title = string_value(file, node)
    state = "true" if title is not None else "dynamic"
    return Annotations(**{**found.__dict__, "title": title, "title_state": state})


def with_pairs(found: Annotations, file: SourceFile, pairs: list[tuple[str, Node]]) -> Annotations:
    """``found`` with named values (``readOnlyHint = true``, ``title = "T"``) applied."""
    for key, value in pairs:
        if key == "title":
            found = with_title(found, file, value)
        elif (hint := hint_field(key)) is not None:
            found = found.with_hint(hint, hint_value(file.text(value)))
    return found


POSITIONAL = ("title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


@dataclass(frozen=True)
class Wrapper:
    """A project's own method that defines a tool from its parameters."""

    name: str
    sdk: str
    params: tuple[str, ...]
    """the wrapper's parameter names."""
    name_index: int | None
    """parameter holding the tool name."""
    annotations_index: int | None
    """parameter holding the annotations object, when it is one."""
    annotations: Annotations = NO_ANNOTATIONS
    """annotations the wrapper writes itself (when ``annotations_index`` is None)."""


@dataclass
class Knowledge:
    """What ``index`` learns across a tree: presets and wrappers by simple name."""

    presets: dict[str, Annotations] = field(default_factory=dict)
    wrappers: dict[str, Wrapper] = field(default_factory=dict)
    wrapper_markers: tuple[bytes, ...] = ()

    def add_wrapper(self, wrapper: Wrapper) -> None:
        """Record a wrapper (and its byte marker for the prefilter)."""
        self.wrappers[wrapper.name] = wrapper
        self.wrapper_markers = tuple(w.lower().encode() + b"(" for w in self.wrappers)


def preset(knowledge: Knowledge, name: str) -> Annotations | None:
    """The annotations of a preset ``name`` (``source='preset:<name>'``), if one is known."""
    found = knowledge.presets.get(name)
    return found.with_source(f"preset:{name}") if found is not None else None


def in_sdk_package(imports: Imports) -> bool:
    """Whether the file belongs to an SDK's own packages (``SDK_PACKAGES``)."""
    return any(_under(imports.package, p) for p in SDK_PACKAGES)


def file_exclusions(file: SourceFile, imports: Imports) -> Iterator[Exclusion]:
    """``sdk-source`` for a copy of an SDK's own API, ``type-definition`` for a project's own
    ``ToolAnnotations`` type."""
    in_sdk = in_sdk_package(imports)
    if in_sdk and b"tool" in file.lower and (found := _SDK_API.search(file.data)) is not None:
        yield Exclusion(file.path, "sdk-source", f"package {imports.package}: {found.group(0).decode()}")
    elif b"toolannotations" in file.lower:
        for pattern in _TYPE_DEFINITION:
            if (found := pattern.search(file.data)) is not None:
                yield Exclusion(file.path, "type-definition", found.group(0).decode())
                return


#: a client's side of MCP (its handlers receive the tools a server lists) ...
_CLIENT_SIDE = re.compile(rb"io\.modelcontextprotocol\.client|mcp(?:sync|async)client|clientmcp|handletoollistchanged")
#: ... and a server's (which registers the tools it builds)
_SERVER_SIDE = re.compile(rb"io\.modelcontextprotocol\.server|mcpserverfeatures|toolspecification"
                          rb"|mcp(?:stateless)?server\.(?:sync|async)|@mcptool\b|mcpstatelessserver")
#: the forms that build a tool object, which a client's test builds too (as what a server lists)
OBJECT_FORMS = ("builder", "new-tool")


def client_side(file: SourceFile) -> str | None:
    """What shows that ``file`` is an MCP client's side only (a tool object it builds is one a
    server lists to it: ``registry.handleToolListChanged("c", List.of(Tool.builder(...)))``)."""
    client = _CLIENT_SIDE.search(file.lower)
    return client.group(0).decode() if client is not None and _SERVER_SIDE.search(file.lower) is None else None


def client_exclusion(file: SourceFile) -> Exclusion | None:
    """``client-code`` for a file that reads hints as an MCP client (called when it defines no tool)."""
    client = next((m for m in CLIENT_MARKERS if m in file.lower), None)
    marker = relevant(file) or ("mcptoolmetadatakeys" if b"mcptoolmetadatakeys" in file.lower else None)
    if client is None or marker is None:
        return None
    return Exclusion(file.path, "client-code", f"{client.decode()} (mentions {marker})")
