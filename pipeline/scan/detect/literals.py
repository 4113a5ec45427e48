"""Tools written as the protocol's own ``Tool`` objects, in any language: rule ``<language>.<sdk>.protocol-literal``.

A server that implements MCP without an SDK's registration API (or lists its tools in one module
and answers ``tools/list`` from another, through indirections a language detector cannot follow)
still writes each tool as the protocol shapes it: an object, map, dict, hash or array with a
``name`` that is a literal string and an ``inputSchema`` (the protocol's camelCase key; Anthropic's
``input_schema`` tool format is not MCP, unless the object also has ``annotations``, which that
format has not, or the file of its package that answers ``tools/list`` converts it to the protocol's,
``inputSchema: d.input_schema``, as a server that lists such definitions does: ``converted``),
often with ``annotations`` holding camelCase hint keys (an annotations value that is no literal,
``annotations: readOnly()``, makes every hint ``dynamic``)::

    { name: "search", description: "...", inputSchema: {...}, annotations: { readOnlyHint: true } }
    {"name": "search", "inputSchema": {...}}                        # Python, JSON-like
    [ 'name' => 'search', 'inputSchema' => [...] ]                  # PHP
    Tool(name = "search", inputSchema = ...)                        # keyword arguments
    object [ "name" .= ("search" :: Text), "inputSchema" .= ... ]   # Haskell (Aeson)

An object with no schema key counts too when it holds a literal ``name``, a ``description`` and an
``annotations`` of literal hints (``ToolSpec { name: "x".into(), description, parameters_schema,
annotations: Some(json!({"readOnlyHint": true})) }``), but only in a language in which no language
detector found a registration in the tree (elsewhere such objects are configurations another module
registers). Files of languages no detector parses (Haskell, Lua, Elixir, Dart, C, ...; see
``source.LITERAL_LANGUAGES``) are read for literals alone, and a JSON file only where code of a
related folder names it (``//go:embed tools_list.json``).

Such a literal is a tool when the tree registers MCP tools (a language detector found one) or
answers ``tools/list`` itself (some kept file names ``tools/list``, ``ListToolsRequestSchema``,
``list_tools`` or ``ListTools``), its file gave no rows
to its language's detector and was not left out by it, it is no MCP client's (an assertion on what
``await session.list_tools()`` answered), and no tool of that name was found already
in its folder, above it or below it (``named_nearby``: the same tool registered through a form the
language detector reads). An unnamed row of the same project (an element of a list the language
detector counted but could not name) is replaced by the literal it stands for (``stood_for``).
Keys inside string literals (inline snapshots) and comments are not read, nor an object a constant
typed as a prompt's or a resource's holds (``const p: PromptDefinition = {...}``). The row's SDK is the
MCP SDK of the file's language that its nearest manifest declares, else ``protocol`` (no SDK).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace

from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.model import DYNAMIC, FALSE, NO_ANNOTATIONS, TRUE, Annotations, Tool
from pipeline.scan.detect.sdks import SDKS
from pipeline.scan.detect.source import SourceFile

#: a file that lists another server's tools as a client: its tool objects say what a server lists
_CLIENT = re.compile(rb"ClientSession|await\s+[\w.]+\.(?:list_tools|listTools)\(")
#: the hint keys of ``annotations`` and the fields they fill
HINTS = {b"readOnlyHint": "read_only_hint", b"destructiveHint": "destructive_hint",
         b"idempotentHint": "idempotent_hint", b"openWorldHint": "open_world_hint"}
#: a file holds a tool literal only if it names one of these
SHAPE_WORDS = (b"inputSchema", b"input_schema", *HINTS)
_KEYS = b"name|inputSchema|input_schema|annotations|title|" + b"|".join(HINTS)


def _key(schemaless: bool) -> bytes:
    """A key and its value when that is a literal: ``name: "x"``, ``"name" => 'x'``, ``name = "x"``,
    Haskell's ``"name" .= ("x" :: Text)``, a boolean, or an enum's member (``Tools.SEARCH``);
    ``description`` is a key only for the ``schemaless`` reading (it is common: reading it costs)."""
    keys = b"description|" + _KEYS if schemaless else _KEYS
    return rb"(?<![\w$.])[\"']?(?P<key>" + keys + rb")[\"']?\s*(?::|=>|\.=|=(?!=))\s*" \
        rb"(?:(?P<q>[\"'])(?P<text>[^\"'\\\n]{0,200})(?P=q)|(?P<bool>[Tt]rue|[Ff]alse)\b" \
        rb"|\(\s*(?P<tq>[\"'])(?P<typed>[^\"'\\\n]{0,200})(?P=tq)\s*::\s*[\w.]+\s*\)" \
        rb"|(?P<ref>[A-Za-z_$][\w$]*\.[A-Za-z_$][\w$]*)(?![\w$.(])(?:\s+as\s+string)?)?"


#: ``enum Tools { SEARCH = "search" }`` and ``const Tools = { SEARCH: "search" }``: what ``Tools.SEARCH`` names
_ENUM = re.compile(rb"\benum\s+(\w+)\s*\{([^{}]*)\}")
_CONST_OBJECT = re.compile(rb"\bconst\s+(\w+)\s*(?::[^=\n]*)?=\s*\{([^{}]*)\}")
_MEMBER = re.compile(rb"(\w+)\s*[:=]\s*[\"']([^\"'\n]{1,128})[\"']")
_NAMED_BY_MEMBER = re.compile(rb"\bname[\"']?\s*:\s*[A-Za-z_$][\w$]*\.[A-Za-z_$]")
#: a key's value that names a member (``Tools.SEARCH``), kept apart from literal values
_REF = b"\0"
#: multi-line string forms, tried first: triple quotes (Python, Swift, Kotlin, Java, C# raw), Rust raw
#: strings, C# verbatim strings, template literals and Go raw strings
_LONG_STRINGS = (rb'"""(?:.|\n)*?"""|\'\'\'(?:.|\n)*?\'\'\'|\br(?P<h>#+)"(?:.|\n)*?"(?P=h)|'
                 rb'@"(?:[^"]|"")*"|`(?:[^`\\]|\\.)*`')
_LINE_STRINGS = rb"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'"
_SPANNING_STRINGS = rb"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'"  # PHP, Ruby, Rust: a quote may span lines
_C_COMMENTS = rb"//[^\n]*|/\*.*?\*/"
_HASH_COMMENTS = rb"#[^\n]*"
_DASH_COMMENTS = rb"--[^\n]*|\{-.*?-\}"  # Haskell, Lua (its --[[ ]] blocks read as lines)
#: per language family: its comments, and whether ordinary strings may span lines
_STYLES = {"c": (_C_COMMENTS, _LINE_STRINGS), "hash": (_HASH_COMMENTS, _LINE_STRINGS),
           "c-spanning": (_C_COMMENTS, _SPANNING_STRINGS), "hash-spanning": (_HASH_COMMENTS, _SPANNING_STRINGS),
           "dash": (_DASH_COMMENTS, _LINE_STRINGS)}
_TOKENS = {
    (style, schemaless): re.compile(rb"(?P<k>" + _key(schemaless) + rb")|(?P<s>" + comments + rb"|" + _LONG_STRINGS
                                    + rb"|" + strings + rb")|(?P<b>[{}\[\]()])", re.DOTALL)
    for style, (comments, strings) in _STYLES.items() for schemaless in (False, True)
}
_STYLE_OF = {"python": "hash", "ruby": "hash-spanning", "php": "c-spanning", "rust": "c-spanning",
             "haskell": "dash", "lua": "dash", "elixir": "hash", "julia": "hash", "perl": "hash", "r": "hash",
             "crystal": "hash-spanning", "nim": "hash"}
#: what a tool's name looks like: no spaces, no sentences
TOOL_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.:/\-]{0,127}$")
_CLOSERS = {b"}": b"{", b"]": b"[", b")": b"("}
#: calls that hand the hints they wrap on unchanged: ``Some(json!({"readOnlyHint": true}))``,
#: ``ToolAnnotations(**{"readOnlyHint": True})``; a project's preset (``readOnly({...})``) is not read
_TRANSPARENT = frozenset({b"Some", b"json!", b"ToolAnnotations", b"dict"})
_CALLEE = re.compile(rb"([\w!]+)\s*$")


#: (offset of ``name``, name, annotations, title, whether the object has a schema key)
_Found = tuple[int, str, Annotations, str | None, bool]


@dataclass
class _Frame:
    opener: bytes
    key_in_parent: bytes | None
    keys: dict[bytes, tuple[int, bytes | None]] = field(default_factory=dict)
    """key -> (offset of the key, its literal string or boolean, if any)."""
    annotations: Annotations | None = None
    at: int = 0
    """where the frame opens (a ``(`` frame's callee is read from there when it matters)."""
    inner: Annotations | None = None
    """the hints of an object this frame (a call) wraps, for an ``annotations`` key above it."""


def sdk_of(language: str, path: str, dependencies: Dependencies) -> str:
    """The MCP SDK of ``language`` that the manifest nearest ``path`` declares, else ``protocol``."""
    return next((s.key for s in SDKS.values() if s.language == language and s.is_mcp and s.packages
                 and dependencies.find(s.packages, path) is not None), "protocol")


def names_a_member(file: SourceFile) -> bool:
    """Whether ``file`` may name a tool by an enum's member (``name: TOOLS.SEARCH``): only then are
    the tree's enums read."""
    return b"inputSchema" in file.data and _NAMED_BY_MEMBER.search(file.data) is not None


def members(files: Iterable[SourceFile]) -> dict[bytes, bytes]:
    """``Enum.MEMBER`` -> its string, for the string enums and constant objects of ``files``."""
    found: dict[bytes, bytes] = {}
    for file in files:
        if b"enum" not in file.data and b"const" not in file.data:
            continue
        for pattern in (_ENUM, _CONST_OBJECT):
            for match in pattern.finditer(file.data):
                for member in _MEMBER.finditer(match.group(2)):
                    found.setdefault(match.group(1) + b"." + member.group(1), member.group(2))
    return found


def literal_tools(file: SourceFile, language: str, dependencies: Dependencies,
                  named: dict[bytes, bytes] | None = None, *, schemaless: bool = False,
                  snake: bool = False) -> Iterator[Tool]:
    """The protocol-shaped tool literals of ``file`` (see the module's docstring for when they count);
    a name written as ``Enum.MEMBER`` is read from ``named`` (``members``); with ``schemaless``, also
    the objects with no schema key that hold a ``description`` and literal hints in ``annotations``;
    with ``snake`` (its package converts ``input_schema`` to ``inputSchema``: ``converted``), an
    ``input_schema`` counts as a schema key without ``annotations``."""
    words = SHAPE_WORDS if schemaless else SHAPE_WORDS[:2]  # hints alone make a tool only schemaless
    if not any(word in file.data for word in words) or _CLIENT.search(file.data) is not None:
        return
    sdk = sdk_of(language, file.path, dependencies)
    rule = f"{language}.{sdk}.protocol-literal"
    style = (_STYLE_OF.get(language, "c"), schemaless)
    for offset, name, declared, title, with_schema in _objects(file.data, style, named or {}, snake):
        if TOOL_NAME.match(name) and (with_schema or schemaless):
            yield Tool(file.path, file.data.count(b"\n", 0, offset) + 1, sdk, name, rule, declared,
                       tool_title=title)


def _objects(data: bytes, style: tuple[str, bool], named: dict[bytes, bytes], snake: bool = False) -> Iterator[_Found]:
    """(offset of ``name``, name, annotations, title, whether a schema key is there) of every frame
    holding a literal ``name`` and an ``inputSchema``, or a ``description`` and literal hints."""
    stack: list[_Frame] = [_Frame(b"", None)]
    pending: bytes | None = None
    for match in _TOKENS[style].finditer(data):
        if match["k"] is not None:
            value = next((match[g] for g in ("text", "typed", "bool") if match[g] is not None), None)
            if value is None and match["ref"] is not None:
                value = _REF + match["ref"]
            stack[-1].keys.setdefault(match["key"], (match.start(), value))
            pending = match["key"] if value is None else None
        elif match["b"] is not None:
            token = match["b"]
            if token in b"{[(":
                stack.append(_Frame(token, pending, at=match.start()))
            elif len(stack) > 1 and stack[-1].opener == _CLOSERS[token]:
                frame = stack.pop()
                found = _tool(frame, named, snake)
                if found is not None and _OTHER_TYPE.search(data, max(frame.at - 120, 0), frame.at) is None:
                    yield found
                hinted = _annotations(frame) if any(k in frame.keys for k in HINTS) else frame.inner
                if frame.key_in_parent == b"annotations":
                    stack[-1].annotations = hinted or _annotations(frame)
                elif hinted is not None and stack[-1].opener == b"(" and _callee(data, stack[-1].at) in _TRANSPARENT:
                    stack[-1].inner = hinted  # Some(json!({"readOnlyHint": true})): hints inside a wrapping call
            pending = None


#: a constant typed as a prompt's or a resource's definition just before its object (``const p:
#: PromptDefinition = {``): its ``name`` and ``inputSchema`` are the prompt's, not a tool's
_OTHER_TYPE = re.compile(rb":\s*[\w.]*(?:Prompt|Resource)\w*(?:<[^<>=]*>)?\s*=\s*\Z")


def _callee(data: bytes, at: int) -> bytes:
    """The last name of what the ``(`` at ``at`` calls (``types.ToolAnnotations(`` -> ``ToolAnnotations``)."""
    found = _CALLEE.search(data, max(at - 64, 0), at)
    return found.group(1) if found is not None else b""


def _tool(frame: _Frame, named: dict[bytes, bytes], snake: bool) -> _Found | None:
    name, keys = frame.keys.get(b"name"), frame.keys
    if name is not None and name[1] is not None and name[1].startswith(_REF):
        name = (name[0], named.get(name[1][len(_REF):]))
    hinted = frame.annotations is not None and frame.annotations.source == "inline" and b"description" in keys
    schema = b"inputSchema" in keys or (b"input_schema" in keys and (b"annotations" in keys or snake))
    if name is None or not (schema or hinted) or name[1] is None:
        return None
    title = keys.get(b"title")
    if title is not None and title[1] is not None and title[1].startswith(_REF):
        title = None
    text = title[1].decode("utf-8", "replace") if title is not None and title[1] is not None else None
    annotations = frame.annotations or (Annotations(source=DYNAMIC) if b"annotations" in keys else NO_ANNOTATIONS)
    return name[0], name[1].decode("utf-8", "replace"), annotations, text, schema


def _annotations(frame: _Frame) -> Annotations:
    if frame.opener == b"(" and not any(key in frame.keys for key in (*HINTS, b"title")):
        return Annotations(source=DYNAMIC)  # a call (``readOnly()``) whose result is not read
    annotations = Annotations(source="inline")
    for key, hint in HINTS.items():
        value = frame.keys.get(key, (0, None))[1]
        if value is not None and value.lower() in (b"true", b"false"):
            annotations = annotations.with_hint(hint, TRUE if value.lower() == b"true" else FALSE)
    title = frame.keys.get(b"title", (0, None))[1]
    if title is not None and not title.startswith(_REF):
        annotations = replace(annotations, title=title.decode("utf-8", "replace"), title_state=TRUE)
    return annotations
