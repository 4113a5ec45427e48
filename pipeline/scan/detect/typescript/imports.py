"""Which tool libraries a TypeScript/JavaScript file imports, read from its module specifiers.

Specifiers are taken with one regular expression over the bytes (``from "x"``, ``import "x"``,
``require("x")``, ``import("x")``), so the gate is decided before any parsing. A relative
specifier counts as OpenClaw when it names a file of the tree that re-exports ``openclaw``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from posixpath import dirname, join, normpath

from pipeline.scan.detect import markers
from pipeline.scan.detect.source import SourceFile, extension
from pipeline.scan.detect.syntax import WORD_BYTES, occurrences
from pipeline.scan.detect.typescript.values import Node, unwrap

_SPEC = re.compile(rb"""(?:\bfrom|\bimport|\brequire)\s*\(?\s*["']([^"'\n]{1,200})["']""")
_SPEC_WORDS = (b"from", b"import", b"require")
#: ``\bexport`` written ``export(?<=\bexport)``: a literal first is found by a fast scan (six times faster)
_OPENCLAW_REEXPORT = re.compile(rb"""export(?<=\bexport)\b[^;]*?\bfrom\s*["']openclaw(?:/[^"']*)?["']""")
#: packages that hand the caller an official ``McpServer`` (sdk-idioms 4.3)
MCP_WRAPPERS = ("mcp-handler", "@vercel/mcp-adapter", "agents/mcp")
_SCRIPT_EXTENSIONS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")

IMPORT_MARKERS, MARKERS, AI_MARKERS = markers.TS_IMPORTS, markers.TS_INDEX, markers.TS_AI


def module_key(path: str) -> str:
    """A file's path without its script extension (and without a trailing ``/index``)."""
    if extension(path) in _SCRIPT_EXTENSIONS:
        path = path.rsplit(".", 1)[0]
    return path.removesuffix("/index")


def reexports_openclaw(data: bytes) -> bool:
    """Whether a file re-exports the OpenClaw plugin SDK (a local ``./api.js`` shim)."""
    return b"openclaw" in data and _OPENCLAW_REEXPORT.search(data) is not None


@dataclass(frozen=True)
class Imports:
    """The module specifiers of one file, and what they say about its libraries."""

    specs: frozenset[str]
    """every module specifier the file imports or requires."""
    openclaw_local: bool = False
    """a relative import names a file of the tree that re-exports ``openclaw`` (or the file is a
    plugin entry whose nearest manifest declares ``openclaw``)."""
    mcp_local: bool = False
    """a relative import names a file of the tree that re-exports the MCP server SDK."""
    mcp_declared: bool = False
    """no import names an MCP or other tool library, but the nearest ``package.json`` declares the MCP
    SDK: a ``tool`` / ``registerTool`` / ``setRequestHandler`` call on a parameter of the function
    around it registers on the server it is given (``export function setupTools(server) {...}``)."""
    openclaw_shaped: bool = False
    """no import names OpenClaw, but the package or an imported type does: an object passed to
    ``registerTool`` counts as OpenClaw when it has the ``AgentTool`` shape (``openclaw``)."""

    def _any(self, *prefixes: str) -> bool:
        return any(s == p or s.startswith(p + "/") for s in self.specs for p in prefixes)

    @property
    def mcp_client(self) -> bool:
        """The file imports the MCP client API."""
        return self._any("@modelcontextprotocol/sdk/client", "@modelcontextprotocol/client")

    @property
    def mcp_server(self) -> bool:
        """The file imports the MCP server API, its types, or a wrapper that hands out ``McpServer``."""
        official = any(s.startswith("@modelcontextprotocol/") and "/client" not in s for s in self.specs)
        return official or self.mcp_local or self._any(*MCP_WRAPPERS)

    @property
    def mcp_server_proper(self) -> bool:
        """The file imports a server module (not only shared types)."""
        return self._any("@modelcontextprotocol/sdk/server", "@modelcontextprotocol/server", *MCP_WRAPPERS)

    @property
    def tool_library(self) -> bool:
        """The file imports some library with a tool API of its own (MCP's or another's)."""
        return self.mcp_server or self.mcp_client or self.fastmcp or self.tmcp or self.mcp_framework \
            or self.mastra_core or self.mastra_mcp or self.openclaw or self.vercel_ai or self.azure_functions \
            or self.mcp_apps

    @property
    def mcp_apps(self) -> bool:
        """The MCP Apps extension (``@modelcontextprotocol/ext-apps``), whose ``registerAppTool`` registers a tool."""
        return self._any("@modelcontextprotocol/ext-apps")

    @property
    def fastmcp(self) -> bool:
        """punkpeye ``fastmcp``, or ``litemcp``, the library it grew from (the same ``addTool({...})``)."""
        return self._any("fastmcp", "litemcp")

    @property
    def tmcp(self) -> bool:
        """``tmcp``, whose ``server.tool({ name, ... }, fn)`` and ``defineTool({...}, fn)`` define a tool."""
        return self._any("tmcp")

    @property
    def mcp_framework(self) -> bool:
        """QuantGeekDev's ``mcp-framework`` (tools are classes extending its ``MCPTool``)."""
        return self._any("mcp-framework")

    @property
    def mastra_core(self) -> bool:
        """Mastra's ``createTool`` (``@mastra/core/tools``)."""
        return self._any("@mastra/core")

    @property
    def azure_functions(self) -> bool:
        """Azure Functions' programming model (``@azure/functions``), whose ``app.mcpTool`` defines a tool."""
        return self._any("@azure/functions")

    @property
    def mastra_mcp(self) -> bool:
        """Mastra's ``MCPServer`` (``@mastra/mcp``)."""
        return self._any("@mastra/mcp")

    @property
    def openclaw(self) -> bool:
        """The OpenClaw plugin SDK, directly or through a local re-export."""
        return self.openclaw_local or self._any("openclaw")

    @property
    def vercel_ai(self) -> bool:
        """The Vercel AI SDK (package ``ai``)."""
        return "ai" in self.specs


def imports_of(path: str, data: bytes, openclaw_modules: frozenset[str] | set[str],
               mcp_modules: frozenset[str] | set[str] = frozenset()) -> Imports:
    """The imports of the file at ``path`` (``*_modules``: the tree's files that re-export OpenClaw,
    the MCP server SDK)."""
    specs = module_specs(data)
    local = {_resolve(path, s) for s in specs if s.startswith(".")}
    return Imports(specs, not local.isdisjoint(openclaw_modules), mcp_local=not local.isdisjoint(mcp_modules))


def module_specs(data: bytes) -> frozenset[str]:
    """Every module specifier a file's source imports or requires: what ``_SPEC.findall`` finds,
    tried only where one of its words starts a word (found with ``bytes.find``, many times faster
    than the pattern's scan of every position)."""
    starts = sorted(at for word in _SPEC_WORDS for at in occurrences(data, word)
                    if at == 0 or data[at - 1] not in WORD_BYTES)
    specs, end = set(), 0
    for at in starts:
        if at >= end and (found := _SPEC.match(data, at)) is not None:
            specs.add(found.group(1).decode("utf-8", "replace"))
            end = found.end()
    return frozenset(specs)


def seen_from(path: str, data: bytes, name: str, homes: list[str], *, member: bool = False) -> int | None:
    """Which of several definitions of ``name`` (by the path of the file each is in) the file at
    ``path`` reaches, by position: its own; else, for a method call (``context.registerTool(...)``,
    ``member``), one in a module it imports (the receiver's type or factory comes from there); else,
    when it imports the name, one in a module it imports, or the first (a re-export). A file does
    not reach another's definition it does not import."""
    if path in homes:
        return homes.index(path)
    if not homes or not (member or imports_name(data, name)):
        return None
    specs = imports_of(path, data, set()).specs
    imported = next((i for i, home in enumerate(homes) if names_module(path, specs, home)), None)
    if imported is not None or not imports_name(data, name):
        return imported
    return 0


def imports_name(data: bytes, name: str) -> bool:
    """Whether a file imports ``name``: ``import { name } from``, ``import name from``,
    ``const { name } = require(``, ``const name = require(``. Each form is read within its own
    braces, so code written without semicolons is read right."""
    word = name.encode()
    if word not in data:
        return False
    from pipeline.scan.detect.typescript.names import imported_plainly  # its expressions: for trees that ask
    if imported_plainly(data, word):
        return True  # settled without compiling the expression below for this name
    plain = re.escape(word)
    named = rb"\{[^{}]*(?<![\w$])%s(?![\w$])[^{}]*\}" % plain
    pattern = (rb"\bimport\s+(?:type\s+)?(?:[\w$]+\s*,\s*)?%s\s*from\b|\bimport\s+(?:type\s+)?%s\s*(?:,|from\b)"
               rb"|\b(?:const|let|var)\s+(?:%s|%s)\s*=\s*require\s*\(") % (named, plain, named, plain)
    return re.search(pattern, data) is not None


def imported_as(data: bytes, name: str) -> str | None:
    """The exported name a file imports under the local ``name`` (``import { tools as browserTools }``)."""
    word = name.encode()
    if word not in data or b" as " not in data:
        return None
    found = re.search(rb"\bimport\s*(?:type\s+)?(?:[\w$]+\s*,\s*)?\{[^{}]*?([\w$]+)\s+as\s+%s(?![\w$])[^{}]*\}\s*from\b"
                      % re.escape(word), data)
    return found.group(1).decode() if found is not None and found.group(1) != word else None


def names_module(path: str, specs: frozenset[str], target: str) -> bool:
    """Whether one of ``specs`` (the imports of the file at ``path``) names the file ``target``:
    a relative specifier resolved from ``path``, or a workspace package's path
    (``@acme/shared/src/context`` for ``packages/shared/src/context.ts``)."""
    key = "/" + module_key(target)
    for spec in specs:
        if spec.startswith("."):
            if "/" + _resolve(path, spec) == key:
                return True
        elif "/" in (inside := spec.split("/", 1)[1] if spec.startswith("@") else spec) and \
                key.endswith("/" + module_key(inside)):
            return True
    return False


def default_export(file: SourceFile) -> Node | None:
    """The value of ``export default <value>`` in ``file`` (parentheses and casts taken off)."""
    if b"export default" not in file.data:
        return None
    for statement in file.tree.root_node.named_children:
        value = statement.child_by_field_name("value") if statement.type == "export_statement" else None
        if value is not None and any(c.type == "default" for c in statement.children):
            return unwrap(value)
    return None


@lru_cache(maxsize=4096)
def _resolve(path: str, spec: str) -> str:
    """The module key a relative ``spec`` names from the file at ``path`` (asked again for each
    module a file's imports are compared with: remembered)."""
    return module_key(normpath(join(dirname(path), spec)))


def imported_modules(file: SourceFile, modules: list[SourceFile]) -> list[SourceFile]:
    """Those of ``modules`` that ``file`` imports by a relative specifier."""
    specs = imports_of(file.path, file.data, set()).specs
    return [m for m in modules if names_module(file.path, specs, m.path)]
