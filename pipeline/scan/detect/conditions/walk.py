"""The walk from a tool's line up its file's syntax tree to the configuration condition it is
registered under, if any.

From the node at the tool's line the walk goes up to the file's root and stops at the first of:

- a branch, ``&&`` guard or switch arm whose condition reads configuration (``reading``), or an
  early exit before it on one (``exits``): that condition;
- a declaration whose value holds the tool (``const writeTool = {...}``, ``tool := mcp.NewTool(...)``),
  or a class declared at the tool's line: when every use of its name sits under such a condition
  (``uses``), that one, else the walk goes on;
- a named function holding the registration (``function registerWriteTools(server) {...}``): the
  condition every use of its name sits under, or none; a callback (``tools.forEach(t => ...)``)
  is walked through.
"""

from __future__ import annotations

import re

import tree_sitter

from pipeline.scan.detect.conditions import scopes
from pipeline.scan.detect.conditions.branches import Guard
from pipeline.scan.detect.conditions.exits import Guards
from pipeline.scan.detect.conditions.grammar import Grammar
from pipeline.scan.detect.conditions.reading import binder, reads_configuration
from pipeline.scan.detect.conditions.scopes import text
from pipeline.scan.detect.conditions.uses import MOST_USES, every_use_guarded, guards_above
from pipeline.scan.detect.conditions.wrappers import definitions, registration_guard, registration_on

#: a check a condition calls: ``this.isAllowed()``, ``self.enabled()``, ``isWriteAllowed()``
_CHECKS = re.compile(r"(?:\b(?:this|self)\.)?\b([A-Za-z_]\w*)\s*\(")

Node = tree_sitter.Node


