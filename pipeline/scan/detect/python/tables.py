"""Python tools listed in tables of tuples, registered in a ``for`` loop that unpacks them.

``for func, name, description, *_ in functions: app.add_tool(Tool.from_function(func, name=name))``
registers one tool per tuple of the table the loop runs over, named by the string at the
position the loop gives ``name``. The table is found where the loop says, else where it can be:

- a list or tuple literal written in the loop, or a module-level constant of this file, or one
  this file imports (``from .tools import TOOLS``);
- where the loop runs over a value made at run time (``functions = get_function()``, looked up
  in a dict of imported functions), every table reachable from this file that fits the loop:
  its module-level lists, and the functions it defines or imports that ``return`` a list literal.

A table fits when each of its tuples has as many elements as the loop unpacks (at least as many
less one, with a ``*rest``), a string literal at the name's position and, when the registration
passes the loop's function variable, a function reference at that variable's position. Each
tuple is one row, at its own line and file.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.scan.detect.python.index import module_file
from pipeline.scan.detect.python.loops import module_value
from pipeline.scan.detect.python.scope import Node, string_value, text
from pipeline.scan.detect.source import SourceFile

_TARGETS = ("pattern_list", "tuple_pattern")
_REFERENCES = ("identifier", "attribute")


@dataclass(frozen=True)
class Unpacking:
    """A ``for`` loop's tuple target: the positions of the name and of the function."""

    loop: Node
    iterated: Node
    size: int
    """targets before any ``*rest``."""
    starred: bool
    name_at: int
    function_at: int | None


@dataclass(frozen=True)
class Entry:
    """One tuple of a table: where it is, and the tool name it holds."""

    file: SourceFile
    node: Node
    name: str


def unpacking(data: bytes, name: Node, function: Node | None) -> Unpacking | None:
    """The tuple-unpacking ``for`` loop that binds the identifier ``name``, if there is one."""
    if name.type != "identifier":
        return None
    wanted, node = text(data, name), name.parent
    while node is not None and node.type not in ("function_definition", "class_definition", "module"):
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if node.type == "for_statement" and left is not None and right is not None and left.type in _TARGETS:
            targets = [c for c in left.named_children if c.type != "comment"]
            names = [text(data, t) if t.type == "identifier" else None for t in targets]
            if wanted in names:
                starred = bool(targets) and targets[-1].type == "list_splat_pattern"
                spot = text(data, function) if function is not None and function.type == "identifier" else None
                return Unpacking(node, right, len(targets) - starred, starred, names.index(wanted),
                                 names.index(spot) if spot in names else None)
        node = node.parent
    return None


def entries(file: SourceFile, imports: dict[str, str], modules: dict[str, SourceFile],
            shape: Unpacking) -> list[Entry]:
    """Every tuple of the tables the loop of ``shape`` may run over (see the module doc)."""
    data, iterated = file.data, shape.iterated
    if iterated.type in ("list", "tuple"):
        return _fitting(file, iterated, shape)
    if iterated.type == "identifier":
        listed = _module_value(file, text(data, iterated))
        if listed is not None:
            return _fitting(file, listed, shape)
        imported = _imported(imports.get(text(data, iterated)), file.path, modules)
        if imported is not None:
            return _fitting(imported[0], imported[1], shape)
    if shape.function_at is None:
        return []  # nothing ties a table of run time to this loop
    found: list[Entry] = []
    for where, table in _reachable(file, imports, modules):
        found += _fitting(where, table, shape)
    return found


def _fitting(file: SourceFile, table: Node | None, shape: Unpacking) -> list[Entry]:
    """The tuples of ``table`` when every one fits ``shape`` (else none)."""
    if table is None or table.type not in ("list", "tuple"):
        return []
    rows = [e for e in table.named_children if e.type != "comment"]
    found: list[Entry] = []
    for row in rows:
        cells = [c for c in row.named_children if c.type != "comment"] if row.type == "tuple" else []
        enough = len(cells) >= shape.size if shape.starred else len(cells) == shape.size
        name = string_value(file.data, cells[shape.name_at]) if enough and cells[shape.name_at].type == "string" \
            else None
        function_ok = shape.function_at is None or (enough and cells[shape.function_at].type in _REFERENCES)
        if name is None or not function_ok:
            return []
        found.append(Entry(file, row, name))
    return found


def _module_value(file: SourceFile, name: str) -> Node | None:
    return module_value(file.data, file.tree.root_node, name)


def _returned(file: SourceFile, name: str) -> Node | None:
    """The list a module-level ``def name()`` of this file returns, when its one ``return`` gives a literal."""
    for statement in file.tree.root_node.named_children:
        definition = statement.child_by_field_name("definition") if statement.type == "decorated_definition" \
            else statement
        if definition is None or definition.type != "function_definition" or \
                text(file.data, definition.child_by_field_name("name")) != name:
            continue
        body = definition.child_by_field_name("body")
        returns = [s for s in (body.named_children if body is not None else []) if s.type == "return_statement"]
        values = [r.named_children[0] for r in returns if r.named_children]
        return values[0] if len(values) == 1 and values[0].type in ("list", "tuple") else None
    return None


def _imported(qualified: str | None, importer: str, modules: dict[str, SourceFile]) -> tuple[SourceFile, Node] | None:
    """The table an imported name is in its own module: a constant, or what a function returns."""
    module, _, name = (qualified or "").rpartition(".")
    found = module_file(modules, module, importer)
    if found is None:
        return None
    table = _module_value(found, name) or _returned(found, name)
    return (found, table) if table is not None else None


def _iterated_names(file: SourceFile) -> set[str]:
    """The names ``for`` loops of this file run over directly (``for a, b in TABLE``)."""
    names: set[str] = set()
    pending = [file.tree.root_node]
    while pending:
        node = pending.pop()
        right = node.child_by_field_name("right") if node.type == "for_statement" else None
        if right is not None and right.type == "identifier":
            names.add(text(file.data, right))
        pending.extend(node.named_children)
    return names


def _reachable(file: SourceFile, imports: dict[str, str],
               modules: dict[str, SourceFile]) -> list[tuple[SourceFile, Node]]:
    """The tables this file can reach: its module-level lists and returned lists, and those of
    the names it imports from files of the tree; each once (not a table a loop of its own runs over)."""
    tables: list[tuple[SourceFile, Node]] = []
    looped = _iterated_names(file)
    for statement in file.tree.root_node.named_children:
        if statement.type == "expression_statement":  # a table another loop runs over is that loop's
            values = [a.child_by_field_name("right") for a in statement.named_children if a.type == "assignment"
                      and text(file.data, a.child_by_field_name("left")) not in looped]
            tables += [(file, value) for value in values if value is not None]
        elif statement.type == "function_definition":
            returned = _returned(file, text(file.data, statement.child_by_field_name("name")))
            tables += [(file, returned)] if returned is not None else []
    for qualified in dict.fromkeys(imports.values()):
        found = _imported(qualified, file.path, modules)
        tables += [found] if found is not None else []
    seen: set[tuple[str, int]] = set()
    unique = []
    for where, table in tables:
        key = (where.path, table.start_byte)
        if key not in seen and table.type in ("list", "tuple"):
            seen.add(key)
            unique.append((where, table))
    return unique
