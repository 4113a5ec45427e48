"""How the TypeScript detector's rows are made, outside its own state.

``line`` is the line of the callee's name for a call that defines one tool (``registerTool``,
``tool``, ``addTool({..})``, ``createTool``, a wrapper call), and the line of the object
literal's ``{`` for a tool object reached through a list, a constant or a factory (``line_node``).
A Mastra ``createTool(...)`` is also known by the variable it is assigned to (``declared_name``).
A wrapper's call registers what the registration inside the wrapper reads (``through``), each
wrapper's parameters bound to the arguments it is called with.
Exclusions (``exclusion``): MCP client code reading hints, a project's own ``ToolAnnotations`` type,
and a copy of an SDK's ``McpServer``/``FastMCP`` class.
A file's calls are read only where a form's name occurs as a whole identifier (``has_identifier``).
A file importing no tool library registers on the server it is given when the call's receiver is a
parameter of a function around it (``given``) and its package declares the MCP SDK.
"""

from __future__ import annotations

import re

from pipeline.scan.detect.model import Exclusion
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import occurrences
from pipeline.scan.detect.typescript import forms
from pipeline.scan.detect.typescript.functions import params
from pipeline.scan.detect.typescript.imports import Imports
from pipeline.scan.detect.typescript.resolver import Resolver, bind
from pipeline.scan.detect.typescript.values import Node, Ref, arguments, callee, unwrap
from pipeline.scan.detect.typescript.wrappers import Wrapper

_HINT_WORDS = ("readonlyhint", "destructivehint", "idempotenthint", "openworldhint")
#: ``\bclass`` written ``class(?<=\bclass)``: a literal first is found by a fast scan (ten times faster)
_SDK_CLASS = re.compile(rb"class(?<=\bclass)\s+(?:McpServer|FastMCP)\b")
_SDK_METHOD = re.compile(rb"^[ \t]*(?:public\s+)?(?:registerTool|tool|addTool)\s*(?:<[^>\n]*>)?\(", re.M)
_OWN_TYPE = re.compile(rb"\b(?:interface|type)\s+(\w*ToolAnnotations\w*)\b")


def line_node(node: Node) -> Node:
    """The callee's name for a call, else the node itself (an object literal)."""
    called = callee(node) if node.type == "call_expression" else None
    return called[1] if called is not None else node


def declared_name(call: Ref) -> str | None:
    """The name the value of ``call`` is declared as (``const search = createTool(...)``), else ``None``."""
    parent = call.node.parent
    while parent is not None and parent.type in ("as_expression", "satisfies_expression", "parenthesized_expression"):
        parent = parent.parent
    if parent is None or parent.type != "variable_declarator":
        return None
    return call.file.text(parent.child_by_field_name("name"))


def through(res: Resolver, call: Ref, outer: Wrapper) -> forms.Found:
    """What the registration inside wrapper ``outer`` reads for ``call``: each wrapper's
    parameters bound to the arguments it is called with, down to the one that calls the SDK."""
    wrapper, at = outer, call
    while True:
        args = [_argument(res, at.at(a)) for a in arguments(at.node)]
        res = res.within(wrapper.function, bind(wrapper.function, args, res))
        if wrapper.inner is None:
            break
        wrapper, at = wrapper.inner, wrapper.call
    method = callee(wrapper.call.node)
    read = {"registerTool": forms.register_tool, "tool": forms.legacy_tool}.get(method[0] if method else "")
    return read(res, wrapper.call) if read else forms.object_tools(res, wrapper.call, False)


def _argument(res: Resolver, arg: Ref) -> Ref:
    """A wrapper call's argument as its parameter is bound: a name or member that stands for a
    string (``TOOLS.list``), or a loop variable bound to an object, is followed now, since it is
    read through the parameter later; anything else is kept as written (a preset keeps its name)."""
    target, constant = res.resolve(arg)
    if target.node.type in ("string", "template_string"):
        return target
    return target if target.node.type == "object" and constant is None and target.node != unwrap(arg.node) else arg


_IDENTIFIER_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")


def has_identifier(data: bytes, name: bytes) -> bool:
    """Whether ``name`` occurs in ``data`` with no identifier character on either side."""
    size = len(name)
    return any(_outside_identifier(data[at - 1 : at]) and _outside_identifier(data[at + size : at + size + 1])
               for at in occurrences(data, name))


def _outside_identifier(char: bytes) -> bool:
    """Whether a one-byte slice (empty at either end of the data) cannot continue an identifier."""
    return not char or char[0] not in _IDENTIFIER_BYTES


def exclusion(file: SourceFile, imports: Imports) -> Exclusion | None:
    """Why a file that gave no rows is left out (the SDK's own source, a type definition, MCP client code)."""
    # the expressions run only where the scan found their words (a match of ``_SDK_CLASS`` holds "mcp")
    sdk_class = file.has_any(("mcp",)) and _SDK_CLASS.search(file.data)
    if sdk_class and _SDK_METHOD.search(file.data):
        return Exclusion(file.path, "sdk-source", "defines the McpServer/FastMCP registration API")
    if file.has_any(("toolannotations",)) and (own := _OWN_TYPE.search(file.data)) is not None:
        return Exclusion(file.path, "type-definition", f"declares {own.group(1).decode()}")
    if not (imports.mcp_client and not imports.mcp_server_proper and file.has_any(_HINT_WORDS)):
        return None
    server = any(m in file.lower for m in (b"new mcpserver(", b"new fastmcp(", b"createmcphandler("))
    return None if server else Exclusion(file.path, "client-code", "imports the MCP client and reads hints")


#: the nodes whose parameters a registration's receiver may be (``function setupTools(server) {...}``)
_FUNCTIONS = frozenset(("function_declaration", "function_expression", "arrow_function", "method_definition",
                        "generator_function_declaration", "function"))


def given(call: Ref) -> bool:
    """Whether the receiver of the member call ``call`` (``server`` of ``server.tool(...)``) is a
    parameter of a function around it, or a name it destructures from one (``function
    register({ mcp }: Context)``): the server the function is given."""
    function = call.node.child_by_field_name("function")
    receiver = function.child_by_field_name("object") if function is not None else None
    if receiver is None or receiver.type != "identifier" or receiver.text is None:
        return False
    name, node = receiver.text, call.node.parent
    while node is not None:
        if node.type in _FUNCTIONS and any(name in _bound(p) for p in params(node, call.file)):
            return True
        node = node.parent
    return False


def _bound(pattern: Node) -> set[bytes]:
    """The names a parameter pattern binds: an identifier, or those an object pattern destructures
    (``{ mcp }``, ``{ server: mcp }``, ``{ mcp = fallback }``), one level deep."""
    if pattern.type == "identifier":
        return {pattern.text or b""}
    if pattern.type != "object_pattern":
        return set()
    names = set()
    for part in pattern.named_children:
        if part.type == "shorthand_property_identifier_pattern":
            names.add(part.text or b"")
        elif part.type == "pair_pattern" and (value := part.child_by_field_name("value")) is not None and \
                value.type == "identifier":
            names.add(value.text or b"")
        elif part.type == "object_assignment_pattern" and (left := part.child_by_field_name("left")) is not None:
            names.add(left.text or b"")
    return names
