"""Reading tool definitions and their annotations from TypeScript/JavaScript values.

Names are followed one level through a ``Resolver``: a wrapper's parameter bound to a call
site's argument, a member of such an argument (``opts.annotations``), or a project constant
learnt in the index phase (``READ_ONLY``, ``listAnnotations``, ``TOOLS``). Helpers that return
an object literal (``readOnly("T")``) are evaluated with their parameters bound. Hint keys
must be the wire names (``readOnlyHint`` ...): the TypeScript SDKs pass the object through, so
``readOnly: true`` would reach a client under that non-spec name.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from pipeline.scan.detect.model import DYNAMIC, FALSE, NO_ANNOTATIONS, TRUE, WIRE_NAMES, Annotations
from pipeline.scan.detect.syntax import descendants
from pipeline.scan.detect.typescript_values import (
    TRANSPARENT,
    Env,
    Lookup,
    Ref,
    arguments,
    enclosing_function,
    entries,
    is_parameter,
    param_defaults,
    params,
    returned_name,
    returned_object,
    string_value,
    unwrap,
)

#: wire name -> canonical hint field (the only keys the TypeScript SDKs send as hints)
HINT_KEYS = {wire: canonical for canonical, wire in WIRE_NAMES.items()}
_LIST_METHODS = frozenset({"map", "filter", "concat", "slice", "flat", "sort", "toSorted"})


@dataclass(frozen=True)
class Resolver:
    """Follows names one level: bound parameters first, then the project's constants."""

    consts: Lookup
    """constant name -> its value (object, array or string literal)."""
    functions: Lookup
    """function name -> its node (helpers returning an object literal)."""
    env: Env = field(default_factory=dict)
    """names bound for this evaluation (wrapper parameters, loop variables)."""
    scopes: tuple[tuple[Ref, Env], ...] = ()
    """a function's parameters bound, read only inside that function (the wrappers of a call,
    outermost first): each level's ``config`` is its own."""
    members: Env = field(default_factory=dict)
    """what ``this.<name>`` stands for (a class's fields and getters, see ``typescript_classes``)."""
    local: Callable[[Ref, str], Ref | None] | None = None
    """where a file declares a name several times (``const toolName = ...`` in each of five
    loops), the declaration in the innermost function around the reference."""

    def bound(self, env: Env) -> Resolver:
        """A resolver with more names bound."""
        return replace(self, env={**self.env, **env})

    def with_members(self, members: Env) -> Resolver:
        """A resolver reading ``this.<name>`` as ``members`` give it."""
        return replace(self, members=members)

    def within(self, function: Ref, env: Env) -> Resolver:
        """A resolver with ``function``'s parameters bound inside its body only."""
        return replace(self, scopes=(*self.scopes, (function, env)))

    def _scoped(self, ref: Ref, name: str) -> Ref | None:
        """The value ``name`` is bound to in the innermost scope around ``ref``."""
        for function, env in reversed(self.scopes):
            if name in env and _inside(ref, function):
                return env[name]
        return None

    def resolve(self, ref: Ref) -> tuple[Ref, str | None]:
        """The value ``ref`` stands for, and the constant's name when one was followed."""
        node = unwrap(ref.node)
        ref = ref.at(node)
        if node.type in ("identifier", "shorthand_property_identifier"):
            name = ref.text()
            bound = self._scoped(ref, name) if self.scopes else None
            if bound is None and name in self.env:
                bound = self.env[name]
            if bound is not None:
                return bound.at(unwrap(bound.node)), None
            if is_parameter(ref, name):  # a function's parameter or a loop's variable: never a constant
                return ref, None
            declared = self.local(ref, name) if self.local is not None else None
            if declared is not None and unwrap(declared.node).type in ("identifier", "member_expression"):
                return self.resolve(declared)  # const toolName = commandName: what commandName stands for
            found = declared or self.consts(name, ref.file)
            return (found.at(unwrap(found.node)), name) if found is not None else (ref, None)
        if node.type == "member_expression":
            return self._member(ref)
        return ref, None

    def _member(self, ref: Ref) -> tuple[Ref, str | None]:
        base, prop = ref.node.child_by_field_name("object"), ref.node.child_by_field_name("property")
        if base is not None and prop is not None and base.type == "this" and self.members:
            member = self.members.get(ref.file.text(prop))
            return (self.resolve(member)[0], None) if member is not None else (ref, None)
        base = unwrap(base) if base is not None else None  # (tool as { annotations?: ... }).annotations
        if base is None or prop is None or base.type not in ("identifier", "member_expression"):
            return ref, None
        owner, name = self.resolve(ref.at(base))  # a member of a member: tool.schema.name
        if owner.node.type == "identifier" and (owner.file is not ref.file or owner.node != base) and self.scopes:
            owner = replace(self, scopes=()).resolve(owner)[0]  # a wrapper's argument, where the call wrote it
        value = self.get(owner, ref.file.text(prop)) if owner.node.type == "object" else None
        if value is None:
            return ref, None
        target = value.at(unwrap(value.node))
        if target.node.type in ("identifier", "shorthand_property_identifier"):  # { name } -> const name = "x"
            target = self.resolve(target)[0]
        return target, f"{name}.{ref.file.text(prop)}" if name else None

    def get(self, obj: Ref, key: str, spreads: bool = True) -> Ref | None:
        """The value of ``key`` in an object literal (the last one written), spreads followed once."""
        found: Ref | None = None
        for name, value, _ in entries(obj, self.consts):
            if name == key:
                found = value
            elif name is None and spreads:
                inner, _ = self.resolve(value)
                if inner.node.type == "object":
                    found = self.get(inner, key, spreads=False) or found
        return found

    def path(self, obj: Ref, keys: tuple[str, ...]) -> Ref | None:
        """The value at a key path (``("mcp", "annotations")``)."""
        current: Ref | None = obj
        for key in keys:
            if current is None:
                return None
            current, _ = self.resolve(current)
            current = self.get(current, key) if current.node.type == "object" else None
        return current

    def string(self, ref: Ref | None, depth: int = 0) -> str | None:
        """A string literal, following a name one level; ``name || "default"`` (or ``??``) gives
        the default when ``name`` is a wrapper's parameter that the call leaves out."""
        if ref is None:
            return None
        node = unwrap(ref.node)
        operator = node.child_by_field_name("operator") if node.type == "binary_expression" else None
        if operator is not None and ref.file.text(operator) in ("||", "??"):
            left, right = ref.at(node.child_by_field_name("left") or node), node.child_by_field_name("right")
            found = self.string(left)
            return found if found or not self._left_out(left) or right is None else self.string(ref.at(right))
        target = self.resolve(ref)[0]
        if target.node.type == "template_string" and depth < 3 and \
                any(c.type == "template_substitution" for c in target.node.named_children):
            return self._template(target, depth)
        return string_value(target)

    def _template(self, ref: Ref, depth: int) -> str | None:
        """A template literal whose every ``${...}`` is a string we can read (``pulumi-cli-${name}``
        with ``name`` a loop's key), else ``None``."""
        parts: list[str] = []
        for child in ref.node.named_children:
            if child.type == "string_fragment":
                parts.append(ref.file.text(child))
            elif child.type == "template_substitution" and child.named_child_count:
                value = self.string(ref.at(child.named_children[0]), depth + 1)
                if value is None:
                    return None
                parts.append(value)
            else:  # an escape sequence: not read
                return None
        return "".join(parts)

    def _left_out(self, ref: Ref) -> bool:
        """Whether ``ref`` names a parameter of a bound function that the call passes nothing for
        (or passes ``undefined``)."""
        node = unwrap(ref.node)
        if node.type == "undefined" or (node.type == "identifier" and ref.text() == "undefined"):
            return True
        if node.type != "identifier":
            return False
        name = ref.text()
        for function, env in reversed(self.scopes):
            if _inside(ref, function) and name in {function.file.text(p) for p in params(function.node, function.file)}:
                bound = env.get(name)
                return bound is None or unwrap(bound.node).type == "undefined"
        return False


