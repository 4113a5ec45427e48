"""Whether every use of a name sits under a configuration condition: a function that registers
tools called only in ``if (!config.readOnly) registerWriteTools(server)``, a tool object pushed
onto a list only in ``if os.getenv("X"): tools.append(write_tool)``.

Uses are looked for in the name's scope (the function or file that declares it), as whole words
outside comments and strings, the declaration itself left out. A name with no use there (used in
another file, or not at all) gets no condition, nor does one used once outside a condition or on
both sides of one branch (``readOnly ? [read] : [read, write]`` lists ``read`` either way).
"""

from __future__ import annotations

import tree_sitter

from pipeline.scan.detect.conditions.branches import Guard
from pipeline.scan.detect.conditions.exits import Guards
from pipeline.scan.detect.conditions.grammar import Grammar
from pipeline.scan.detect.conditions.scopes import inside, is_callback, words

Node = tree_sitter.Node

#: a name used more often than this in its scope is not followed (a common word, not a definition)
MOST_USES = 50


def guard_above(node: Node, stop: Node, grammar: Grammar, guards: Guards) -> Guard | None:
    """The nearest configuration condition above ``node``, below ``stop`` and within the function
    that holds it (callbacks run in place, so the walk goes on through them)."""
    child, parent = node, node.parent
    while parent is not None and child != stop:
        guard = guards.at(parent, child)
        if guard is not None:
            return guard
        if parent.type in grammar.functions and not is_callback(parent, grammar):
            return None
        child, parent = parent, parent.parent
    return None


def every_use_guarded(data: bytes, name: str, declaration: Node, scope: Node, *, grammar: Grammar,
                      guards: Guards) -> Guard | None:
    """The condition the uses of ``name`` in ``scope`` (``declaration`` left out) all sit under,
    the first one's, or ``None`` when one does not (or there is none); ``data`` is the file."""
    found_under: list[Guard] = []
    for count, start in enumerate(words(data, name, scope.start_byte, scope.end_byte)):
        if count >= MOST_USES:
            return None
        if declaration.start_byte <= start < declaration.end_byte:
            continue
        leaf = scope.descendant_for_byte_range(start, start + len(name.encode()))
        if leaf is None or not inside(leaf, scope) or _prose(leaf):
            continue
        guard = guard_above(leaf, scope, grammar, guards)
        if guard is None:
            return None
        found_under.append(guard)
    if not found_under or _both_sides(found_under):
        return None
    return found_under[0]


def _prose(node: Node) -> bool:
    """Whether a use is in a comment or a string (``"writeTool"``), not code (a name interpolated
    into a string, `${name}`, is code)."""
    if "identifier" in node.type or node.type in _NAMES:
        return False
    return any(n is not None and ("comment" in n.type or "string" in n.type) for n in (node, node.parent))


_NAMES = frozenset({"name", "variable_name", "constant"})


def _both_sides(guards: list[Guard]) -> bool:
    sides: dict[int, set[str]] = {}
    for guard in guards:
        sides.setdefault(guard.branch, set()).add(guard.side)
    return any(len(found) > 1 for found in sides.values())
