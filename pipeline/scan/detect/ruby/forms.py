"""Reading the Ruby gems' tool forms from tree-sitter-ruby nodes: annotation hashes, class bodies, and
``define``/``define_tool`` keyword arguments.

Naming rules checked in the gems' sources:

- ``mcp`` (modelcontextprotocol/ruby-sdk ``MCP::Tool.name_value``): ``tool_name``, else
  ``StringUtils.handle_from_class_name``: demodulize, then ``underscore`` (``(?<=[A-Z])(?=[A-Z][a-z])`` and
  ``(?<=[a-z\\d])(?=[A-Z])`` get ``_``, ``-`` becomes ``_``, downcase). ``define`` without ``name:`` gives an
  anonymous class, so no name.
- ``fast-mcp`` (yjacquin/fast-mcp ``FastMcp::Tool.tool_name``): ``tool_name``, else the full class name
  (``Module::Class``); both are stripped of characters outside ``[a-zA-Z0-9_-]`` and cut to 64.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import tree_sitter

from pipeline.scan.detect.model import DYNAMIC, TRUE, Annotations, hint_field
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import boolean, named, unquote

Node = tree_sitter.Node

#: fast-mcp's annotation DSL (an unreleased branch of yjacquin/fast-mcp): method -> canonical hint
DSL_HINTS = {"read_only": "read_only_hint", "destructive": "destructive_hint", "idempotent": "idempotent_hint",
             "open_world": "open_world_hint"}


@dataclass
class RubyIndex:
    """What phase 1 learns across the tree's Ruby files."""

    superclass: dict[str, str] = field(default_factory=dict)
    """project class (last segment) -> its superclass as written."""
    presets: dict[str, Annotations] = field(default_factory=dict)
    """constant (last segment) -> the annotations of the hash literal it holds."""


def string(file: SourceFile, node: Node | None) -> str | None:
    """A string or symbol literal's value (no interpolation), else None."""
    if node is None:
        return None
    if node.type in ("simple_symbol", "hash_key_symbol"):
        return file.text(node).lstrip(":")
    if node.type == "string" and not any(c.type == "interpolation" for c in node.children):
        return unquote(file.text(node))
    return None


def key_text(file: SourceFile, node: Node | None) -> str:
    """A hash key as text: ``read_only_hint:``, ``:readOnlyHint =>`` and ``"readOnlyHint" =>`` alike."""
    return string(file, node) or ""


def with_title(ann: Annotations, title: str | None) -> Annotations:
    """A copy with ``annotations.title`` from a literal (``None``: a dynamic title)."""
    return replace(ann, title=title, title_state=TRUE if title is not None else DYNAMIC)


def hash_items(node: Node) -> list[Node]:
    """The pairs and splats of a hash literal or an argument list (a lone hash argument is opened)."""
    items = named(node)
    if node.type == "argument_list" and len(items) == 1 and items[0].type == "hash":
        items = named(items[0])
    return [i for i in items if i.type != "comment"]


def annotations_of(file: SourceFile, items: Iterable[Node], index: RubyIndex) -> Annotations:
    """Annotations from hash items: pairs inline, ``**CONST`` (or a lone ``CONST``) as a preset."""
    ann = Annotations(source="inline")
    for item in items:
        if item.type == "pair":
            ann = apply_pair(ann, key_text(file, item.child_by_field_name("key")), item.child_by_field_name("value"),
                             file)
        elif item.type in ("hash_splat_argument", "constant", "scope_resolution"):
            ann = _merge_preset(ann, file, item, index)
        else:
            ann = ann.with_source(DYNAMIC)
    return ann


def apply_pair(ann: Annotations, key: str, value: Node | None, file: SourceFile) -> Annotations:
    """One ``key => value`` of an annotations hash applied to ``ann``."""
    if key == "title":
        return with_title(ann, string(file, value))
    hint = hint_field(key)
    if hint is None or value is None:
        return ann
    return ann.with_hint(hint, boolean(file.text(value)))


def _merge_preset(ann: Annotations, file: SourceFile, item: Node, index: RubyIndex) -> Annotations:
    target = named(item)[-1] if item.type == "hash_splat_argument" and named(item) else item
    name = file.text(target).rsplit("::", 1)[-1]
    preset = index.presets.get(name) if target.type in ("constant", "scope_resolution") else None
    if preset is None:
        return ann.with_source(DYNAMIC)
    merged = preset.with_source(f"preset:{name}")
    for hint in ("read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint"):
        if getattr(ann, hint) != "unset":
            merged = merged.with_hint(hint, getattr(ann, hint))
    return with_title(merged, ann.title) if ann.title_state != "unset" else merged


def annotations_value(file: SourceFile, value: Node, index: RubyIndex) -> Annotations:
    """The annotations an ``annotations:`` keyword or a single ``annotations(x)`` argument gives."""
    if value.type == "hash":
        return annotations_of(file, hash_items(value), index)
    if value.type in ("constant", "scope_resolution"):
        return annotations_of(file, [value], index)
    if value.type == "nil":
        return Annotations()
    return Annotations(source=DYNAMIC)


def underscore(class_name: str) -> str:
    """The ``mcp`` gem's ``handle_from_class_name``."""
    word = class_name.rsplit("::", 1)[-1]
    word = re.sub(r"(?<=[A-Z])(?=[A-Z][a-z])", "_", word)
    word = re.sub(r"(?<=[a-z\d])(?=[A-Z])", "_", word)
    return word.replace("-", "_").lower()


def fast_mcp_name(name: str) -> str:
    """``FastMcp::Tool.tool_name``'s clean-up of a name."""
    return re.sub(r"[^a-zA-Z0-9_-]", "", name)[:64]


def qualified_class_name(file: SourceFile, node: Node) -> str:
    """``Outer::Inner::Name`` of a class node, from its enclosing ``module``/``class`` nodes."""
    parts = [file.text(node.child_by_field_name("name")).lstrip(":")]
    parent = node.parent
    while parent is not None:
        if parent.type in ("module", "class") and not parts[0].startswith("::"):
            parts.insert(0, file.text(parent.child_by_field_name("name")).lstrip(":"))
        parent = parent.parent
    return "::".join(parts)


def keyword_args(call: Node) -> dict[str, Node]:
    """``key: value`` arguments of a call, by key."""
    args = call.child_by_field_name("arguments")
    pairs = [p for p in (named(args) if args is not None else []) if p.type == "pair"]
    found: dict[str, Node] = {}
    for pair in pairs:
        key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
        if key is not None and value is not None:
            found[key.text.decode("utf-8", "replace").lstrip(":").rstrip(":") if key.text else ""] = value
    return found
