"""Tools registered through a project's own registry: rule ``<language>.<sdk>.registrar-call``.

A project that implements MCP itself (its own framework in the tree, importing no SDK the language
detector reads) registers each tool with a method of its own whose first parameter is the tool's
name, and calls it with literal names::

    func (s *BaseMCPServer) AddMCPTool(name string, tool Tool) Server { ... }   // the registrar
    return server.AddMCPTool("maps_geo", &GeoRequest{}).AddMCPTool("maps_weather", &WeatherRequest{})

A registrar is a function or method defined in the tree, named ``add...Tool`` or ``register...Tool``
(any case), whose first parameter (after ``self``) is ``name``, ``toolName`` or ``tool_name``,
written as a definition: typed (``name string``, ``name: string``, ``String name``, ``name: &str``)
or after ``def``, ``fn``, ``func`` or ``function``. Each call of one with a literal string first is
a tool, at the call's line. Calls are read under the conditions of ``literals`` (a tree that answers
``tools/list`` or registers MCP tools, files no language detector found a tool in and holding no
literal), outside tests, of registrars defined outside tests; one named as an SDK's own method
(``addTool``, ``register_tool``) only in a language none of whose registrations a detector found.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from pipeline.scan.detect.literals import TOOL_NAME
from pipeline.scan.detect.model import Tool
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import WORD_BYTES, occurrences

_NAME = rb"(?P<fn>\b(?:[Aa]dd|[Rr]egister)\w*[Tt]ool)"
_FIRST = rb"\s*\(\s*(?:&?(?:mut\s+)?self\s*,\s*)?"
#: a typed first parameter: Go, TypeScript, Java/C#, Kotlin/Rust/Swift/Python annotations
_TYPED = re.compile(_NAME + rb"\s*(?:<[^()\n]{0,100}>)?" + _FIRST +
                    rb"(?:(?:final\s+)?[Ss]tring\s+(?:name|toolName|tool_name)\b"
                    rb"|(?:name|toolName|tool_name)\s*(?:\??:\s*&?(?:'\w+\s+)?(?:str|String|string)\b|\s+string\b))")
#: an untyped one, after a definition keyword
_KEYWORD = re.compile(rb"\b(?:def|fn|func|function)\s+(?:\([^)\n]*\)\s*)?" + _NAME + _FIRST
                      + rb"(?:name|toolName|tool_name)\b")
_SDK_NAMES = frozenset({"addtool", "registertool"})
_CALLED = tuple(f"{t}ool({q}".encode() for t in "Tt" for q in "\"'`")
#: what follows a parameter list up to its body or its end: a return type, ``throws``, then one of these
_AFTER = re.compile(rb"[^{};\n]*?(?P<end>\{|;|\}|=>|:\s*$|:\s*#)", re.MULTILINE)
#: a call with a literal string first, after the registrar's name
_LITERAL_FIRST = rb"\s*\(\s*(?P<q>[\"'`])(?P<text>[^\"'`\\\n$]{1,128})(?P=q)"


def called(files: Iterable[SourceFile]) -> bool:
    """Whether one of ``files`` may call a registrar with a literal name (``...Tool("`` or ``...tool('``):
    only then are the tree's registrars looked for."""
    return any(any(call in file.data for call in _CALLED) for file in files)


def registrars(files: Iterable[SourceFile]) -> set[str]:
    """The names of the registrars ``files`` define."""
    found: set[str] = set()
    for file in files:
        for start in _candidates(file):  # the expressions are tried only where such a name is
            line = file.data.rfind(b"\n", 0, start) + 1
            match = _TYPED.match(file.data, start) or _KEYWORD.search(file.data, line, start + 300)
            if match is not None and match.start("fn") == start and _has_body(file.data, match):
                found.add(match["fn"].decode())
    return found


def _candidates(file: SourceFile) -> Iterator[int]:
    """Where a word ``add...tool`` / ``register...tool`` followed by ``(`` or ``<`` starts."""
    lower = file.lower
    for at in occurrences(lower, b"tool"):
        end = at + 4
        while end < len(lower) and lower[end] in b" \t":
            end += 1
        if end >= len(lower) or lower[end] not in b"(<" or (at + 4 < len(lower) and lower[at + 4] in WORD_BYTES):
            continue
        start = at
        while start > 0 and lower[start - 1] in WORD_BYTES:
            start -= 1
        if lower.startswith((b"add", b"register"), start):
            yield start


def _has_body(data: bytes, match: re.Match[bytes]) -> bool:
    """Whether the signature ``match`` starts is a definition: its parameter list is followed by a
    body (``{``, or Python's ``:``), not ``;`` or ``}`` (an interface's or a type literal's member)."""
    depth, at = 0, data.find(b"(", match.end("fn"))
    while 0 <= at < min(len(data), match.end() + 2000):
        depth += {40: 1, 41: -1}.get(data[at], 0)  # ( and )
        if depth == 0:
            after = _AFTER.match(data, at + 1)
            return after is not None and after["end"][:1] in (b"{", b":", b"=")
        at += 1
    return False


def distinct(made: set[str]) -> set[str]:
    """The registrars of ``made`` not named as an SDK's own method (``addTool``, ``register_tool``):
    where a language detector reads that language's registrations, a call of one of those on an
    object it did not take for a server is no tool."""
    return {name for name in made if name.lower().replace("_", "") not in _SDK_NAMES}


def calls(file: SourceFile, made: set[str], sdk: str, language: str) -> Iterator[Tool]:
    """The tools ``file`` registers by calling one of ``made`` with a literal name."""
    for name in sorted(made):
        if name.encode() not in file.data:
            continue
        for match in re.finditer(rb"(?<![\w$])" + re.escape(name.encode()) + _LITERAL_FIRST, file.data):
            text = match["text"].decode("utf-8", "replace")
            if TOOL_NAME.match(text):
                yield Tool(file.path, file.data.count(b"\n", 0, match.start()) + 1, sdk, text,
                           f"{language}.{sdk}.registrar-call", via=f"wrapper:{name}")
