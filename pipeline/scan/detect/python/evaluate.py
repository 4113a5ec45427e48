"""A tool's name built by one of the project's own functions, worked out from its source.

``prefix = format_namespace(namespace)`` then ``@mcp.tool(name=prefix + "list")``: the local
``prefix`` is the one assignment of that name in the function, and ``format_namespace`` is a
module-level function of this file or of a module of the tree it imports. Its body is evaluated
with the call's arguments (or its parameters' defaults) and the module's settings at their defaults
(``PREFIX = os.environ.get("PREFIX", "")`` is ``""``: the name a server started with no
configuration gives) when it uses nothing but what this module knows: ``if`` / ``elif`` /
``else``, ``return``, local assignments, string literals and f-strings, ``+``, ``not`` / ``and`` /
``or``, ``==`` / ``!=`` / ``is``, a conditional expression, and the pure string methods ``body``
knows. Anything else (a loop, another call, an attribute) leaves
the name unknown, so it stays ``dynamic``. Functions are followed one level, never into a call
they make.
"""

from __future__ import annotations

from collections.abc import Callable

from pipeline.scan.detect.python.body import UNKNOWN, Body, Unknown, Value, constant
from pipeline.scan.detect.python.index import ProjectIndex
from pipeline.scan.detect.python.scope import Node, Scope, keywords, module_paths, parameters, positionals, text
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import enclosing, named, walk


class Evaluator:
    """Works out locals and project-function calls for the names of one file."""

    def __init__(self, file: SourceFile, scope: Scope, index: ProjectIndex,
                 literal: Callable[[Node], str | None]) -> None:
        self.file, self.scope, self.index, self.literal = file, scope, index, literal

    def local(self, node: Node) -> str | None:
        """The value of the local variable ``node`` names: its one assignment, written directly in
        the body of the function around ``node`` and before it."""
        function = enclosing(node, ("function_definition",))
        body = function.child_by_field_name("body") if function is not None else None
        if body is None:
            return None
        name = text(self.file.data, node)
        found = [n for n in walk(body) if n.type in ("assignment", "augmented_assignment")
                 and text(self.file.data, n.child_by_field_name("left")) == name]
        if len(found) != 1 or found[0].type != "assignment" or found[0].parent is None \
                or found[0].parent.parent != body or found[0].end_byte > node.start_byte:
            return None
        value = found[0].child_by_field_name("right")
        return self.literal(value) if value is not None else None

    def call(self, node: Node) -> str | None:
        """The string a call of a project function returns, when its body can be evaluated."""
        callee = node.child_by_field_name("function")
        if callee is None or callee.type != "identifier":
            return None
        found = self._function(text(self.file.data, callee))
        if found is None:
            return None
        definition, data = found
        bound = self._bind(definition, data, node.child_by_field_name("arguments"))
        if bound is None:
            return None
        module = definition.parent
        defaults = _defaults(data, module) if module is not None and module.type == "module" else {}
        value = Body(data, {**defaults, **bound}).run(definition.child_by_field_name("body"))
        return value if isinstance(value, str) else None

    def _function(self, name: str) -> tuple[Node, bytes] | None:
        """The module-level ``def name`` of this file, or of the tree's module it is imported from."""
        qualified = self.scope.imports.get(name)
        files = [self.file]
        if qualified is not None:
            module, _, name = qualified.rpartition(".")
            wanted = module_paths(module, self.file.path)
            files = [f for path, f in self.index.modules.items()
                     if any(path == w or path.endswith("/" + w) for w in wanted)][:1]
        for file in files:
            for child in named(file.tree.root_node):
                if child.type == "function_definition" and text(file.data, child.child_by_field_name("name")) == name:
                    return child, file.data
        return None

    def _bind(self, definition: Node, data: bytes, arguments: Node | None) -> dict[str, Value] | None:
        params = parameters(definition)
        given = keywords(self.file.data, arguments)
        values: dict[str, Value] = {}
        for index, (name, default) in enumerate(params.items()):
            passed = positionals(arguments)[index] if index < len(positionals(arguments)) else given.get(name)
            if passed is not None:
                value = constant(self.file.data, passed) if passed.type in ("true", "false", "none") \
                    else self.literal(passed)
                if (value is None and passed.type != "none") or isinstance(value, Unknown):
                    return None
                values[name] = value
            elif default is not None:
                values[name] = constant(data, default)
            else:
                return None
        return values


#: the calls that read an environment variable, whose second argument is the value when it is unset
_ENVIRONMENT = frozenset({"os.environ.get", "environ.get", "os.getenv", "getenv"})


def _defaults(data: bytes, module: Node) -> dict[str, Value]:
    """The module-level names a function may read, at the values a server started with no
    configuration has: string constants, and environment reads at their default (``None`` unset)."""
    found: dict[str, Value] = {}
    for statement in named(module):
        assignment = statement.named_children[0] if statement.type == "expression_statement" and \
            statement.named_children else None
        left = assignment.child_by_field_name("left") if assignment is not None else None
        right = assignment.child_by_field_name("right") if assignment is not None else None
        if assignment is None or assignment.type != "assignment" or left is None or right is None \
                or left.type != "identifier":
            continue
        name = text(data, left)
        if right.type == "string":
            found[name] = constant(data, right)
        elif right.type == "call" and text(data, right.child_by_field_name("function")) in _ENVIRONMENT:
            given = positionals(right.child_by_field_name("arguments"))
            found[name] = constant(data, given[1]) if len(given) == 2 and given[1].type in ("string", "none") \
                else None if len(given) == 1 else UNKNOWN
    return found
