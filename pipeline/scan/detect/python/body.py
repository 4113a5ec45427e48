"""A small evaluator of one Python function body, for the names ``evaluate`` follows.

``Body.run`` walks ``if`` / ``elif`` / ``else``, ``return``, local assignments, docstrings and
``pass``; ``Body.value`` knows string literals and f-strings, ``True`` / ``False`` / ``None``, the
bound names, ``+``, ``not`` / ``and`` / ``or``, ``==`` / ``!=`` / ``is`` / ``is not``, a
conditional expression and the pure string methods of ``METHODS``. Anything else is ``UNKNOWN``;
no call is followed and at most ``STATEMENTS_MAX`` statements are run.
"""

from __future__ import annotations

from pipeline.scan.detect.python.scope import Node, keywords, positionals, string_value, text
from pipeline.scan.detect.syntax import named


class Unknown:
    """A value the evaluation cannot know."""


UNKNOWN = Unknown()
Value = str | bool | None | Unknown
#: string methods that read only their receiver and literal arguments
METHODS = frozenset({"endswith", "startswith", "lower", "upper", "strip", "lstrip", "rstrip",
                     "removeprefix", "removesuffix", "replace", "title", "capitalize"})
STATEMENTS_MAX = 32


class Body:
    """One evaluation of a function body with its parameters bound."""

    def __init__(self, data: bytes, bound: dict[str, Value]) -> None:
        self.data, self.names, self.steps = data, dict(bound), 0

    def run(self, block: Node | None) -> Value:
        """What the block returns; ``UNKNOWN`` when it falls off its end or does what is not known."""
        for statement in named(block) if block is not None else []:
            self.steps += 1
            if self.steps > STATEMENTS_MAX:
                return UNKNOWN
            if statement.type == "return_statement":
                returned = statement.named_children
                return self.value(returned[0]) if returned else None
            if statement.type == "if_statement":
                taken = self._branch(statement)
                if isinstance(taken, Unknown):
                    return UNKNOWN
                if taken is not None:
                    result = self.run(taken)
                    if result is not _FELL_THROUGH:
                        return result
                continue
            if statement.type == "expression_statement" and self._effect(statement):
                continue
            if statement.type == "pass_statement":
                continue
            return UNKNOWN
        return _FELL_THROUGH

    def _branch(self, statement: Node) -> Node | Unknown | None:
        """The block an ``if`` statement takes (``None`` when no branch is)."""
        condition = self.value(statement.child_by_field_name("condition"))
        if isinstance(condition, Unknown):
            return UNKNOWN
        if condition:
            return statement.child_by_field_name("consequence")
        for clause in statement.children_by_field_name("alternative"):
            if clause.type == "else_clause":
                return clause.child_by_field_name("body")
            test = self.value(clause.child_by_field_name("condition"))
            if isinstance(test, Unknown):
                return UNKNOWN
            if test:
                return clause.child_by_field_name("consequence")
        return None

    def _effect(self, statement: Node) -> bool:
        """Carry out an expression statement: a docstring, or ``name = value``; ``False`` for others."""
        expression = statement.named_children[0] if statement.named_children else None
        if expression is not None and expression.type == "string":
            return True
        if expression is None or expression.type != "assignment":
            return False
        left = expression.child_by_field_name("left")
        if left is None or left.type != "identifier":
            return False
        self.names[text(self.data, left)] = self.value(expression.child_by_field_name("right"))
        return True

    def value(self, node: Node | None) -> Value:
        """The value of an expression, or ``UNKNOWN``."""
        if node is None:
            return UNKNOWN
        kind = node.type
        if kind in ("string", "true", "false", "none"):
            return constant(self.data, node) if kind != "string" or not _interpolated(node) else self._fstring(node)
        if kind == "identifier":
            return self.names.get(text(self.data, node), UNKNOWN)
        if kind == "parenthesized_expression" and node.named_children:
            return self.value(node.named_children[0])
        if kind == "not_operator":
            operand = self.value(node.child_by_field_name("argument"))
            return UNKNOWN if isinstance(operand, Unknown) else not operand
        if kind in ("binary_operator", "boolean_operator"):
            return self._operator(node)
        if kind == "comparison_operator":
            return self._comparison(node)
        if kind == "conditional_expression" and len(node.named_children) == 3:
            chosen, test, other = node.named_children
            condition = self.value(test)
            return UNKNOWN if isinstance(condition, Unknown) else self.value(chosen if condition else other)
        if kind == "call":
            return self._method(node)
        return UNKNOWN

    def _operator(self, node: Node) -> Value:
        operator = text(self.data, node.child_by_field_name("operator"))
        left = self.value(node.child_by_field_name("left"))
        if isinstance(left, Unknown):
            return UNKNOWN
        if (operator == "and" and not left) or (operator == "or" and left):
            return left
        right = self.value(node.child_by_field_name("right"))
        if operator in ("and", "or"):
            return right
        return left + right if operator == "+" and isinstance(left, str) and isinstance(right, str) else UNKNOWN

    def _comparison(self, node: Node) -> Value:
        operands = node.named_children
        operators = [text(self.data, c) for c in node.children if not c.is_named]
        if len(operands) != 2 or len(operators) not in (1, 2):
            return UNKNOWN
        left, right = self.value(operands[0]), self.value(operands[1])
        if isinstance(left, Unknown) or isinstance(right, Unknown):
            return UNKNOWN
        same = left == right and type(left) is type(right)
        return {"==": same, "is": same, "!=": not same, "isnot": not same}.get("".join(operators), UNKNOWN)

    def _method(self, node: Node) -> Value:
        callee = node.child_by_field_name("function")
        if callee is None or callee.type != "attribute":
            return UNKNOWN
        method = text(self.data, callee.child_by_field_name("attribute"))
        receiver = self.value(callee.child_by_field_name("object"))
        arguments = node.child_by_field_name("arguments")
        values = [self.value(a) for a in positionals(arguments)]
        if method not in METHODS or not isinstance(receiver, str) or keywords(self.data, arguments) \
                or not all(isinstance(v, str) for v in values):
            return UNKNOWN
        result: Value = getattr(receiver, method)(*values)
        return result

    def _fstring(self, node: Node) -> Value:
        parts: list[str] = []
        for child in node.children:
            if child.type == "string_content":
                parts.append(text(self.data, child))
            elif child.type == "interpolation":
                inner = self.value(child.named_children[0]) if child.named_children else UNKNOWN
                if not isinstance(inner, str) or len(child.named_children) != 1:
                    return UNKNOWN
                parts.append(inner)
        return "".join(parts)


_FELL_THROUGH = Unknown()
"""what ``run`` gives for a block that ends without returning (its caller goes on)."""


def _interpolated(node: Node) -> bool:
    return any(child.type == "interpolation" for child in node.children)


def constant(data: bytes, node: Node) -> Value:
    """A literal default: a plain string, ``True``, ``False`` or ``None``."""
    if node.type in ("true", "false"):
        return node.type == "true"
    if node.type == "none":
        return None
    value = string_value(data, node) if not _interpolated(node) else None
    return UNKNOWN if value is None else value
