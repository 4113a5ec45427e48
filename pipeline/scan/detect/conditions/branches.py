"""The condition one node of a syntax tree puts on one of its children: the ``if`` (or ternary,
``elif``, ``unless``, ``x if y``) whose body holds it, the left side of a ``&&`` / ``and`` guard, the
subject and label of a switch arm. Its text is the condition as written, on one line, prefixed
``else:`` where the child runs when the condition does not hold."""

from __future__ import annotations

import re
from dataclasses import dataclass

import tree_sitter

from pipeline.scan.detect.conditions import scopes
from pipeline.scan.detect.conditions.grammar import Grammar

Node = tree_sitter.Node

#: the longest condition text kept
MOST_CHARACTERS = 120
ELSE = "else: "

_AND, _OR = frozenset({"&&", "and"}), frozenset({"||", "or"})
_ELSE_FIELDS = frozenset({"alternative", "if_false"})
_ELSE_TYPES = frozenset({"else_clause", "else"})
_SUBJECT_FIELDS = ("value", "condition", "subject", "expr")
_LABEL_END = re.compile(r"(?<!:):(?!:)|->|=>|\bthen\b")


@dataclass(frozen=True)
class Guard:
    """A condition a node runs under."""

    text: str
    """the condition as written, on one line (``else: x`` for the branch taken when ``x`` is false;
    ``switch x: case "a"`` for a switch arm)."""
    branch: int
    """the id of the branch node (two references on different sides of one branch are no guard)."""
    side: str
    """which part of the branch the node sits in (``consequence``, ``alternative``, an arm's start)."""


def guard_at(parent: Node, child: Node, grammar: Grammar) -> Guard | None:
    """The condition ``parent`` puts on its child ``child`` (``None`` if it puts none)."""
    if parent.type in grammar.branches:
        return _branch(parent, child, grammar)
    if parent.type in grammar.conjunctions:
        return _conjunction(parent, child)
    if parent.type in grammar.arms:
        return _arm(parent, child, grammar)
    return None


def one_line(text: str) -> str:
    """``text`` on one line, outer parentheses dropped, cut to ``MOST_CHARACTERS``."""
    flat = " ".join(text.split())
    if flat.startswith("(") and flat.endswith(")") and _balanced(flat[1:-1]):
        flat = flat[1:-1].strip()
    return flat if len(flat) <= MOST_CHARACTERS else flat[: MOST_CHARACTERS - 3].rstrip() + "..."


def negation(text: str) -> str:
    """The condition that holds where ``text`` does not: ``!x`` and ``not x`` give ``x`` (for one
    operand), ``else: x`` gives ``x``, anything else ``else: <text>``."""
    if text.startswith(ELSE):
        return text.removeprefix(ELSE)
    operand = _NOT.fullmatch(text)
    if operand is not None and _balanced(operand.group(1)):
        return operand.group(1)
    return ELSE + text


_NOT = re.compile(r"(?:!|not\s+)\s*([\w$.?()\[\]*'\"-]+)")


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += (char == "(") - (char == ")")
        if depth < 0:
            return False
    return depth == 0


def _branch(parent: Node, child: Node, grammar: Grammar) -> Guard | None:
    conditions = parent.children_by_field_name("condition")
    if not conditions and parent.type == "conditional_expression" and len(parent.named_children) == 3:
        conditions = [parent.named_children[1]]  # Python: body if condition else other
    if not conditions or any(scopes.inside(child, c) for c in conditions):
        return None
    start, end = conditions[0].start_byte, conditions[-1].end_byte
    initializer = parent.child_by_field_name("initializer")  # Go: if v := os.Getenv("X"); v != ""
    if initializer is not None:
        start = initializer.start_byte
    written = (parent.text or b"")[start - parent.start_byte : end - parent.start_byte]
    text = one_line(written.decode("utf-8", "replace"))
    negated = parent.type in grammar.negated or _after_else(parent, child)
    return Guard(negation(text) if negated else text, parent.id, "alternative" if negated else "consequence")


def _after_else(parent: Node, child: Node) -> bool:
    """Whether ``child`` is the part of ``parent`` taken when its condition is false."""
    if child.type in _ELSE_TYPES:
        return True
    for index, node in enumerate(parent.children):
        if node == child:
            return parent.field_name_for_child(index) in _ELSE_FIELDS
        if node.type == "else":
            return True
    return False


def _conjunction(parent: Node, child: Node) -> Guard | None:
    operands = [c for c in parent.children if c.is_named]
    operator = next((c.type for c in parent.children if not c.is_named and c.type in _AND | _OR), None)
    if operator is None or len(operands) != 2 or operands[1] != child:
        return None
    text = one_line(scopes.text(operands[0]))
    return Guard(text if operator in _AND else negation(text), parent.id, "right")


def _arm(arm: Node, child: Node, grammar: Grammar) -> Guard | None:
    """A switch arm's subject and label (``switch mode: case "a"``) for a child in its body."""
    label = _LABEL_END.split((scopes.text(arm).splitlines() or [""])[0], maxsplit=1)[0].strip()
    if child.start_byte < arm.start_byte + len(label.encode()):
        return None  # in the label itself
    switch = arm.parent
    while switch is not None and switch.type not in grammar.switches:
        switch = switch.parent
    if switch is None:
        return None
    subject = next((s for f in _SUBJECT_FIELDS if (s := switch.child_by_field_name(f)) is not None),
                   next((c for c in switch.named_children if c.type == "when_subject"), None))
    text = f"switch {one_line(scopes.text(subject))}: {label}" if subject is not None else label
    return Guard(one_line(text), switch.id, str(arm.start_byte))

