"""A service's method by its verb (``client.issues.delete``, ``api.createIssue``, ``coll.save``):
for a call the repository does not define and the knowledge does not name, made on an imported
package, an object made or typed from one, or a receiver named like a client (``imports``)."""

from __future__ import annotations

import re

from pipeline.scan.detect.source import SourceFile
from pipeline.scan.effects import imports, model
from pipeline.scan.effects.calls import Call
from pipeline.scan.effects.classify import WORDS, Found, Scope, post_reads
from pipeline.scan.effects.knowledge import Knowledge

_THIS = ("this", "self", "cls", "s", "h", "t", "c")


def by_verb(file: SourceFile, known: Knowledge, call: Call) -> Found | None:
    """A service method by its verb (``client.issues.delete``, ``api.createIssue``, ``coll.save``),
    for a call the repository does not define, made on an imported package, an object made from
    one, or a receiver named like a client (``imports``); an AWS-style ``send(new XCommand())`` by
    X's verb. ``None`` for local receivers and inert names."""
    receiver = [part for part in call.receiver.split(".") if part]
    while receiver and receiver[0] in _THIS:
        receiver.pop(0)
    root = receiver[0].split("(")[0] if receiver else ""
    if not root or root in known.local_receivers or call.receiver in known.local_receivers:
        return None
    externals = file.kept("effects-externals", lambda: imports.external_names(file) - known.local_packages)
    segments = [part.split("(")[0] for part in receiver]
    if _LOCALISH.search(root) or root in known.local_packages or not (
            root in externals or any(imports.CLIENTISH.match(p) for p in segments)
            or imports.made_from(file, root, externals)):
        return None
    method = call.method
    if "Option" in method or method in known.plain or (method in known.runs and not call.arguments
                                                         and call.receiver.endswith(")")):
        return None  # ``spreadsheets().get(id).execute()``: the request's own call says what it does
    if method.upper() == "POST" and post_reads(file, call, Scope(frozenset(), (), {}, False)):
        return [(model.READ_REMOTE, "http-post-read")]  # a client of its own: self.jira.post("search/jql")
    command = _COMMAND.match(file.text(call.arguments[0])) if call.arguments and method in ("send", "execute") else None
    if command is not None:
        method = command.group(1)
    elif method in _COLLECTION or "[" in call.receiver or (method in known.inert and not (
            _deep(call.receiver) or method in _DATA_VERBS)):
        return None
    words = WORDS.findall(method.lstrip("_$"))
    if len(words) > 1 and words[0].lower() == "set":
        return None  # setX: a setter on an object in the process, not a service call
    family = known.verbs.get(words[0].lower()) if words else None
    if family is None or (len(words) == 1 and not _deep(call.receiver)
                          and not (method.lower() in _DATA_VERBS and imports.CLIENTISH.match(root))):
        return None
    return [(f"{family}-remote", "verb")]


_LOCALISH = re.compile(r"(?i)(?:cache|map|list|set|registry|dict|options|config|params|headers|builder|queue|"
                       r"opts|args)$")
#: a collection's own methods: never a service call, however deep the receiver
_COLLECTION = frozenset({"append", "extend", "push", "pop", "clear", "sort", "reverse", "splice", "shift", "unshift",
                         "discard", "setdefault", "replace_with", "insert_before", "insert_after", "appendChild"})
_COMMAND = re.compile(r"\s*new\s+(\w+?)Command\b")
#: verbs that change a store even when called on a client held in one name (``coll.save(doc)``)
_DATA_VERBS = frozenset({"save", "update", "remove", "delete", "insert", "create", "upsert", "put", "patch",
                         "destroy", "drop", "del", "set", "add", "post", "truncate", "purge",
                         "replace", "write"})


def _deep(receiver: str) -> bool:
    """A receiver two or more names deep beyond ``this`` (``stripe.customers``, ``client.indices``)."""
    parts = [p for p in receiver.split(".") if p]
    while parts and parts[0] in _THIS:
        parts.pop(0)
    return len(parts) >= 2