def _inside(ref: Ref, function: Ref) -> bool:
    """Whether ``ref`` lies within ``function``'s text (the same file)."""
    return function.file is ref.file and function.node.start_byte <= ref.node.start_byte < function.node.end_byte


@dataclass(frozen=True)
class ToolInfo:
    """What a tool definition says: its name, tool-level title and annotations."""

    name: str | None
    title: str | None
    annotations: Annotations
    preset: str | None = None
    """the shared object or helper the annotations came from."""


def read_annotations(res: Resolver, ref: Ref, depth: int = 0) -> tuple[Annotations, str | None]:
    """The annotations an expression declares, and the preset they came from."""
    target, name = res.resolve(ref)
    node = target.node
    if node.type == "object":
        found, preset = _read_object(res, target, depth)
        for hint in _mutated(target):
            found = found.with_hint(hint, DYNAMIC)
        return (found.with_source(f"preset:{name}"), name) if name else (found, preset)
    if node.type in ("undefined", "null"):
        return NO_ANNOTATIONS, None
    if node.type == "call_expression" and depth == 0:
        return _helper(res, target)
    consequence, alternative = node.child_by_field_name("consequence"), node.child_by_field_name("alternative")
    if node.type == "ternary_expression" and consequence is not None and alternative is not None:
        return _either(read_annotations(res, target.at(consequence), depth)[0],
                       read_annotations(res, target.at(alternative), depth)[0]), None
    return Annotations(source="dynamic"), None


