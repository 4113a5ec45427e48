"""From a handler to the calls that leave the process: the handler's calls are classified
(``classify``); a call the knowledge does not cover and that names one of the repository's own
functions is followed into it, to ``MAX_DEPTH`` functions deep, across modules, carrying which of
its parameters hold the tool's input and the strings passed down (an HTTP method, a query)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from pipeline.scan.detect.source import SourceFile, language_of
from pipeline.scan.detect.syntax import Node
from pipeline.scan.effects import bodies, imports, model
from pipeline.scan.effects.calls import Call, input_rooted, literals_in, one_line
from pipeline.scan.effects.classify import Found, Scope, classify
from pipeline.scan.effects.knowledge import knowledge
from pipeline.scan.effects.languages import SYNTAXES, Syntax, function_name, parameters
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
_SELF = frozenset({"", "this", "self", "cls", "super()", "super", "Self"})
_REFERENCES = frozenset({"identifier", "attribute", "member_expression", "selector_expression"})


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
        self._done: dict[tuple[str, int, tuple[str, ...], frozenset[str]], list[Step]] = {}
        self._chosen: dict[tuple[str, int, int, int, str], list[tuple[SourceFile, Node]]] = {}
        self._verbs: dict[tuple[str, int, int], Found | None] = {}

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
            if key not in self._done:  # a function read for one tool serves the next that reaches it,
                self._done[key] = list(self._frame(frame, syntax))  # at whatever depth it does
            for effect, followed in self._done[key]:
                if effect is not None:
                    found.append(model.Effect(effect.kind, effect.path, effect.line, effect.call, effect.rule,
                                              frame.depth) if frame.depth else effect)
                if followed is not None and frame.depth < MAX_DEPTH:
                    stack.append(Frame(followed.file, followed.node, followed.function, frame.depth + 1,
                                       followed.inputs, followed.literals))
        return found, len(seen)

    def _frame(self, frame: Frame, syntax: Syntax) -> Iterator[tuple[model.Effect | None, Frame | None]]:
        file = frame.file
        known = knowledge(syntax.language)
        inputs, constants = bodies.bound(file, syntax, frame.node, frame.inputs)
        local_db = file.kept("effects-local-db", lambda: any(w.encode() in file.data for w in known.sql.local))
        scope = Scope(inputs, frame.literals, constants, local_db)
        housekeeping = frame.node is not frame.function and bodies.housekeeping(function_name(file, frame.function))
        for node, call in bodies.calls(file, frame.node):
            found = classify(file, syntax, known, call, scope)
            if found is None:
                targets = self._targets(file, syntax, call, frame.function)
                if targets:
                    for target_file, target in targets:
                        yield None, self._enter(frame, syntax, call, target_file, target, scope)
                    continue
                verb_key = (file.path, node.start_byte, node.end_byte)
                if verb_key not in self._verbs:
                    self._verbs[verb_key] = by_verb(file, known, call)
                found = self._verbs[verb_key]
            for callback in self._callbacks(file, syntax, call, frame, scope):
                yield None, callback
            for kind, rule in found or ():
                if housekeeping and kind in bodies.LOCAL_CHANGES:
                    continue
                yield model.Effect(kind, file.path, file.line(node), one_line(file, node), rule, 0), None

    def _callbacks(self, file: SourceFile, syntax: Syntax, call: Call, frame: Frame,
                   scope: Scope) -> Iterator[Frame]:
        """The repository's functions a call is handed to run (``asyncio.to_thread(fn)``,
        ``to_thread(client.move_issue, key)``, ``promise.then(handler)``, ``go worker()``): each is
        followed as if called; a plain name only to this file's function, a method as a call would."""
        for arg in call.arguments:
            if arg.type not in _REFERENCES or file.text(arg) in scope.inputs or file.text(arg) in scope.constants:
                continue
            handed = Call(call.node, file.text(arg), ())
            if "." in handed.callee:
                targets = self._targets(file, syntax, handed, frame.function)
            else:
                targets = [c for c in self.shelf.named(handed.method, syntax.language)
                           if c[0].path == file.path and c[1] != frame.function][:MAX_CANDIDATES]
            for target_file, target in targets:
                yield self._enter(frame, syntax, handed, target_file, target, scope)

    def _targets(self, file: SourceFile, syntax: Syntax, call: Call, current: Node) -> list[tuple[SourceFile, Node]]:
        """The repository's functions a call may run, the calling function aside: for ``name()``
        or ``this.name()`` this file's first; for ``x.name()`` the methods of the repository's
        classes named so (else any function); none when the name is too common to tell."""
        key = (file.path, call.node.start_byte, call.node.end_byte, current.start_byte, call.callee)
        if key not in self._chosen:
            self._chosen[key] = self._choose(file, syntax, call, current)
        return self._chosen[key]

    def _choose(self, file: SourceFile, syntax: Syntax, call: Call, current: Node) -> list[tuple[SourceFile, Node]]:
        name = call.method.removeprefix("new ")
        receiver = call.receiver.split(".")[0] if call.receiver else ""
        if not name.replace("$", "_").isidentifier() or imports.library_root(syntax.language, receiver):
            return []  # ``JSON.parse``, ``path.join``: the language's library, not the repository's code
        on_self = receiver in _SELF
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
               scope: Scope) -> Frame:
        """The frame of ``target`` called from ``frame`` (its depth is set where it is followed)."""
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
        return Frame(file, body, target, 0, frozenset(passed), literals)


def _is_method(node: Node) -> bool:
    """Whether a function is defined in a class (or, in Go, on a receiver type)."""
    if node.type == "method_declaration":
        return True
    parent = node.parent
    for _ in range(3):
        if parent is None:
            return False
        if parent.type in ("class_body", "class_definition", "class_declaration", "block", "declaration_list") and (
                parent.type not in ("block", "declaration_list") or
                (parent.parent is not None and parent.parent.type in ("class_definition", "impl_item", "trait_item"))):
            return True
        parent = parent.parent
    return False


def _values(file: SourceFile, node: Node) -> list[str]:
    return [file.text(p.child_by_field_name("value") or p) for p in node.named_children]
