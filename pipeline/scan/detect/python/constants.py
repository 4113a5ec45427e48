"""Constants a Python tool's name is read from: where an assignment's value is kept (module level,
a class body), and a member of a class phase 1 did not learn (an ``Enum`` of tool names defined in a
module that names no tool), read from the text of every kept file that defines the class."""

from __future__ import annotations

import re
from collections.abc import Iterable

from pipeline.scan.detect.python.scope import Node, text
from pipeline.scan.detect.source import SourceFile

#: a class's header and the indented lines of its body
_CLASS = rb"^class[ \t]+%s\b[^\n]*:[ \t]*(?:#[^\n]*)?\n((?:[ \t]+[^\n]*\n|[ \t]*\n)*)"
#: a member given a string literal: ``NAME = "x"``, ``NAME: str = 'x'``
_MEMBER = rb"""^[ \t]+%s[ \t]*(?::[^=\n]*)?=[ \t]*(?:"([^"\\\n]*)"|'([^'\\\n]*)')"""


def class_constant(files: Iterable[SourceFile], owner: str, member: str) -> str | None:
    """The string ``member = "..."`` gives in the body of ``class owner`` in the files that define
    it; ``None`` where none does, or they disagree."""
    if not (owner.isidentifier() and member.isidentifier()):
        return None
    header = re.compile(_CLASS % owner.encode(), re.MULTILINE)
    field = re.compile(_MEMBER % member.encode(), re.MULTILINE)
    needle = b"class " + owner.encode()
    values = {(m.group(1) or m.group(2) or b"").decode("utf-8", "replace")
              for file in files if needle in file.data for body in header.finditer(file.data)
              for m in field.finditer(body.group(1))}
    return values.pop() if len(values) == 1 else None


def constant_key(data: bytes, node: Node, name: str) -> str | None:
    """``name`` for a module-level assignment, ``Class.name`` for one in a class body, else None."""
    if module_level(node):
        return name
    block = node.parent.parent if node.parent is not None else None
    owner = block.parent if block is not None and block.type == "block" else None
    if owner is not None and owner.type == "class_definition":
        return f"{text(data, owner.child_by_field_name('name'))}.{name}"
    return None


def module_level(node: Node) -> bool:
    """Whether an assignment ``node`` is a statement of its module (not of a function or class)."""
    statement = node.parent
    return statement is not None and statement.parent is not None and statement.parent.type == "module"


def made_by(file: SourceFile, name: str) -> str | None:
    """The class a module-level ``name = Class(...)`` of ``file`` is made by (``settings = Settings()``)."""
    if not name.isidentifier():
        return None
    made = rb"^" + name.encode() + rb"[ \t]*(?::[^=\n]*)?=[ \t]*([A-Za-z_][\w.]*)\("
    found = re.search(made, file.data, re.MULTILINE)
    return found.group(1).decode().rsplit(".", 1)[-1] if found is not None else None
