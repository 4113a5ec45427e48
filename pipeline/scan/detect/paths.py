"""Files the detector leaves out by where they sit, and the byte markers that make a
left-out file worth recording (so nothing is excluded silently)."""

from __future__ import annotations

from pipeline.scan.detect.source import extension, language_of

#: folders that hold other projects' code (an SDK's own sources, dependencies)
VENDORED = frozenset(
    {"node_modules", "vendor", "site-packages", "dist-packages", "bower_components", "third_party",
     "third-party", ".venv", "venv", "Pods", "Carthage", ".yarn", "jspm_packages"}
)
#: folders of documentation; their code blocks and snippets are not servers
DOCS_DIRS = frozenset({"docs", "doc", "documentation", "website"})
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
)


def exclusion(path: str) -> tuple[str, str] | None:
    """Why ``path`` is left out, as (reason, detail), or ``None`` when the detector reads it."""
    folders = path.split("/")[:-1]
    for folder in folders:
        if folder in VENDORED:
            return "vendored", folder + "/"
    lower = path.lower()
    if lower.endswith(TYPE_DEFINITIONS):
        return "type-definition", extension(path)
    if lower.endswith(GENERATED):
        return "generated", extension(path)
    if extension(path) in DOCS_EXTENSIONS:
        return "docs", extension(path)
    for folder in folders:
        if folder.lower() in DOCS_DIRS:
            return "docs", folder + "/"
        if folder in BUILD_DIRS and language_of(path) == "typescript":
            return "build-output", folder + "/"
    return None


#: every marker contains one of these words; checking them first makes the common miss cheap
#: (the scan also looks for them in the same pass: ``Detector.prefilter_words``)
ANCHORS = ("hint", "mcp", "annotation", "modelcontextprotocol")
_ANCHOR_BYTES = tuple(word.encode() for word in ANCHORS)


def relevant(lower: bytes) -> bytes | None:
    """The first marker found in lower-cased content, or ``None``."""
    if not any(anchor in lower for anchor in _ANCHOR_BYTES):
        return None
    for marker in MARKERS:
        if marker in lower:
            return marker
    return None
