"""Go wrappers: project functions that define one tool from their parameters, and wrappers of those.

``index`` finds the first level (a function whose body holds one definition named by a
parameter). Once their readings are known, ``wrappers_of_wrappers`` finds functions whose body
makes one call of a wrapper with the tool's name taken from their own parameters (grafana's
``MustTool`` calling ``ConvertTool``, a test helper calling another): their reading is the inner
one with the call's arguments filled in, holes left where those are parameters again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Protocol

from pipeline.scan.detect.golang.read import Reading, fill
from pipeline.scan.detect.golang.scope import Scope
from pipeline.scan.detect.golang.syntax import Imports, Node, arguments, callee, captures
from pipeline.scan.detect.golang.units import Unit, enclosing_function, parameters
from pipeline.scan.detect.source import SourceFile

#: how many wrappers deep a definition is followed (a wrapper of a wrapper of ``mcp.NewTool``...)
MAX_WRAPPER_DEPTH = 3


@dataclass
class Wrapper:
    """A project function that defines one tool from its parameters."""

    name: str
    unit: Unit
    file: SourceFile
    imports: Imports
    params: dict[str, int]
    arity: int
    variadic: bool
    reading: Reading | None = None
    """the tool as the wrapper writes it, with holes for its parameters (set by ``finish``)."""
    options: int | None = None
    """the position of its ``...mcp.ToolOption`` parameter: each call's option helpers apply."""

    def accepts(self, count: int) -> bool:
        """Whether a call with ``count`` arguments fits the wrapper's signature."""
        return count >= self.arity - 1 if self.variadic else count == self.arity


class Project(Protocol):
    """What the search for wrappers of wrappers reads of ``index.Project`` (which imports this module)."""

    wrappers: dict[str, list[Wrapper]]
    owned: set[tuple[str, int]]

    def wrapper(self, path: str, operand: str | None, name: str, count: int) -> Wrapper | None:
        """The wrapper a call reaches (``golang_index.Project.wrapper``)."""

    def scope(self, file: SourceFile, imports: Imports, params: dict[str, int] | None = None,
              local: list[Node] | None = None) -> Scope:
        """A reading scope for ``file`` (``golang_index.Project.scope``)."""


def wrappers_of_wrappers(
    project: Project, file: SourceFile, imports: Imports, names: set[str], dropped: dict[str, SourceFile]
) -> list[str]:
    """The functions of ``file`` that call one of the wrappers ``names`` once, naming the tool by a parameter."""
    if not file.parsed:
        dropped[file.path] = file
    calls: dict[int, list[Node]] = {}
    for call in captures(file.tree.root_node, tuple(sorted(names))).get("call", []):
        function = enclosing_function(call)
        if function is not None and callee(file, call)[1] in names:
            calls.setdefault(function.start_byte, []).append(call)
    learnt = []
    for (call,) in (found for found in calls.values() if len(found) == 1):
        if (name := _wrapper_of(project, file, imports, call)) is not None:
            learnt.append(name)
    return learnt


def _wrapper_of(project: Project, file: SourceFile, imports: Imports, call: Node) -> str | None:
    """The function around ``call`` as a wrapper of the wrapper it calls, when the tool's name
    comes from its parameters; its name (``None`` when it is not one, or is known already)."""
    function = enclosing_function(call)
    package, called = callee(file, call)
    args = arguments(call)
    inner = project.wrapper(file.path, package, called, len(args))
    if function is None or inner is None or inner.reading is None or \
            (inner.file is file and inner.unit.node.start_byte >= function.start_byte and
             inner.unit.node.end_byte <= function.end_byte):
        return None
    params, arity, variadic = parameters(project.scope(file, imports), function)
    reading = fill(inner.reading, project.scope(file, imports, params), args, inner.options)
    name = file.text(function.child_by_field_name("name"))
    if "name" not in dict(reading.holes) or any(w.file is file and w.unit is inner.unit and w.name == name
                                                for w in project.wrappers.get(name, [])):
        return None
    options = _forwarded_options(file, args, inner.options, params)
    found = Wrapper(name, inner.unit, file, imports, params, arity, variadic, reading, options)
    project.wrappers.setdefault(name, []).append(found)
    project.owned.add((file.path, call.start_byte))
    return name


def _forwarded_options(file: SourceFile, args: list[Node], inner: int | None, params: dict[str, int]) -> int | None:
    """The position of the caller's own options parameter when it passes it on (``options...``)
    where the wrapper it calls takes its options."""
    spread = args[inner] if inner is not None and inner < len(args) else None
    if spread is None or spread.type != "variadic_argument" or not spread.named_children:
        return None
    return params.get(file.text(spread.named_children[0]))


@cache
def call_of(name: bytes) -> re.Pattern[bytes]:
    """A call of ``name`` (lower-cased bytes), generic or not: ``name(`` or ``name[``."""
    return re.compile(re.escape(name) + rb"\s*[\[(]")
