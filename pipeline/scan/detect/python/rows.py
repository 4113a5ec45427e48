"""Python rows: how one file's registrations become ``Tool`` rows (``RowBuilder``): the tool's
name as written, built from known parts or evaluated (``evaluate``), its annotations and
title, and the row at its line. ``wrapped`` adds the uses of the project's wrappers."""


from __future__ import annotations

import re

from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.model import Annotations, Tool
from pipeline.scan.detect.python.annotations import Reader
from pipeline.scan.detect.python.constants import class_constant, made_by
from pipeline.scan.detect.python.evaluate import Evaluator
from pipeline.scan.detect.python.index import ProjectIndex, module_file
from pipeline.scan.detect.python.loops import iterated_at_run_time
from pipeline.scan.detect.python.rules import declared, fallback
from pipeline.scan.detect.python.scope import (
    Node,
    Scope,
    keywords,
    parameters,
    positionals,
    string_value,
    text,
)
from pipeline.scan.detect.sdks import SDKS
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import enclosing, named, unquote


def _interpolated(node: Node) -> bool:
    """Whether a string node is an f-string with replacement fields."""
    return any(child.type == "interpolation" for child in node.children)


class RowBuilder:
    """Turns the registrations of one file into ``Tool`` rows: names (literal, built, evaluated),
    annotations and the row itself; ``wrapped.Rows`` adds the project's wrappers."""

    def __init__(self, file: SourceFile, scope: Scope, index: ProjectIndex, dependencies: Dependencies) -> None:
        self.file, self.data, self.scope, self.index = file, file.data, scope, index
        self.reader = Reader(index.presets, file.data, file.path)
        self.fallback = fallback(scope, dependencies, file.path)
        self.declared = declared(dependencies, file.path)
        self.built_name: str | None = None
        """``built`` when the last name read was built from known parts, ``dynamic`` when one part is
        not known (the name is then ``None``); ``rule`` ends in ``-built`` or ``-dynamic``."""
        self.counted: set[str] = set()
        """functions and variables already counted as tools (``add_tool(x)`` adds nothing new)."""

    # -- rows ---------------------------------------------------------------------------------
    def _row(self, node: Node, sdk: str, form: str, name: str | None, args: Node | None, *,
             at: SourceFile | None = None) -> Tool:
        if self.built_name is not None:
            form, self.built_name = f"{form}-{self.built_name}", None
        given = keywords(self.data, args)
        annotations = self.reader.read(given.get("annotations"))
        return self._tool(node, sdk, form, name, annotations, title=string_value(self.data, given.get("title")), at=at)

    def _tool(self, node: Node, sdk: str, form: str, name: str | None, annotations: Annotations, *,
              via: str = "direct", title: str | None = None, at: SourceFile | None = None) -> Tool:
        """A row at ``node`` of this file (or of the file ``at``: an element of a list another module holds)."""
        if via == "direct" and annotations.source.startswith("preset:"):
            via = annotations.source
        where = at or self.file
        return Tool(where.path, where.line(node), sdk, name, f"python.{sdk}.{form}", annotations, via,
                    title, is_mcp=SDKS[sdk].is_mcp)

    def _name(self, args: Node | None, keyword: str, fallback: str | None) -> str | None:
        self.built_name = None
        given = keywords(self.data, args)
        if keyword in given:
            return self._literal(given[keyword])
        first = positionals(args)[:1]
        if first and first[0].type == "string":
            return string_value(self.data, first[0])
        return fallback

    def _literal(self, node: Node, attributes: bool = True) -> str | None:
        """A string literal, or a string constant of the project named one level away
        (``name=GitTools.STATUS``, ``name=TimeTools.NOW.value``, ``name=SEARCH``); ``self.name``
        is read from the class's ``__init__`` (``self.name = X`` or ``super().__init__(X)``)."""
        if attributes and node.type == "attribute" and text(self.data, node.child_by_field_name("object")) == "self":
            value = self._set_in_init(node, text(self.data, node.child_by_field_name("attribute")))
            return self._literal(value, attributes=False) if value is not None else None
        if node.type in ("identifier", "attribute"):
            found = self.index.name_constant(text(self.data, node))
            if found is None and node.type == "attribute" and self._a_module(node.child_by_field_name("object")):
                found = self.index.module_constant(text(self.data, node.child_by_field_name("attribute")))
            if found is None and node.type == "identifier":
                found = self._module_string(node) or self.index.module_constant(text(self.data, node)) \
                    or self._default(node)
            if found is None and node.type == "identifier":
                found = self._evaluated(self._evaluator().local(node))
            if found is None and node.type == "attribute":
                found = self._evaluated(self._setting_default(node))
        else:
            found = None
        if found is None and node.type in ("attribute", "subscript", "identifier", "boolean_operator") and \
                iterated_at_run_time(self.data, node):
            self.built_name = "dynamic"  # tool.name over client.list_functions(): made at run time
            return None
        if node.type in ("identifier", "attribute", "subscript", "boolean_operator"):
            return found
        if node.type == "binary_operator" or (node.type == "string" and _interpolated(node)):
            return self._built(node)
        if node.type == "call":
            return self._evaluated(self._evaluator().call(node))
        return string_value(self.data, node)

    def _setting_default(self, node: Node) -> str | None:
        """``settings.TOOL_NAME`` where ``settings = Settings()`` (in any module of the tree) and the
        class declares ``TOOL_NAME: str = "x"``: the name a server started with no configuration has."""
        owner = node.child_by_field_name("object")
        if owner is None or owner.type != "identifier":
            return None
        module, _, name = (self.scope.imports.get(text(self.data, owner)) or "").rpartition(".")
        name = name or text(self.data, owner)
        made = self.index.object_for(name, self.file.path, module)
        where = module_file(self.index.modules, module, self.file.path) if module else self.file
        callee = made.callee_name if made is not None else made_by(where, name) if where is not None else None
        if not callee or not callee[:1].isupper():
            return None
        field = text(self.data, node.child_by_field_name("attribute"))
        return class_constant(self.index.modules.values(), callee, field)

    def _evaluator(self) -> Evaluator:
        """An evaluator for this file's names (made per use: held by ``self`` it would make a cycle
        that keeps the tree's files alive until the garbage collector runs)."""
        return Evaluator(self.file, self.scope, self.index, self._literal)

    def _evaluated(self, value: str | None) -> str | None:
        """A name a local or a project function gives (``evaluate``): read, so ``-built``."""
        if value is not None and self.built_name != "dynamic":
            self.built_name = "built"
        return value

    def _built(self, node: Node) -> str | None:
        """A name the source builds (``PREFIX + "search"``, ``f"{PREFIX}search"``) from parts that are
        all known; ``None`` (a dynamic name) when one is not."""
        if node.type == "binary_operator":
            if text(self.data, node.child_by_field_name("operator")) != "+":
                self.built_name = "dynamic"
                return None
            parts = [node.child_by_field_name("left"), node.child_by_field_name("right")]
        else:
            parts = [c for c in node.children if c.type in ("string_content", "interpolation")]
        values = []
        for part in parts:
            if part is not None and part.type == "string_content":
                values.append(text(self.data, part))
                continue
            inner = part.named_children[0] if part is not None and part.type == "interpolation" else part
            value = self._literal(inner) if inner is not None else None
            if value is None:
                self.built_name = "dynamic"
                return None
            values.append(value)
        self.built_name = "built"
        return "".join(values)

    def _default(self, node: Node) -> str | None:
        """The string default of the parameter ``node`` names, in the function around it."""
        default = parameters(enclosing(node, ("function_definition",))).get(text(self.data, node))
        return string_value(self.data, default)

    def _a_module(self, node: Node | None) -> bool:
        """Whether ``node`` names a module this file imports (``consts`` of ``from pkg import consts``)."""
        if node is None or node.type != "identifier":
            return False
        qualified = self.scope.imports.get(text(self.data, node))
        return qualified is not None and qualified.rsplit(".", 1)[-1][:1].islower()

    def _module_string(self, node: Node) -> str | None:
        """A module-level ``NAME = "..."`` of this file (written once) that ``node`` names."""
        pattern = rb"^%s[ \t]*(?::[^=\n]*)?=[ \t]*([rRbBuU]?(?:\"[^\"\n]*\"|'[^'\n]*'))[ \t]*(?:#.*)?$" % re.escape(
            text(self.data, node).encode())
        found = re.findall(pattern, self.data, re.MULTILINE)
        return unquote(found[0].decode("utf-8", "replace")) if len(set(found)) == 1 else None

    def _set_in_init(self, node: Node, attribute: str) -> Node | None:
        """What the enclosing class's ``__init__`` sets ``self.<attribute>`` to, or passes first
        to ``super().__init__`` (a base class that keeps its tool's name)."""
        cls = enclosing(node, ("class_definition",))
        body = cls.child_by_field_name("body") if cls is not None else None
        init = next((d for d in named(body) if d.type == "function_definition" and
                     text(self.data, d.child_by_field_name("name")) == "__init__"), None) if body else None
        block = init.child_by_field_name("body") if init is not None else None
        for statement in named(block) if block is not None else []:
            expression = statement.named_children[0] if statement.type == "expression_statement" else None
            if expression is not None and expression.type == "assignment" and \
                    text(self.data, expression.child_by_field_name("left")) == f"self.{attribute}":
                return expression.child_by_field_name("right")
            if expression is not None and expression.type == "call" and \
                    text(self.data, expression.child_by_field_name("function")) == "super().__init__":
                first = positionals(expression.child_by_field_name("arguments"))[:1]
                return first[0] if first else None
        return None
