"""Phase 1 for Python: the project's own registration wrappers.

A wrapper is a class method or a top-level function whose body calls ``<x>.tool(...)`` /
``<x>.add_tool(...)`` on an SDK object, on ``self.<attr>``, on an import or on a parameter, and
passes on what it is given: it returns the SDK's decorator, forwards ``**kwargs`` or a parameter,
or applies it to a parameter or to a function it defines (``mcp.tool(name=name)(inner)``). A
decorator that does not call the SDK, or a function registering fixed tools
(``def register(mcp): mcp.tool(...)(search)``), is not a wrapper.

A wrapper records which of its parameters a call binds by position and which it forwards to the
SDK under which keyword, so that a use, ``@wrap(mcp, "name")`` or ``wrap(mcp, "name")(fn)``,
names its tool and finds its SDK through the arguments given there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.scan.detect.model import hint_field
from pipeline.scan.detect.python.annotations import Entry, entries
from pipeline.scan.detect.python.scope import Kind, Node, Scope, classify, keywords, positionals, text
from pipeline.scan.detect.syntax import descendants, enclosing, named

REGISTER_METHODS = ("tool", "add_tool")


@dataclass(frozen=True)
class Wrapper:
    """A project's own registration helper."""

    name: str
    """``Class.method`` or ``function``."""
    receiver: str
    """text of the receiver the wrapper calls the SDK on (``mcp``, ``self._mcp``)."""
    kind: Kind | None
    """the SDK, when the wrapper's own module tells it."""
    inner_annotations: tuple[Entry, ...] | None
    """annotations the wrapper itself passes, when written as a literal."""
    params: tuple[str, ...] = ()
    """the wrapper's parameters that a call can bind by position (``self`` left out)."""
    forwards: tuple[tuple[str, str], ...] = ()
    """(SDK keyword, wrapper parameter) for each argument passed on as is: ``name=name``."""
    defaults: tuple[tuple[str, str | None], ...] = ()
    """every parameter with its default's text (``None`` without one): the inner annotations may
    take a hint from one (``ToolAnnotations(readOnlyHint=read_only)``)."""
    unread: bool = False
    """the wrapper passes annotations it computes (``{...} if read_only else None``): ``dynamic``."""

    def forwarded(self, keyword: str) -> str | None:
        """The wrapper parameter the SDK receives as ``keyword``, if any."""
        return next((param for key, param in self.forwards if key == keyword), None)


def wrapper_at(data: bytes, scope: Scope, call: Node, sdk: Kind | None) -> tuple[Wrapper, Node, str | None] | None:
    """The wrapper whose body makes the SDK ``call``, its definition and owning class, if it is one."""
    function = call.child_by_field_name("function")
    if function is None or function.type != "attribute":
        return None
    method = text(data, function.child_by_field_name("attribute"))
    definition = _outermost_function(call) if method in REGISTER_METHODS else None
    receiver = text(data, function.child_by_field_name("object"))
    if definition is None or not _registers_on(data, scope, definition, function.child_by_field_name("object")):
        return None
    if not _passes_through(data, call, definition):
        return None
    name, owner = text(data, definition.child_by_field_name("name")), _owner_class(data, definition)
    if name == "__init__" or (owner is None and not _top_level(definition)):
        return None
    given = keywords(data, call.child_by_field_name("arguments"))
    inner = entries(data, _assigned(data, definition, given.get("annotations")))
    kind = classify(scope.bindings.get(receiver)) or sdk
    own = {p for p, _ in parameters(data, definition)}
    forwards = tuple((key, text(data, value)) for key, value in given.items()
                     if value.type == "identifier" and text(data, value) in own)
    first = positionals(call.child_by_field_name("arguments"))[:1]
    if method == "tool" and first and first[0].type == "identifier" and text(data, first[0]) in own:
        forwards += (("name", text(data, first[0])),)  # mcp.tool(name) takes the name first
    if method == "add_tool" and first and first[0].type == "identifier" and text(data, first[0]) in own:
        forwards += (("fn", text(data, first[0])),)  # mcp.add_tool(fn): a call of the wrapper names the tool
    applied = _applied_to(data, call)
    if method == "tool" and applied in own:
        forwards += (("fn", applied),)  # mcp.tool(name=name)(fn): so does the function it is applied to
    written = given.get("annotations")
    unread = written is not None and inner is None and not (written.type == "identifier" and text(data, written) in own)
    wrapper = Wrapper(f"{owner}.{name}" if owner else name, receiver, kind, tuple(inner) if inner else None,
                      _positional_params(data, definition), forwards, parameters(data, definition), unread)
    return wrapper, definition, owner


