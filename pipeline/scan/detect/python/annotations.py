"""Python annotation expressions: read them, and resolve constants, presets and helpers one level.

An expression becomes a list of ``Entry`` (key kind, key, value text) that survives the
syntax tree, so that presets and helpers learnt in phase 1 from any file can be resolved in
phase 2 when every constant of the tree is known. Forms read:

- ``ToolAnnotations(readOnlyHint=True)`` / ``types.ToolAnnotations(read_only_hint=True)`` /
  ``dict(readOnlyHint=True)``: source ``inline``;
- ``{"readOnlyHint": True}``; ``{READ_ONLY_HINT: True}`` (keys held in constants): ``constant``;
- ``READ_ONLY`` (a shared object), ``read_only("T")`` (a helper returning one) and
  ``{**BASE, "openWorldHint": False}`` (a spread): ``preset:<name>``;
- anything else: ``dynamic`` (written, not resolvable); ``None`` or nothing: ``none``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.scan.detect.model import DYNAMIC, NO_ANNOTATIONS, TRUE, UNSET, Annotations, hint_field
from pipeline.scan.detect.python.scope import Node, last_name, text
from pipeline.scan.detect.syntax import boolean, unquote

Entry = tuple[str, str, str]
"""(``field`` | ``const`` | ``spread``, key or name, value source text)."""


def entries(data: bytes, node: Node | None) -> list[Entry] | None:
    """The entries of a ``ToolAnnotations(...)`` / ``dict(...)`` call or a dict literal, else ``None``."""
    if node is None:
        return None
    if node.type == "call" and last_name(data, node.child_by_field_name("function")) in ("ToolAnnotations", "dict"):
        return _call_entries(data, node.child_by_field_name("arguments"))
    if node.type == "dictionary":
        return _dict_entries(data, node)
    return None


def _call_entries(data: bytes, args: Node | None) -> list[Entry]:
    found: list[Entry] = []
    for child in args.named_children if args is not None else []:
        if child.type == "keyword_argument":
            found.append(("field", text(data, child.child_by_field_name("name")),
                          text(data, child.child_by_field_name("value"))))
        elif child.type == "dictionary_splat" and (name := last_name(data, child.named_children[0])):
            found.append(("spread", name, ""))
    return found


def _dict_entries(data: bytes, node: Node) -> list[Entry]:
    found: list[Entry] = []
    for child in node.named_children:
        if child.type == "pair":
            key, value = child.child_by_field_name("key"), child.child_by_field_name("value")
            literal = unquote(text(data, key)) if key is not None and key.type == "string" else None
            if literal is not None:
                found.append(("field", literal, text(data, value)))
            elif (name := last_name(data, key)) is not None:
                found.append(("const", name, text(data, value)))
        elif child.type == "dictionary_splat" and (name := last_name(data, child.named_children[0])):
            found.append(("spread", name, ""))
    return found


def is_hint_entries(found: list[Entry] | None) -> bool:
    """Whether entries look like annotations (a hint or title key, a constant key or a spread)."""
    if not found:
        return False
    return any(kind != "field" or key == "title" or hint_field(key) for kind, key, _ in found)


@dataclass(frozen=True)
class Helper:
    """A function returning annotations: its parameters (with defaults) and the entries it returns."""

    params: tuple[tuple[str, str | None], ...]
    entries: tuple[Entry, ...]


@dataclass
class Presets:
    """Constants, shared annotation objects and helpers learnt from every file of a tree."""

    constants: dict[str, str] = field(default_factory=dict)
    """constant name -> canonical hint field (or ``title``)."""
    objects: dict[str, list[tuple[str, tuple[Entry, ...]]]] = field(default_factory=dict)
    """preset name -> [(path, entries)]."""
    helpers: dict[str, Helper] = field(default_factory=dict)
    """helper function name -> its definition."""

    def preset(self, name: str, path: str) -> tuple[Entry, ...] | None:
        """The entries of preset ``name``, preferring one defined in ``path``."""
        found = self.objects.get(name)
        if not found:
            return None
        return next((e for p, e in found if p == path), found[0][1])


class Reader:
    """Turns the expression given as ``annotations=`` into ``Annotations``."""

    def __init__(self, presets: Presets, data: bytes, path: str) -> None:
        self.presets, self.data, self.path = presets, data, path

    def read(self, node: Node | None) -> Annotations:
        """The annotations an expression declares."""
        if node is None or node.type == "none":
            return NO_ANNOTATIONS
        direct = entries(self.data, node)
        if direct is not None:
            spread = next((key for kind, key, _ in direct if kind == "spread"), None)
            constant = any(kind == "const" for kind, _, _ in direct)
            source = f"preset:{spread}" if spread else "constant" if constant else "inline"
            return self.resolve(direct, {}).with_source(source)
        name = last_name(self.data, node)
        if name is not None and (preset := self.presets.preset(name, self.path)) is not None:
            return self.resolve(list(preset), {}).with_source(f"preset:{name}")
        if node.type == "call":
            return self._helper_call(node)
        return NO_ANNOTATIONS.with_source("dynamic")

    def _helper_call(self, node: Node) -> Annotations:
        name = last_name(self.data, node.child_by_field_name("function"))
        helper = self.presets.helpers.get(name or "")
        if name is None or helper is None:
            return NO_ANNOTATIONS.with_source("dynamic")
        given: dict[str, str] = {p: d for p, d in helper.params if d is not None}
        args = node.child_by_field_name("arguments")
        params = [p for p, _ in helper.params]
        position = 0
        for child in args.named_children if args is not None else []:
            if child.type == "keyword_argument":
                given[text(self.data, child.child_by_field_name("name"))] = text(
                    self.data, child.child_by_field_name("value"))
            elif child.type not in ("comment", "list_splat", "dictionary_splat") and position < len(params):
                given[params[position]] = text(self.data, child)
                position += 1
        unknown = {p: "<dynamic>" for p in params if p not in given}
        return self.resolve(list(helper.entries), {**unknown, **given}).with_source(f"preset:{name}")

    def resolve(self, found: list[Entry], substitute: dict[str, str], depth: int = 0) -> Annotations:
        """Annotations from entries; ``substitute`` maps a helper's parameters to argument text."""
        result = NO_ANNOTATIONS
        for kind, key, value in found:
            if kind == "spread":
                inner = self.presets.preset(key, self.path) if depth < 2 else None
                if inner is not None:
                    result = _merge(result, self.resolve(list(inner), {}, depth + 1))
                continue
            canonical = self.presets.constants.get(key) if kind == "const" else _canonical(key)
            if canonical is not None:
                result = _assign(result, canonical, substitute.get(value, value))
        return result


def _canonical(key: str) -> str | None:
    return "title" if key == "title" else hint_field(key)


def _assign(result: Annotations, canonical: str, value: str) -> Annotations:
    if value.strip() == "None":
        return result
    if canonical == "title":
        title = unquote(value)
        return _merge(result, Annotations(title=title, title_state=TRUE if title is not None else DYNAMIC))
    return result.with_hint(canonical, boolean(value))


def _merge(base: Annotations, extra: Annotations) -> Annotations:
    merged = base
    for hint in ("read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint"):
        if getattr(extra, hint) != UNSET:
            merged = merged.with_hint(hint, getattr(extra, hint))
    if extra.title_state != UNSET:
        merged = Annotations(merged.read_only_hint, merged.destructive_hint, merged.idempotent_hint,
                             merged.open_world_hint, extra.title, extra.title_state, merged.source)
    return merged
