"""Objects a TypeScript/JavaScript tree holds, found by their shape or by where they are registered.

- the object literals shaped as the elements of a tool list the detector cannot follow (the keys
  a loop reads, ``annotations`` or ``inputSchema`` among them): ``shaped_objects``;
- Mastra: the names under which ``new MCPServer({ tools: { key: value } })`` registers tools,
  by the value's variable name or by the position of an inline ``createTool(...)``: ``mastra_names``.
"""

from __future__ import annotations

import re
from posixpath import commonpath
from typing import TYPE_CHECKING

from pipeline.scan.detect.paths import in_tests
from pipeline.scan.detect.typescript.resolver import Resolver
from pipeline.scan.detect.typescript.values import Ref, entries, unwrap
from pipeline.scan.detect.typescript.wrappers import captures

if TYPE_CHECKING:
    from pipeline.scan.detect.typescript.index import ProjectIndex


def mastra_names(res: Resolver, registered: list[Ref]) -> tuple[dict[str, str], dict[tuple[str, int], str]]:
    """Tool keys of every Mastra ``MCPServer``: by variable name, and by inline call position."""
    names: dict[str, str] = {}
    positions: dict[tuple[str, int], str] = {}
    for ref in registered:
        _collect(res, res.resolve(ref)[0], names, positions, 0)
    return names, positions


def _collect(res: Resolver, target: Ref, names: dict[str, str], positions: dict[tuple[str, int], str],
             depth: int) -> None:
    if target.node.type != "object":
        return
    for key, value, _ in entries(target, res.consts):
        node = unwrap(value.node)
        if key is None and depth == 0:
            _collect(res, res.resolve(value)[0], names, positions, 1)
        elif key is not None and node.type in ("identifier", "shorthand_property_identifier"):
            names[value.file.text(node)] = key
        elif key is not None and node.type == "call_expression":
            positions[(value.file.path, node.start_byte)] = key


#: at most this much source is parsed to look for a list's elements by their shape
MAX_SHAPED_BYTES = 8 << 20
_NAMED_OBJECTS = "(object [(pair key: (property_identifier)) (shorthand_property_identifier)]) @object"
#: fields only a tool definition has among the objects of a project (CLI options, prompts and
#: settings have a name and a description too)
_TOOL_FIELDS = frozenset({"annotations", "inputSchema"})


def shaped_objects(project: ProjectIndex, folder: str, near: str, name_key: str, keys: frozenset[str]) -> list[Ref]:
    """Object literals of the files under ``folder`` (tests left out) with a string at
    ``name_key``, at least one more of ``keys``, and an ``annotations`` or ``inputSchema`` field:
    the elements of a tool list the detector could not follow. Only files that name ``name_key``
    and another key are parsed, nearest to the path ``near`` first, up to ``MAX_SHAPED_BYTES``."""
    others = keys - {name_key}
    if not others:
        return []
    written = re.compile(rb"\b%s\b" % re.escape(name_key.encode()))
    other = re.compile(rb"\b(?:%s)\b" % b"|".join(re.escape(k.encode()) for k in sorted(others)))
    res = project.resolver()
    found, budget = [], MAX_SHAPED_BYTES
    for file in sorted(project.wrapping.modules, key=lambda f: -len(commonpath([f.path, near]))):
        if (folder and not file.path.startswith(folder + "/")) or in_tests(file.path) or \
                written.search(file.data) is None or other.search(file.data) is None:
            continue
        budget -= len(file.data)
        if budget < 0:
            break
        for node in captures(file, _NAMED_OBJECTS).get("object", []):  # objects with a key of some name
            ref = Ref(file, node)
            present = {key for key, _, _ in entries(ref, res.consts) if key is not None}
            tool_like = present & others and present & _TOOL_FIELDS  # not any {name, description}
            if name_key in present and tool_like and res.string(res.get(ref, name_key)) is not None:
                found.append(ref)
    return found
