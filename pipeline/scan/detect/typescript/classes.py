"""Tools written as classes: a base class's method registers ``this.name``; each subclass is a tool
(and mcp-framework, whose tools are classes extending its ``MCPTool``).

::

    export abstract class BaseTool {
      abstract name: string;
      annotations: ToolAnnotations = { openWorldHint: false };
      register(server: McpServer) {
        server.tool(this.name, this.description, this.schema.shape, this.annotations, cb);
      }
    }
    export class SearchTool extends BaseTool {
      name = "search";
      annotations = { readOnlyHint: true };
    }

A registration whose name is ``this.<member>``, inside a class method, is read once per concrete
class of the tree that extends that class (directly or through other classes), with ``this.<x>``
bound to the class's own fields and getters, a subclass's member winning over its base's. The row
is at the subclass's name. A subclass is found by ``class X extends Base`` in a file that declares
``Base`` or imports it; an abstract class is no tool, but its subclasses are.

mcp-framework (npm ``mcp-framework``) loads every class extending its ``MCPTool`` from the
project's tools folder and lists ``name``, ``title`` and ``annotations`` as the class sets them:
``framework_tools`` reads those members the same way.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import replace

from pipeline.scan.detect.model import NO_ANNOTATIONS
from pipeline.scan.detect.source import GRAMMARS, SourceFile, extension
from pipeline.scan.detect.syntax import enclosing, named
from pipeline.scan.detect.typescript.annotations import ToolInfo, read_annotations
from pipeline.scan.detect.typescript.forms import Found, Reader
from pipeline.scan.detect.typescript.functions import declared_before, declared_in_module, returned_object
from pipeline.scan.detect.typescript.imports import seen_from
from pipeline.scan.detect.typescript.resolver import Resolver
from pipeline.scan.detect.typescript.values import Env, Node, Ref, arguments, unwrap
from pipeline.scan.detect.typescript.wrappers import captures

#: ``\bclass`` written ``class(?<=\bclass)``: a literal first is found by a fast scan (ten times faster)
_EXTENDS = re.compile(rb"class(?<=\bclass)\s+([A-Za-z_$][\w$]*)\s*(?:<[^{}()]*?>\s*)?"
                      rb"extends\s+([A-Za-z_$][\w$]*)")
_CLASSES = frozenset({"class_declaration", "abstract_class_declaration", "class"})
_FIELDS = frozenset({"public_field_definition", "field_definition"})
#: the class mcp-framework's tools extend
FRAMEWORK_BASE = b"MCPTool"
_CLASSES_QUERY = "(class_declaration) @cls"
_TYPED_CLASSES = "[(class_declaration) (abstract_class_declaration)] @cls"
#: a class's static name for the tool, when the base class takes its name in the constructor
#: (mongodb-mcp-server's loader passes each class's ``static toolName`` to ``new``)
STATIC_NAMES = ("toolName", "TOOL_NAME")
#: how many classes deep a subclass is looked for
MAX_DEPTH = 4


class Subclasses:
    """``class X extends Base`` declarations of one tree, found without parsing."""

    def __init__(self) -> None:
        self._by_base: dict[str, list[tuple[SourceFile, str]]] = defaultdict(list)

    def note(self, file: SourceFile) -> None:
        """Record the classes ``file`` declares with an ``extends`` clause."""
        if b"extends" in file.data:
            for name, base in _EXTENDS.findall(file.data):
                self._by_base[base.decode()].append((file, name.decode()))

    def extending(self, base: str) -> list[tuple[SourceFile, Node]]:
        """The classes declared ``class X extends <base>`` (directly), each with its file."""
        return [(file, node) for file, name in self._by_base.get(base, ()) for node in _declared(file, name)]

    def of(self, base: Ref) -> Iterator[tuple[Ref, Env]]:
        """Each concrete class extending the class ``base`` (at any depth), with the members it
        sees: ``base``'s own, then each class's down to it."""
        yield from self._below(base, class_members(base), 0)

    def family(self, cls: Ref) -> Iterator[tuple[Ref, Env]]:
        """``cls`` itself (unless abstract), then each concrete class extending it, with their members."""
        members = class_members(cls)
        if cls.node.type != "abstract_class_declaration":
            yield cls, members
        yield from self._below(cls, members, 1)

    def _below(self, parent: Ref, inherited: Env, depth: int) -> Iterator[tuple[Ref, Env]]:
        name = _class_name(parent)
        if name is None or depth >= MAX_DEPTH:
            return
        for file, child in self._by_base.get(name, ()):
            if seen_from(file.path, file.data, name, [parent.file.path]) is None:
                continue
            for node in _declared(file, child):
                found = Ref(file, node)
                members = {**inherited, **class_members(found)}
                if node.type != "abstract_class_declaration":
                    yield found, members
                yield from self._below(found, members, depth + 1)


def class_tools(subclasses: Subclasses, res: Resolver, call: Ref, read: Reader) -> tuple[str, Found] | None:
    """The tools a registration in a base class makes: ``read`` once per concrete subclass (at its
    name), and the base class's name; ``None`` unless the call's name is ``this.<member>`` in a class."""
    args = arguments(call.node)
    if not args or not _reads_this(unwrap(args[0])):
        return None
    base = enclosing(call.node, _CLASSES)
    name = _class_name(call.at(base)) if base is not None else None
    if base is None or name is None:
        return None
    found: Found = []
    for cls, members in subclasses.of(call.at(base)):
        for _, info in read(res.with_members(members), call)[:1]:
            found.append((cls.at(cls.node.child_by_field_name("name") or cls.node), _named(res, info, members)))
    return (name, found) if found else None


def _named(res: Resolver, info: ToolInfo, members: Env) -> ToolInfo:
    """``info``, named by the class's static name when the name is handed to the constructor."""
    if info.name is not None:
        return info
    return replace(info, name=next(filter(None, (res.string(members.get(k)) for k in STATIC_NAMES)), None))


