"""TypeScript functions as the detector reads them: their parameters and defaults, their names,
what they return, and the declarations a name refers to before a point or in the module."""

from __future__ import annotations

from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import descendants, enclosing, named
from pipeline.scan.detect.typescript.values import FUNCTIONS, TRANSPARENT, Node, Ref, unwrap

#: the statements that declare variables
DECLARATIONS = ("lexical_declaration", "variable_declaration")


def params(function: Node, file: SourceFile) -> list[Node]:
    """A function's parameter patterns (identifiers or destructuring patterns), in order."""
    node = function.child_by_field_name("parameters") or function.child_by_field_name("parameter")
    if node is None:
        return []
    if node.type == "identifier":
        return [node]
    found: list[Node] = []
    for param in named(node):
        if param.type in ("required_parameter", "optional_parameter"):
            pattern = param.child_by_field_name("pattern")
            if pattern is not None:
                found.append(pattern)
        elif param.type == "assignment_pattern" and (left := param.child_by_field_name("left")) is not None:
            found.append(left)
        elif param.type != "comment":
            found.append(param)
    return found


def param_defaults(function: Node) -> list[Node | None]:
    """The default value of each of ``params``, in order (``None`` without one)."""
    node = function.child_by_field_name("parameters") or function.child_by_field_name("parameter")
    if node is None or node.type == "identifier":
        return [None] if node is not None else []
    found: list[Node | None] = []
    for param in named(node):
        if param.type in ("required_parameter", "optional_parameter"):
            if param.child_by_field_name("pattern") is not None:
                found.append(param.child_by_field_name("value"))
        elif param.type == "assignment_pattern" and param.child_by_field_name("left") is not None:
            found.append(param.child_by_field_name("right"))
        elif param.type != "comment":
            found.append(None)
    return found


def function_name(function: Node, file: SourceFile) -> str | None:
    """The name a function is called by: its own, its variable's, or its method's."""
    own = function.child_by_field_name("name")
    if own is not None:
        return file.text(own)
    parent = function.parent
    while parent is not None and parent.type in TRANSPARENT:
        parent = parent.parent
    if parent is not None and parent.type in ("variable_declarator", "pair", "public_field_definition"):
        name = parent.child_by_field_name("name") or parent.child_by_field_name("key")
        return file.text(name) if name is not None else None
    return None


def is_parameter(ref: Ref, name: str) -> bool:
    """Whether ``name`` at ``ref`` is bound by an enclosing function's parameters (destructured
    ones included) or a ``for (const x of ...)`` loop around it."""
    node: Node | None = ref.node.parent
    while node is not None:
        if node.type in FUNCTIONS and any(binds(ref.file, p, name) for p in params(node, ref.file)):
            return True
        if node.type == "for_in_statement" and (left := node.child_by_field_name("left")) is not None and \
                binds(ref.file, left, name):
            return True
        node = node.parent
    return False


def parameter_default(ref: Ref) -> Ref | None:
    """The default of the parameter the identifier ``ref`` names, in the nearest function that
    takes it (``ns: string = "acme_"``, JavaScript's ``ns = "acme_"``), or ``None``."""
    name, node = ref.text(), ref.node.parent
    while node is not None:
        if node.type in FUNCTIONS:
            taken = [(p, d) for p, d in zip(params(node, ref.file), param_defaults(node), strict=False)
                     if binds(ref.file, p, name)]
            if taken:
                pattern, default = taken[0]
                return ref.at(default) if default is not None and pattern.type == "identifier" else None
        node = node.parent
    return None


def binds(file: SourceFile, pattern: Node, name: str) -> bool:
    """Whether a parameter or loop ``pattern`` binds ``name``: ``t``, ``{ name }`` or ``[name]``."""
    if pattern.type == "identifier":
        return file.text(pattern) == name
    return pattern.type in ("object_pattern", "array_pattern") and any(
        n.type in ("shorthand_property_identifier_pattern", "identifier") and file.text(n) == name
        for n in pattern.named_children)


def member_keys(file: SourceFile, node: Node, name: str) -> frozenset[str]:
    """Every ``name.key`` read within ``node``: the keys of ``name``'s value it uses."""
    return frozenset(file.text(m.child_by_field_name("property")) for m in descendants(node, ["member_expression"])
                     if file.text(m.child_by_field_name("object")) == name)


def enclosing_function(node: Node) -> Node | None:
    """The innermost function around ``node``."""
    return enclosing(node, FUNCTIONS)


def returned_object(function: Node) -> Node | None:
    """The object or array literal a function returns (expression body or ``return``)."""
    body = function.child_by_field_name("body")
    if body is None:
        return None
    if body.type != "statement_block":
        value = unwrap(body)
        return value if value.type in ("object", "array") else None
    for statement in named(body):
        if statement.type == "return_statement" and statement.named_child_count:
            value = unwrap(statement.named_children[0])
            if value.type in ("object", "array"):
                return value
    return None


def returned_name(function: Node) -> Node | None:
    """The identifier a function returns (``const annotations = {...}; ...; return annotations;``)."""
    body = function.child_by_field_name("body")
    for statement in named(body) if body is not None and body.type == "statement_block" else ():
        if statement.type == "return_statement" and statement.named_child_count:
            value = unwrap(statement.named_children[0])
            if value.type == "identifier":
                return value
    return None


def declared_before(ref: Ref, name: str) -> Ref | None:
    """The value of the innermost ``const``/``let``/``var name = ...`` that a block around ``ref``
    declares before it (``const toolName = `cli-${commandName}`;`` in a loop's body)."""
    node = ref.node.parent
    while node is not None and node.type != "program":
        if node.type == "statement_block":
            for statement in named(node):
                if statement.start_byte >= ref.node.start_byte:
                    break
                for declarator in named(statement) if statement.type in DECLARATIONS else ():
                    value = declarator.child_by_field_name("value")
                    if value is not None and ref.file.text(declarator.child_by_field_name("name")) == name:
                        return ref.at(value)
        node = node.parent
    return None


def declared_in_module(ref: Ref, name: str) -> Ref | None:
    """The value of a ``const``/``let``/``var name = ...`` (exported or not) of the module ``ref`` is in."""
    root = ref.node
    while root.parent is not None:
        root = root.parent
    for statement in named(root):
        inner = statement.child_by_field_name("declaration") if statement.type == "export_statement" else statement
        for declarator in named(inner) if inner is not None and inner.type in DECLARATIONS else ():
            value = declarator.child_by_field_name("value")
            if value is not None and ref.file.text(declarator.child_by_field_name("name")) == name:
                return ref.at(value)
    return None
