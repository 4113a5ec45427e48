"""OpenClaw tool modules that import nothing from ``openclaw`` themselves.

A plugin often keeps its registrations in a module such as ``tools/index.ts`` that only calls
``deps.api.registerTool(createXTool(deps))``: ``deps`` has a project type declared in another
file as ``{ api: OpenClawPluginApi }``, and the factories live in further files. Such a
registration counts as OpenClaw when there is evidence for the plugin SDK and the registered
object has its shape, never by a receiver's name:

- evidence: the nearest manifest declaring ``openclaw`` (``peerDependencies`` included) is
  nearer than any manifest declaring an MCP SDK and declares none itself; or the file imports
  a type that a module of the tree declares with a type imported from ``openclaw`` (one level);
- shape: the registered object (inline, a constant, or what a factory returns, one level) is an
  OpenClaw ``AgentTool``: it has a ``label``, or its ``execute`` takes the tool-call id first
  (a parameter typed ``string``, or named ``toolCallId``).
"""

from __future__ import annotations

import re
from posixpath import dirname, join, normpath

from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.sdks import SDKS
from pipeline.scan.detect.typescript.forms import one_object
from pipeline.scan.detect.typescript.functions import params
from pipeline.scan.detect.typescript.imports import MCP_WRAPPERS, module_key
from pipeline.scan.detect.typescript.resolver import Resolver
from pipeline.scan.detect.typescript.values import FUNCTIONS, Ref, arguments, unwrap

#: manifest names of the MCP SDKs (a package declaring one keeps ``registerTool`` as MCP)
MCP_PACKAGES = (*(p for s in SDKS.values() if s.language == "typescript" and s.is_mcp for p in s.packages),
                *MCP_WRAPPERS)
_OPENCLAW = SDKS["openclaw"].packages
#: ``\bimport`` is written ``import(?<=\bimport)`` here and below: a pattern that starts with a
#: literal is searched for with a fast literal scan (ten times faster than trying every offset)
_NAMED_FROM = rb"""import(?<=\bimport)\s+(?:type\s+)?\{([^}]{0,2000})\}\s*from\s*["'](%s)["']"""
_FROM_OPENCLAW = re.compile(_NAMED_FROM % rb"openclaw(?:/[^\"'\n]*)?")
_STAR_FROM_OPENCLAW = re.compile(
    rb"""import(?<=\bimport)\s+(?:type\s+)?\*\s+as\s+([\w$]+)\s+from\s*["']openclaw(?:/[^"'\n]*)?["']""")
_FROM_RELATIVE = re.compile(_NAMED_FROM % rb"\.{1,2}(?:/[^\"'\n]*)?")
_TYPE_DECLARATION = re.compile(
    rb"\b(?:interface\s+([A-Za-z_$][\w$]*)[^{;]*\{|type\s+([A-Za-z_$][\w$]*)\s*(?:<[^>=]*>)?\s*=)")
_MAX_BODY = 4000


def openclaw_types(data: bytes) -> frozenset[str]:
    """The types a module declares with a type it imports from ``openclaw`` (``interface
    ToolDeps { api: OpenClawPluginApi }``)."""
    if b"openclaw" not in data:
        return frozenset()
    imported = {name for names, _ in _FROM_OPENCLAW.findall(data) for name in _names(names)}
    imported.update(name.decode() for name in _STAR_FROM_OPENCLAW.findall(data))
    if not imported:
        return frozenset()
    alternatives = b"|".join(re.escape(n.encode()) for n in sorted(imported))
    uses = re.compile(rb"(?<![\w$])(?:%s)(?![\w$])" % alternatives)
    found: set[str] = set()
    for match in _TYPE_DECLARATION.finditer(data):
        body = _body(data, match.end(), match.group(1) is not None)
        if uses.search(body):
            found.add((match.group(1) or match.group(2)).decode())
    return frozenset(found)


def imports_openclaw_type(path: str, data: bytes, declared: dict[str, frozenset[str]]) -> bool:
    """Whether the file imports, from a relative module, a type that module declares with OpenClaw's."""
    if not declared:
        return False
    for names, spec in _FROM_RELATIVE.findall(data):
        key = module_key(normpath(join(dirname(path), spec.decode("utf-8", "replace"))))
        if key in declared and declared[key] & set(_names(names)):
            return True
    return False


def manifest_openclaw(dependencies: Dependencies, path: str) -> bool:
    """The nearest manifest declaring ``openclaw`` is nearer than any declaring an MCP SDK."""
    claw = dependencies.find(_OPENCLAW, path)
    if claw is None or not _holds(claw.directory, path):
        return False
    mcp = dependencies.find(MCP_PACKAGES, path)
    return mcp is None or not _holds(mcp.directory, path) or _depth(claw.directory) > _depth(mcp.directory)


def agent_tool(res: Resolver, call: Ref) -> bool:
    """Whether ``registerTool``'s first argument is an object of OpenClaw's ``AgentTool`` shape."""
    args = arguments(call.node)
    return bool(args) and any(_shaped(res, obj) for obj in one_object(res, call.at(args[0])))


def _shaped(res: Resolver, obj: Ref) -> bool:
    if res.get(obj, "label") is not None:
        return True
    execute = res.get(obj, "execute")
    function = unwrap(execute.node) if execute is not None else None
    if execute is None or function is None or function.type not in FUNCTIONS:
        return False
    first = params(function, execute.file)[:1]
    if not first or first[0].type != "identifier":
        return False
    declared = first[0].parent.child_by_field_name("type") if first[0].parent is not None else None
    typed = declared is not None and execute.file.text(declared).lstrip(":").strip() == "string"
    return typed or execute.file.text(first[0]).lstrip("_").lower() == "toolcallid"


def _names(imported: bytes) -> list[str]:
    """``type A, B as C`` -> the local names ``A``, ``C``."""
    names = []
    for part in imported.decode("utf-8", "replace").split(","):
        words = part.replace("type ", " ").split()
        if words:
            names.append(words[-1])
    return names


def _body(data: bytes, start: int, braced: bool) -> bytes:
    """A type declaration's text: to the closing brace of an interface, or a type alias's ``;``."""
    depth = 1 if braced else 0
    end = min(len(data), start + _MAX_BODY)
    for i in range(start, end):
        char = data[i : i + 1]
        if char in b"{([":
            depth += 1
        elif char in b"})]":
            depth -= 1
            if braced and depth == 0:
                return data[start:i]
        elif char == b";" and depth <= 0 and not braced:
            return data[start:i]
    return data[start:end]


def _holds(directory: str, path: str) -> bool:
    return directory == "" or path.startswith(directory + "/")


def _depth(directory: str) -> int:
    return directory.count("/") + 1 if directory else 0