class FileConditions:
    """The conditions of one file's registrations, its look-ups shared between its tools."""

    def __init__(self, data: bytes, root: Node, grammar: Grammar) -> None:
        self._data = data
        self._lines = data.split(b"\n")
        self._root = root
        self._grammar = grammar
        self._bindings = binder(data.decode("utf-8", errors="replace"))
        self._read: dict[str, bool] = {}
        self._used: dict[tuple[str, int], Guard | None] = {}
        self._wrappers: dict[str, tuple[bool, Guard | None]] = {}
        self.guards = Guards(grammar, self.reads)
        """the conditions of this file's constructs."""

    def at_line(self, line: int) -> Guard | None:
        """The configuration condition the registration at 1-based ``line`` sits under, walked up
        from the line's registration call, else from the node at its end (inside the registration
        even where a branch opens the line, ``if (x) defineTool(...)``) and, where a condition
        ends it, from its start (Ruby's ``server.define_tool(...) if ENV["X"]``)."""
        for anchor in self._anchors(line - 1):
            if (guard := self._walk(anchor)) is not None:
                return guard
        return None

    def wrapper(self, name: str) -> tuple[bool, Guard | None]:
        """Whether this file defines a function ``name``, and the condition every registration in
        each of its definitions sits under (``wrappers``)."""
        if name not in self._wrappers:
            defined = definitions(self._data, self._root, self._grammar, name)
            found = [registration_guard(function, self._grammar, self.guards) for function in defined]
            self._wrappers[name] = bool(defined), found[0] if found and all(g is not None for g in found) else None
        return self._wrappers[name]

    def holder(self, line: int) -> str | None:
        """The name of the named function (no callback) that holds the registration at ``line``."""
        for anchor in self._anchors(line - 1):
            parent = anchor.parent
            while parent is not None:
                if parent.type in self._grammar.functions and not scopes.is_callback(parent, self._grammar):
                    named = scopes.function_name(parent, self._grammar)
                    return named[0] if named is not None else None
                parent = parent.parent
        return None

    def call_paths(self, name: str) -> list[list[Guard]] | None:
        """The conditions above each use of ``name`` in this file (imports, prose and its declaration
        aside): ``None`` when one use sits under none or there are too many to follow."""
        paths = []
        for count, start in enumerate(scopes.words(self._data, name)):
            leaf = self._root.descendant_for_byte_range(start, start + len(name.encode()))
            if count >= MOST_USES or leaf is None:
                return None
            if _imported(leaf) or "comment" in leaf.type or "string" in (leaf.parent.type if leaf.parent else "") \
                    or (leaf.parent is not None and leaf.parent.child_by_field_name("name") == leaf):
                continue  # an import, prose, or the name's own declaration
            path = guards_above(leaf, self._root, self._grammar, self.guards)
            if not path:
                return None
            paths.append(path)
        return paths

    def reads(self, condition: str) -> bool:
        """Whether ``condition`` reads configuration (its bare names looked up in this file), also
        through a check of this file it calls (``!this.isAllowed()``, ``not self.enabled()``, whose
        body reads it)."""
        if condition not in self._read:
            self._read[condition] = False  # a check calling itself reads nothing more
            self._read[condition] = reads_configuration(condition, self._bindings) or any(
                reads_configuration(text(body), self._bindings)
                for name in dict.fromkeys(_CHECKS.findall(condition))
                for function in definitions(self._data, self._root, self._grammar, name)
                if (body := function.child_by_field_name("body")) is not None)
        return self._read[condition]

    def _anchors(self, row: int) -> list[Node]:
        """Where the walk starts: the line's first registration call (``server.tool(...)``), else the
        node at its end (before a ``;`` or ``,``, a comment aside), and the one at its start when the
        end is a branch's condition (Ruby's ``server.define_tool(...) if ENV["X"]``)."""
        if not 0 <= row < len(self._lines) or not (content := self._lines[row].rstrip().rstrip(b";,").rstrip()):
            return []
        first = len(content) - len(content.lstrip())
        line = self._root.descendant_for_point_range((row, first), (row, len(content)))
        if line is not None and (call := registration_on(line, row)) is not None:
            return [call]
        last = self._root.descendant_for_point_range((row, len(content) - 1), (row, len(content)))
        if last is not None and "comment" not in last.type and not self._in_condition(last):
            return [last]
        start = self._root.descendant_for_point_range((row, first), (row, first + 1))
        return [n for n in (last, start) if n is not None and "comment" not in n.type]

    def _in_condition(self, node: Node) -> bool:
        child, parent = node, node.parent
        while parent is not None and parent.type not in self._grammar.functions:
            if parent.type in self._grammar.branches and any(
                    scopes.inside(child, c) for c in parent.children_by_field_name("condition")):
                return True
            child, parent = parent, parent.parent
        return False

    def _walk(self, anchor: Node) -> Guard | None:
        grammar = self._grammar
        child, parent = anchor, anchor.parent
        while parent is not None:
            guard = self.guards.at(parent, child)
            if guard is not None:
                return guard
            if parent.type in grammar.functions and not scopes.is_callback(parent, grammar):
                named = scopes.function_name(parent, grammar)
                if named is not None and (found := self._used_under(*named)) is not None:
                    return found
                if scopes.in_body(parent, anchor):
                    return None
            elif parent.type in grammar.declarations:
                bound = scopes.declared(parent)
                if bound is not None and scopes.inside(anchor, bound[1]) and not scopes.registers(bound[1]) \
                        and (found := self._used_under(bound[0], parent)) is not None:
                    return found
            elif parent.type in grammar.classes and (name := scopes.class_name(parent)) is not None \
                    and (found := self._used_under(name, parent)) is not None:
                return found
            child, parent = parent, parent.parent
        return None

    def _used_under(self, name: str, declaration: Node) -> Guard | None:
        key = (name, declaration.id)
        if key not in self._used:
            scope = scopes.scope_of(declaration, self._grammar)
            self._used[key] = every_use_guarded(self._data, name, declaration, scope, grammar=self._grammar,
                                                guards=self.guards)
        return self._used[key]


def _imported(node: Node) -> bool:
    """Whether ``node`` is part of an import (``import { f } from``, ``from .m import f``)."""
    parent = node.parent
    while parent is not None and parent.type not in ("program", "module", "source_file"):
        if "import" in parent.type:
            return True
        parent = parent.parent
    return False