def framework_tools(subclasses: Subclasses, res: Resolver, file: SourceFile) -> Found:
    """mcp-framework: each concrete class of ``file`` that extends its ``MCPTool`` (and each class of
    the tree that extends one of those) is a tool, read from its ``name``, ``title`` and
    ``annotations`` members, at its name."""
    found: Found = []
    for name, base in _EXTENDS.findall(file.data):
        for node in _declared(file, name.decode()) if base == FRAMEWORK_BASE else ():
            for cls, members in subclasses.family(Ref(file, node)):
                found.append((cls.at(cls.node.child_by_field_name("name") or cls.node), _member_info(res, members)))
    return found


def _member_info(res: Resolver, members: Env) -> ToolInfo:
    annotations = members.get("annotations")
    found, preset = read_annotations(res, annotations) if annotations is not None else (NO_ANNOTATIONS, None)
    return ToolInfo(res.string(members.get("name")), res.string(members.get("title")), found, preset)


def class_members(cls: Ref) -> Env:
    """A class's own fields with a value and its getters that return an expression, by name."""
    body = cls.node.child_by_field_name("body")
    members: Env = {}
    for member in named(body) if body is not None else ():
        key = member.child_by_field_name("name") or member.child_by_field_name("property")
        if key is None or key.type != "property_identifier":
            continue
        value = member.child_by_field_name("value") if member.type in _FIELDS else _getter_value(member)
        if value is not None:
            members[cls.file.text(key)] = cls.at(value)
    return members


def _getter_value(member: Node) -> Node | None:
    """What ``get name() { return <expression>; }`` returns."""
    if member.type != "method_definition" or not any(c.type == "get" for c in member.children):
        return None
    body = member.child_by_field_name("body")
    for statement in named(body) if body is not None else ():
        if statement.type == "return_statement" and statement.named_child_count:
            return statement.named_children[0]
    return None


def _reads_this(node: Node) -> bool:
    """Whether ``node`` is ``this.<member>``."""
    base = node.child_by_field_name("object") if node.type == "member_expression" else None
    return base is not None and base.type == "this"


def _class_name(cls: Ref) -> str | None:
    name = cls.node.child_by_field_name("name")
    return cls.file.text(name) if name is not None else None


def _declared(file: SourceFile, name: str) -> list[Node]:
    """The classes named ``name`` that ``file`` declares."""
    typed = GRAMMARS[extension(file.path)][1] == "tree_sitter_typescript"  # JavaScript has no abstract class
    found = captures(file, _TYPED_CLASSES if typed else _CLASSES_QUERY).get("cls", [])
    return [node for node in found if _class_name(Ref(file, node)) == name]


def listed_instances(modules: list[SourceFile], res: Resolver, listed: Ref, depth: int = 0) -> Found:
    """The tools a ``tools/list`` handler (or a loop) lists as instances of the project's classes
    (``[new ReadDataTool(), ...]``, or constants holding them; either branch of a conditional; what a
    project function returns): one per class, read from its fields (``name``, ``title``,
    ``annotations``), at the class's name."""
    target = res.resolve(listed)[0]
    if unwrap(target.node).type == "identifier" and (held := _held(target)) is not None:
        target = held  # const readData = new ReadDataTool(): not a constant the index keeps
    node = unwrap(target.node)
    if depth > 3:
        return []
    function = node.child_by_field_name("function") if node.type == "call_expression" else None
    helper = res.functions(target.file.text(function), target.file) if function is not None else None
    if helper is not None and (returned := returned_object(helper.node)) is not None and returned.type == "array":
        return listed_instances(modules, res, helper.at(returned), depth + 1)  # createTools(deps) returning them
    if node.type in ("array", "ternary_expression"):
        parts = node.named_children if node.type == "array" else [
            c for c in (node.child_by_field_name("consequence"), node.child_by_field_name("alternative")) if c]
        found = [f for part in parts for f in listed_instances(modules, res, target.at(part), depth + 1)]
        return list({(at.file.path, at.node.start_byte): (at, info) for at, info in found}.values())
    constructor = node.child_by_field_name("constructor") if node.type == "new_expression" else None
    cls = class_named(modules, target.file.text(constructor), target.file) if constructor is not None else None
    if cls is None:
        return []
    return [(cls.at(cls.node.child_by_field_name("name") or cls.node), _member_info(res, class_members(cls)))]


def _held(ref: Ref) -> Ref | None:
    """What a name holds: a ``const`` of a block around it, else of its module."""
    return declared_before(ref, ref.text()) or declared_in_module(ref, ref.text())


def class_named(modules: list[SourceFile], name: str, file: SourceFile) -> Ref | None:
    """The class ``name`` that ``file`` sees: its own, or one a module it imports declares."""
    declares = re.compile(rb"\bclass\s+%s\b" % re.escape(name.encode()))
    homes = [f for f in modules if declares.search(f.data) is not None]
    at = seen_from(file.path, file.data, name, [f.path for f in homes])
    found = _declared(homes[at], name) if at is not None else []
    return Ref(homes[at], found[0]) if found and at is not None else None
