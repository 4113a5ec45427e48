"""Cheap answers about one imported name, before an expression naming it is compiled.

``imports_name`` and a default import's specifier (``default_import``) are read with an expression
built around the name (0.3 ms to compile, once per name and process). Most questions are settled
without it by a few expressions compiled once: a name listed in an ``import { ... } from`` (or a
default import, or a ``require``) is imported (``imported_plainly``); a name that no ``import`` is
followed by cannot be a default import (``may_import_default``). Anything else is left to the
expression, so every answer is the expression's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

#: ``import [type] [X,] { ... } from``: the braces' text (``\bimport`` written with the literal
#: first, which a fast scan finds)
_NAMED = re.compile(rb"import(?<=\bimport)\s+(?:type\s+)?(?:[\w$]+\s*,\s*)?\{([^{}]*)\}\s*from\b")
#: ``import [type] X,`` / ``import [type] X from``: the name
_DEFAULT = re.compile(rb"import(?<=\bimport)\s+(?:type\s+)?([\w$]+)\s*(?:,|from\b)")
#: ``const { ... } = require(`` / ``const X = require(``: the braces' text, or the name
_REQUIRED = re.compile(rb"\b(?:const|let|var)\s+(?:\{([^{}]*)\}|([\w$]+))\s*=\s*require\s*\(")
#: ``import NAME from "spec"`` (``%s``: the name), with or without named imports after it
DEFAULT_IMPORT = rb"\bimport\s+%s\s*(?:,\s*\{[^{}]*\}\s*)?from\s*[\"']([^\"']+)[\"']"
#: ``import X``: the word after it, where a default import's name starts
_AFTER_IMPORT = re.compile(rb"import(?<=\bimport)\s+([\w$]+)")
_WORD = re.compile(rb"[\w$]+")


def imported_plainly(data: bytes, word: bytes) -> bool:
    """Whether ``data`` imports ``word`` in a way every form of ``imports_name`` accepts: listed as a
    whole word between the braces of a named import or ``require``, or a default import's name.
    ``False`` settles nothing: the full expression decides."""
    listed = (m.group(1) for m in _NAMED.finditer(data))
    if any(word in _WORD.findall(names) for names in listed):
        return True
    if any(m.group(1) == word for m in _DEFAULT.finditer(data)):
        return True
    return b"require" in data and any(
        m.group(2) == word or (m.group(1) is not None and word in _WORD.findall(m.group(1)))
        for m in _REQUIRED.finditer(data))


def default_import(data: bytes, word: bytes) -> str | None:
    """The specifier of the first ``import <word> from "spec"`` in ``data`` (``DEFAULT_IMPORT``), or
    ``None``; the expression for the name is compiled only where such an import may be."""
    if not may_import_default(data, word):
        return None
    found = re.search(DEFAULT_IMPORT % re.escape(word), data)
    return found.group(1).decode("utf-8", "replace") if found is not None else None


def may_import_default(data: bytes, word: bytes) -> bool:
    """Whether ``import\\s+<word>`` may occur in ``data`` (``False`` is certain): after some
    ``import`` and its spaces stands a word that ``word`` begins (``import foofrom "x"`` reads
    ``foo``). Every ``import`` is looked at, also one inside another's match."""
    if _WORD.fullmatch(word) is None:
        return True
    return any(after.startswith(word) for after in _words_after_import(data))


def _words_after_import(data: bytes) -> Iterator[bytes]:
    """The word after each ``import`` and its spaces, trying every ``import`` (overlapping ones too)."""
    found = _AFTER_IMPORT.search(data)
    while found is not None:
        yield found.group(1)
        found = _AFTER_IMPORT.search(data, found.start() + 1)
