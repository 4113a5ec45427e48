"""Phase 1 of the Go detector: what a tree's Go files share with each other.

Learned from files that import an MCP SDK (the only files whose declarations can name its types):

- string and bool constants (``const toolName = "search"``), for names, titles and hints;
- annotation presets: a variable bound to a ``pkg.ToolAnnotations{}`` / ``pkg.ToolAnnotation{}``
  literal, or a function that returns one (``readOnlyAnnotations()``);
- tool helpers: functions with a ``pkg.Tool`` parameter (github-mcp-server's
  ``NewTool(toolset, mcp.Tool{...}, scopes, handler)``); the literal passed in is the unit;
- wrappers: a function whose body holds one tool definition named by one of its parameters
  (``func addReadTool(s *mcp.Server, name, desc string, ...)``); each call is a unit. A trailing
  ``...mcp.ToolOption`` parameter takes each call's option helpers (``mcp.WithReadOnlyHintAnnotation``).
  Once they are read, a function whose body makes one call of a wrapper, naming the tool by one
  of its own parameters, is a wrapper too (``MustTool`` calling ``ConvertTool``), up to
  ``MAX_WRAPPER_DEPTH`` deep.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from posixpath import basename, dirname

from pipeline.scan.detect.golang.read import is_annotation_literal, read_annotation_literal
from pipeline.scan.detect.golang.scope import Scope
from pipeline.scan.detect.golang.syntax import Imports, Node, arguments, captures, literal_fields, read_imports, unwrap
from pipeline.scan.detect.golang.units import (
    Unit,
    enclosing_function,
    option_parameter,
    parameters,
    read_unit,
    takes_tool,
    units,
)
from pipeline.scan.detect.golang.wrappers import MAX_WRAPPER_DEPTH, Wrapper, call_of, wrappers_of_wrappers
from pipeline.scan.detect.model import FALSE, TRUE, Annotations
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import named, unquote, upper_constant


class Project:
    """Everything phase 1 learned, looked up by phase 2."""

    def __init__(self) -> None:
        self.strings: dict[str, str | None] = {}
        self.exported = Exported()
        """exported string constants of every Go file, by name, looked up when asked."""
        self.bools: dict[str, str | None] = {}
        self.tool_helpers: set[str] = set()
        self.wrappers: dict[str, list[Wrapper]] = {}
        self.owned: set[tuple[str, int]] = set()
        """(path, start byte) of the definitions inside wrappers (and of the wrapper calls inside
        wrappers of wrappers): counted at each call instead."""
        self._learnt: list[tuple[SourceFile, Imports]] = []
        self._presets: dict[str, Annotations | None] = {}
        self._local: dict[str, dict[str, Annotations]] = {}
        self._names: tuple[bytes, ...] = ()

    def scope(
        self, file: SourceFile, imports: Imports, params: dict[str, int] | None = None, local: list[Node] | None = None
    ) -> Scope:
        """A reading scope for ``file``: its own presets and ``local`` constants first, then the project's."""
        presets = {k: v for k, v in self._presets.items() if v is not None}
        presets.update(self._local.get(file.path, {}))
        strings, bools = self.strings, self.bools
        if local:
            strings, bools = dict(strings), dict(bools)
            for spec in local:
                _constant(file, spec, strings, bools, overwrite=True)
        return Scope(file, imports, strings, bools, presets, params or {}, self.exported)

    def learn_exported(self, file: SourceFile) -> None:
        """Keep a Go file whose exported string constants another package may name a tool with."""
        if b"const" in file.data:
            self.exported.files.append(file)

    def learn(self, file: SourceFile) -> None:
        """Index one Go file that imports an MCP SDK."""
        caps = captures(file.tree.root_node, index=True)
        imports = read_imports(file, caps.get("import", []))
        if not imports.tools:
            return
        self._learnt.append((file, imports))
        for spec in caps.get("const", []) + caps.get("var", []):
            _constant(file, spec, self.strings, self.bools)
        scope = self.scope(file, imports)
        for declaration in caps.get("var", []) + caps.get("short", []):
            self._preset_variable(scope, declaration)
        self._preset_functions(scope, caps.get("literal", []))
        self._functions(scope, caps)

    def _preset_variable(self, scope: Scope, declaration: Node) -> None:
        left, right = ("name", "value") if declaration.type == "var_spec" else ("left", "right")
        for name, value in zip(*_pairs(declaration, left, right), strict=False):
            if is_annotation_literal(scope, value):
                self._preset(scope, scope.file.text(name), value, enclosing_function(value) is None)

    def _preset_functions(self, scope: Scope, literals: list[Node]) -> None:
        for literal in literals:
            returned = literal.parent.parent if literal.parent and literal.parent.type == "unary_expression" else None
            holder = returned if returned is not None else literal.parent
            if holder is None or holder.parent is None or holder.parent.type != "return_statement":
                continue
            function = enclosing_function(literal)
            if function is not None and is_annotation_literal(scope, literal):
                self._preset(scope, scope.file.text(function.child_by_field_name("name")), literal, True)

    def _preset(self, scope: Scope, name: str, value: Node, top_level: bool) -> None:
        found = read_annotation_literal(scope, value, "inline").annotations
        self._local.setdefault(scope.file.path, {})[name] = found
        if top_level:
            _remember(self._presets, name, found)

    def _functions(self, scope: Scope, caps: dict[str, list[Node]]) -> None:
        inside: dict[int, list[Unit]] = {}
        for unit in units(scope, caps):
            function = enclosing_function(unit.node)
            if function is not None:
                inside.setdefault(function.start_byte, []).append(unit)
        for function in caps.get("function", []):
            name = scope.file.text(function.child_by_field_name("name"))
            if takes_tool(scope, function):
                self.tool_helpers.add(name)
            found = inside.get(function.start_byte, [])
            if len(found) == 1:
                self._wrapper(scope, name, function, found[0])

    def _wrapper(self, scope: Scope, name: str, function: Node, unit: Unit) -> None:
        params, arity, variadic = parameters(scope, function)
        named_by = literal_fields(scope.file, unit.body).get("Name") if unit.body else _first(arguments(unit.node))
        if named_by is None or named_by.type != "identifier" or scope.file.text(named_by) not in params:
            return
        options = option_parameter(scope, function)
        found = Wrapper(name, unit, scope.file, scope.imports, params, arity, variadic, options=options)
        self.wrappers.setdefault(name, []).append(found)
        self.owned.add((scope.file.path, unit.node.start_byte))

    def finish(self) -> None:
        """Read every wrapper's tool once all presets are known (parsing again the wrappers' files
        whose trees were dropped; those are dropped again at the end, the others kept)."""
        dropped: dict[str, SourceFile] = {}
        for wrapper in (w for same_name in self.wrappers.values() for w in same_name):
            if not wrapper.file.parsed:
                dropped[wrapper.file.path] = wrapper.file
            start, end = wrapper.unit.node.start_byte, wrapper.unit.node.end_byte
            node = wrapper.file.tree.root_node.descendant_for_byte_range(start, end)
            while node is not None and node.type != wrapper.unit.node.type:
                node = node.parent
            if node is not None:
                body = (node.child_by_field_name("body") or node) if wrapper.unit.body is not None else None
                unit = Unit(node, wrapper.unit.sdk, wrapper.unit.kind, body)
                wrapper.reading = read_unit(self.scope(wrapper.file, wrapper.imports, wrapper.params), unit)
        self._names = tuple(n.lower().encode() for n in self.wrappers)
        fresh = set(self.wrappers)
        for _ in range(MAX_WRAPPER_DEPTH - 1):
            fresh = {name for file, imports in self._learnt if self.mentions_wrapper(file.lower, fresh)
                     for name in wrappers_of_wrappers(self, file, imports, fresh, dropped)}
            self._names = tuple(n.lower().encode() for n in self.wrappers)
        for file in dropped.values():
            file.forget_tree()

    def wrapper(self, path: str, operand: str | None, name: str, count: int) -> Wrapper | None:
        """The wrapper a call ``name(..)`` / ``operand.name(..)`` with ``count`` arguments in ``path`` reaches:
        an unqualified call stays in its package (directory); a qualified one prefers the package
        named ``operand``, then the caller's directory, then the only candidate."""
        fits = [w for w in self.wrappers.get(name, []) if w.reading is not None and w.accepts(count)]
        here = [w for w in fits if dirname(w.file.path) == dirname(path)]
        if operand is None:
            return here[0] if here else None
        named_package = [w for w in fits if basename(dirname(w.file.path)) == operand]
        found = named_package or here or (fits if len(fits) == 1 else [])
        return found[0] if found else None

    @property
    def wrapper_names(self) -> tuple[str, ...]:
        """Every wrapper's name, sorted."""
        return tuple(sorted(self.wrappers))

    def mentions_wrapper(self, lower: bytes, names: set[str] | None = None) -> bool:
        """Whether lower-cased content may call one of the project's wrappers (or of ``names``)."""
        candidates = self._names if names is None else tuple(n.lower().encode() for n in names)
        return any(name in lower and call_of(name).search(lower) for name in candidates)


