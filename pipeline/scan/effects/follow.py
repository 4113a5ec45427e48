"""From a handler to the calls that leave the process: the handler's calls are classified
(``classify``); a call the knowledge does not cover and that names one of the repository's own
functions is followed into it, to ``MAX_DEPTH`` functions deep, across modules, carrying which of
its parameters hold the tool's input and the strings passed down (an HTTP method, a query)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from pipeline.scan.detect.source import SourceFile, language_of
from pipeline.scan.detect.syntax import Node, walk
from pipeline.scan.effects import model
from pipeline.scan.effects.calls import Call, call_of, input_rooted, literals_in, one_line
from pipeline.scan.effects.classify import Scope, classify
from pipeline.scan.effects.knowledge import knowledge
from pipeline.scan.effects.languages import SYNTAXES, Syntax, nodes_of, parameters, string_value
from pipeline.scan.effects.services import by_verb
from pipeline.scan.effects.shelf import Shelf

#: how many of the repository's functions may lie between a handler and a call
MAX_DEPTH = 5
#: how many functions one tool's analysis reads at most
MAX_FUNCTIONS = 60
#: a name defined in more places than this is too common to follow (``get``, ``run``)
MAX_CANDIDATES = 4

#: the strings worth passing down: an HTTP verb, an endpoint or a command (a query is kept too)
_USEFUL = re.compile(r"^(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|get|post|put|patch|delete)$|^/|^\{|^\$\{|"
                     r"^[\w\-{}$]+(?:[./][\w\-{}$]+)+$")
#: receivers that name the calling object itself (or nothing: a plain function call)
_SELF = frozenset({"", "this", "self", "cls", "super()", "super"})
_CALL_KINDS = ("call_expression", "new_expression", "call")
_REFERENCES = frozenset({"identifier", "attribute", "member_expression", "selector_expression"})
_BINDINGS = ("identifier", "shorthand_property_identifier_pattern")
_ASSIGNMENTS = {"variable_declarator": ("name", "value"), "assignment_expression": ("left", "right"),
                "assignment": ("left", "right"), "short_var_declaration": ("left", "right"),
                "assignment_statement": ("left", "right"), "var_spec": ("name", "value")}


Step = tuple["model.Effect | None", "Frame | None"]
"""what reading one call gives: an effect, or a function to read next."""


@dataclass(frozen=True)
class Frame:
    """One function on the way from the handler."""

    file: SourceFile
    """where it is."""
    node: Node
    """the function's body (or a dispatcher's branch)."""
    function: Node
    """the function itself (what a call inside must not lead back to)."""
    depth: int
    """functions between it and the handler."""
    inputs: frozenset[str]
    """its names holding the tool's input."""
    literals: tuple[str, ...]
    """strings passed down to it."""


