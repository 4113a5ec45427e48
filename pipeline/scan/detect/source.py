"""A source file handed to a language detector: its bytes, and its syntax tree on demand.

Trees come from tree-sitter with the per-language grammar wheels (they work offline; the
language pack downloads grammars at run time, which a census must not do). Parsers are
created once per process and language.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any, TypeVar

import tree_sitter

T = TypeVar("T")

#: extension -> (language, grammar module, function returning the language)
GRAMMARS: dict[str, tuple[str, str, str]] = {
    ".py": ("python", "tree_sitter_python", "language"),
    ".pyi": ("python", "tree_sitter_python", "language"),
    ".ts": ("typescript", "tree_sitter_typescript", "language_typescript"),
    ".mts": ("typescript", "tree_sitter_typescript", "language_typescript"),
    ".cts": ("typescript", "tree_sitter_typescript", "language_typescript"),
    ".tsx": ("typescript", "tree_sitter_typescript", "language_tsx"),
    ".js": ("typescript", "tree_sitter_javascript", "language"),
    ".mjs": ("typescript", "tree_sitter_javascript", "language"),
    ".cjs": ("typescript", "tree_sitter_javascript", "language"),
    ".jsx": ("typescript", "tree_sitter_javascript", "language"),
    ".go": ("go", "tree_sitter_go", "language"),
    ".rs": ("rust", "tree_sitter_rust", "language"),
    ".java": ("java", "tree_sitter_java", "language"),
    ".kt": ("kotlin", "tree_sitter_kotlin", "language"),
    ".kts": ("kotlin", "tree_sitter_kotlin", "language"),
    ".cs": ("csharp", "tree_sitter_c_sharp", "language"),
    ".php": ("php", "tree_sitter_php", "language_php"),
    ".rb": ("ruby", "tree_sitter_ruby", "language"),
    ".swift": ("swift", "tree_sitter_swift", "language"),
}


#: files of languages no detector parses, read only for protocol-shaped tool literals (``literals``);
#: JSON counts only where the tree's code names the file (``go:embed tools.json``, ``require``)
LITERAL_LANGUAGES = {
    ".hs": "haskell", ".lua": "lua", ".ex": "elixir", ".exs": "elixir", ".jl": "julia", ".pl": "perl",
    ".pm": "perl", ".r": "r", ".cr": "crystal", ".nim": "nim", ".dart": "dart", ".scala": "scala",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".zig": "zig", ".ml": "ocaml",
    ".groovy": "groovy", ".json": "json",
}


def literal_language(path: str) -> str | None:
    """The language of a file read only for tool literals (``LITERAL_LANGUAGES``), or ``None``."""
    return LITERAL_LANGUAGES.get(extension(path))


def extension(path: str) -> str:
    """The lower-cased extension of ``path`` ('' when it has none)."""
    name = path.rsplit("/", 1)[-1]
    return "." + name.rsplit(".", 1)[-1].lower() if "." in name.lstrip(".") else ""


def language_of(path: str) -> str | None:
    """The detector language for ``path``, or ``None`` when no detector reads it."""
    grammar = GRAMMARS.get(extension(path))
    return grammar[0] if grammar else None


@cache
def parser_for(module: str, function: str) -> tree_sitter.Parser:
    """One tree-sitter parser per grammar, created on first use."""
    grammar = getattr(importlib.import_module(module), function)()
    return tree_sitter.Parser(tree_sitter.Language(grammar))


@dataclass
class SourceFile:
    """One file of a tree, for a language detector."""

    path: str
    """path inside the tree."""
    data: bytes
    """the whole content."""
    present: frozenset[str] | None = None
    """the prefilter words the scan found in it, when it looked (see ``asked``)."""
    asked: frozenset[str] = frozenset()
    """the words the scan looked for (``Detector.prefilter_words``)."""
    _lower: bytes | None = field(default=None, repr=False)
    _tree: Any = field(default=None, repr=False)
    _kept: dict[str, Any] = field(default_factory=dict, repr=False)

    def has_any(self, words: Iterable[str]) -> bool:
        """Whether the file contains one of ``words`` (lower-case), ignoring ASCII case: a set
        look-up for words the scan already looked for, a byte search otherwise."""
        known = self.present
        for word in words:
            if known is not None and word in self.asked:
                if word in known:
                    return True
            elif word.encode() in self.lower:
                return True
        return False

    def held(self, words: Iterable[str]) -> tuple[str, ...]:
        """The ``words`` (lower-case) the file contains, ignoring ASCII case, in their order: what
        ``has_any`` says of each (a search of the file for a word it lacks reads all of it)."""
        return tuple(word for word in words if self.has_any((word,)))

    @property
    def lower(self) -> bytes:
        """The content with ASCII letters lower-cased (for cheap byte prefilters)."""
        if self._lower is None:
            self._lower = self.data.lower()
        return self._lower

    @property
    def tree(self) -> tree_sitter.Tree:
        """The syntax tree (parsed on first use; tree-sitter recovers from syntax errors)."""
        if self._tree is None:
            _, module, function = GRAMMARS[extension(self.path)]
            self._tree = parser_for(module, function).parse(self.data)
        tree: tree_sitter.Tree = self._tree
        return tree

    @property
    def parsed(self) -> bool:
        """Whether the syntax tree is in memory (parsed and not forgotten)."""
        return self._tree is not None

    def text(self, node: tree_sitter.Node | None) -> str:
        """The source text of ``node`` ('' for ``None``), undecodable bytes replaced."""
        if node is None:
            return ""
        return self.data[node.start_byte : node.end_byte].decode("utf-8", errors="replace")

    def line(self, node: tree_sitter.Node) -> int:
        """The 1-based line where ``node`` starts."""
        return node.start_point[0] + 1

    def kept(self, key: str, make: Callable[[], T]) -> T:
        """``make()``, computed once per ``key`` while the syntax tree is kept: a file read in
        both phases is queried once. What ``make`` returns is shared, so callers only read it."""
        if key not in self._kept:
            self._kept[key] = make()
        made: T = self._kept[key]
        return made

    def forget_tree(self) -> None:
        """Drop the syntax tree (and what ``kept`` derived from it) to free memory; it is parsed
        again if needed."""
        self._tree = None
        self._kept.clear()
