"""What the effects analysis needs to know of each language's syntax tree: the node types of
functions, calls, strings and branches (tree-sitter grammars), one ``Syntax`` per language."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pipeline.scan.detect.source import GRAMMARS, SourceFile, extension, parser_for
from pipeline.scan.detect.syntax import Node, capture_map, compiled, unquote, walk


@dataclass(frozen=True)
class Syntax:
    """The node types of one grammar family."""

    language: str
    """the detector's language name (``typescript``, ``python``, ``go``)."""
    functions: frozenset[str]
    """nodes that are a function, closure or method."""
    named_functions: frozenset[str]
    """the functions that carry a name (declarations, methods)."""
    calls: frozenset[str]
    """call nodes (``new`` expressions included)."""
    strings: frozenset[str]
    """string literal nodes."""
    branches: frozenset[str]
    """nodes whose condition or case value selects a body (if, elif, case)."""
    pairs: frozenset[str]
    """key-value nodes of object and map literals."""
    classes: frozenset[str]
    """class-like nodes whose methods a tool object may hold."""
    inputs: tuple[str, ...]
    """names that hold a tool call's input wherever they are in scope."""
    self_names: tuple[str, ...] = ()
    """a handler's parameters that are never the tool's input (``self``, a request context)."""


TYPESCRIPT = Syntax(
    "typescript",
    functions=frozenset({"function_declaration", "function_expression", "function", "arrow_function",
                         "method_definition", "generator_function_declaration", "generator_function"}),
    named_functions=frozenset({"function_declaration", "method_definition", "generator_function_declaration"}),
    calls=frozenset({"call_expression", "new_expression"}),
    strings=frozenset({"string", "template_string"}),
    branches=frozenset({"if_statement", "switch_case"}),
    pairs=frozenset({"pair"}),
    classes=frozenset({"class_declaration", "class", "abstract_class_declaration"}),
    inputs=("args", "params", "input", "arguments", "request", "req"),
    self_names=("ctx", "context", "extra", "signal"),
)
PYTHON = Syntax(
    "python",
    functions=frozenset({"function_definition", "lambda"}),
    named_functions=frozenset({"function_definition"}),
    calls=frozenset({"call"}),
    strings=frozenset({"string"}),
    branches=frozenset({"if_statement", "elif_clause", "case_clause"}),
    pairs=frozenset({"pair"}),
    classes=frozenset({"class_definition"}),
    inputs=("args", "arguments", "params", "input", "request", "kwargs"),
    self_names=("self", "cls", "ctx", "context"),
)
GO = Syntax(
    "go",
    functions=frozenset({"function_declaration", "method_declaration", "func_literal"}),
    named_functions=frozenset({"function_declaration", "method_declaration"}),
    calls=frozenset({"call_expression"}),
    strings=frozenset({"interpreted_string_literal", "raw_string_literal"}),
    branches=frozenset({"if_statement", "expression_case"}),
    pairs=frozenset({"keyed_element"}),
    classes=frozenset(),
    inputs=("req", "request", "args", "arguments", "params", "input"),
    self_names=("ctx",),
)
RUST = Syntax(
    "rust",
    functions=frozenset({"function_item", "closure_expression"}),
    named_functions=frozenset({"function_item"}),
    calls=frozenset({"call_expression"}),
    strings=frozenset({"string_literal", "raw_string_literal"}),
    branches=frozenset({"if_expression", "match_arm"}),
    pairs=frozenset({"field_initializer"}),
    classes=frozenset({"impl_item"}),
    inputs=("args", "params", "input", "arguments", "request", "req"),
    self_names=("self", "ctx", "context", "req_ctx", "request_context"),
)
SYNTAXES = {s.language: s for s in (TYPESCRIPT, PYTHON, GO, RUST)}


def nodes_of(file: SourceFile, kinds: Iterable[str], node: Node) -> list[Node]:
    """The nodes of ``kinds`` (those the file's grammar has) below ``node``, in source order, by one
    tree-sitter query."""
    _, module, function = GRAMMARS[extension(file.path)]
    language = parser_for(module, function).language
    assert language is not None
    present = sorted(k for k in kinds if language.id_for_node_kind(k, True))
    query = compiled(module, function, "[" + " ".join(f"({k})" for k in present) + "] @n")
    return capture_map(query, node).get("n", [])


def function_name(file: SourceFile, node: Node) -> str | None:
    """The name a function node is declared or bound under (``None`` for an anonymous one)."""
    name = node.child_by_field_name("name")
    if name is not None:
        return file.text(name)
    parent = node.parent
    if parent is not None and parent.type in ("variable_declarator", "assignment_expression", "pair",
                                              "public_field_definition", "field_definition", "assignment"):
        target = (parent.child_by_field_name("name") or parent.child_by_field_name("left")
                  or parent.child_by_field_name("key") or parent.child_by_field_name("property"))
        text = file.text(target)
        return text.rsplit(".", 1)[-1].strip("'\"") if text else None
    return None


#: the nodes that bind a name in a parameter list (a destructured field's shorthand included)
_BINDING_NAMES = frozenset({"identifier", "shorthand_property_identifier_pattern", "shorthand_field_identifier"})


def parameters(file: SourceFile, function: Node) -> list[str]:
    """The names a function's parameters bind, destructured ones included, in order (read once
    per function: what is returned is shared, so callers only read it)."""
    def read() -> list[str]:
        params = function.child_by_field_name("parameters") or function.child_by_field_name("parameter")
        if params is None:
            return []
        return [file.text(node) for node in walk(params) if node.type in _BINDING_NAMES and not _is_type(node)]
    return file.kept(f"effects-parameters:{function.start_byte}:{function.end_byte}", read)


def _is_type(node: Node) -> bool:
    """Whether an identifier sits in a type annotation or a default value, not a binding."""
    parent = node.parent
    while parent is not None and parent.type not in ("formal_parameters", "parameters", "parameter_list",
                                                     "lambda_parameters"):
        if parent.type in ("type_annotation", "type", "default_parameter", "typed_default_parameter") and \
                parent.child_by_field_name("value") is not None and _inside(node, parent.child_by_field_name("value")):
            return True
        if parent.type in ("type_annotation", "qualified_type", "pointer_type", "generic_type", "type_identifier"):
            return True
        if parent.type == "parameter_declaration" and parent.child_by_field_name("type") is not None \
                and _inside(node, parent.child_by_field_name("type")):
            return True
        if parent.type == "typed_parameter" and parent.child_by_field_name("type") is not None \
                and _inside(node, parent.child_by_field_name("type")):
            return True
        parent = parent.parent
    return False


def _inside(node: Node, outer: Node | None) -> bool:
    return outer is not None and outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte


def string_value(file: SourceFile, node: Node) -> str | None:
    """A string literal's value; a template or f-string gives its text between the quotes."""
    text = file.text(node)
    value = unquote(text)
    if value is not None:
        return value
    body = text.lstrip("rRbBuUfF")
    for quote in ('"""', "'''", '"', "'", "`"):
        if len(body) >= 2 * len(quote) and body.startswith(quote) and body.endswith(quote):
            return body[len(quote):-len(quote)]
    return None
