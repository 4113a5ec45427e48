"""Where a row the supplement reads stands among the tree's other rows and files: folders that
are one or hold each other (``related``), a name a language detector already gave nearby
(``named_nearby``), the unnamed rows a named one stands for (``stood_for``), the JSON files
code names (``referenced``), and trees that answer ``tools/list`` (``serves_list``)."""

from __future__ import annotations

from collections.abc import Iterable

from pipeline.scan.detect.model import Tool
from pipeline.scan.detect.source import SourceFile

#: a tree serving its own tool list names one of these (lower-cased)
SERVES_LIST = (b"tools/list", b"listtoolsrequestschema", b"list_tools", b"listtools")


def serves_list(files: Iterable[SourceFile]) -> bool:
    """Whether one of ``files`` answers ``tools/list`` (or names the SDK's handler for it)."""
    return any(any(marker in file.lower for marker in SERVES_LIST) for file in files)



def named_nearby(named: Iterable[tuple[str | None, str, str]], tool: Tool) -> bool:
    """Whether one of ``named`` ((tool name, folder, role)) has ``tool``'s name in its folder, a
    folder above it or one below it: a server's tool, or one of ``tool``'s own role (an example's
    tool of the same name hides no server's)."""
    folder = tool.path.rpartition("/")[0]
    return any(name == tool.tool_name and related(folder, other) and role in ("server", tool.role)
               for name, other, role in named)



def related(one: str, other: str) -> bool:
    """Whether two folders are one, or one holds the other ('' is the root and holds every folder)."""
    return one == other or not one or not other or one.startswith(other + "/") or other.startswith(one + "/")



def stood_for(unnamed: list[Tool], found: list[Tool]) -> set[int]:
    """The ``id`` of each row of ``unnamed`` that one of ``found`` stands for: an unnamed row of a
    related folder (``related``) and the same role, each used once."""
    replaced: set[int] = set()
    for tool in found:
        folder = tool.path.rpartition("/")[0]
        row = next((t for t in unnamed if id(t) not in replaced and t.role == tool.role
                    and related(folder, t.path.rpartition("/")[0])), None)
        if row is not None:
            replaced.add(id(row))
    return replaced



def referenced(file: SourceFile, files: Iterable[SourceFile]) -> bool:
    """Whether code of a related folder (``related``) names ``file`` (``//go:embed tools.json``,
    ``require("./tools.json")``): a JSON file's tools count only then, not a fixture, a recording or
    a catalogue of other servers' tools."""
    folder, _, base = file.path.rpartition("/")
    return any(base.encode() in other.data for other in files if not other.path.endswith(".json")
               and related(folder, other.path.rpartition("/")[0]))
