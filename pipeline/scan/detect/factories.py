"""Tools made by a project's own definition factory: rule ``<language>.<sdk>.factory-call``.

A project may build each tool's definition with a function of its own and register the results
in a loop the language detector cannot name (one unnamed row per loop)::

    export const defineTool = (name: string, description: string, schema: Shape, handler: Cb) =>
      () => ({ name: name, description, schema, handler });          // the factory
    const CreateContact = defineTool("create-contact", "...", {...}, async () => {...});   // a tool
    def make_tool(name, description, handler): return {"name": name, "inputSchema": ..., ...}

A factory is a function (``function F(...)``, ``const F = (...) =>``, ``def F(...)``) whose body,
up to the next top-level definition, sets a ``name`` key from one of its parameters and holds a
schema key (``inputSchema``, ``schema``, ``parameters``, ``input_schema``, ``args``). Each call of a
factory whose argument at that parameter's position is a literal string is one tool, at the call's
line. Calls are read under the conditions of ``literals`` (files no language detector found a tool
in), and only where the language detector counted a registration it could not name in the same
project (an unnamed row, which a call replaces), outside tests, of factories defined outside tests.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from pipeline.scan.detect.literals import TOOL_NAME
from pipeline.scan.detect.model import Tool
from pipeline.scan.detect.source import SourceFile

#: a function definition and its parameter list
_DEFINITION = re.compile(
    rb"^[ \t]*(?:export\s+)?(?:(?:const|let|var)\s+(?P<arrow>\w+)\s*(?::[^=\n]*)?=\s*(?:async\s*)?(?:<[^>\n]*>\s*)?"
    rb"\((?P<aparams>[^)]*)\)|(?:async\s+)?(?:function\s*\*?|def)\s+(?P<fn>\w+)\s*(?:<[^>\n]*>)?\s*\((?P<fparams>[^)]*)\))",
    re.MULTILINE)
#: where a factory's body ends: the next definition at the start of a line
_NEXT_TOP = re.compile(rb"^(?:export\s+|async\s+)?(?:const|let|var|function|def|class)\b", re.MULTILINE)
_SCHEMA_WORDS = (b"schema", b"parameters", b"args")
_SCHEMA_KEY = re.compile(rb"[\"']?\b(?:inputSchema|schema|parameters|input_schema|args)[\"']?\s*[:=,}]")
#: ``name: param`` (not ``name: param.x`` or ``name: param()``), and the shorthand ``{ name }``
_NAME_FROM = re.compile(rb"[\"']?\bname[\"']?\s*:\s*([A-Za-z_$][\w$]*)\b(?!\s*[.(\[])")
_SHORTHAND = re.compile(rb"[{,]\s*name\s*[,}]")
#: ``name: config.name``: the name is a field of the object the factory is given
_NAME_FIELD = re.compile(rb"[\"']?\bname[\"']?\s*:\s*([A-Za-z_$][\w$]*)\.name\b(?!\s*[.(\[])")
#: a ``name`` key with a literal string in an object literal a factory is called with
_OBJECT_NAME = re.compile(rb"(?<![\w$.])[\"']?name[\"']?\s*:\s*(?P<q>[\"'`])(?P<text>[^\"'`\\\n$]{1,128})(?P=q)")
_STRING_ARG = re.compile(rb"\s*(?P<q>[\"'`])(?P<text>[^\"'`\\\n$]{1,128})(?P=q)\s*$")
#: most bytes of a factory's body that are read
_BODY_BYTES = 4000


@dataclass(frozen=True)
class Factory:
    """A project function that makes a tool definition from its ``position``-th argument."""

    name: str
    position: int
    field: bool = False
    """whether the name is that argument's ``name`` (``name: config.name``; the call passes an object)."""


