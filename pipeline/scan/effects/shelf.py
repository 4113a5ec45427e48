"""The tree's source files as the effects analysis reads them: every file of a language the
analysis follows, kept during the scan pass (``Shelf.add``), parsed only when a handler's
calls lead into it, and indexed by the names of the functions it defines."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pipeline.scan.detect.source import SourceFile, language_of
from pipeline.scan.detect.syntax import Node
from pipeline.scan.effects import declares
from pipeline.scan.effects.languages import SYNTAXES, function_name, nodes_of

#: a file larger than this is not kept (generated bundles, vendored SDKs)
MAX_SHELF_FILE_BYTES = 512 << 10
#: no more than this much source is kept for one tree
MAX_SHELF_BYTES = 96 << 20
#: folders whose files are never the project's own code
_FOREIGN = ("node_modules/", "vendor/", "dist/", "build/", ".venv/", "venv/", "site-packages/",
            "third_party/", "__pycache__/", ".next/", "coverage/", "out/")


def keeps(path: str, size_bytes: int) -> bool:
    """Whether the shelf keeps a file: a source file of a followed language, the project's own,
    not too large."""
    if size_bytes > MAX_SHELF_FILE_BYTES or language_of(path) not in SYNTAXES:
        return False
    lowered = "/" + path.lower()
    return not any("/" + folder in lowered for folder in _FOREIGN) and not path.endswith((".d.ts", ".min.js"))


@dataclass
class Shelf:
    """One tree's kept source files, by path, and their function definitions, by name."""

    files: dict[str, SourceFile] = field(default_factory=dict)
    """every kept file."""
    size_bytes: int = 0
    """the bytes kept."""
    _definitions: dict[str, dict[str, list[Node]]] = field(default_factory=dict)
    _by_name: dict[tuple[str, str, str], list[tuple[SourceFile, Node]]] = field(default_factory=dict)
    _names: dict[str, dict[str, set[str]]] = field(default_factory=dict)
    roots: set[str] = field(default_factory=set)
    """the folders that hold a package manifest: each package of a monorepo is searched on its own."""
    memo: dict[str, Any] = field(default_factory=dict)
    """what the finders compute once per tree (the one generic handler of a language)."""

    def add(self, path: str, data: bytes, file: SourceFile | None = None) -> None:
        """Keep one file (``file`` when the detector already holds it, to share its tree)."""
        if path in self.files or not keeps(path, len(data)) or self.size_bytes + len(data) > MAX_SHELF_BYTES:
            return
        self.files[path] = file if file is not None else SourceFile(path, data)
        self.size_bytes += len(data)

    def narrow(self, wanted: Callable[[str], bool]) -> None:
        """Keep only the files ``wanted`` says a server's handler may run (not its tests): what
        is set aside is neither indexed nor parsed."""
        self.files = {path: file for path, file in self.files.items() if wanted(path)}

    def share(self, file: SourceFile) -> None:
        """Hold the detector's own copy of a kept file, so that its syntax tree is parsed once."""
        if file.path in self.files:
            self.files[file.path] = file

    def package(self, path: str) -> str:
        """The folder of the package ``path`` belongs to: the deepest folder above it with a
        package manifest ('' for the tree's root)."""
        parts = path.split("/")[:-1]
        while parts and "/".join(parts) not in self.roots:
            parts.pop()
        return "/".join(parts)

    def in_package(self, path: str, root: str) -> bool:
        """Whether ``path`` lies in the package at ``root``."""
        return not root or path.startswith(root + "/")

    def get(self, path: str) -> SourceFile | None:
        """The kept file at ``path``."""
        return self.files.get(path)

    def definitions(self, file: SourceFile) -> dict[str, list[Node]]:
        """The named functions ``file`` defines (declarations, methods, functions bound to a name)."""
        if file.path not in self._definitions:
            found: dict[str, list[Node]] = defaultdict(list)
            for node in functions(file):
                if name := function_name(file, node):
                    found[name].append(node)
            self._definitions[file.path] = dict(found)
        return self._definitions[file.path]

    def named(self, name: str, language: str, only: str | None = None) -> list[tuple[SourceFile, Node]]:
        """Every function of ``language`` named ``name`` in the tree (in the file ``only``, when
        given): only the files whose text declares the name (``declares``) are parsed, on first ask."""
        key = (name, language, only or "")
        if key not in self._by_name:
            paths = [only] if only is not None else sorted(self.declaring(name, language))
            self._by_name[key] = [(self.files[path], node) for path in paths
                                  for node in self.definitions(self.files[path]).get(name, [])]
        return self._by_name[key]

    def declaring(self, name: str, language: str) -> set[str]:
        """The files of ``language`` whose text declares a function named ``name``."""
        return self._declared(language).get(name, set())

    def _declared(self, language: str) -> dict[str, set[str]]:
        """Name -> the files of ``language`` whose text declares a function of that name."""
        if language not in self._names:
            index: dict[str, set[str]] = defaultdict(set)
            for path, file in self.files.items():
                if language_of(path) == language:
                    for name in declares.names(language, file.data):
                        index[name].add(path)
            self._names[language] = dict(index)
        return self._names[language]


def functions(file: SourceFile) -> list[Node]:
    """Every function node of ``file``."""
    return nodes_of(file, SYNTAXES[language_of(file.path) or ""].functions, file.tree.root_node)
