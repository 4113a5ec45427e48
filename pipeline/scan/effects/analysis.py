"""One tree's tools -> their handlers and effects (the stage's entry, ``analyse``)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from pipeline.scan.detect.model import Tool
from pipeline.scan.detect.source import language_of
from pipeline.scan.effects import handlers, model
from pipeline.scan.effects.calls import HTTP_VERBS
from pipeline.scan.effects.follow import Follower
from pipeline.scan.effects.languages import SYNTAXES, parameters
from pipeline.scan.effects.model import Effect, Handler, ToolEffects
from pipeline.scan.effects.shelf import Shelf
from pipeline.scan.roles import SERVER, RoleRules


def analyse(tools: Iterable[Tool], shelf: Shelf, roles: RoleRules | None = None) -> tuple[ToolEffects, ...]:
    """The handler and effects of every MCP tool in ``tools`` whose file the shelf holds; a tool
    of a language the analysis does not follow gets a handler ``none`` with that reason. Only the
    files ``roles`` gives the server's role are read (a server's tests run none of its tools)."""
    rules = roles if roles is not None else RoleRules()
    shelf.narrow(lambda path: rules.of_path(path).role == SERVER)
    follower = Follower(shelf)
    found: list[ToolEffects] = []
    for tool in tools:
        if not tool.is_mcp or tool.role != "server":
            continue  # examples and tests are not what a client receives
        if language_of(tool.path) not in SYNTAXES:
            found.append(ToolEffects(tool.path, tool.line, tool.tool_name,
                                     Handler(None, None, "none", "language not followed"), ()))
            continue
        found.append(_one(tool, shelf, follower))
    return tuple(found)


def _one(tool: Tool, shelf: Shelf, follower: Follower) -> ToolEffects:
    try:
        handler, file, node = handlers.locate(shelf, tool.path, tool.line, tool.tool_name)
        if file is None or node is None:
            return ToolEffects(tool.path, tool.line, tool.tool_name, handler, ())
        syntax = SYNTAXES[language_of(file.path) or ""]  # the receiver and a context are no input
        inputs = frozenset(parameters(file, node)) - set(syntax.self_names) if node.type in syntax.functions \
            else frozenset()
        seeds = _name_verbs(tool.tool_name) if handler.kind == "generic" else ()
        effects, read = follower.effects(file, node, inputs, seeds)
    except (RecursionError, ValueError, LookupError, UnicodeError) as exc:
        reason = f"analysis failed: {type(exc).__name__}"
        return ToolEffects(tool.path, tool.line, tool.tool_name, Handler(None, None, "none", reason), ())
    unique: dict[tuple[str, str, int], Effect] = {}  # of one kind on one line: the nearest, then the shortest call
    for e in sorted(effects, key=lambda e: (e.depth, e.path, e.line, e.kind, len(e.call), e.call, e.rule)):
        unique.setdefault((e.kind, e.path, e.line), e)
    kept = tuple(sorted(unique.values(), key=lambda e: (e.path, e.line, e.kind)))
    return ToolEffects(tool.path, tool.line, tool.tool_name, handler,
                       kept or (Effect(model.NONE, handler.path or tool.path, handler.line or tool.line, "", "none"),),
                       read)


def _name_verbs(name: str | None) -> tuple[str, ...]:
    """The HTTP verbs a tool's name holds (``edubase_post_user``): a generic handler that builds its
    request from the name it runs under sends them."""
    words = [w.upper() for w in re.split(r"[^A-Za-z]+", name or "") if w]
    return tuple(w for w in words if w in HTTP_VERBS)
