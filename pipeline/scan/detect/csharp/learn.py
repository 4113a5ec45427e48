"""What the C# detector learns in phase 1 (``index``): constants, global usings of the SDK, the
project's own ``McpServerToolAttribute``, and annotation presets (static ``ToolAnnotations`` and
``McpServerToolCreateOptions`` members) that ``Create`` calls and protocol ``Tool`` literals name."""

from __future__ import annotations

import re

import tree_sitter

from pipeline.scan.detect.csharp.forms import CSharpIndex, annotations_value, constants_of, declared
from pipeline.scan.detect.csharp.nodes import initial_value, initializer_pairs, is_member, last_name
from pipeline.scan.detect.csharp.types import defined_types, sdk_namespace
from pipeline.scan.detect.model import Annotations
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import compiled

MARKERS = (b"mcpservertool", b"toolannotations", b"modelcontextprotocol")
NAMESPACE = re.compile(rb"^[ \t]*namespace\s+([\w.]+)", re.M)
_GLOBAL_USING = re.compile(rb"^(?:\xef\xbb\xbf)?[ \t]*global\s+using\s+(?:static\s+)?ModelContextProtocol\b", re.M)
_PRESET_TYPES = ("ToolAnnotations", "McpServerToolCreateOptions")
#: a field, property or variable initialised with a ToolAnnotations/options object (worth parsing in index)
_PRESET_CANDIDATES = (
    re.compile(rb"(?:ToolAnnotations|McpServerToolCreateOptions)\??[ \t]+\w+[ \t]*(?:\{[^}\n]*\}[ \t]*)?"
               rb"=>?[ \t]*new\b"),
    re.compile(rb"=[ \t]*new[ \t]+(?:ToolAnnotations|McpServerToolCreateOptions)\b"),
)
_PRESET_QUERY = "(variable_declarator) @var (property_declaration) @prop"


def learn(file: SourceFile, known: CSharpIndex) -> None:
    """Learn ``file``'s string/bool constants, global usings, the project's own attribute and annotation
    presets, into ``known``."""
    if b"const " in file.data:
        for key, text in constants_of(file.data).items():
            seen = known.constants.get(key, text)
            known.constants[key] = text if seen == text else None
    if not any(m in file.lower for m in MARKERS):
        return
    if b"global using" in file.data and _GLOBAL_USING.search(file.data) is not None:
        known.global_dirs.add(file.path.rpartition("/")[0])
    defined = defined_types(file)
    if "McpServerToolAttribute" in defined and sdk_namespace(file) is None:
        known.own_attribute.update(NAMESPACE.findall(file.data) or [b""])
    typed = b"toolannotations" in file.lower or b"mcpservertoolcreateoptions" in file.lower
    if typed and any(p.search(file.data) for p in _PRESET_CANDIDATES):
        _presets(file, known)


def _presets(file: SourceFile, known: CSharpIndex) -> None:
    query = compiled("tree_sitter_c_sharp", "language", _PRESET_QUERY)
    captures = tree_sitter.QueryCursor(query).captures(file.tree.root_node)
    for node in captures.get("var", []) + captures.get("prop", []):
        name, value = node.child_by_field_name("name"), initial_value(node)
        if name is None or value is None or not is_member(node):
            continue
        typed = value.child_by_field_name("type")
        if typed is None:
            owner = node if node.type == "property_declaration" else node.parent
            typed = owner.child_by_field_name("type") if owner is not None else None
        kind = last_name(file, typed) if typed is not None else ""
        if kind in _PRESET_TYPES:
            known.presets[file.text(name)] = _preset(file, value, kind, known)


def _preset(file: SourceFile, value: tree_sitter.Node, kind: str, known: CSharpIndex) -> Annotations:
    if kind == "ToolAnnotations":
        return annotations_value(file, value, known)
    pairs = initializer_pairs(file, value)
    return declared(pairs, file, known, "options", title_in_annotations=True).annotations
