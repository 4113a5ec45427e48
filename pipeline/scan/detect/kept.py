"""Which files of a tree the detector keeps, how it knows them, and the role it gives each tool:
the limits on what is kept, the words a kept file must name, the shims of vendored code, and
``kind_of`` (manifest, source, literal, or why a file is left out)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from pipeline.scan.detect import conditions, deps, markers, paths
from pipeline.scan.detect.model import Tool
from pipeline.scan.detect.source import SourceFile, extension, language_of, literal_language
from pipeline.scan.roles import RoleRules, rust_test_lines

#: files larger than this are not parsed (generated code, bundles); recorded if relevant
MAX_FILE_BYTES = 2 << 20
#: bytes of source kept in memory per tree for the second phase; beyond it files are recorded
MAX_KEPT_BYTES = 128 << 20

#: a source file is kept for the detectors only if it contains one of these (lower-cased):
#: every registration names a tool; constants and presets name a hint or annotations; the
#: module that builds the server (``mcp = FastMCP(...)``) names MCP; a client's imports name
#: the SDK's package (``evidence``); a tool object exported by a module of its own names its
#: ``inputSchema`` and may name nothing else (``export const pingSchema = { name: "ping", ... }``)
KEEP_WORDS = ("tool", "mcp", "hint", "annotation", "modelcontextprotocol", "inputschema")
#: a left-out file is worth recording only if it names one of these (see ``paths.relevant``)
RELEVANT_WORDS = (*paths.ANCHORS, *paths.MARKER_WORDS)
#: a file that names none of these is neither kept nor recorded: the scan looks for them
FIRST_WORDS = tuple(dict.fromkeys((*KEEP_WORDS, *paths.ANCHORS)))
#: every word a kept or recorded file is searched for at once (``SourceFile.has_any`` reads them)
DETECTOR_WORDS = tuple(
    dict.fromkeys((*FIRST_WORDS, *RELEVANT_WORDS, *(word for words in markers.PREFILTER.values() for word in words)))
)
DETECTOR_WORD_SET = frozenset(DETECTOR_WORDS)

#: per language, what makes a vendored file a shim its phase 1 reads: it re-exports an MCP SDK
#: (chrome-devtools-mcp imports ``McpServer`` from its own ``third_party/index.ts``)
SHIMS: dict[str, Callable[[bytes], bool]] = {"typescript": markers.reexports_mcp_server}


def placed(tool: Tool, file: SourceFile, roles: RoleRules, tree: conditions.Tree | None = None) -> Tool:
    """``tool``, found in ``file``, with its condition (read by ``tree``, the tree's files, when
    given) and its role; a Rust tool inside ``#[cfg(test)]`` code is a test's."""
    tool = tree.marked(tool, file) if tree is not None else tool
    test_lines: list[tuple[int, int]] = []
    if tool.path == file.path and file.path.endswith(".rs") and b"test" in file.lower:
        test_lines = file.kept("roles.rust-tests", lambda: rust_test_lines(file.tree.root_node))
    role = roles.of_tool(tool.path, tool.line, test_lines)
    return replace(tool, role=role.role, role_rule=role.rule)


def kind_of(path: str) -> tuple[str, str] | None:
    """What the detector does with ``path``: (``manifest``, ''), (``source``, language), (``literal``,
    language), (exclusion reason, detail), or None (nothing it reads or records)."""
    directory, _, name = path.rpartition("/")
    if deps.is_manifest(name):
        return "manifest", ""
    language = language_of(name)
    if language is None and (literal := literal_language(name)) is not None:
        return None if paths.exclusion_in(directory, name) is not None else ("literal", literal)
    if language is None and extension(name) not in paths.DOCS_EXTENSIONS:
        return None  # neither source nor docs: nothing the detector reads or records
    if (why := paths.exclusion_in(directory, name)) is not None:
        return why
    return ("source", language) if language is not None else None