class Follower:
    """Follows handlers through one tree's code (``Shelf``); remembers what each function does."""

    def __init__(self, shelf: Shelf) -> None:
        self.shelf = shelf
        self._done: dict[tuple[str, int, int, tuple[str, ...], frozenset[str]], list[Step]] = {}

    def effects(self, file: SourceFile, node: Node, inputs: frozenset[str],
                literals: tuple[str, ...] = ()) -> tuple[list[model.Effect], int]:
        """Every effect reachable from the handler ``node`` of ``file``, and the functions read;
        ``literals`` are strings the handler runs with (a generic handler's HTTP verbs)."""
        language = language_of(file.path) or ""
        syntax = SYNTAXES[language]
        seen: set[tuple[str, int, tuple[str, ...], frozenset[str]]] = set()
        found: list[model.Effect] = []
        stack = [Frame(file, node, node, 0, inputs | frozenset(syntax.inputs), literals)]
        while stack and len(seen) < MAX_FUNCTIONS:
            frame = stack.pop()
            key = (frame.file.path, frame.node.start_byte, frame.literals[:8], frame.inputs)
            if key in seen:
                continue
            seen.add(key)
            known = (frame.file.path, frame.node.start_byte, frame.depth, frame.literals[:8], frame.inputs)
            if known not in self._done:  # a function read for one tool serves the next that reaches it
                self._done[known] = list(self._frame(frame, syntax))
            for effect, followed in self._done[known]:
                if effect is not None:
                    found.append(effect)
                if followed is not None:
                    stack.append(followed)
        return found, len(seen)

    def _frame(self, frame: Frame, syntax: Syntax) -> Iterator[tuple[model.Effect | None, Frame | None]]:
        file = frame.file
        known = knowledge(syntax.language)
        inputs, constants = _locals(file, syntax, frame.node, frame.inputs)
        local_db = file.kept("effects-local-db", lambda: any(w.encode() in file.data for w in known.sql.local))
        scope = Scope(inputs, frame.literals, constants, local_db)
        for node in _calls(file, frame.node):
            call = call_of(file, node)
            if call is None:
                continue
            found = classify(file, syntax, known, call, scope)
            if found is None:
                targets = self._targets(file, syntax, call, frame.function)
                if targets:
                    for target_file, target in targets:
                        yield None, self._enter(frame, syntax, call, target_file, target, scope)
                    continue
                found = by_verb(file, known, call)
            for callback in self._callbacks(file, syntax, call, frame, scope):
                yield None, callback
            for kind, rule in found or ():
                yield model.Effect(kind, file.path, file.line(node), one_line(file, node), rule, frame.depth), None

    def _callbacks(self, file: SourceFile, syntax: Syntax, call: Call, frame: Frame,
                   scope: Scope) -> Iterator[Frame]:
        """The repository's functions a call is handed to run (``asyncio.to_thread(fn)``,
        ``promise.then(handler)``, ``go worker()``): each is followed as if called."""
        for arg in call.arguments:
            if arg.type not in _REFERENCES or file.text(arg) in scope.inputs or file.text(arg) in scope.constants:
                continue
            name = file.text(arg).rsplit(".", 1)[-1]
            local = [c for c in self.shelf.named(name, syntax.language)
                     if c[0].path == file.path and c[1] != frame.function]
            for target_file, target in local[:MAX_CANDIDATES]:
                entered = self._enter(frame, syntax, Call(call.node, name, ()), target_file, target, scope)
                if entered is not None:
                    yield entered

    def _targets(self, file: SourceFile, syntax: Syntax, call: Call, current: Node) -> list[tuple[SourceFile, Node]]:
        """The repository's functions a call may run, the calling function aside: for ``name()``
        or ``this.name()`` this file's first; for ``x.name()`` the methods of the repository's
        classes named so (else any function); none when the name is too common to tell."""
        name = call.method.removeprefix("new ")
        if not name.replace("$", "_").isidentifier():
            return []
        on_self = (call.receiver.split(".")[0] if call.receiver else "") in _SELF
        declaring = self.shelf.declaring(name, syntax.language)
        own = on_self and file.path in declaring
        if not own and len(declaring) > MAX_CANDIDATES:
            return []  # declared in too many files to tell which: not a file is parsed for it
        candidates = [c for c in self.shelf.named(name, syntax.language, only=file.path if own else None)
                      if c[1] != current]
        root = self.shelf.package(file.path)  # a monorepo's other packages are not what this one calls
        candidates = [c for c in candidates if self.shelf.in_package(c[0].path, root)] or [
            c for c in candidates if not self.shelf.package(c[0].path)]  # else the tree's own root only
        if on_self:
            chosen = [c for c in candidates if c[0].path == file.path] or candidates
        else:
            chosen = [c for c in candidates if _is_method(c[1])] or candidates
        return chosen if len(chosen) <= MAX_CANDIDATES else []

    def _enter(self, frame: Frame, syntax: Syntax, call: Call, file: SourceFile, target: Node,  # noqa: PLR0917
               scope: Scope) -> Frame | None:
        if frame.depth + 1 > MAX_DEPTH:
            return None
        params = parameters(file, target)
        if params[:1] and params[0] in ("self", "cls"):
            params = params[1:]
        passed: set[str] = set()
        for index, arg in enumerate(call.arguments):
            text = frame.file.text(arg)
            rooted = input_rooted(text, scope.inputs) or (
                arg.type in ("object", "dictionary", "composite_literal") and
                any(input_rooted(part, scope.inputs) for part in _values(frame.file, arg)))
            if rooted:
                if arg.type == "keyword_argument":
                    passed.add(frame.file.text(arg.child_by_field_name("name")))
                elif index < len(params) and arg.type not in ("object", "dictionary"):
                    passed.add(params[index])
                else:
                    passed.update(params)
        passed_down = (*literals_in(frame.file, syntax, call.arguments),
                       *(scope.constants[text] for a in call.arguments
                         if (text := frame.file.text(a)) in scope.constants))
        shape = knowledge(syntax.language).query_shape
        literals = tuple(dict.fromkeys((*(t for t in passed_down if _USEFUL.match(t) or shape.search(t)),
                                        *frame.literals)))[:32]
        body = target.child_by_field_name("body") or target
        return Frame(file, body, target, frame.depth + 1, frozenset(passed), literals)


def _is_method(node: Node) -> bool:
    """Whether a function is defined in a class (or, in Go, on a receiver type)."""
    if node.type == "method_declaration":
        return True
    parent = node.parent
    for _ in range(3):
        if parent is None:
            return False
        if parent.type in ("class_body", "class_definition", "class_declaration", "block") and \
                (parent.type != "block" or (parent.parent is not None and parent.parent.type == "class_definition")):
            return True
        parent = parent.parent
    return False


def _values(file: SourceFile, node: Node) -> list[str]:
    return [file.text(p.child_by_field_name("value") or p) for p in node.named_children]


def _calls(file: SourceFile, node: Node) -> list[Node]:
    """The call nodes below ``node`` in source order (closures written inside it included)."""
    return nodes_of(file, _CALL_KINDS, node)


def _locals(file: SourceFile, syntax: Syntax, node: Node,
            inputs: frozenset[str]) -> tuple[frozenset[str], dict[str, str]]:
    """The names a function binds from its input (``url = args.url``, ``const { url } = args``),
    and those it binds to a string literal, in two passes over its assignments."""
    names, constants = set(inputs), {}
    assignments = _assignments(file, syntax, node)
    for _ in range(2):
        for assignment in assignments:
            left_field, right_field = _ASSIGNMENTS[assignment.type]
            left, right = assignment.child_by_field_name(left_field), assignment.child_by_field_name(right_field)
            if left is None or right is None:
                continue
            targets = [file.text(n) for n in walk(left) if n.type in _BINDINGS]
            value = right.named_children[0] if right.type == "expression_list" and right.named_children else right
            if value.type in syntax.strings and (text := string_value(file, value)) is not None and len(targets) == 1:
                constants[targets[0]] = text
            elif input_rooted(file.text(value), frozenset(names)):
                names.update(targets)
    return frozenset(names), constants


def _assignments(file: SourceFile, syntax: Syntax, node: Node) -> list[Node]:
    """The assignments below ``node``, in source order."""
    return nodes_of(file, _ASSIGNMENTS, node)
