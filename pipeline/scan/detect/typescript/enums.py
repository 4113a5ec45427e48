"""TypeScript's enums, read as the project's constants: ``name: ToolName.ECHO`` with
``enum ToolName { ECHO = "echo" }`` (in any module) names the tool ``echo``, as a constants
object's member does. JavaScript's grammar has no enums; a member without a value names nothing."""

from __future__ import annotations

import re
from collections.abc import Iterator

from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.typescript.values import Ref
from pipeline.scan.detect.typescript.wrappers import captures

#: ``enum X {`` / ``const enum X {``: the names a file declares as enums
ENUM_NAMES = re.compile(rb"\benum\s+([A-Za-z_$][\w$]*)\s*\{")
_ENUMS = "(enum_declaration) @enum"
_TYPED = (".ts", ".tsx", ".mts", ".cts")


def enum_names(file: SourceFile) -> list[str]:
    """The enums ``file`` may declare (a regular expression: no parse)."""
    return [name.decode() for name in ENUM_NAMES.findall(file.data)] if b"enum" in file.data else []


def enum_bodies(file: SourceFile) -> Iterator[tuple[str, Ref]]:
    """Each enum of a TypeScript ``file``: its name and its body, whose members
    ``pipeline.scan.detect.typescript.values.entries`` reads as an object's."""
    if not file.path.endswith(_TYPED) or b"enum" not in file.data:
        return
    for enum in captures(file, _ENUMS).get("enum", []):
        body, label = enum.child_by_field_name("body"), enum.child_by_field_name("name")
        if body is not None and label is not None:
            yield file.text(label), Ref(file, body)