def _mutated(obj: Ref) -> frozenset[str]:
    """The hints assigned to a constant object after it is made (``annotations.readOnlyHint = true``
    in its function or module, often in a ``switch``): decided at run time, so ``dynamic``."""
    declarator = obj.node.parent
    name = declarator.child_by_field_name("name") if declarator is not None else None
    if declarator is None or declarator.type != "variable_declarator" or name is None or name.type != "identifier":
        return frozenset()
    scope, file = enclosing_function(declarator) or obj.file.tree.root_node, obj.file
    return file.kept(f"mutated:{declarator.start_byte}", lambda: _assigned(file.text(scope), file.text(name)))


def _assigned(text: str, name: str) -> frozenset[str]:
    """The hints ``text`` assigns as members of ``name`` (``name.readOnlyHint =``, ``name["openWorldHint"] =``)."""
    if f"{name}." not in text and f"{name}[" not in text:
        return frozenset()
    wire = "|".join(HINT_KEYS)
    pattern = rf"(?<![\w$.]){re.escape(name)}\s*(?:\.\s*({wire})|\[\s*[\"']({wire})[\"']\s*\])\s*=(?!=)"
    return frozenset(HINT_KEYS[a or b] for a, b in re.findall(pattern, text))


def _either(first: Annotations, second: Annotations) -> Annotations:
    """``cond ? a : b``: a hint both branches write alike keeps its value; one written in either
    branch only, or differently, is ``dynamic`` (decided at run time)."""
    found = Annotations(source="dynamic")
    for hint in HINT_KEYS.values():
        one, other = getattr(first, hint), getattr(second, hint)
        if one != "unset" or other != "unset":
            found = found.with_hint(hint, one if one == other else DYNAMIC)
    return found


def _helper(res: Resolver, call: Ref) -> tuple[Annotations, str | None]:
    called = helper_object(res, call)
    if called is None:
        return Annotations(source="dynamic"), None
    helper, body = called
    name = call.file.text(call.node.child_by_field_name("function"))
    env = bind(helper, [call.at(a) for a in arguments(call.node)], res)
    found, _ = _read_object(res.bound(env), body, 1)
    for hint in _mutated(body):
        found = found.with_hint(hint, DYNAMIC)
    return found.with_source(f"preset:{name}"), name


def helper_object(res: Resolver, call: Ref) -> tuple[Ref, Ref] | None:
    """The project's function ``call`` calls and the object literal it returns: as written, or
    the local constant it returns by name (``registryCommands(dir)``, ``annotationsFor(kind)``)."""
    function = call.node.child_by_field_name("function")
    helper = res.functions(call.file.text(function), call.file) if function is not None else None
    if helper is None:
        return None
    body = returned_object(helper.node)
    if body is None and (name := returned_name(helper.node)) is not None:
        found = res.resolve(helper.at(name))[0]
        return (helper, found) if found.node.type == "object" else None
    return (helper, helper.at(body)) if body is not None and body.type == "object" else None


def _read_object(res: Resolver, obj: Ref, depth: int) -> tuple[Annotations, str | None]:
    found, preset, constant = Annotations(source="inline"), None, False
    for key, value, from_constant in entries(obj, res.consts):
        if key is None:
            if depth == 0:
                inner, preset_name = read_annotations(res, value, depth + 1)
                found, preset = _merge(found, inner), preset_name or preset
            continue
        constant = constant or from_constant
        if key in HINT_KEYS:
            found = found.with_hint(HINT_KEYS[key], _literal(res, value))
        elif key == "title":
            title = res.string(value)
            found = replace(found, title=title, title_state=TRUE if title is not None else DYNAMIC)
    source = f"preset:{preset}" if preset else "constant" if constant else "inline"
    return found.with_source(source), preset


def _merge(base: Annotations, extra: Annotations) -> Annotations:
    for hint in HINT_KEYS.values():
        if (value := getattr(extra, hint)) != "unset":
            base = base.with_hint(hint, value)
    if extra.title_state != "unset":
        base = replace(base, title=extra.title, title_state=extra.title_state)
    return base


def _literal(res: Resolver, ref: Ref) -> str:
    value, _ = res.resolve(ref)
    return {"true": TRUE, "false": FALSE}.get(value.node.type, DYNAMIC)


def bind(function: Ref, args: list[Ref], res: Resolver) -> Env:
    """A function's parameters bound to call arguments (destructured ``{ name, opts }`` too); a
    parameter the call leaves out is bound to its default (``readOnly = false``)."""
    env: Env = {}
    defaults = param_defaults(function.node)
    for position, pattern in enumerate(params(function.node, function.file)):
        default = defaults[position] if position < len(defaults) else None
        arg = args[position] if position < len(args) else (function.at(default) if default is not None else None)
        if arg is None:
            break
        if pattern.type == "identifier":
            env[function.file.text(pattern)] = arg
        elif pattern.type == "object_pattern":
            target, _ = res.resolve(arg)
            for part in pattern.named_children:
                if part.type == "shorthand_property_identifier_pattern":
                    key = function.file.text(part)
                    value = res.get(target, key) if target.node.type == "object" else None
                    if value is not None:
                        env[key] = value
    return env


