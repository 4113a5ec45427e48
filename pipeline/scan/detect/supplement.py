"""What the language detectors leave over: tools written as protocol literals or made by a project's
definition factory, read after every language detector has run over a tree.

``supplement`` adds them to a tree's rows under the rules of ``literals`` and ``factories``: only
in a tree that registers MCP tools or answers ``tools/list`` itself, only in files no language
detector found a tool in or left out, never a name already found in the same project. A row with
no name of the same project (a list element the detector counted but could not name) stands for
one of them and is replaced, so no tool is counted twice. A factory's calls count only where such
a row shows the project registers definitions it cannot name, outside tests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from pipeline.scan.detect import factories, literals
from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.model import Tool
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.roles import RoleRules

#: gives a found tool its role and SDK version, as the detector gives its own rows
Place = Callable[[Tool, SourceFile], Tool]


def supplement(tools: list[Tool], files: dict[str, list[SourceFile]], left_out: Iterable[str], *,
               dependencies: Dependencies, roles: RoleRules, place: Place) -> list[Tool]:
    """``tools`` with the tree's protocol literals and factory calls (``files`` by language;
    ``left_out``: the paths the detectors left out)."""
    every = [file for group in files.values() for file in group]
    if not (any(t.is_mcp for t in tools) or literals.serves_list(every)):
        return tools
    seen = {t.path for t in tools} | set(left_out)
    named = [(t.tool_name, t.path.rpartition("/")[0]) for t in tools if t.is_mcp]
    unnamed = [t for t in tools if t.is_mcp and t.tool_name is None]
    made = factories.factories(f for f in every if not _test(roles, f.path)) if unnamed else {}
    unseen = [file for file in every if file.path not in seen]
    constants = literals.members(every) if any(literals.names_a_member(f) for f in unseen) else {}
    found: list[Tool] = []
    for language, group in sorted(files.items()):
        for file in (f for f in group if f.path not in seen):
            sdk = literals.sdk_of(language, file.path, dependencies)
            for tool in (*literals.literal_tools(file, language, dependencies, constants),
                         *_factory_calls(file, made, sdk, language, unnamed=unnamed, roles=roles)):
                if not literals.named_nearby(named, tool):
                    named.append((tool.tool_name, tool.path.rpartition("/")[0]))
                    found.append(place(tool, file))
    replaced = literals.stood_for(unnamed, found)
    return [t for t in tools if id(t) not in replaced] + found


def _factory_calls(file: SourceFile, made: dict[str, factories.Factory], sdk: str, language: str, *,
                   unnamed: list[Tool], roles: RoleRules) -> Iterator[Tool]:
    if not made or _test(roles, file.path):
        return
    folder = file.path.rpartition("/")[0]
    if any(literals.related(folder, t.path.rpartition("/")[0]) for t in unnamed):
        yield from factories.calls(file, made, sdk, language)


def _test(roles: RoleRules, path: str) -> bool:
    return roles.of_tool(path, 1, []).role == "test"
