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


def guards_above(node: Node, stop: Node, grammar: Grammar, guards: Guards) -> list[Guard]:
    """Every configuration condition above ``node``, nearest first, below ``stop`` and within the
    function that holds it (callbacks run in place, so the walk goes on through them)."""
    found = []
    child, parent = node, node.parent
    while parent is not None and child != stop:
        if (guard := guards.at(parent, child)) is not None:
            found.append(guard)
        if parent.type in grammar.functions and not is_callback(parent, grammar):
            break
        child, parent = parent, parent.parent
    return found


def common_guard(paths: list[list[Guard]]) -> Guard | None:
    """The condition that places with these conditions above them (``guards_above``) all sit under,
    the first one's nearest; ``None`` when there is no place, one sits under none, or two sit on
    different sides of one branch (``if (a) f() else if (b) f()`` calls ``f`` either way)."""
    if not paths or not all(paths):
        return None
    sides: dict[int, set[str]] = {}
    for guard in (g for path in paths for g in path):
        sides.setdefault(guard.branch, set()).add(guard.side)
    return None if any(len(found) > 1 for found in sides.values()) else paths[0][0]


def every_use_guarded(data: bytes, name: str, declaration: Node, scope: Node, *, grammar: Grammar,
                      guards: Guards) -> Guard | None:
    """The condition the uses of ``name`` in ``scope`` (``declaration`` left out) all sit under
    (``common_guard``), or ``None``; ``data`` is the file."""
    paths: list[list[Guard]] = []
    for count, start in enumerate(words(data, name, scope.start_byte, scope.end_byte)):
        if count >= MOST_USES:
            return None
        if declaration.start_byte <= start < declaration.end_byte:
            continue
        leaf = scope.descendant_for_byte_range(start, start + len(name.encode()))
        if leaf is None or not inside(leaf, scope) or _prose(leaf):
            continue
        path = guards_above(leaf, scope, grammar, guards)
        if not path:
            return None
        paths.append(path)
    return common_guard(paths)


def _prose(node: Node) -> bool:
    """Whether a use is in a comment or a string (``"writeTool"``), not code (a name interpolated
    into a string, `${name}`, is code)."""
    if "identifier" in node.type or node.type in _NAMES:
        return False
    return any(n is not None and ("comment" in n.type or "string" in n.type) for n in (node, node.parent))


_NAMES = frozenset({"name", "variable_name", "constant"})
