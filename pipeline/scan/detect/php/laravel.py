"""laravel/mcp tools: ``class X extends Laravel\\Mcp\\Server\\Tool`` (or a project base class
that does, one level) carrying ``#[IsReadOnly]``, ``#[IsDestructive]``, ``#[IsIdempotent]``,
``#[IsOpenWorld]`` class attributes.

Checked against laravel/mcp's source (``src/Server/Primitive.php``, ``src/Server/Tool.php``,
``src/Server/Concerns/HasAnnotations.php``):

- name: a ``name()`` override, else ``#[Name('..')]`` (``Laravel\\Mcp\\Server\\Attributes\\Name``,
  since v0.5.8), else ``protected string $name``, else ``Str::kebab(class_basename($this))``:
  the kebab-case of the whole short class name, a ``Tool`` suffix included
  (``CurrentWeatherTool`` -> ``current-weather-tool``);
- each hint attribute takes ``bool $value = true``; only attributes present are sent;
- ``#[Title]`` from ``Laravel\\Mcp\\Server\\Attributes\\Title`` (and ``protected string $title``)
  is the tool-level title; only v0.1.0-v0.1.1 had ``Tools\\Annotations\\Title`` (``annotations.title``);
- attributes are read with ``ReflectionClass::getAttributes()``, so a base class's attributes do
  not reach its subclasses; abstract classes are not tools.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from pipeline.scan.detect.model import TRUE, Annotations, Tool, hint_field
from pipeline.scan.detect.php.syntax import (
    Scope,
    arguments,
    class_name,
    declared_name,
    string_value,
)
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import Node, boolean, named

SDK = "php-laravel"
TOOL_BASE = "Laravel\\Mcp\\Server\\Tool"
HINTS = "Laravel\\Mcp\\Server\\Tools\\Annotations\\"
ANNOTATIONS_TITLE = "Laravel\\Mcp\\Server\\Tools\\Annotations\\Title"
TOOL_TITLE = "Laravel\\Mcp\\Server\\Attributes\\Title"
NAME = "Laravel\\Mcp\\Server\\Attributes\\Name"


def kebab(name: str) -> str:
    """Laravel's ``Str::kebab`` of a class name (``GetHTTPStatus`` -> ``get-h-t-t-p-status``)."""
    if name.isalpha() and name.islower():
        return name
    return re.sub(r"(.)(?=[A-Z])", r"\1-", name).lower()


class LaravelReader:
    """Finds laravel/mcp tool classes; learns the project's own ``Tool`` base classes."""

    def __init__(self) -> None:
        self.bases: set[str] = set()

    def learn(self, file: SourceFile, classes: list[Node], scope: Scope) -> None:
        """Record every project class that extends laravel/mcp's ``Tool`` directly (phase 1)."""
        for declaration in classes:
            if self._base(file, declaration, scope) == TOOL_BASE:
                name = declared_name(file, declaration)
                self.bases.add(f"{scope.namespace}\\{name}" if scope.namespace else name)

    def tools(self, file: SourceFile, classes: list[Node], scope: Scope) -> Iterator[Tool]:
        """A row per concrete class extending ``Tool`` or a known project base class."""
        for declaration in classes:
            base = self._base(file, declaration, scope)
            if base != TOOL_BASE and base not in self.bases:
                continue
            if any(c.type == "abstract_modifier" for c in declaration.children):
                continue
            via = "direct" if base == TOOL_BASE else "wrapper:" + base.rsplit("\\", 1)[-1]
            yield self._tool(file, declaration, scope, via)

    def _base(self, file: SourceFile, declaration: Node, scope: Scope) -> str:
        clause = next((c for c in declaration.children if c.type == "base_clause"), None)
        written = next((c for c in named(clause) if c.type in ("name", "qualified_name")), None) if clause else None
        return scope.resolve(file.text(written)) if written is not None else ""

    def _tool(self, file: SourceFile, declaration: Node, scope: Scope, via: str) -> Tool:
        short = declared_name(file, declaration)
        found, name, title = Annotations(), None, None
        for attribute in _attributes(declaration):
            fqn = scope.resolve(class_name(file, attribute))
            value = arguments(file, attribute).get("value", 0)
            if fqn.startswith(HINTS) and (field := hint_field(fqn.rsplit("\\", 1)[-1])) is not None:
                found = found.with_hint(field, TRUE if value is None else boolean(file.text(value)))
            elif fqn == ANNOTATIONS_TITLE:
                text = string_value(file, value)
                found = replace(found, title=text, title_state=TRUE if text is not None else "dynamic")
            elif fqn == TOOL_TITLE:
                title = string_value(file, value)
            elif fqn == NAME:
                name = string_value(file, value)
        if found != Annotations():
            found = found.with_source("attribute")
        members = _members(file, declaration)
        name = members.get("name()", name or members.get("$name") or kebab(short))
        return Tool(file.path, file.line(declaration), SDK, name, f"php.{SDK}.tool-class", found, via,
                    tool_title=title or members.get("$title"))


def _attributes(declaration: Node) -> Iterator[Node]:
    for child in declaration.children:
        if child.type == "attribute_list":
            for group in named(child):
                yield from (a for a in named(group) if a.type == "attribute")


def _members(file: SourceFile, declaration: Node) -> dict[str, str | None]:
    """``$name``/``$title`` property defaults and what ``name()`` returns (``None``: not a literal)."""
    found: dict[str, str | None] = {}
    body = declaration.child_by_field_name("body")
    for member in named(body) if body is not None else []:
        if member.type == "property_declaration":
            for element in (e for e in named(member) if e.type == "property_element"):
                key = file.text(element.child_by_field_name("name"))
                if key in ("$name", "$title"):
                    found[key] = string_value(file, element.child_by_field_name("default_value"))
        elif member.type == "method_declaration" and declared_name(file, member) == "name":
            found["name()"] = _returned_literal(file, member)
    return found


def _returned_literal(file: SourceFile, method: Node) -> str | None:
    body = method.child_by_field_name("body")
    returns = [s for s in named(body) if s.type == "return_statement"] if body is not None else []
    if len(returns) != 1 or not returns[0].named_children:
        return None
    return string_value(file, returns[0].named_children[0])