def definition_decorator_at(data: bytes, call: Node, sdk: Kind | None) -> tuple[Wrapper, Node] | None:
    """A module-level decorator factory that builds a tool definition's ``ToolAnnotations`` (``call``)
    from its own parameters, ``def tool_def(*, title, read_only_hint=False): def decorator(fn):
    return Definition(fn, annotations=ToolAnnotations(readOnlyHint=read_only_hint)); return
    decorator`` (dbt-mcp's ``dbt_mcp_tool``): each use defines one tool, registered elsewhere.
    Answers the wrapper and the factory's definition."""
    definition = _outermost_function(call)
    if definition is None or not _top_level(definition) or _owner_class(data, definition) is not None:
        return None
    found = entries(data, call) or []
    defaults = parameters(data, definition)
    own = {name for name, _ in defaults}
    if not any(kind == "field" and hint_field(key) and value in own for kind, key, value in found):
        return None
    if not _returns_inner(data, definition):
        return None
    forwards = tuple((key, key) for key in ("name", "title") if key in own)
    name = text(data, definition.child_by_field_name("name"))
    return Wrapper(name, "", sdk, tuple(found), _positional_params(data, definition), forwards, defaults), definition


def _returns_inner(data: bytes, definition: Node) -> bool:
    """Whether ``definition`` returns a function it defines (it is a decorator factory)."""
    body = definition.child_by_field_name("body")
    inner = {text(data, f.child_by_field_name("name")) for f in named(body) if f.type == "function_definition"} \
        if body is not None else set()
    return any(r.named_children and text(data, r.named_children[0]) in inner
               for r in named(body) if r.type == "return_statement") if body is not None else False


def _assigned(data: bytes, definition: Node, value: Node | None) -> Node | None:
    """``value``, or when it names a variable the wrapper assigns once (``hints = ToolAnnotations(...)``),
    what it assigns."""
    if value is None or value.type != "identifier":
        return value
    name = text(data, value)
    found = [a.child_by_field_name("right") for a in descendants(definition, ("assignment",))
             if text(data, a.child_by_field_name("left")) == name]
    return found[0] if len(found) == 1 else value


def _top_level(node: Node) -> bool:
    parent = node.parent
    if parent is not None and parent.type == "decorated_definition":
        parent = parent.parent
    return parent is not None and parent.type == "module"


def parameters(data: bytes, node: Node) -> tuple[tuple[str, str | None], ...]:
    """A function's parameters with their default's text (``self`` / ``cls`` left out)."""
    params = node.child_by_field_name("parameters")
    found: list[tuple[str, str | None]] = []
    for child in params.named_children if params is not None else []:
        if child.type in ("identifier", "typed_parameter"):
            ident = child if child.type == "identifier" else child.named_children[0]
            found.append((text(data, ident), None))
        elif child.type in ("default_parameter", "typed_default_parameter"):
            value = text(data, child.child_by_field_name("value"))
            found.append((text(data, child.child_by_field_name("name")), value))
    return tuple(p for p in found if p[0] not in ("self", "cls"))


