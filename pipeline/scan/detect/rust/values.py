"""Reading Rust values for the Rust detector: string and boolean literals, attribute token
trees, and annotation expressions (builders, ``from_raw``, struct literals, ``json!``).

``evaluate`` turns an annotations expression into ``Annotations``; identifiers it cannot read
are handed to a resolver (local ``let`` bindings, then the tree's presets). Inside a project
wrapper, an identifier naming one of the wrapper's parameters becomes ``param:<i>``, filled in
from each call's arguments (``model.substitute``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from pipeline.scan.detect.model import DYNAMIC, FALSE, TRUE, UNSET, Annotations, hint_field
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import Node, named, unquote

#: resolves an identifier (or a zero-argument helper call) to annotations, or None
Resolver = Callable[[str, Node], "Annotations | None"]

#: one level of ``<...>`` with nothing nested inside (applied until nothing changes)
_GENERICS = re.compile(r"<[^()<>]*>")
_RAW = re.compile(r'\Ab?r(#*)"(.*)"\1\Z', re.S)
_STRING_WRAPPERS = ("to_string", "into", "to_owned", "clone")
#: one-argument calls that keep a string's value: ``String::from``, ``Some``, ``Cow::Borrowed``...
_STRING_CALLS = ("from", "Some", "Borrowed", "Owned")
#: ``[pub] const|static NAME: &['static] str = "...";`` (a tool's name kept in a constant)
_STR_CONST = re.compile(
    rb"""\b(?:const|static)\s+([A-Za-z_]\w*)\s*:\s*&\s*(?:'static\s+)?str\s*=\s*"((?:[^"\\\n]|\\.)*)"\s*;"""
)


def path_segments(file: SourceFile, node: Node) -> list[str]:
    """``a::b::<T>::c`` as ``['a', 'b', 'c']`` (generic arguments dropped)."""
    return [s for s in _without_generics(file.text(node)).replace(" ", "").split("::") if s]


def _without_generics(text: str) -> str:
    """``text`` without its generic arguments: ``Json::<Vec<T>>::x`` gives ``Json::::x``."""
    for _ in range(16):
        stripped = _GENERICS.sub("", text)
        if stripped == text:
            break
        text = stripped
    return text


def string_value(file: SourceFile, node: Node | None) -> str | None:
    """A literal string, also through ``.to_string()``, ``.into()``, ``String::from``, ``Some``,
    ``Cow::Borrowed``, and a ``const NAME: &str`` of the same file."""
    if node is None:
        return None
    if node.type == "string_literal":
        return unquote(file.text(node))
    if node.type in ("identifier", "scoped_identifier"):
        return str_constants(file).get(path_segments(file, node)[-1] if node.type == "scoped_identifier" else
                                       file.text(node))
    if node.type == "raw_string_literal":
        found = _RAW.match(file.text(node))
        return found.group(2) if found else None
    if node.type == "call_expression":
        function, args = node.child_by_field_name("function"), named(node.child_by_field_name("arguments") or node)
        if function is not None and function.type == "field_expression" and not args:
            field = function.child_by_field_name("field")
            if file.text(field) in _STRING_WRAPPERS:
                return string_value(file, function.child_by_field_name("value"))
        if function is not None and len(args) == 1 and path_segments(file, function)[-1] in _STRING_CALLS:
            return string_value(file, args[0])
    return None


def str_constants(file: SourceFile) -> dict[str, str]:
    """The file's ``const``/``static`` string slices, by name (a name defined twice is left out)."""

    def read() -> dict[str, str]:
        found: dict[str, str | None] = {}
        for name, value in _STR_CONST.findall(file.data):
            key = name.decode("utf-8", "replace")
            text = unquote('"' + value.decode("utf-8", "replace") + '"')
            found[key] = text if key not in found else None
        return {k: v for k, v in found.items() if v is not None}
    return file.kept("rust-str-constants", read)


def bool_value(file: SourceFile, node: Node | None, params: dict[str, int] | None = None) -> str:
    """``true``/``false`` for a literal (also ``Some(true)``), ``unset`` for ``None``, else ``dynamic``
    (or ``param:<i>`` for a wrapper parameter)."""
    if node is None:
        return UNSET
    text = file.text(node).strip()
    if node.type == "boolean_literal":
        return TRUE if text == "true" else FALSE
    if text == "None":
        return UNSET
    if params and text in params:
        return f"param:{params[text]}"
    if node.type == "call_expression" and path_segments(file, node.child_by_field_name("function") or node) == ["Some"]:
        args = named(node.child_by_field_name("arguments") or node)
        return bool_value(file, args[0], params) if len(args) == 1 else DYNAMIC
    return DYNAMIC


def with_title(annotations: Annotations, file: SourceFile, node: Node | None) -> Annotations:
    """A copy with the annotations title read from ``node`` (``None`` leaves it unset)."""
    if node is None or file.text(node).strip() == "None":
        return annotations
    title = string_value(file, node)
    state = TRUE if title is not None else DYNAMIC
    return replace(annotations, title=title, title_state=state)


def token_pairs(file: SourceFile, tree: Node | None) -> list[tuple[str, Node]]:
    """The ``key = value`` / ``key: value`` / ``key(...)`` entries of an attribute or macro token tree."""
    if tree is None:
        return []
    items = [c for c in tree.children if c.type not in ("(", ")", "{", "}", "[", "]", ",")]
    pairs: list[tuple[str, Node]] = []
    for index, item in enumerate(items):
        key = file.text(item) if item.type == "identifier" else unquote(file.text(item))
        if key is None or item.type not in ("identifier", "string_literal") or index + 1 >= len(items):
            continue
        after = items[index + 1]
        if after.type in ("=", ":") and index + 2 < len(items):
            pairs.append((key, items[index + 2]))
        elif after.type == "token_tree" and item.type == "identifier":
            pairs.append((key, after))
    return pairs


def token_annotations(file: SourceFile, pairs: list[tuple[str, Node]], source: str) -> Annotations:
    """Annotations from attribute pairs: hint spellings (snake or camel) and ``title``."""
    result = Annotations(source=source)
    for key, value in pairs:
        if key == "title":
            result = with_title(result, file, value)
        elif (field := hint_field(key)) is not None:
            result = result.with_hint(field, bool_value(file, value))
    return result
