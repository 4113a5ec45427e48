"""Ruby detector for the official ``mcp`` gem (``ruby-mcp``) and ``fast-mcp`` (``ruby-fast-mcp``).

Forms (rule ``ruby.<sdk>.<form>``), and the line each row reports:

- ``subclass``: ``class X < MCP::Tool`` / ``< FastMcp::Tool`` / ``< ActionTool::Base``, or ``< Base`` where the
  project's ``Base`` extends one of those (one level; a class that other classes extend is a base, not a
  tool); line of ``class``. Class-level ``tool_name``, ``annotations(...)`` (keyword arguments, a hash, string
  or symbol keys, ``**PRESET`` or a lone constant: ``preset:<name>``). ``mcp``: ``title "..."`` is the
  tool-level title. ``fast-mcp``: the DSL ``read_only [v]``, ``destructive``, ``idempotent``,
  ``open_world``, ``title`` fills the annotations (source ``options`` when no ``annotations(...)``).
- ``class-new``: ``Class.new(MCP::Tool) do ... end`` (or a project base, or ``{ ... }``), as specs make tools:
  the block is read as a class body; without ``tool_name``, the constant it is assigned to names it as a
  class name would (a local variable gives no name); line of the call.
- ``define``: ``MCP::Tool.define(name:, title:, annotations:) { ... }``; ``define-tool``:
  ``server.define_tool(name:, annotations:) { ... }``; line of the call. ``title:`` is the tool title.

Attribution: ``require``/``require_relative`` of ``mcp`` or ``fast_mcp`` in the file, else the nearest
Gemfile/gemspec (Rails autoloads without requires). A tool-looking class nothing attributes is recorded as an
``unattributed`` exclusion; copies of the gems' ``Tool`` class are ``sdk-source``, a project's own
``...Annotations`` class ``type-definition``, and ``MCP::Client`` code reading hints ``client-code``.
Classes of other gems (``RubyLLM::Tool``, ``Langchain::Tool``...) have no marker and are never parsed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import tree_sitter

from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.model import Annotations, Exclusion, Tool
from pipeline.scan.detect.ruby import reading
from pipeline.scan.detect.ruby.forms import (
    RubyIndex,
    annotations_of,
    annotations_value,
    fast_mcp_name,
    hash_items,
    keyword_args,
    qualified_class_name,
    string,
    underscore,
)
from pipeline.scan.detect.ruby.reading import FAST, OFFICIAL
from pipeline.scan.detect.sdks import SDKS
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import named

BASES = {"MCP::Tool": OFFICIAL, "FastMcp::Tool": FAST, "ActionTool::Base": FAST}
_MARKERS = (b"mcp::", b"fastmcp", b"actiontool", b"define_tool", b"module mcp")
_HINTS = (b"read_only", b"readonly", b"destructive", b"idempotent", b"open_world", b"openworld")
_CLASS = re.compile(rb"^(?:\xef\xbb\xbf)?[ \t]*class\s+([\w:]+)\s*<\s*([\w:]+)", re.M)
_CLASS_NEW = re.compile(rb"\bClass\.new\(\s*([\w:]+)\s*\)")
_SDK_SOURCE = (re.compile(rb"^(?:\xef\xbb\xbf)?[ \t]*module\s+(?:MCP|FastMcp)\b", re.M),
               re.compile(rb"^[ \t]*class\s+Tool\b", re.M),
               re.compile(rb"\bdef\s+(?:self\.)?(?:annotations|define_tool|tool_name)\b"))
_OWN_ANNOTATIONS = re.compile(rb"^(?:\xef\xbb\xbf)?[ \t]*class\s+(?:[\w:]*::)?(\w*Annotations)\b", re.M)
_CLIENT = re.compile(rb"\b(?:MCP|FastMcp)::Client\b")
_QUERY = ('(class superclass: (superclass)) @class'
          ' (call method: (identifier) @m (#any-of? @m "define" "define_tool")) @call'
          ' (call receiver: (constant) @_class method: (identifier) @_new arguments: (argument_list)'
          ' block: [(do_block) (block)] (#eq? @_class "Class") (#eq? @_new "new")) @anonymous')
#: lower-case bytes of a definition worth parsing the file for (project bases are checked separately)
_CANDIDATES = (b"mcp::tool", b"actiontool::base", b"define_tool")
_HASH_CONSTANT = re.compile(rb"^(?:\xef\xbb\xbf)?[ \t]*[A-Z][\w:]*\s*=\s*\{", re.M)
_PRESET_QUERY = "(assignment left: [(constant) (scope_resolution)] @name right: _ @value)"


class RubyDetector:
    """Finds ``ruby-mcp`` and ``ruby-fast-mcp`` tool definitions; see the module docstring."""

    def __init__(self, dependencies: Dependencies) -> None:
        self.dependencies = dependencies
        self.known = RubyIndex()
        self._required_bases: set[str] = set()
        self._bases: re.Pattern[bytes] | None = None
        self._bases_ready = False
        self._query = reading.query(_QUERY)
        self._preset_query = reading.query(_PRESET_QUERY)

    def index(self, file: SourceFile) -> None:
        """Learn every class's superclass (regex, no parse) and constants holding annotation hashes."""
        required = reading.required(file.data)
        for name, parent in _CLASS.findall(file.data):
            short = name.decode().rsplit("::", 1)[-1]
            self.known.superclass[short] = parent.decode().lstrip(":")
            if BASES.get(parent.decode().lstrip(":")) in required:
                self._required_bases.add(short)
        for found in _CLASS_NEW.finditer(file.data):  # a project class extended by an anonymous one is a base
            if (parent := found.group(1).decode().lstrip(":")) not in BASES:
                self.known.superclass[f"{file.path}#{found.start()}"] = parent
        if any(h in file.lower for h in _HINTS) and _HASH_CONSTANT.search(file.data):
            captures = tree_sitter.QueryCursor(self._preset_query).captures(file.tree.root_node)
            for name, value in zip(captures.get("name", []), captures.get("value", []), strict=False):
                self._index_preset(file, name, value)

    def _index_preset(self, file: SourceFile, name: tree_sitter.Node, value: tree_sitter.Node) -> None:
        if value.type == "call" and file.text(value.child_by_field_name("method")) == "freeze":
            value = value.child_by_field_name("receiver") or value
        if value.type == "hash":
            found = annotations_of(file, hash_items(value), self.known)
            if found != Annotations(source="inline"):
                self.known.presets[file.text(name).rsplit("::", 1)[-1]] = found

    def _sdk_of(self, superclass: str) -> tuple[str, str | None] | None:
        """The SDK a superclass leads to, and the project base it goes through (one level)."""
        parent = superclass.lstrip(":")
        if parent in BASES:
            return BASES[parent], None
        short = parent.rsplit("::", 1)[-1]
        grand = self.known.superclass.get(short, "")
        return (BASES[grand], short) if grand in BASES else None

    def _is_base(self, short: str) -> bool:
        return any(parent.rsplit("::", 1)[-1] == short for parent in self.known.superclass.values())

    def detect(self, file: SourceFile) -> Iterator[Tool | Exclusion]:
        """The tools ``file`` defines, or why it is left out."""
        if not any(m in file.lower for m in _MARKERS) and not self._extends_base(file):
            return
        gem_module = b"module mcp" in file.lower or b"module fastmcp" in file.lower
        if gem_module and all(pattern.search(file.data) for pattern in _SDK_SOURCE):
            yield Exclusion(file.path, "sdk-source", "defines the gem's Tool class")
            return
        candidate = any(m in file.lower for m in _CANDIDATES) or self._extends_base(file)
        found = list(self._rows(file)) if candidate else []
        yield from found
        if any(isinstance(row, Tool) for row in found) or not any(h in file.lower for h in _HINTS):
            return
        if (own := _OWN_ANNOTATIONS.search(file.data)) is not None:
            reason = "sdk-source" if gem_module else "type-definition"
            yield Exclusion(file.path, reason, f"defines {own.group(1).decode()}")
        elif _CLIENT.search(file.data):
            yield Exclusion(file.path, "client-code", "MCP client reading tool annotations")

    def _extends_base(self, file: SourceFile) -> bool:
        """Whether ``file`` subclasses one of the project's own tool base classes (regex built once)."""
        if not self._bases_ready:
            names = sorted(re.escape(n) for n, parent in self.known.superclass.items() if parent in BASES)
            self._bases = re.compile(rb"(?:<|Class\.new\()\s*(?:[\w:]*::)?(?:" + "|".join(names).encode() + rb")\b") \
                if names else None
            self._bases_ready = True
        return self._bases is not None and self._bases.search(file.data) is not None

    def _attributed(self, file: SourceFile) -> set[str]:
        found = reading.required(file.data)
        for key in (OFFICIAL, FAST):
            if self.dependencies.find(SDKS[key].packages, file.path) is not None:
                found.add(key)
        return found

    def _rows(self, file: SourceFile) -> Iterator[Tool | Exclusion]:
        attributed = self._attributed(file)
        captures = tree_sitter.QueryCursor(self._query).captures(file.tree.root_node)
        anonymous = captures.get("anonymous", [])
        nodes = captures.get("class", []) + captures.get("call", []) + anonymous
        for node in sorted(nodes, key=lambda n: n.start_byte):
            if node.type == "class":
                yield from self._class(file, node, attributed)
            elif node in anonymous:
                yield from self._anonymous(file, node, attributed)
            elif (row := self._call(file, node, attributed)) is not None:
                yield row

    def _class(self, file: SourceFile, node: tree_sitter.Node, attributed: set[str]) -> Iterator[Tool | Exclusion]:
        parent = node.child_by_field_name("superclass")
        sdk = self._sdk_of(file.text(named(parent)[0])) if parent is not None and named(parent) else None
        name = file.text(node.child_by_field_name("name")).lstrip(":")
        if sdk is None or self._is_base(name.rsplit("::", 1)[-1]):
            return
        default = underscore(name) if sdk[0] == OFFICIAL else fast_mcp_name(qualified_class_name(file, node))
        yield from self._tool_class(file, node, node, sdk=sdk, attributed=attributed, form="subclass",
                                    what=f"{name} extends an MCP tool class", default=default)

    def _anonymous(self, file: SourceFile, node: tree_sitter.Node, attributed: set[str]) -> Iterator[Tool | Exclusion]:
        """``Class.new(MCP::Tool) do ... end``: a tool class with no constant of its own."""
        given = node.child_by_field_name("arguments")
        args = named(given) if given is not None else []
        parent = file.text(args[0]) if len(args) == 1 and args[0].type in ("constant", "scope_resolution") else ""
        sdk, block = self._sdk_of(parent) if parent else None, node.child_by_field_name("block")
        if sdk is None or block is None:
            return
        constant = reading.assigned_constant(file, node)
        default = None if constant is None else underscore(constant) if sdk[0] == OFFICIAL else fast_mcp_name(constant)
        yield from self._tool_class(file, node, block, sdk=sdk, attributed=attributed, form="class-new",
                                    what=f"Class.new({parent}) makes an MCP tool", default=default)

    def _tool_class(self, file: SourceFile, at: tree_sitter.Node, body: tree_sitter.Node, *,
                    sdk: tuple[str, str | None], attributed: set[str], what: str, form: str,
                    default: str | None) -> Iterator[Tool | Exclusion]:
        """The row of a tool class whose body ``body`` holds (``default``: its name without ``tool_name``),
        or why it is left out (``what`` it is, when nothing attributes its SDK)."""
        key, through = sdk
        if key not in attributed and through not in self._required_bases:
            yield Exclusion(file.path, "unattributed", f"{what}; no require or Gemfile")
            return
        written, tool_name, tool_title, ann = reading.read_class(file, body, key, self.known)
        via = ann.source if ann.source.startswith("preset:") else "direct"
        yield Tool(file.path, file.line(at), key, tool_name if written else default, f"ruby.{key}.{form}", ann, via,
                   tool_title)

    def _call(self, file: SourceFile, node: tree_sitter.Node, attributed: set[str]) -> Tool | None:
        method = file.text(node.child_by_field_name("method"))
        receiver = file.text(node.child_by_field_name("receiver")).lstrip(":")
        if OFFICIAL not in attributed or not ((method == "define" and receiver == "MCP::Tool")
                                              or method == "define_tool"):
            return None
        args = keyword_args(node)
        value = args.get("annotations")
        ann = annotations_value(file, value, self.known) if value is not None else Annotations()
        via = ann.source if ann.source.startswith("preset:") else "direct"
        form = "define" if method == "define" else "define-tool"
        return Tool(file.path, file.line(node), OFFICIAL, string(file, args.get("name")), f"ruby.{OFFICIAL}.{form}",
                    ann, via, string(file, args.get("title")))