def tool_info(res: Resolver, obj: Ref, name_key: str = "name",
              annotation_paths: tuple[tuple[str, ...], ...] = (("annotations",),)) -> ToolInfo:
    """Name, title and annotations of a tool object literal (or a config object)."""
    target, _ = res.resolve(obj)
    if target.node.type != "object":
        return ToolInfo(None, None, Annotations(source="dynamic"))
    name = res.string(res.get(target, name_key))
    title = res.string(res.get(target, "title"))
    for keys in annotation_paths:
        value = res.path(target, keys)
        if value is not None:
            found, preset = read_annotations(res, value)
            return ToolInfo(name, title, found, preset)
    return ToolInfo(name, title, NO_ANNOTATIONS)


def tool_objects(res: Resolver, ref: Ref, depth: int = 0) -> list[Ref]:
    """The tool object literals a list expression holds (arrays, constants, spreads, ``.map``...)."""
    if depth > 4:
        return []
    target, _ = res.resolve(ref)
    node = target.node
    if node.type == "array":
        found: list[Ref] = []
        for element in node.named_children:
            inner = element.named_children[0] if element.type == "spread_element" else element
            inner_ref = target.at(inner)
            found.extend([inner_ref] if inner.type == "object" else tool_objects(res, inner_ref, depth + 1))
        for pushed in _pushed(target):
            found.extend([pushed] if pushed.node.type == "object" else tool_objects(res, pushed, depth + 1))
        return found
    if node.type == "object":
        if res.get(target, "name") is not None or (depth > 0 and not _record_of_objects(res, target)):
            return [target]  # a tool, or an element of a list: { capability: "core", schema: actSchema }
        return [tool for key, value, _ in entries(target, res.consts) if key is not None
                for tool in tool_objects(res, value, depth + 1)]
    if node.type == "call_expression":
        return _call_list(res, target, depth)
    if node.type == "ternary_expression":  # ro ? [read] : [read, write]: every object either branch lists
        branches = [node.child_by_field_name(side) for side in ("consequence", "alternative")]
        found = [o for b in branches if b is not None for o in tool_objects(res, target.at(b), depth + 1)]
        return list({(o.file.path, o.node.start_byte): o for o in found}.values())
    return []


def _record_of_objects(res: Resolver, obj: Ref) -> bool:
    """Whether every member of ``obj`` is an object (``{ search: {...}, fetch: SEARCH }``: a record
    of tools), not the fields of one."""
    values = [value for key, value, _ in entries(obj, res.consts) if key is not None]
    return bool(values) and all(unwrap(res.resolve(v)[0].node).type == "object" for v in values)


def _pushed(array: Ref) -> list[Ref]:
    """What ``NAME.push(x)`` adds to an array literal declared as ``const NAME = [...]``, within the
    function (or file) that declares it: ``const tools = []; tools.push({...}); return { tools }``."""
    declarator = array.node.parent
    while declarator is not None and declarator.type in TRANSPARENT:
        declarator = declarator.parent
    name_node = declarator.child_by_field_name("name") if declarator is not None and \
        declarator.type == "variable_declarator" else None
    if name_node is None or name_node.type != "identifier" or declarator is None:
        return []
    name, scope = array.file.text(name_node), enclosing_function(declarator) or array.file.tree.root_node
    found: list[Ref] = []
    for call in descendants(scope, ["call_expression"]):
        function = call.child_by_field_name("function")
        if function is not None and function.type == "member_expression" and \
                array.file.text(function.child_by_field_name("property")) == "push" and \
                array.file.text(function.child_by_field_name("object")) == name:
            found.extend(array.at(unwrap(a)) for a in arguments(call))
    return found


def _call_list(res: Resolver, call: Ref, depth: int) -> list[Ref]:
    function = call.node.child_by_field_name("function")
    args = arguments(call.node)
    if function is None:
        return []
    if function.type == "member_expression":
        prop, base = function.child_by_field_name("property"), function.child_by_field_name("object")
        method = call.file.text(prop)
        if method in ("values", "entries") and call.file.text(base) == "Object" and args:
            return tool_objects(res, call.at(args[0]), depth + 1)
        if method in _LIST_METHODS and base is not None:
            return tool_objects(res, call.at(base), depth + 1)
        return []
    helper = res.functions(call.file.text(function), call.file)
    body = returned_object(helper.node) if helper is not None else None
    return tool_objects(res, helper.at(body), depth + 1) if helper is not None and body is not None else []
