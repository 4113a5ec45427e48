"""Per language, the syntax-tree node types that guard a registration: branches, guards written with
``&&`` / ``and``, switch arms, and the functions, declarations and classes a walk up the tree
passes through (tree-sitter grammars name the same construct differently)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Grammar:
    """The node types of one language's grammar that the condition walk reads."""

    branches: frozenset[str]
    """nodes with a ``condition`` whose other children run only when it holds (or, after ``else``,
    when it does not): ``if``, ``elif``, a ternary, Ruby's ``x if y``."""
    conjunctions: frozenset[str]
    """binary operators, read when their operator is ``&&`` / ``and`` (``||`` / ``or``: else)."""
    arms: frozenset[str]
    """the arms of a switch (``case``, ``when``, a match arm)."""
    switches: frozenset[str]
    """the switch statements holding them."""
    functions: frozenset[str]
    """function, method and lambda nodes."""
    declarations: frozenset[str]
    """nodes binding a name to a value (``const x = ...``, ``x := ...``)."""
    classes: frozenset[str] = frozenset()
    """class declarations (a tool written as a class, instantiated in a branch)."""
    callback_parents: frozenset[str] = frozenset()
    """parents that make a function a callback run where it is written (``list.forEach(t => ...)``):
    the walk goes on through it."""
    negated: frozenset[str] = frozenset()
    """branches whose body runs when the condition is false (Ruby ``unless``)."""


def _set(*types: str) -> frozenset[str]:
    return frozenset(types)


_TYPESCRIPT = Grammar(
    branches=_set("if_statement", "ternary_expression"),
    conjunctions=_set("binary_expression"),
    arms=_set("switch_case", "switch_default"),
    switches=_set("switch_statement"),
    functions=_set("function_declaration", "function_expression", "function", "arrow_function",
                   "method_definition", "generator_function_declaration", "generator_function"),
    declarations=_set("variable_declarator", "assignment_expression"),
    classes=_set("class_declaration", "abstract_class_declaration"),
    callback_parents=_set("arguments"),
)

#: language (``source.language_of``) -> its grammar's node types
GRAMMARS: dict[str, Grammar] = {
    "typescript": _TYPESCRIPT,
    "python": Grammar(
        branches=_set("if_statement", "elif_clause", "conditional_expression"),
        conjunctions=_set("boolean_operator"),
        arms=_set("case_clause"),
        switches=_set("match_statement"),
        functions=_set("function_definition", "lambda"),
        declarations=_set("assignment"),
        classes=_set("class_definition"),
        callback_parents=_set("argument_list", "keyword_argument"),
    ),
    "go": Grammar(
        branches=_set("if_statement"),
        conjunctions=_set("binary_expression"),
        arms=_set("expression_case", "default_case"),
        switches=_set("expression_switch_statement"),
        functions=_set("function_declaration", "method_declaration", "func_literal"),
        declarations=_set("short_var_declaration", "var_spec", "assignment_statement"),
        callback_parents=_set("argument_list"),
    ),
    "java": Grammar(
        branches=_set("if_statement", "ternary_expression"),
        conjunctions=_set("binary_expression"),
        arms=_set("switch_block_statement_group", "switch_rule"),
        switches=_set("switch_expression", "switch_statement"),
        functions=_set("method_declaration", "constructor_declaration", "lambda_expression"),
        declarations=_set("variable_declarator"),
        classes=_set("class_declaration"),
        callback_parents=_set("argument_list"),
    ),
    "kotlin": Grammar(
        branches=_set("if_expression"),
        conjunctions=_set("binary_expression", "conjunction_expression"),
        arms=_set("when_entry"),
        switches=_set("when_expression"),
        functions=_set("function_declaration", "lambda_literal", "anonymous_function"),
        declarations=_set("property_declaration"),
        classes=_set("class_declaration", "object_declaration"),
        callback_parents=_set("annotated_lambda", "value_argument"),
    ),
    "csharp": Grammar(
        branches=_set("if_statement", "conditional_expression"),
        conjunctions=_set("binary_expression"),
        arms=_set("switch_section"),
        switches=_set("switch_statement"),
        functions=_set("method_declaration", "local_function_statement", "lambda_expression",
                       "constructor_declaration", "anonymous_method_expression"),
        declarations=_set("variable_declarator"),
        classes=_set("class_declaration"),
        callback_parents=_set("argument"),
    ),
    "rust": Grammar(
        branches=_set("if_expression"),
        conjunctions=_set("binary_expression"),
        arms=_set("match_arm"),
        switches=_set("match_expression"),
        functions=_set("function_item", "closure_expression"),
        declarations=_set("let_declaration"),
        callback_parents=_set("arguments"),
    ),
    "php": Grammar(
        branches=_set("if_statement", "else_if_clause", "conditional_expression"),
        conjunctions=_set("binary_expression"),
        arms=_set("case_statement", "default_statement"),
        switches=_set("switch_statement"),
        functions=_set("function_definition", "method_declaration", "anonymous_function",
                       "anonymous_function_creation_expression", "arrow_function"),
        declarations=_set("assignment_expression"),
        classes=_set("class_declaration"),
        callback_parents=_set("argument", "arguments"),
    ),
    "ruby": Grammar(
        branches=_set("if", "elsif", "unless", "if_modifier", "unless_modifier", "conditional"),
        conjunctions=_set("binary"),
        arms=_set("when"),
        switches=_set("case"),
        functions=_set("method", "singleton_method", "lambda", "block", "do_block"),
        declarations=_set("assignment"),
        classes=_set("class"),
        callback_parents=_set("call"),
        negated=_set("unless", "unless_modifier"),
    ),
    "swift": Grammar(
        branches=_set("if_statement", "ternary_expression"),
        conjunctions=_set("conjunction_expression", "disjunction_expression"),
        arms=_set("switch_entry"),
        switches=_set("switch_statement"),
        functions=_set("function_declaration", "lambda_literal", "init_declaration"),
        declarations=_set("property_declaration"),
        classes=_set("class_declaration"),
        callback_parents=_set("call_suffix", "value_argument"),
    ),
}
