"""Files the detector leaves out by where they sit, and the byte markers that make a
left-out file worth recording (so nothing is excluded silently)."""

from __future__ import annotations

import functools

from pipeline.scan.detect.source import SourceFile, extension, language_of
from pipeline.scan.roles import TEST, classify

#: folders that hold other projects' code (an SDK's own sources, dependencies)
VENDORED = frozenset(
    {"node_modules", "vendor", "site-packages", "dist-packages", "bower_components", "third_party",
     "third-party", ".venv", "venv", "Pods", "Carthage", ".yarn", "jspm_packages"}
)
#: folders of documentation; their code blocks and snippets are not servers ... (``website`` is
#: not one: a hosting panel's ``operations/website/`` package holds its website tools)
DOCS_DIRS = frozenset({"docs", "doc", "documentation"})
#: ... unless they sit in a source folder: ``src/tools/docs/search-docs.ts`` is a docs-search tool
SOURCE_DIRS = frozenset({"src", "lib", "pkg", "internal", "cmd", "app"})
DOCS_EXTENSIONS = frozenset({".md", ".mdx", ".rst", ".adoc", ".txt", ".ipynb", ".html"})
#: compiled JavaScript next to its TypeScript source would count every tool twice
BUILD_DIRS = frozenset({"dist", "build", "out", ".next", "target"})
TYPE_DEFINITIONS = (".d.ts", ".d.mts", ".d.cts", ".pyi")
GENERATED = (".min.js", ".bundle.js")

#: lower-cased bytes that make a file relevant to the detector (hint spellings, SDK names)
MARKERS = (
    b"readonlyhint", b"read_only_hint", b"destructivehint", b"destructive_hint",
    b"idempotenthint", b"idempotent_hint", b"openworldhint", b"open_world_hint",
    b"toolannotation", b"modelcontextprotocol", b"mcpservertool", b"fastmcp", b"mcp.tool",
    b"mcp.newtool", b"mark3labs/mcp-go", b"rmcp",
)


def in_tests(path: str) -> bool:
    """Whether ``path`` is a test's file by the census's path rules (``pipeline.scan.roles``): its
    tools are kept, but a detector does not read it as the project's own definitions."""
    return classify(path).role == TEST


def exclusion(path: str) -> tuple[str, str] | None:
    """Why ``path`` is left out, as (reason, detail), or ``None`` when the detector reads it."""
    directory, _, name = path.rpartition("/")
    return exclusion_in(directory, name)


def exclusion_in(directory: str, name: str) -> tuple[str, str] | None:
    """``exclusion`` of the file ``name`` in the folder ``directory`` ('' at the top)."""
    vendored, docs_or_build = _folders(directory)
    if vendored is not None:
        return vendored
    lower = name.lower()
    if lower.endswith(TYPE_DEFINITIONS):
        return "type-definition", extension(name)
    if lower.endswith(GENERATED):
        return "generated", extension(name)
    if extension(name) in DOCS_EXTENSIONS:
        return "docs", extension(name)
    for reason, folder in docs_or_build:
        if reason == "docs" or language_of(name) == "typescript":
            return reason, folder
    return None


@functools.lru_cache(maxsize=4096)
def _folders(directory: str) -> tuple[tuple[str, str] | None, tuple[tuple[str, str], ...]]:
    """For the folders of ``directory``: the first vendored one, and every docs or build one in
    order, each as (reason, ``folder/``). Files of one folder arrive together: one look each."""
    folders = directory.split("/") if directory else []
    vendored = next((("vendored", f + "/") for f in folders if f in VENDORED), None)
    source = next((i for i, f in enumerate(folders) if f in SOURCE_DIRS), len(folders))
    marked = tuple(("docs" if f.lower() in DOCS_DIRS else "build-output", f + "/")
                   for i, f in enumerate(folders) if (f.lower() in DOCS_DIRS and i < source) or f in BUILD_DIRS)
    return vendored, marked


#: every marker contains one of these words; checking them first makes the common miss cheap
#: (the scan looks for them and the markers in the same pass: ``Detector.prefilter_words``)
ANCHORS = ("hint", "mcp", "annotation", "modelcontextprotocol")
#: ``MARKERS`` as the words ``SourceFile.has_any`` takes
MARKER_WORDS = tuple(marker.decode() for marker in MARKERS)


def relevant(file: SourceFile) -> str | None:
    """The first marker ``file`` contains (ignoring ASCII case), or ``None``."""
    if not file.has_any(ANCHORS):
        return None
    return next((word for word in MARKER_WORDS if file.has_any((word,))), None)
