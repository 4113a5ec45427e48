"""The conditions a file's constructs put on the code they hold or that follows them, read once each:
a branch around a node (``branches``), or an early exit before it, ``if (!config.write) return;``
/ ``if readOnly && !tool.readOnly { continue }`` (the code after it runs when the condition does not
hold, so its condition is ``else: ...``; Swift's ``guard x else { return }``: ``x``).

An exit in a function named ``main`` ends the program, as does one on a ``version`` or ``help``
flag, and a ``throw`` is a failure: none of them makes the code after it conditional.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import tree_sitter

from pipeline.scan.detect.conditions.branches import Guard, guard_at, negation, one_line
from pipeline.scan.detect.conditions.grammar import Grammar
from pipeline.scan.detect.conditions.loops import loop_guard
from pipeline.scan.detect.conditions.scopes import function_name, text

Node = tree_sitter.Node

_JUMPS = frozenset({"return_statement", "continue_statement", "break_statement", "return_expression",
                    "continue_expression", "break_expression", "jump_expression", "return", "next", "break",
                    "control_transfer_statement"})
_ALTERNATIVES = frozenset({"else", "else_clause", "elif_clause", "elsif", "else_if_clause"})
_PROGRAM_EXITS = re.compile(r"version|help|usage", re.IGNORECASE)
_ENTRY_POINTS = frozenset({"main", "Main"})


class Guards:
    """The configuration conditions of one file's constructs (``reads`` says which conditions read
    configuration), each construct's early exits found once."""

    def __init__(self, grammar: Grammar, reads: Callable[[str], bool]) -> None:
        self._grammar = grammar
        self._reads = reads
        self._exits: dict[int, list[tuple[int, Guard]]] = {}

    def at(self, parent: Node, child: Node) -> Guard | None:
        """The configuration condition ``parent`` puts on its child ``child``: the branch it is in,
        the filter of the list a loop runs it over (``loops``), or the nearest early exit before it."""
        guard = guard_at(parent, child, self._grammar) or loop_guard(parent, child)
        if guard is not None and self._reads(guard.text):
            return guard
        if parent.id not in self._exits:
            self._exits[parent.id] = self._early_exits(parent)
        return next((g for end, g in reversed(self._exits[parent.id]) if end <= child.start_byte), None)

    def _early_exits(self, parent: Node) -> list[tuple[int, Guard]]:
        found = []
        for statement in parent.named_children:
            guard = exit_guard(statement, self._grammar)
            if guard is not None and self._reads(guard.text) and not _PROGRAM_EXITS.search(guard.text):
                found.append((statement.end_byte, guard))
        return found if found and not self._in_entry_point(parent) else []

    def _in_entry_point(self, node: Node) -> bool:
        """Whether an exit in ``node`` leaves a program's entry point (a jump leaves the nearest
        function, a callback's too; at a file's top level only a loop's ``continue`` can stand)."""
        function: Node | None = node
        while function is not None and function.type not in self._grammar.functions:
            function = function.parent
        named = function_name(function, self._grammar) if function is not None else None
        return named is not None and named[0] in _ENTRY_POINTS


def exit_guard(statement: Node, grammar: Grammar) -> Guard | None:
    """The condition under which the code after ``statement`` runs, when ``statement`` is a branch
    with no ``else`` whose body only leaves (``return``, ``continue``, ``break``, not ``throw``)."""
    if statement.type == "expression_statement" and statement.named_child_count == 1:
        statement = statement.named_children[0]  # Rust: if x { return; }
    if statement.type == "guard_statement":  # Swift: guard x else { return }
        conditions = statement.children_by_field_name("condition")
        body = statement.named_children[-1] if statement.named_children else None
        if conditions and body is not None and _leaves(body):
            condition = statement.text or b""
            start, end = conditions[0].start_byte - statement.start_byte, conditions[-1].end_byte - statement.start_byte
            return Guard(one_line(condition[start:end].decode("utf-8", "replace")), statement.id, "after")
        return None
    if statement.type not in grammar.branches or any(c.type in _ALTERNATIVES for c in statement.children):
        return None
    body = next((b for f in ("consequence", "body") if (b := statement.child_by_field_name(f)) is not None), None)
    if body is None:
        conditions = statement.children_by_field_name("condition")
        body = next((c for c in statement.named_children if c not in conditions and "comment" not in c.type), None)
    if body is None or statement.child_by_field_name("alternative") is not None or not _leaves(body):
        return None
    guard = guard_at(statement, body, grammar)
    if guard is None:
        return None
    return Guard(negation(guard.text), statement.id, "after")


def _leaves(node: Node, depth: int = 0) -> bool:
    """Whether ``node`` ends by leaving (a jump as its last statement, a few levels down at most)."""
    if node.type in _JUMPS:
        return not text(node).lstrip().startswith(("throw", "raise"))
    statements = [c for c in node.named_children if "comment" not in c.type]
    return depth < 3 and bool(statements) and _leaves(statements[-1], depth + 1)
