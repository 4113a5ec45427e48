"""Conditional registrations: a tool registered only when the server's configuration says so.

In: a tree's kept files (``Tree``) and each detected ``Tool`` with the file it was found in. Out:
the tool with ``conditional`` true and ``condition`` the condition's text when its registration
sits in a branch (``if``, ``unless``, ternary, ``&&`` guard, switch arm) or after an early exit
whose condition reads an environment variable, a command-line flag, a settings field, a toolset or
enabled list, or a read-only / write mode; such a tool may legitimately be missing from a running
server's ``tools/list``.

``walk`` goes up the file's syntax tree from the tool's line (through callbacks; a named function
or a declared tool object counts when every use of its name in the file is under such a condition,
``uses``; a wrapper when every registration call in it is, ``wrappers``), ``branches`` reads each
construct's condition and ``exits`` the early exits, ``reading`` says whether a condition reads
configuration, ``grammar`` holds each language's node types and ``scopes`` what the walk knows of
functions, declarations and classes. A plain ``if`` on anything else (``x === undefined``, a local
value, ``__name__``), a ``try`` block or a loop is no condition: a tool wrongly called conditional is
worse than a conditional one missed.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import replace

from pipeline.scan.detect.conditions.branches import Guard
from pipeline.scan.detect.conditions.grammar import GRAMMARS, Grammar
from pipeline.scan.detect.conditions.loops import always_kept
from pipeline.scan.detect.conditions.scopes import words
from pipeline.scan.detect.conditions.uses import common_guard
from pipeline.scan.detect.conditions.walk import FileConditions
from pipeline.scan.detect.model import Tool
from pipeline.scan.detect.source import SourceFile, language_of

__all__ = ["Tree"]

#: what reading a syntax tree we did not expect may raise (``Detector._guarded`` catches the same)
_FAILURES = (RecursionError, ValueError, LookupError, TypeError, AttributeError, UnicodeError)


class Tree:
    """The kept files of one tree, by path: each tool's condition is read in the file it is placed
    in, a wrapper's in the file that defines it (the tool's own, else the first other file of its
    language that does)."""

    def __init__(self, files: Mapping[str, SourceFile]) -> None:
        self._files = files
        self._wrappers: dict[tuple[str, str], Guard | None] = {}
        self._callers: dict[tuple[str, str], Guard | None] = {}
        self._joined: dict[str, tuple[bytes, list[int], list[SourceFile]]] = {}

    def marked(self, tool: Tool, found_in: SourceFile) -> Tool:
        """``tool`` (found in ``found_in``) with ``conditional`` and ``condition`` set; a tool in a
        file of a language with no grammar here is left as it is."""
        own = found_in if tool.path == found_in.path else self._files.get(tool.path)
        language = language_of(own.path) if own is not None else None
        if own is None or language not in GRAMMARS:
            return tool
        try:
            guard = _conditions(own, GRAMMARS[language]).at_line(tool.line)
            site = self._files.get(tool.site[0]) if tool.site is not None else None
            if guard is None and site is not None and tool.site is not None:  # a loop's registration
                guard = _conditions(site, GRAMMARS[language]).at_line(tool.site[1])
                if guard is not None and always_kept(guard.text, _element(own, tool.line)):
                    return tool
            if guard is None and tool.via.startswith("wrapper:"):
                guard = self._wrapper(tool.via.removeprefix("wrapper:"), own, language)
            if guard is None:  # registered in a function other files call, each time under a condition
                guard = self._called_elsewhere(own, tool.site[1] if site is own and tool.site else tool.line, language)
        except _FAILURES:  # as Detector._guarded: a file we cannot read leaves the tool unconditional
            return tool
        return tool if guard is None else replace(tool, conditional=True, condition=guard.text)

    def _called_elsewhere(self, own: SourceFile, line: int, language: str) -> Guard | None:
        """The condition every call of the function holding line ``line`` sits under, when it is
        called from other files only (``if (env.SLACK_TOKEN) registerSlack(server)``)."""
        grammar = GRAMMARS[language]
        name = _conditions(own, grammar).holder(line)
        if name is None or len(name) < 4:
            return None  # a short name is too common to follow
        key = (own.path, name)
        if key not in self._callers:
            self._callers[key] = self._calls_guard(own, name, language)
        return self._callers[key]

    def _calls_guard(self, own: SourceFile, name: str, language: str) -> Guard | None:
        grammar = GRAMMARS[language]
        if _conditions(own, grammar).call_paths(name) != []:
            return None  # used in its own file (under no condition, or read there by ``uses``)
        paths: list[list[Guard]] = []
        for file in self._holding(language, name):
            if file is own:
                continue
            found = _conditions(file, grammar).call_paths(name)
            if found is None:
                return None
            paths += found
        return common_guard(paths)

    def _holding(self, language: str, name: str) -> list[SourceFile]:
        """The files of ``language`` whose text holds the word ``name``: one search of all their
        text joined (a loop over thousands of files for each name cost more than the marking)."""
        if language not in self._joined:
            files = [f for f in self._files.values() if language_of(f.path) == language]
            starts, at = [], 0
            for file in files:
                starts.append(at)
                at += len(file.data) + 1
            self._joined[language] = (b"\0".join(f.data for f in files), starts, files)
        joined, starts, files = self._joined[language]
        holding = {bisect_right(starts, at) - 1 for at in words(joined, name)}
        return [files[i] for i in sorted(holding)]

    def _wrapper(self, name: str, own: SourceFile, language: str) -> Guard | None:
        short = name.replace("::", ".").rsplit(".", 1)[-1]
        defined, guard = _conditions(own, GRAMMARS[language]).wrapper(short)
        if defined:
            return guard
        key = (language, short)
        if key not in self._wrappers:
            self._wrappers[key] = None
            needle, defines = short.encode(), _defining(short)
            for file in self._files.values():
                if file is own or needle not in file.data or language_of(file.path) != language \
                        or not defines.search(file.data):
                    continue
                defined, guard = _conditions(file, GRAMMARS[language]).wrapper(short)
                if defined:
                    self._wrappers[key] = guard
                    break
        return self._wrappers[key]


def _defining(name: str) -> re.Pattern[bytes]:
    """What a file defining a function ``name`` holds, in any of the languages (looked for before
    the file is parsed): ``def name``, ``function name``, ``func (r *R) name``, ``name = (...) =>``, a
    method ``name(...) {``."""
    word = re.escape(name.encode())
    return re.compile(rb"\b(?:def|function|func|fun|fn)\s*(?:\([^)]*\)\s*)?\*?\s*" + word + rb"\b"
                      rb"|\b" + word + rb"\s*(?::[^=\n]*)?=\s*(?:async\s*)?(?:\(|function\b|lambda\b|func\b|\w+\s*=>)"
                      rb"|^[ \t]*(?:(?:public|private|protected|static|async|override)\s+)*" + word
                      + rb"\s*(?:<[^>\n]*>)?\([^)\n]*\)[^{\n]*\{", re.MULTILINE)


def _conditions(file: SourceFile, grammar: Grammar) -> FileConditions:
    return file.kept("conditions", lambda: FileConditions(file.data, file.tree.root_node, grammar))


def _element(file: SourceFile, line: int) -> str:
    """The text of the list element a row is placed at (line ``line``): the outermost node that
    starts on that line."""
    row = line - 1
    lines = file.data.split(b"\n")
    if not 0 <= row < len(lines):
        return ""
    start = len(lines[row]) - len(lines[row].lstrip())
    node = file.tree.root_node.descendant_for_point_range((row, start), (row, start))
    while node is not None and node.parent is not None and node.parent.start_point == node.start_point:
        node = node.parent
    if node is None or node.type not in _ELEMENTS:  # several elements on one line: none told apart
        return ""
    return (node.text or b"").decode("utf-8", "replace")


#: the nodes a list element is written as
_ELEMENTS = frozenset({"object", "dictionary", "tuple", "array", "list", "call_expression", "call",
                       "composite_literal", "pair"})