def parameter_names(data: bytes, node: Node) -> set[str]:
    """Every name a function's parameters bind: plain, typed, defaulted and splat (``*tools``)."""
    params = node.child_by_field_name("parameters")
    return {_PARAMETER_END.split(text(data, p))[0].strip().lstrip("*") for p in named(params)} if params else set()


_PARAMETER_END = re.compile(r"[:=]")


def _outermost_function(node: Node) -> Node | None:
    """The function a wrapper is: a method, or the outermost function of the module."""
    found, parent = None, node.parent
    while parent is not None and parent.type != "class_definition":
        if parent.type == "function_definition":
            found = parent
        parent = parent.parent
    return found


def _registers_on(data: bytes, scope: Scope, definition: Node, receiver: Node | None) -> bool:
    """Whether the receiver is an SDK object, ``self.<x>``, an import or a parameter of the wrapper."""
    label = text(data, receiver)
    if label.startswith("self.") or classify(scope.bindings.get(label)) or label in scope.imports:
        return True
    if receiver is None or receiver.type != "identifier":
        return False
    functions = [definition, *(f for f in [enclosing(receiver, ("function_definition",))] if f is not None)]
    return any(label in {p for p, _ in parameters(data, f)} for f in functions)


def _passes_through(data: bytes, call: Node, definition: Node) -> bool:
    """Whether an SDK call registers what the wrapper is given: its result is returned, it forwards
    ``**kwargs`` or a parameter, or it is applied to a parameter or a function defined inside the
    wrapper (``mcp.tool(**kw)(fn)``). ``def register(mcp): mcp.tool(...)(known_fn)`` registers
    tools itself and is no wrapper."""
    parent = call.parent
    if parent is not None and parent.type == "return_statement":
        return True
    args = call.child_by_field_name("arguments")
    values = [c.child_by_field_name("value") if c.type == "keyword_argument" else c
              for c in (args.named_children if args is not None else [])]
    if any(v is not None and v.type == "dictionary_splat" for v in values):
        return True
    if parent is not None and parent.type == "call" and parent.child_by_field_name("function") == call:
        values += positionals(parent.child_by_field_name("arguments"))[:1]
    given = {p for f in descendants(definition, ("function_definition",)) for p, _ in parameters(data, f)}
    given |= {text(data, f.child_by_field_name("name")) for f in descendants(definition, ("function_definition",))}
    return any(v is not None and v.type == "identifier" and text(data, v) in given for v in values)


def _applied_to(data: bytes, call: Node) -> str | None:
    """The name ``call`` is applied to, when its result is called at once with one (``mcp.tool(...)(fn)``,
    or with a call of a decorator on one: ``mcp.tool(...)(async_background(fn))``)."""
    parent = call.parent
    if parent is None or parent.type != "call" or parent.child_by_field_name("function") != call:
        return None
    first = positionals(parent.child_by_field_name("arguments"))[:1]
    if first and first[0].type == "call":
        first = positionals(first[0].child_by_field_name("arguments"))[:1]
    return text(data, first[0]) if first and first[0].type == "identifier" else None


def _positional_params(data: bytes, node: Node) -> tuple[str, ...]:
    """The parameters a call can fill by position, in order (``self`` / ``cls`` left out)."""
    params = node.child_by_field_name("parameters")
    found: list[str] = []
    for child in params.named_children if params is not None else []:
        if child.type in ("positional_separator", "comment"):
            continue
        ident = child if child.type == "identifier" else child.child_by_field_name("name") or (
            child.named_children[0] if child.named_children else None)
        if ident is None or ident.type != "identifier":
            break  # *args, a bare * or **kwargs: what follows is keyword-only
        found.append(text(data, ident))
    return tuple(p for p in found if p not in ("self", "cls"))


def _owner_class(data: bytes, node: Node) -> str | None:
    parent = node.parent
    while parent is not None and parent.type not in ("class_definition", "function_definition", "module"):
        parent = parent.parent
    if parent is None or parent.type != "class_definition":
        return None
    return text(data, parent.child_by_field_name("name"))
