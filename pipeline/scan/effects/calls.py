"""The calls of a function as the classifier reads them: callee, receiver and method, the
arguments, and whether an argument is taken from the tool's input."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import Node
from pipeline.scan.effects.languages import Syntax, string_value

_SPACE = re.compile(r"\s+")
_ROOT = re.compile(r"[A-Za-z_$][\w$]*")
_WRAPPED = re.compile(r"^(?:new\s+)?(?:URL|String|str|encodeURI|encodeURIComponent|urljoin|quote|url\.URL|"
                      r"path\.join|os\.path\.join|filepath\.Join|path\.resolve|Path|resolve|join)\((.*)", re.S)
_WRAPPERS = frozenset({"parenthesized_expression", "as_expression", "non_null_expression", "type_assertion",
                       "satisfies_expression", "await_expression", "await"})
HTTP_VERBS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})


@dataclass(frozen=True)
class Call:
    """One call in a function's body."""

    node: Node
    """the call node."""
    callee: str
    """the callee as written, on one line (``await``, ``?.``, ``!`` and type arguments removed;
    Rust's ``::`` read as ``.``: ``tokio.fs.write``)."""
    arguments: tuple[Node, ...]
    """the argument nodes (keyword arguments included)."""

    @property
    def receiver(self) -> str:
        """All of the callee before its last ``.`` ('' for a plain function)."""
        return self.callee.rsplit(".", 1)[0] if "." in self.callee else ""

    @property
    def method(self) -> str:
        """The callee's last name."""
        return self.callee.rsplit(".", 1)[-1]


def call_of(file: SourceFile, node: Node) -> Call | None:
    """The ``Call`` of a call node (``None`` when its callee cannot be read as a name)."""
    target = node.child_by_field_name("function") or node.child_by_field_name("constructor")
    while target is not None and target.type in _WRAPPERS and target.named_children:
        target = target.named_children[0]
    if target is None:
        return None
    text = _SPACE.sub("", file.text(target)).replace("?.", ".").replace("!.", ".")
    text = re.sub(r"::<[^<>()]*>", "", text).replace("::", ".")  # Rust's paths read as names
    text = re.sub(r"<[^<>()]*>$", "", text)
    if node.type == "new_expression":
        text = "new " + text
    arguments = node.child_by_field_name("arguments")
    args = tuple(c for c in arguments.children if c.is_named and c.type != "comment") if arguments is not None else ()
    return Call(node, text, args) if text else None


def one_line(file: SourceFile, node: Node, limit: int = 120) -> str:
    """A node's text on one line, at most ``limit`` characters."""
    text = _SPACE.sub(" ", file.text(node)).strip()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def input_rooted(text: str, inputs: frozenset[str]) -> bool:
    """Whether an expression starts from the tool's input: ``url``, ``args.url``, ``req.Params...``,
    `` `${url}/x` ``, ``f"{url}"``, ``new URL(url)`` (not ``"https://host/" + id``)."""
    t = text.strip()
    for _ in range(4):
        t = t.lstrip("(*& ").removeprefix("await ").strip()
        if t.startswith("`"):
            if not t.startswith("`${"):
                return False
            t = t[3:]
        elif t[:2] in ('f"', "f'"):
            if t[2:3] != "{":
                return False
            t = t[3:]
        elif (wrapped := _WRAPPED.match(t)) is not None:
            t = wrapped.group(1)
            continue
        break
    if not t or t[0] in "\"'`":
        return False
    root = _ROOT.match(t)
    return root is not None and root.group(0) in inputs


def keyword(file: SourceFile, args: tuple[Node, ...], name: str) -> Node | None:
    """The value of an argument named ``name``: a keyword argument, or a field of an object or
    map literal among the arguments (``{ method: "DELETE" }``)."""
    for arg in args:
        if arg.type == "keyword_argument" and file.text(arg.child_by_field_name("name")) == name:
            return arg.child_by_field_name("value")
        if arg.type in ("object", "dictionary", "composite_literal", "literal_value"):
            for pair in arg.named_children:
                key = pair.child_by_field_name("key")
                if key is not None and file.text(key).strip("'\"") == name:
                    return pair.child_by_field_name("value")
    return None


def literals_in(file: SourceFile, syntax: Syntax, nodes: tuple[Node, ...], limit: int = 24) -> tuple[str, ...]:
    """The string literals written in ``nodes`` (arguments passed down to a function), in order,
    and the HTTP verbs named by a constant (Go's ``http.MethodPost``, Rust's ``Method::POST``); not
    those of a closure among them (its calls are read where it is written)."""
    found: list[str] = []
    stack = list(reversed(nodes))
    while stack and len(found) < limit:
        node = stack.pop()
        if node.type in syntax.functions:
            continue
        if node.type in _CONSTANTS and (verb := verb_of(file.text(node))) is not None:
            found.append(verb)
            continue
        if node.type in syntax.strings:
            value = string_value(file, node)
            if value:
                found.append(value)
            continue
        stack.extend(reversed(node.children))
    return tuple(found)


def verb_of(text: str) -> str | None:
    """An HTTP verb written as a literal or a constant (``"delete"``, ``http.MethodDelete``)."""
    value = text.strip().strip("'\"`").upper()
    if value.startswith("HTTP.METHOD"):
        value = value.removeprefix("HTTP.METHOD")
    value = _METHOD_PATH.sub("", value)
    return value if value in HTTP_VERBS else None


_CONSTANTS = frozenset({"selector_expression", "scoped_identifier"})
_METHOD_PATH = re.compile(r"^(?:\w+::)*METHOD::")
