"""Where a dispatcher runs a tool: the branch that tests its name (``case "name":``,
``if name == "name"``, ``case TOOLS.NAME:``) or a table's value under it (``{"name": handler}``),
found anywhere in the tree, the registration's own file first and tests last."""

from __future__ import annotations

import re
from collections.abc import Iterator

from pipeline.scan.detect.source import SourceFile, language_of
from pipeline.scan.detect.syntax import Node
from pipeline.scan.effects.languages import Syntax, nodes_of, string_value
from pipeline.scan.effects.model import Handler
from pipeline.scan.effects.places import Located, at_line, function_argument, key_value, named
from pipeline.scan.effects.shelf import Shelf

_CASTS = ("as_expression", "satisfies_expression")
_NAMES = ("identifier", "member_expression", "attribute", "selector_expression")
_TESTS = re.compile(r"(?:^|/)(?:__tests__|tests?|spec|e2e|examples?)/|\.(?:test|spec)\.|_test\.|(?:^|/)test_")


def name_expression(file: SourceFile, syntax: Syntax, line: int) -> str | None:
    """The expression a tool object's ``name`` field holds when it is not a literal
    (``name: TOOLS.QUERY``): a dispatcher may test that instead of the string."""
    for node in at_line(file, line):
        if node.type in ("object", "dictionary", "composite_literal", "literal_value", "call", "arguments",
                         "argument_list"):
            for pair in node.named_children:
                key = pair.child_by_field_name("key") or pair.child_by_field_name("name")
                value = pair.child_by_field_name("value")
                while value is not None and value.type in _CASTS and value.named_children:
                    value = value.named_children[0]
                if key is not None and value is not None and file.text(key).strip("'\"") in ("name", "Name") \
                        and value.type not in syntax.strings:
                    return file.text(value)
            return None
    return None


def by_name(shelf: Shelf, file: SourceFile, syntax: Syntax, tool_name: str, line: int,  # noqa: PLR0917
             alias: str | None = None) -> Located | None:
    """A dispatcher's branch that tests the tool's name (or ``alias``), or a table's value under it."""
    quoted = tool_name.encode()
    if alias is not None:
        found = _by_alias(shelf, file, syntax, alias, line)
        if found is not None:
            return found
    for name in spellings(tool_name):
        functions = [c for c in shelf.named(name, syntax.language)
                     if not _TESTS.search(c[0].path) and shelf.in_package(c[0].path, shelf.package(file.path))]
        if len(functions) == 1:
            return Handler(functions[0][0].path, functions[0][0].line(functions[0][1]), "named"), *functions[0]
    others = [p for p in _searched(shelf, file.path) if p != file.path]
    branch: Located | None = None
    for other in [file, *(shelf.files[p] for p in others)]:
        if language_of(other.path) != syntax.language or quoted not in other.data:
            continue
        for node in _strings(other, syntax, tool_name):
            if other is file and other.line(node) == line:
                continue
            found = _branch_of(shelf, other, syntax, node)
            if found is not None and found[0].kind == "mapped":
                return found  # a table's function outranks a branch (which may only describe the tool)
            branch = branch or found
    return branch


def _searched(shelf: Shelf, path: str) -> list[str]:
    """The files a handler of a tool registered in ``path`` may be in: its package's, not its
    tests (unless the registration is itself a test's), once per package."""
    own_test = _TESTS.search(path) is not None
    root = shelf.package(path)
    key = f"searched:{root}:{own_test}"
    if key not in shelf.memo:
        shelf.memo[key] = sorted(p for p in shelf.files if (own_test or not _TESTS.search(p))
                                 and shelf.in_package(p, root))
    found: list[str] = shelf.memo[key]
    return found


def spellings(tool_name: str) -> list[str]:
    """The names a function that runs a tool may carry: the tool's own (``notion_update_content``),
    in camelCase, and behind ``handle`` (``handle_get_item``, ``handleGetItem``)."""
    words = [w for w in re.split(r"[^0-9A-Za-z]+", tool_name) if w]
    if not words:
        return []
    camel = words[0][:1].lower() + words[0][1:] + "".join(w[:1].upper() + w[1:] for w in words[1:])
    pascal = camel[:1].upper() + camel[1:]
    snake = "_".join(w.lower() for w in words)
    names = [tool_name, camel, snake, f"handle_{snake}", f"handle{pascal}", f"{camel}Handler", f"{snake}_handler"]
    return [n for n in dict.fromkeys(names) if n.isidentifier()]