def factories(files: Iterable[SourceFile]) -> dict[str, Factory]:
    """Every definition factory of ``files`` by name (of a name defined twice, the last one read)."""
    found: dict[str, Factory] = {}
    for file in files:
        if b"name" not in file.data or not any(word in file.lower for word in _SCHEMA_WORDS):
            continue
        for match in _DEFINITION.finditer(file.data):
            name = (match["arrow"] or match["fn"] or b"").decode()
            params = _names(match["aparams"] if match["aparams"] is not None else match["fparams"] or b"")
            rest = file.data[match.end():match.end() + _BODY_BYTES]
            end = _NEXT_TOP.search(rest)
            body = rest[:end.start()] if end is not None else rest
            position, field = _name_position(body, params)
            if position is not None and _SCHEMA_KEY.search(body) is not None:
                found[name] = Factory(name, position, field)
    return found


def calls(file: SourceFile, made: dict[str, Factory], sdk: str, language: str) -> Iterator[Tool]:
    """The tools ``file`` makes by calling one of ``made`` with a literal name."""
    for name, factory in made.items():
        called = rb"(?<![\w$.])" + re.escape(name.encode()) + rb"\s*(?:<[^()\n]{0,200}?>\s*)?\("  # F<T>( too
        for match in re.finditer(called, file.data):
            before = file.data[file.data.rfind(b"\n", 0, match.start()) + 1:match.start()]
            if re.search(rb"(?:function\s*\*?|def)\s+$", before):
                continue  # the factory's own definition
            args = _arguments(file.data, match.end())
            given = args[factory.position] if len(args) > factory.position else b""
            literal = _object_name(given) if factory.field else _STRING_ARG.match(given)
            if literal is not None and TOOL_NAME.match(literal["text"].decode("utf-8", "replace")):
                yield Tool(file.path, file.data.count(b"\n", 0, match.start()) + 1, sdk,
                           literal["text"].decode("utf-8", "replace"), f"{language}.{sdk}.factory-call",
                           via=f"wrapper:{name}")


def _names(params: bytes) -> list[bytes]:
    """Parameter names of a parameter list (types, defaults and destructuring dropped)."""
    names = []
    for part in _split(params):
        found = re.match(rb"\s*(?:\.\.\.)?\*{0,2}(\w+)", part)
        names.append(found.group(1) if found else b"")
    return names


def _name_position(body: bytes, params: list[bytes]) -> tuple[int | None, bool]:
    """The position of the parameter the body's ``name`` key is set from (``name: p``, or ``{ name }``),
    and whether it is that parameter's ``name`` (``name: config.name``)."""
    given = set(_NAME_FROM.findall(body))
    if b"name" in params and _SHORTHAND.search(body) is not None:
        given.add(b"name")
    direct = next((index for index, param in enumerate(params) if param and param in given), None)
    if direct is not None:
        return direct, False
    fields = set(_NAME_FIELD.findall(body))
    return next((index for index, param in enumerate(params) if param and param in fields), None), True


def _object_name(argument: bytes) -> re.Match[bytes] | None:
    """The literal ``name`` key of an object literal argument (``{ name: "x", ... }``), at its top level."""
    body = argument.strip()
    if not body.startswith(b"{"):
        return None
    for found in _OBJECT_NAME.finditer(body):
        before = body[:found.start()]
        if before.count(b"{") - before.count(b"}") == 1 and before.count(b"[") == before.count(b"]"):
            return found
    return None


def _arguments(data: bytes, start: int) -> list[bytes]:
    """The top-level arguments of the call whose ``(`` ends just before ``start``."""
    depth, quote, args, begin = 0, 0, [], start
    for at in range(start, min(len(data), start + 20000)):
        char = data[at]
        if quote:
            if char == quote and data[at - 1] != 0x5C:
                quote = 0
        elif char in b"\"'`":
            quote = char
        elif char in b"([{":
            depth += 1
        elif char in b")]}":
            if depth == 0:
                args.append(data[begin:at])
                return args
            depth -= 1
        elif char == 0x2C and depth == 0:
            args.append(data[begin:at])
            begin = at + 1
    return args


def _split(params: bytes) -> list[bytes]:
    return _arguments(params + b")", 0)
