"""What the language detectors leave over: tools written as protocol literals or made by a project's
definition factory, read after every language detector has run over a tree.

``supplement`` adds them, and the calls of a project's own registrar (``registrars``), to a tree's
rows under the rules of ``literals``, ``factories`` and ``registrars``: only
in a tree that registers MCP tools or answers ``tools/list`` itself, only in files no language
detector found a tool in or left out, never a name already found in the same project. A row with
no name of the same project (a list element the detector counted but could not name) stands for
one of them and is replaced, so no tool is counted twice. A factory's calls count only where such
a row shows the project registers definitions it cannot name (an unnamed row, or the guessed
elements of a list it could not follow, ``-shaped``), outside tests. A tool already found of the
same name in a related folder hides a new one when it is a server's or of the new one's role.
In a tree with no tool and no ``tools/list`` answer, the names a ``tools/call`` handler answers
are its tools (``unlisted``: a server that lists none).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pipeline.scan.detect import converted, factories, literals, nearby, registrars, unlisted
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
    if not (any(t.is_mcp for t in tools) or nearby.serves_list(every)):
        return tools + [place(tool, file) for language, group in sorted(files.items()) for file in group
                        for tool in unlisted.unlisted_tools(file, language, dependencies)]
    seen = {t.path for t in tools} | set(left_out)
    named = [(t.tool_name, t.path.rpartition("/")[0], t.role) for t in tools if t.is_mcp]
    unnamed = [t for t in tools if t.is_mcp and t.tool_name is None]
    unfollowed = [*unnamed, *(t for t in tools if t.is_mcp and t.rule.endswith("-shaped"))]
    unseen = [file for file in every if file.path not in seen]
    with_rows = {t.path for t in tools if t.is_mcp}
    tree = _Tree(
        dependencies, roles,
        constants=literals.members(every) if any(literals.names_a_member(f) for f in unseen) else {},
        registering=frozenset(language for language, group in files.items() if any(f.path in with_rows for f in group)),
        made=factories.factories(f for f in every if not _test(roles, f.path)) if unfollowed else {},
        unfollowed=unfollowed,
        own=registrars.registrars(f for f in every if not _test(roles, f.path)) if registrars.called(unseen) else set(),
        converters=converted.converters(every))
    found: list[Tool] = []
    for language, group in sorted(files.items()):
        for file in (f for f in group if f.path not in seen and (language != "json" or nearby.referenced(f, every))):
            for tool in tree.tools(file, language):
                placed = place(tool, file)
                if not nearby.named_nearby(named, placed):
                    named.append((placed.tool_name, placed.path.rpartition("/")[0], placed.role))
                    found.append(placed)
    replaced = nearby.stood_for(unnamed, found)
    return [t for t in tools if id(t) not in replaced] + found


@dataclass(frozen=True)
class _Tree:
    """What one tree's supplement reads each unseen file with."""

    dependencies: Dependencies
    roles: RoleRules
    constants: dict[bytes, bytes]
    """``Enum.MEMBER`` -> string (``literals.members``)."""
    registering: frozenset[str]
    """languages in which a language detector found a registration."""
    made: dict[str, factories.Factory]
    unfollowed: list[Tool]
    """rows of registrations the detector could not name (unnamed, or guessed ``-shaped``)."""
    own: set[str]
    """the project's registrars (``registrars``)."""
    converters: tuple[str, ...] = ()
    """the files that convert Anthropic-format definitions to the protocol's (``converted.converters``)."""

    def tools(self, file: SourceFile, language: str) -> list[Tool]:
        """The literals, factory calls and registrar calls of ``file``; a file holding literals or
        factory calls is read for no registrar's (one there is no MCP one: ``registerGlobalTool('x', fn)``
        beside the tools its literals list)."""
        sdk = literals.sdk_of(language, file.path, self.dependencies)
        snake = bool(self.converters) and converted.same_package(language, file.path, self.converters,
                                                                 self.dependencies)
        found = list(literals.literal_tools(file, language, self.dependencies, self.constants,
                                            schemaless=language not in self.registering, snake=snake))
        if _test(self.roles, file.path):
            return found
        folder = file.path.rpartition("/")[0]
        if self.made and any(nearby.related(folder, t.path.rpartition("/")[0]) for t in self.unfollowed):
            found += factories.calls(file, self.made, sdk, language)
        own = self.own if language not in self.registering else registrars.distinct(self.own)
        return found or list(registrars.calls(file, own, sdk, language)) if own else found


def _test(roles: RoleRules, path: str) -> bool:
    return roles.of_tool(path, 1, []).role == "test"
