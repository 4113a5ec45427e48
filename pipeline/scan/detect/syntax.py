"""Small helpers over tree-sitter nodes that every language detector needs."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from functools import cache
from operator import attrgetter

import tree_sitter

from pipeline.scan.detect.model import DYNAMIC, FALSE, TRUE
from pipeline.scan.detect.source import SourceFile, parser_for

Node = tree_sitter.Node


@cache
def compiled(module: str, function: str, source: str) -> tree_sitter.Query:
    """A query over the grammar ``module.function()``, compiled once per process (compiling
    costs milliseconds, more than running it on most files)."""
    language = parser_for(module, function).language
    assert language is not None
    return tree_sitter.Query(language, source)


def capture_map(query: tree_sitter.Query, node: Node) -> dict[str, list[Node]]:
    """Every capture of ``query`` below ``node``, by capture name, each list in source order (of two
    nodes that start together, the outer first: ``a().b()`` before ``a()``; the order never depends on
    where the nodes lie in memory, as a set's would)."""
    found = tree_sitter.QueryCursor(query).captures(node)
    return {name: sorted(sorted(dict.fromkeys(nodes), key=_END, reverse=True), key=_START)  # stable: two C sorts
            for name, nodes in found.items()}


_START, _END = attrgetter("start_byte"), attrgetter("end_byte")


#: the bytes ``re``'s ``\b`` counts as word characters (ASCII ``\w`` for bytes)
WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def occurrences(data: bytes, needle: bytes) -> Iterator[int]:
    """Every offset where ``needle`` starts in ``data``, overlapping ones included: the cheap
    prefilters look at a word's surroundings only where the word is."""
    at = data.find(needle)
    while at != -1:
        yield at
        at = data.find(needle, at + 1)


def enclosing(node: Node, types: Iterable[str]) -> Node | None:
    """The nearest node above ``node`` whose type is one of ``types`` (e.g. the function around it)."""
    wanted = frozenset(types)
    parent = node.parent
    while parent is not None and parent.type not in wanted:
        parent = parent.parent
    return parent


def walk(node: Node) -> Iterator[Node]:
    """``node`` and every node below it, depth first, in source order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def descendants(node: Node, types: Iterable[str]) -> Iterator[Node]:
    """Every node below (and including) ``node`` whose type is one of ``types``."""
    wanted = frozenset(types)
    return (n for n in walk(node) if n.type in wanted)


def named(node: Node) -> list[Node]:
    """The named children of ``node`` (comments included, punctuation left out)."""
    return [c for c in node.children if c.is_named]


def boolean(text: str) -> str:
    """``true`` / ``false`` for a boolean literal in any language's spelling, else ``dynamic``."""
    value = text.strip().removeprefix("!!").strip("() ")
    if value.lower() in ("true", "yes", ".t."):
        return TRUE
    if value.lower() in ("false", "no", ".f."):
        return FALSE
    return DYNAMIC


_PREFIXES = ("r", "b", "u", "f", "rb", "br", "fr", "rf", "@", "$", "@$", "$@")


def unquote(text: str) -> str | None:
    """The value of a plain string literal ('..', "..", `..`, triple-quoted, raw or verbatim),
    or ``None`` when ``text`` is not one (or interpolates: f-strings, `${}`, "#{}", "$x")."""
    body = text.strip()
    prefix = body[: len(body) - len(body.lstrip("rRbBuUfF@$"))]
    if prefix and prefix.lower() not in _PREFIXES:
        return None
    body = body[len(prefix) :]
    for quote in ('"""', "'''", '"', "'", "`"):
        if len(body) >= 2 * len(quote) and body.startswith(quote) and body.endswith(quote):
            inner = body[len(quote) : -len(quote)]
            if "f" in prefix.lower() or "$" in prefix or (quote == "`" and "${" in inner):
                return None
            if "r" in prefix.lower() or "@" in prefix or quote == "`":
                return inner
            return _unescape(inner, quote)
    return None


def _unescape(inner: str, quote: str) -> str:
    if "\\" not in inner:
        return inner
    try:
        value = ast.literal_eval(quote + inner + quote)
    except (ValueError, SyntaxError):
        return inner
    return value if isinstance(value, str) else inner


def upper_constant(files: Iterable[SourceFile], name: str, shape: bytes) -> str | None:
    """The value the files that name ``name`` give it as an upper-case constant: ``shape`` is the
    declaration's pattern, ``%s`` standing for the name and the value in its last group that
    matched. ``None`` for another kind of name, and where the files give none or several values."""
    if not name[:1].isupper() or not name.replace("_", "").isalnum():
        return None
    word = name.encode()
    pattern = re.compile(shape % word)
    values = {(m.group(m.lastindex or 0) or b"").decode("utf-8", "replace")
              for file in files if word in file.data for m in pattern.finditer(file.data)}
    return values.pop() if len(values) == 1 else None