def _constant(
    file: SourceFile, spec: Node, strings: dict[str, str | None], bools: dict[str, str | None], overwrite: bool = False
) -> None:
    """Record a ``name = "literal"`` / ``name = true`` declaration (conflicting ones become ``None``)."""
    names, values = _pairs(spec, "name", "value")
    if len(names) != 1 or len(values) != 1:
        return
    name, value = file.text(names[0]), file.text(values[0]).strip()
    if value in (TRUE, FALSE):
        _remember(bools, name, value, overwrite)
    elif (text := unquote(value)) is not None and values[0].type.endswith("string_literal"):
        _remember(strings, name, text, overwrite)


def _pairs(node: Node, left: str, right: str) -> tuple[list[Node], list[Node]]:
    def field(name: str) -> list[Node]:
        found = node.children_by_field_name(name)
        if len(found) == 1 and found[0].type == "expression_list":
            return [n for n in (unwrap(c) for c in named(found[0])) if n is not None]
        return [n for n in (unwrap(c) for c in found) if n is not None]

    return field(left), field(right)


def _first(nodes: list[Node]) -> Node | None:
    return unwrap(nodes[0]) if nodes else None


def _remember(
    table: dict[str, str | None] | dict[str, Annotations | None], name: str, value: object, overwrite: bool = False
) -> None:
    if not overwrite and name in table and table[name] != value:
        table[name] = None
    else:
        table[name] = value  # type: ignore[assignment]


#: an exported string constant, ``%s`` for its name, in a ``const`` block or declaration
_GO_CONSTANT = rb'(?m)^[ \t]*(?:const[ \t]+)?%s[ \t]*(?:string[ \t]*)?=[ \t]*"([^"\\\n]*)"'


class Exported(Mapping[str, "str | None"]):
    """The exported string constants of the tree's Go files (``ListPodsToolName = "list_pods"``),
    each read when first asked for, from the files that name it; ``None`` when they disagree."""

    def __init__(self) -> None:
        self.files: list[SourceFile] = []
        self._found: dict[str, str | None] = {}

    def __getitem__(self, name: str) -> str | None:
        if name not in self._found:
            self._found[name] = upper_constant(self.files, name, _GO_CONSTANT)
        return self._found[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._found)

    def __len__(self) -> int:
        return len(self._found)
