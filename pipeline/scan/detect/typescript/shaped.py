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

from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.paths import in_tests
from pipeline.scan.detect.sdks import SDKS
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


class Shapes:
    """``shaped_objects`` for a registration's package, found once per (package, keys)."""

    def __init__(self, project: ProjectIndex, dependencies: Dependencies) -> None:
        self._project, self._dependencies = project, dependencies
        self._found: dict[tuple[str, str, frozenset[str]], list[Ref]] = {}

    def __call__(self, call: Ref, name_key: str, keys: frozenset[str]) -> list[Ref]:
        """The object literals a loop over a list it cannot follow registers: in the package that
        declares the SDK, outside tests, with a string at ``name_key`` and another key the loop
        reads (``{ name: "x", annotations: {...} }`` for ``server.tool(t.name, ..., t.annotations)``).
        A loop in a test iterates the test's own data: nothing is guessed for it."""
        if in_tests(call.file.path):
            return []
        found = self._dependencies.find(SDKS["ts-mcp"].packages, call.file.path)
        folder = found.directory if found is not None else ""
        key = (folder, name_key, keys)
        if key not in self._found:
            self._found[key] = shaped_objects(self._project, folder, call.file.path, name_key, keys)
        return self._found[key]


#: at most this much source is parsed to look for a list's elements by their shape
MAX_SHAPED_BYTES = 8 << 20
_NAMED_OBJECTS = "(object [(pair key: (property_identifier)) (shorthand_property_identifier)]) @object"
#: fields only a tool definition has among the objects of a project (CLI options, prompts and
#: settings have a name and a description too)
_TOOL_FIELDS = frozenset({"annotations", "inputSchema"})
def shaped_objects(project: ProjectIndex, folder: str, near: str, name_key: str, keys: frozenset[str]) -> list[Ref]:
    """Object literals of the files under ``folder`` (tests left out) with a string at
    ``name_key``, at least one more of ``keys``, and an ``annotations`` or ``inputSchema`` field,
    unless the constant holding one is typed as a prompt or a resource:
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
            if name_key in present and tool_like and res.string(res.get(ref, name_key)) is not None and \
                    not _typed_otherwise(ref):
                found.append(ref)
    return found


#: a type a declaration gives its object that says it is no tool (``const p: PromptDefinition = {...}``)
_OTHER_TYPES = re.compile(rb"prompt|resource", re.IGNORECASE)


def _typed_otherwise(ref: Ref) -> bool:
    """Whether the constant holding the object is typed as a prompt or a resource."""
    declarator = ref.node.parent
    typed = declarator.child_by_field_name("type") if declarator is not None and \
        declarator.type == "variable_declarator" else None
    return typed is not None and _OTHER_TYPES.search(typed.text or b"") is not None
