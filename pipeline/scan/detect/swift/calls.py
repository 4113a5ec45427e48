"""What the Swift detector reads of one call or declaration: the row it makes, the hints and names
it carries, how a call's arguments bind to a function's parameters, and the type a file defines."""

from __future__ import annotations

import re

from pipeline.scan.detect.model import NO_ANNOTATIONS, TRUE, Annotations, Tool, hint_field
from pipeline.scan.detect.sdks import SDKS
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.swift.values import (
    ANNOTATION_TYPES,
    Arguments,
    attribute_arguments,
    call_arguments,
    callee,
    labelled_annotations,
)
from pipeline.scan.detect.syntax import Node, named

#: type names a file defining its own hint type declares (then it is a type definition, not tools)
DEFINED_TYPES = ("ToolAnnotations", "Annotations")


def tool(file: SourceFile, node: Node, sdk: str, name: str | None, *, form: str, annotations: Annotations,
          via: str = "direct", tool_title: str | None = None) -> Tool:
    return Tool(path=file.path, line=file.line(node), sdk=sdk, tool_name=name,
                rule=f"{SDKS[sdk].language}.{sdk}.{form}", annotations=annotations, via=via,
                tool_title=tool_title, is_mcp=SDKS[sdk].is_mcp)


def annotations_value(file: SourceFile, value: Node | None) -> bool:
    """Whether a property's value is a ``Tool.Annotations(..)`` / ``.init(title:readOnlyHint:..)``."""
    if value is None or value.type != "call_expression" or callee(file, value) not in ANNOTATION_TYPES:
        return False
    return "name" not in dict(call_arguments(file, value))


def is_tool(file: SourceFile, call: Node) -> bool:
    """``Tool(name:..)`` / ``MCP.Tool(name:..)``, or an inferred ``.init(name:.., inputSchema:..)``."""
    name = callee(file, call)
    if name not in ("Tool", "MCP.Tool", ".init"):
        return False
    labels = {label for label, _ in call_arguments(file, call)}
    if name in ("Tool", "MCP.Tool"):
        return "name" in labels and bool(labels & {"inputSchema", "description"})
    return name == ".init" and {"name", "inputSchema"} <= labels


def hints(file: SourceFile, args: Arguments) -> Annotations:
    """``hints: [.readOnly, ..]`` (each listed hint true) or the older ``readOnlyHint: true`` labels."""
    written = [(label, value) for label, value in args if label == "hints" or hint_field(label or "")]
    result = labelled_annotations(file, [a for a in written if a[0] != "hints"], "attribute", {})
    for _, value in (a for a in written if a[0] == "hints"):
        members = named(value) if value.type == "array_literal" else [value]
        for member in members:
            hint = hint_field(file.text(member).strip())
            result = result.with_hint(hint, TRUE) if hint else result.with_source("attribute")
    declared = any(getattr(result, h) != "unset" for h in ("read_only_hint", "destructive_hint",
                                                            "idempotent_hint", "open_world_hint"))
    return result if declared or result.title else NO_ANNOTATIONS


def attribute(file: SourceFile, declaration: Node, name: str) -> Node | None:
    modifiers = next((c for c in declaration.children if c.type == "modifiers"), None)
    for attribute in named(modifiers) if modifiers is not None else []:
        user_type = next((c for c in attribute.children if c.type == "user_type"), None)
        if attribute.type == "attribute" and file.text(user_type) == name:
            return attribute
    return None


def naming(file: SourceFile, node: Node) -> str:
    parent = node.parent
    while parent is not None and parent.type != "class_declaration":
        parent = parent.parent
    server = attribute(file, parent, "MCPServer") if parent is not None else None
    naming = dict(attribute_arguments(file, server)).get("toolNaming") if server is not None else None
    return file.text(naming).lstrip(".") if naming is not None else "functionName"


def convert(name: str, naming: str) -> str:
    if naming == "snakeCase":
        return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()
    return name[:1].upper() + name[1:] if naming == "pascalCase" else name


def parameters(file: SourceFile, function: Node) -> tuple[tuple[str, str | None], ...]:
    found: list[tuple[str, str | None]] = []
    for parameter in (c for c in function.children if c.type == "parameter"):
        names = [file.text(c) for c in parameter.children if c.type == "simple_identifier"]
        if names:
            label = names[0] if names[0] != "_" else None
            found.append((names[-1], label))
    return tuple(found)


def defaults(file: SourceFile, function: Node) -> tuple[str | None, ...]:
    """Each parameter's default value as written (what follows its ``=``), in order."""
    found: list[str | None] = []
    named = False  # the last parameter is one ``parameters`` lists (it has a name)
    for i, child in enumerate(function.children):
        if child.type == "parameter":
            named = any(c.type == "simple_identifier" for c in child.children)
            if named:
                found.append(None)
        elif function.field_name_for_child(i) == "default_value" and found and named:
            found[-1] = file.text(child)
    return tuple(found)


def bind(file: SourceFile, params: tuple[tuple[str, str | None], ...], args: Arguments) -> list[Node | None]:
    """The argument written for each parameter (by label, else by position among unlabelled ones)."""
    labelled = {label: value for label, value in args if label is not None}
    positional = iter(value for label, value in args if label is None)
    return [labelled.get(label) if label is not None else next(positional, None) for _, label in params]


def enclosing_function(node: Node) -> Node | None:
    parent = node.parent
    while parent is not None and parent.type != "function_declaration":
        parent = parent.parent
    return parent


def type_definition(file: SourceFile, nodes: dict[str, list[Node]]) -> str | None:
    if b"macro MCPTool(" in file.data:
        return "sdk-source"
    for declaration in nodes.get("class", []):
        name = file.text(declaration.child_by_field_name("name"))
        if name in DEFINED_TYPES and b"readOnlyHint" in file.data[declaration.start_byte : declaration.end_byte]:
            outer = declaration.parent.parent if declaration.parent is not None else None
            outer_name = file.text(outer.child_by_field_name("name")) if outer is not None else ""
            return "sdk-source" if outer_name == "Tool" else "type-definition"
    return None
