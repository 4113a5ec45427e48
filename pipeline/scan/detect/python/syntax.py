"""What the Python detector reads from a parsed file: the captures of its one query, and the
``Scope`` built from them (the file's imports, and the variables bound to SDK objects or to the
project's wrappers, through ``ProjectIndex`` for names imported from another module).
"""

from __future__ import annotations

from pipeline.scan.detect.python.index import ProjectIndex
from pipeline.scan.detect.python.rules import KNOWN_ROOTS
from pipeline.scan.detect.python.scope import Node, Scope, classify, last_name, string_value, text
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import capture_map, compiled

_QUERY = """
(import_statement) @import
(import_from_statement) @import
(assignment) @assign
(return_statement) @return
(call function: (attribute attribute: (identifier) @_method
  (#any-of? @_method "tool" "add_tool" "from_function" "Tool"))) @call
(call function: (call)) @call
(call function: (identifier) @_name (#match? @_name "Tool$|^add_tool$")) @call
(call function: [(identifier) (attribute)] @_annotations (#match? @_annotations "ToolAnnotations$")) @annotations
(call arguments: (argument_list
  (keyword_argument name: (identifier) @_keyword (#eq? @_keyword "annotations")))) @definition
(call arguments: (argument_list (keyword_argument name: (identifier) @_key (#eq? @_key "on_list_tools")))) @call
(assignment left: (subscript value: (attribute object: (attribute attribute: (identifier) @_tm)
  attribute: (identifier) @_tt)) (#eq? @_tm "_tool_manager") (#eq? @_tt "_tools")) @private
(call function: (attribute attribute: (identifier) @_mount (#any-of? @_mount "mount" "import_server"))) @mount
(decorated_definition) @decorated
(function_definition) @function
(class_definition) @class
"""


def captures(file: SourceFile) -> dict[str, list[Node]]:
    """Every node of interest in ``file``, by capture name, in source order."""
    query = compiled("tree_sitter_python", "language", _QUERY)
    return file.kept(_QUERY, lambda: capture_map(query, file.tree.root_node))


def build_scope(file: SourceFile, found: dict[str, list[Node]], index: ProjectIndex) -> Scope:
    """The file's imports and the variables bound to SDK objects or project wrappers."""
    scope = Scope(file.data)
    for node in found.get("import", []):
        scope.add_import(node)
    _imported_objects(scope, index, file.path)
    for node in found.get("function", []):
        _typed_parameters(scope, node)
    for node in found.get("assign", []):
        _assignment(scope, node, index)
    return scope


def _imported_objects(scope: Scope, index: ProjectIndex, path: str) -> None:
    for local, qual in list(scope.imports.items()):
        module, _, name = qual.rpartition(".")
        if qual.split(".")[0] in KNOWN_ROOTS or (found := index.object_for(name, path, module)) is None:
            continue
        if classify(found.callee):
            scope.bindings[local] = found.callee or ""
        elif found.callee_name in index.wrapper_classes:
            scope.bindings[local] = f"wrapper:{found.callee_name}"
            scope.wrapper_args[local] = found.first_arg


def _typed_parameters(scope: Scope, node: Node) -> None:
    params = node.child_by_field_name("parameters")
    for child in params.named_children if params is not None else []:
        if child.type not in ("typed_parameter", "typed_default_parameter"):
            continue
        name = child.child_by_field_name("name") or child.named_children[0]
        kind_node = child.child_by_field_name("type")
        inner = kind_node.named_children[0] if kind_node is not None and kind_node.named_children else None
        quoted = string_value(scope.data, inner)
        qual = scope.imports.get(quoted) if quoted is not None else scope.qualify(inner)
        if classify(qual):
            scope.bindings[text(scope.data, name)] = qual or ""


def _assignment(scope: Scope, node: Node, index: ProjectIndex) -> None:
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None:
        return
    target = text(scope.data, left)
    if right.type in ("identifier", "attribute") and (bound := scope.receiver(right)) is not None:
        scope.bindings[target] = bound
    if right.type != "call":
        return
    function = right.child_by_field_name("function")
    qual = scope.qualify(function)
    if classify(qual):
        scope.bindings[target] = qual or ""
    elif (own := index.server_classes.get(last_name(scope.data, function) or "")) is not None:
        scope.bindings[target] = own  # an instance of the project's subclass of an SDK server
    elif (name := last_name(scope.data, function)) in index.wrapper_classes and name is not None:
        scope.bindings[target] = f"wrapper:{name}"
        args = right.child_by_field_name("arguments")
        first = [c for c in args.named_children if c.type != "keyword_argument"][:1] if args is not None else []
        scope.wrapper_args[target] = text(scope.data, first[0]) if first else ""
