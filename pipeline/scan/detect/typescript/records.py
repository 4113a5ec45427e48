"""Tool definitions kept in records keyed by the tool's name, listed by a handler that cannot be followed.

A ``tools/list`` handler may build its list from a record, ``Object.entries(tools).map(([name,
{ description, annotations }]) => ({ name, description, annotations }))``, where the record is
assembled at run time or passed in as an option (supabase-mcp's ``@supabase/mcp-utils`` server
lists what ``Object.assign(tools, getStorageTools(...))`` gathered, in another package). The
definitions are then guessed by their shape, anywhere in the tree outside tests: a member of an
object literal whose value is an object literal with ``annotations`` and a field only a tool
definition has (``description``, ``parameters``, ``inputSchema``, ``execute``, ``handler``), named
by its key. The rows say so (form ``list-tools-shaped``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pipeline.scan.detect.paths import in_tests
from pipeline.scan.detect.typescript.resolver import Resolver
from pipeline.scan.detect.typescript.values import Ref, entries
from pipeline.scan.detect.typescript.wrappers import captures

if TYPE_CHECKING:
    from pipeline.scan.detect.typescript.index import ProjectIndex

#: ``Object.entries(x).map(([name, ...]) =>`` / ``.map(async ([name, ...]) =>``: a record's keys become names
_ENTRIES_MAP = re.compile(
    rb"Object\.entries\([^()]*(?:\([^()]*\)[^()]*)*\)\s*\.map\(\s*(?:async\s*)?\(\s*\[\s*[A-Za-z_$]")
#: fields a tool definition has besides its annotations (a settings object has none of them)
_DEFINITION_FIELDS = frozenset({"description", "parameters", "inputSchema", "execute", "handler"})
#: at most this much source is parsed to look for records
MAX_RECORD_BYTES = 8 << 20
_OBJECTS = "(object (pair key: [(property_identifier) (string)] value: (object))) @object"


def lists_record(call: Ref) -> bool:
    """Whether a ``tools/list`` handler call builds its list from a record's entries, named by their keys."""
    return _ENTRIES_MAP.search(call.file.data, call.node.start_byte, call.node.end_byte) is not None


def record_definitions(project: ProjectIndex, res: Resolver) -> list[tuple[Ref, str]]:
    """Every (definition object, key) of the tree's records of tool definitions, tests left out."""
    found: list[tuple[Ref, str]] = []
    budget = MAX_RECORD_BYTES
    for file in project.wrapping.modules:
        if in_tests(file.path) or b"annotations" not in file.data:
            continue
        budget -= len(file.data)
        if budget < 0:
            break
        for node in captures(file, _OBJECTS).get("object", []):
            found += [(value, key) for key, value, _ in entries(Ref(file, node), res.consts)
                      if key is not None and value.node.type == "object" and _definition(value, res)]
    return found


def _definition(value: Ref, res: Resolver) -> bool:
    keys = {key for key, _, _ in entries(value, res.consts) if key is not None}
    return "annotations" in keys and not keys.isdisjoint(_DEFINITION_FIELDS)
