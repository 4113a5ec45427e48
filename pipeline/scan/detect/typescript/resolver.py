"""Following names in TypeScript/JavaScript values, and binding a function's parameters.

Names are followed one level through a ``Resolver``: a wrapper's parameter bound to a call
site's argument, a member of such an argument (``opts.annotations``), or a project constant
learnt in the index phase (``READ_ONLY``, ``listAnnotations``, ``TOOLS``). ``bind`` binds a
function's parameters to the arguments of a call (or to their defaults).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from pipeline.scan.detect.typescript.functions import is_parameter, param_defaults, parameter_default, params
from pipeline.scan.detect.typescript.values import Env, Lookup, Ref, entries, string_value, unwrap


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
    """what ``this.<name>`` stands for (a class's fields and getters, see ``classes``)."""
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
        value = self.get(owner, ref.file.text(prop)) if owner.node.type in ("object", "enum_body") else None
        if value is None:
            return ref, None
        target = value.at(unwrap(value.node))
        named = target.node.type in ("identifier", "shorthand_property_identifier")  # { name } -> const name = "x"
        if named or (target.node.type == "member_expression" and target.node != ref.node):  # { name: Tool.ECHO }
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
        if operator is not None and ref.file.text(operator) == "+" and depth < 3:  # PREFIX + "search"
            parts = [node.child_by_field_name(side) for side in ("left", "right")]
            values = [self.string(ref.at(part), depth + 1) if part is not None else None for part in parts]
            return None if None in values else "".join(v for v in values if v is not None)
        target = self.resolve(ref)[0]
        if target.node.type == "identifier" and (default := parameter_default(target)) is not None:
            target = default  # a parameter no call binds here: its default (ns = "acme_")
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
