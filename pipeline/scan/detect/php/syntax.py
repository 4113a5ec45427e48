"""PHP syntax helpers for the PHP detector: name resolution through ``use`` statements,
call arguments (named and positional) and plain string literals."""

from __future__ import annotations

from dataclasses import dataclass, field

import tree_sitter

from pipeline.scan.detect.source import SourceFile, parser_for
from pipeline.scan.detect.syntax import Node, named, unquote

_LANGUAGE = parser_for("tree_sitter_php", "language_php").language
assert _LANGUAGE is not None
LANGUAGE: tree_sitter.Language = _LANGUAGE

#: one query for every node the PHP detector reads, captured per type
QUERY = tree_sitter.Query(
    LANGUAGE,
    """
    (namespace_definition) @namespace
    (namespace_use_declaration) @use
    (attribute) @attribute
    (class_declaration) @class
    (member_call_expression) @call
    (scoped_call_expression) @static
    (const_declaration) @const
    (function_definition) @function
    (method_declaration) @method
    """,
)


def captures(file: SourceFile) -> dict[str, list[Node]]:
    """Every node of ``QUERY`` in ``file``, by capture name, in source order."""
    def run() -> dict[str, list[Node]]:
        found = tree_sitter.QueryCursor(QUERY).captures(file.tree.root_node)
        return {name: sorted(nodes, key=lambda n: n.start_byte) for name, nodes in found.items()}

    return file.kept("php", run)


@dataclass
class Scope:
    """A file's namespace and class imports: how a written class name resolves."""

    namespace: str = ""
    """the file's (first) namespace, '' for the global one."""
    classes: dict[str, str] = field(default_factory=dict)
    """alias (as written, lower-cased) -> fully qualified class name, from ``use`` statements."""
    imported: list[str] = field(default_factory=list)
    """every imported name (classes, functions, constants), fully qualified."""

    def resolve(self, name: str) -> str:
        """The fully qualified name of a class name as written (no leading ``\\``)."""
        if name.startswith("\\"):
            return name[1:]
        head, _, rest = name.partition("\\")
        if head.lower() in self.classes:
            return self.classes[head.lower()] + ("\\" + rest if rest else "")
        return f"{self.namespace}\\{name}" if self.namespace else name

    def imports(self, prefix: str) -> bool:
        """Whether any ``use`` statement imports a name starting with ``prefix``."""
        return any(name == prefix or name.startswith(prefix + "\\") for name in self.imported)


def scope_of(file: SourceFile, found: dict[str, list[Node]]) -> Scope:
    """The namespace and imports of ``file`` (``found`` from ``captures``)."""
    scope = Scope()
    spaces = found.get("namespace", [])
    if spaces and (space := spaces[0].child_by_field_name("name")) is not None:
        scope.namespace = file.text(space)
    for use in found.get("use", []):
        _read_use(file, use, scope)
    return scope


def _read_use(file: SourceFile, use: Node, scope: Scope) -> None:
    kind = _use_kind(use)
    group = use.child_by_field_name("body")
    prefix = ""
    if group is not None:
        prefix = "".join(file.text(c) for c in use.children if c.type == "namespace_name") + "\\"
    clauses = named(group) if group is not None else named(use)
    for clause in clauses:
        if clause.type != "namespace_use_clause":
            continue
        clause_kind = _use_kind(clause) or kind
        target = next((c for c in clause.children if c.type in ("name", "qualified_name")), None)
        if target is None:
            continue
        full = (prefix + file.text(target)).lstrip("\\")
        scope.imported.append(full)
        if clause_kind == "":
            alias = clause.child_by_field_name("alias")
            short = file.text(alias) if alias is not None else full.rsplit("\\", 1)[-1]
            scope.classes[short.lower()] = full


def _use_kind(node: Node) -> str:
    kind = node.child_by_field_name("type")
    if kind is not None:
        return kind.type
    return next((c.type for c in node.children if c.type in ("function", "const")), "")


def string_value(file: SourceFile, node: Node | None) -> str | None:
    """The value of a plain PHP string literal, ``None`` for anything else (interpolation too)."""
    if node is None:
        return None
    if node.type == "string":
        return unquote(file.text(node))
    if node.type == "encapsed_string" and all(c.type in ('"', "string_content", "escape_sequence")
                                              for c in node.children):
        return unquote(file.text(node))
    return None


@dataclass(frozen=True)
class Arguments:
    """The arguments of a call, attribute or ``new`` expression."""

    positional: tuple[Node, ...]
    """values passed by position, in order."""
    keywords: dict[str, Node]
    """values passed by name (PHP 8 named arguments)."""

    def get(self, name: str, position: int) -> Node | None:
        """The value for parameter ``name`` at ``position``, whichever way it was passed."""
        if name in self.keywords:
            return self.keywords[name]
        return self.positional[position] if position < len(self.positional) else None


def arguments(file: SourceFile, node: Node | None) -> Arguments:
    """The arguments of ``node`` (an ``arguments`` node, or a node holding one)."""
    if node is not None and node.type != "arguments":
        node = node.child_by_field_name("arguments") or next(
            (c for c in node.children if c.type == "arguments"), None)
    positional: list[Node] = []
    keywords: dict[str, Node] = {}
    for argument in named(node) if node is not None else []:
        if argument.type != "argument" or not argument.named_children:
            continue
        label = argument.child_by_field_name("name")
        value = argument.named_children[-1]
        if label is not None:
            keywords[file.text(label)] = value
        else:
            positional.append(value)
    return Arguments(tuple(positional), keywords)


def class_name(file: SourceFile, node: Node) -> str:
    """The name written in a ``new``, attribute or ``X::y`` node ('' when not a plain name)."""
    target = next((c for c in node.children if c.type in ("name", "qualified_name", "relative_scope")), None)
    return file.text(target)


def enclosing_class(node: Node) -> Node | None:
    """The class (or trait/enum) declaration around ``node``, if any."""
    current = node.parent
    while current is not None and current.type not in ("class_declaration", "trait_declaration",
                                                        "enum_declaration", "interface_declaration"):
        current = current.parent
    return current


def declared_name(file: SourceFile, node: Node | None) -> str:
    """The ``name`` field of a declaration ('' when ``node`` is ``None``)."""
    if node is None:
        return ""
    return file.text(node.child_by_field_name("name"))
