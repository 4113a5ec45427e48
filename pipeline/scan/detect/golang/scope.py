"""Where the Go detector reads values: ``Scope`` (a file, its imports, what phase 1 learned, a
wrapper's parameters) turns a node into a literal string or boolean, a constant's value or a
``Param`` (a wrapper's parameter, filled at each call site)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache

from pipeline.scan.detect.golang.syntax import Imports, Node, arguments, strip_address, unwrap
from pipeline.scan.detect.model import DYNAMIC, FALSE, TRUE, UNSET, Annotations
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import named, unquote, walk


@dataclass(frozen=True)
class Param:
    """A wrapper's parameter, by position: its value comes from each call site."""

    index: int


@dataclass
class Scope:
    """Where values are read: a file, its imports, what phase 1 learned, a wrapper's parameters."""

    file: SourceFile
    imports: Imports
    strings: dict[str, str | None]
    bools: dict[str, str | None]
    presets: dict[str, Annotations]
    params: dict[str, int] = field(default_factory=dict)
    exported: Mapping[str, str | None] = field(default_factory=dict)
    """exported string constants of the module's other packages, by name (``names.ListPodsToolName``)."""

    def string(self, node: Node | None) -> str | Param | None:
        """A literal (or constant) string, a parameter, or ``None`` for anything else."""
        node = unwrap(node)
        if node is None:
            return None
        if node.type in ("interpreted_string_literal", "raw_string_literal"):
            return unquote(self.file.text(node))
        if node.type == "identifier":
            name = self.file.text(node)
            return Param(self.params[name]) if name in self.params else self.strings.get(name)
        if node.type == "selector_expression" and (operand := node.child_by_field_name("operand")) is not None \
                and operand.type == "identifier" and _imports_package(self.file.data, self.file.text(operand)):
            return self.exported.get(self.file.text(node.child_by_field_name("field")))
        return None

    def boolean(self, node: Node | None) -> str | Param:
        """``true`` / ``false`` through pointer helpers and one variable, else ``dynamic``."""
        node = strip_address(node)
        if node is None:
            return DYNAMIC
        text = self.file.text(node).strip()
        if text in (TRUE, FALSE):
            return text
        if text == "nil":  # a *bool left nil: not sent
            return UNSET
        if node.type == "call_expression" and len(arguments(node)) == 1:
            return self.boolean(arguments(node)[0])
        if node.type == "call_expression" and (function := node.child_by_field_name("function")) is not None \
                and function.type == "func_literal":
            return self._returned(function)  # func() *bool { b := false; return &b }()
        if node.type == "index_expression":  # &[]bool{true}[0]
            element = _only_element(self.file, node)
            return self.boolean(element) if element is not None else DYNAMIC
        if node.type == "identifier":
            return Param(self.params[text]) if text in self.params else self._variable(text)
        return DYNAMIC

    def _returned(self, function: Node) -> str | Param:
        """What a function literal called on the spot returns: a literal, ``nil``, or a variable it
        binds once to a literal."""
        returns = [r for r in walk(function) if r.type == "return_statement"]
        values = named(returns[0]) if len(returns) == 1 else []
        value = strip_address(named(values[0])[0] if values and values[0].type == "expression_list" and
                              named(values[0]) else values[0] if values else None)
        if value is None or value.type != "identifier":
            return self.boolean(value) if value is not None else DYNAMIC
        body = self.file.data[function.start_byte : function.end_byte]
        bound = {m.decode() for m in _binding(self.file.text(value)).findall(body)}
        return bound.pop() if len(bound) == 1 else DYNAMIC

    def _variable(self, name: str) -> str:
        bound: set[str] = {m.decode() for m in _binding(name).findall(self.file.data)}
        if len(bound) == 1:
            return bound.pop()
        known = self.bools.get(name)
        return known if known is not None else DYNAMIC


def _only_element(file: SourceFile, node: Node) -> Node | None:
    """The element ``[]T{x}[0]`` indexes: the one element of a literal, at index 0."""
    listed, index = node.child_by_field_name("operand"), node.child_by_field_name("index")
    if listed is None or index is None or listed.type != "composite_literal" or file.text(index).strip() != "0":
        return None
    body = listed.child_by_field_name("body")
    elements = named(body) if body is not None else []
    return elements[0] if len(elements) == 1 else None


def _imports_package(data: bytes, name: str) -> bool:
    """Whether a Go file imports a package it calls ``name`` (by its last path element or an alias)."""
    return _import_of(name).search(data) is not None


@cache
def _import_of(name: str) -> re.Pattern[bytes]:
    word = re.escape(name.encode())
    return re.compile(rb'(?m)^\s*(?:import\s*)?(?:%s\s+"[^"\n]+"|"(?:[^"\n]*/)?%s")' % (word, word))


@cache
def _binding(name: str) -> re.Pattern[bytes]:
    return re.compile(rb"\b" + re.escape(name.encode()) + rb"\s*(?:bool\s*)?:?=\s*(true|false)\b")