def _by_alias(shelf: Shelf, file: SourceFile, syntax: Syntax, alias: str, line: int) -> Located | None:
    word, root = alias.encode(), shelf.package(file.path)
    for other in [file, *(f for p, f in sorted(shelf.files.items()) if p != file.path and shelf.in_package(p, root))]:
        if language_of(other.path) != syntax.language or word not in other.data:
            continue
        stack = [other.tree.root_node]
        while stack:
            node = stack.pop()
            if node.type in ("member_expression", "attribute", "selector_expression", "identifier") \
                    and other.text(node) == alias and other.line(node) != line:
                found = _branch_of(shelf, other, syntax, node)
                if found is not None:
                    return found
                continue
            stack.extend(node.children)
    return None


def _strings(file: SourceFile, syntax: Syntax, value: str) -> list[Node]:
    """The string literals of ``file`` (and the keys of its objects) that read ``value``."""
    return file.kept("effects-strings", lambda: _string_index(file, syntax)).get(value, [])


def _string_index(file: SourceFile, syntax: Syntax) -> dict[str, list[Node]]:
    """Each string literal's value (and each object key's name) -> its nodes, in source order."""
    index: dict[str, list[Node]] = {}
    for node in nodes_of(file, (*syntax.strings, "property_identifier"), file.tree.root_node):
        if node.type == "property_identifier":
            if node.parent is not None and node.parent.type == "pair":
                index.setdefault(file.text(node), []).append(node)
        elif (value := string_value(file, node)) is not None:
            index.setdefault(value, []).append(node)
    return index


def _branch_of(shelf: Shelf, file: SourceFile, syntax: Syntax, node: Node) -> Located | None:
    parent = node.parent
    for _ in range(4):
        if parent is None:
            return None
        if parent.type in syntax.pairs:
            value = key_value(parent)[1]
            if value is not None and value is not node and value.type in syntax.functions:
                return Handler(file.path, file.line(value), "mapped"), file, value
            if value is not None and value.type in syntax.calls:  # name: handleX(service), a handler's factory
                value = value.child_by_field_name("function")
            if value is not None and value.type in _NAMES:
                found = named(shelf, file, syntax, file.text(value).rsplit(".", 1)[-1])
                if found is not None:
                    return Handler(found[0].path, found[0].line, "mapped"), found[1], found[2]
            return None
        if parent.type in syntax.branches:
            body = (parent.child_by_field_name("consequence") or parent.child_by_field_name("body")
                    or (parent.child_by_field_name("value") and parent))
            if parent.type in ("switch_case", "expression_case"):
                body = parent
            if body is not None:
                return Handler(file.path, file.line(parent), "branch"), file, body
            return None
        if parent.type in ("call", "call_expression", "class_definition", "object", "dictionary", "list", "array"):
            return None
        parent = parent.parent
    return None


#: registration methods whose name argument, in a loop over definitions, is read from each one
_REGISTERS = frozenset({"registerTool", "tool", "addTool", "AddTool", "add_tool", "RegisterTool", "register_tool"})
_DYNAMIC_NAME = re.compile(r"^[\w$]+(?:\.[\w$]+)*(?:\.(?:name|Name|method)|\[[\"']name[\"']\])$")


def generic(shelf: Shelf, file: SourceFile, syntax: Syntax) -> Located | None:
    """The one handler a loop registers every listed definition with
    (``for (const tool of TOOLS) server.registerTool(tool.name, ..., async (args) => ...)``): the
    registration call, anywhere in the tree's own code, whose name is read from the definition
    (sought once per tree and language)."""
    root = shelf.package(file.path)
    key = f"generic:{syntax.language}:{root}"
    if key not in shelf.memo:
        shelf.memo[key] = _generic(shelf, syntax, root)
    found: Located | None = shelf.memo[key]
    return found


def _generic(shelf: Shelf, syntax: Syntax, root: str) -> Located | None:
    found: list[Located] = []
    for path, other in sorted(shelf.files.items()):
        if language_of(path) != syntax.language or _TESTS.search(path) or not shelf.in_package(path, root) or not any(
                word.encode() in other.data for word in _REGISTERS):
            continue
        for call in _registrations(other, syntax):
            located = function_argument(shelf, other, syntax, call)
            if located is not None:
                found.append((Handler(located[0].path, located[0].line, "generic"), located[1], located[2]))
    return found[0] if len(found) == 1 else None


def _registrations(file: SourceFile, syntax: Syntax) -> Iterator[Node]:
    for node in nodes_of(file, syntax.calls, file.tree.root_node):
        target = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        name = file.text(target).rsplit(".", 1)[-1] if target is not None else ""
        first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
        if name in _REGISTERS and first is not None and _DYNAMIC_NAME.match(file.text(first)):
            yield node
