"""One call -> what it does, by the knowledge of its ecosystem (``knowledge``): an HTTP client and
its method, a database client and its query's verb, a file system or process call, and a service
SDK's method by its verb. ``None`` when the call is none of these (the analysis may then follow it
into the repository's own code)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.scan.detect.source import SourceFile
from pipeline.scan.effects import imports, model
from pipeline.scan.effects.calls import Call, input_rooted, keyword, literals_in, verb_of
from pipeline.scan.effects.knowledge import Knowledge
from pipeline.scan.effects.languages import Syntax, string_value

WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_METHOD_EFFECT = {"GET": model.READ_REMOTE, "HEAD": model.READ_REMOTE, "OPTIONS": model.READ_REMOTE,
                  "POST": model.WRITE_REMOTE, "PUT": model.WRITE_REMOTE, "PATCH": model.WRITE_REMOTE,
                  "DELETE": model.DELETE_REMOTE}
#: a client method named for its verb, spelled otherwise (``superagent.del``, Go's ``http.PostForm``)
_READ_URL = re.compile(r"(?i)(?:search|query|find|list|get|rerank|scrap|validat|fetch|read|lookup|describe|"
                       r"retriev|count|explain|preview|estimate|graphql|token|oauth|auth|login|compile|render|"
                       r"convert|check|analy|info|history|replies|unread|export)")
_NOT_PATH = re.compile(r"['\"`](?:GET|POST|PUT|PATCH|DELETE|HEAD)['\"`]|\b(?:get|Get)[A-Z_]\w*\(|\w+\.stringify")
_ENDPOINT = re.compile(r"^/?[\w.\-/{}:$]+$")
_SPELLED = {"DEL": "DELETE", "POSTFORM": "POST"}


@dataclass(frozen=True)
class Scope:
    """What the classifier knows of the function a call sits in."""

    inputs: frozenset[str]
    """names holding the tool's input."""
    literals: tuple[str, ...]
    """strings passed down to this function by the calls that reached it."""
    constants: dict[str, str]
    """local names bound to a string literal (``query = "SELECT ..."``)."""
    local_db: bool
    """whether the file opens a local database (sqlite, duckdb)."""


Found = list[tuple[str, str]]


def classify(file: SourceFile, syntax: Syntax, known: Knowledge, call: Call, scope: Scope) -> Found | None:
    """The (effect kind, rule) pairs of ``call``; ``None`` when the knowledge does not cover it."""
    root, dot, rest = call.callee.removeprefix("new ").partition(".")
    original = imports.aliases(file).get(root)
    if original is not None and original != "*":
        call = Call(call.node, original + dot + rest, call.arguments)
    for reader in (_http, _process_or_fs, _sql):
        found = reader(file, syntax, known, call, scope)
        if found is not None:
            return found
    return None


_COVERED: dict[tuple[int, str], bool] = {}


def _covered(known: Knowledge, callee: str) -> bool:
    """Whether any HTTP or call rule of ``known`` may match ``callee`` (remembered per callee: the
    same few callees recur in every tree)."""
    key = (id(known), callee)
    covered = _COVERED.get(key)
    if covered is None:
        if len(_COVERED) > 100_000:
            _COVERED.clear()
        covered = _COVERED[key] = known.any_call.search(callee) is not None
    return covered


def _http(file: SourceFile, syntax: Syntax, known: Knowledge, call: Call, scope: Scope) -> Found | None:
    if not _covered(known, call.callee):
        return None
    for rule in known.http:
        found = rule.match.search(call.callee)
        if found is None:
            continue
        if rule.method == "suffix" and found.groups():
            verb = found.group(1).upper()
            verbs = {_SPELLED.get(verb, verb)}
        else:
            verbs = _verbs(file, call, rule.method, scope)
        if not verbs:
            return [(model.UNKNOWN, "http-method")]
        effects = [(_METHOD_EFFECT.get(v, model.READ_REMOTE), "http") for v in sorted(verbs)]
        if verbs == {"POST"} and post_reads(file, call, scope):
            effects = [(model.READ_REMOTE, "http-post-read")]  # a search, query or token sent as POST
        url = call.arguments[0] if call.arguments else None
        if rule.method == "argument" and len(call.arguments) > 1:
            url = next((a for a in call.arguments if (verb_of(file.text(a)) is None and a.type != "identifier")
                        or input_rooted(file.text(a), scope.inputs)), url)
        if url is not None and input_rooted(file.text(url), scope.inputs):
            effects.append((model.EGRESS_OPEN, "http-url-from-input"))
        return effects
    return None


def post_reads(file: SourceFile, call: Call, scope: Scope) -> bool:
    """Whether a POST's endpoint, as written or passed down, names a read (``/search``,
    ``users.search``, ``oauth/token``): such a POST asks, it does not change."""
    positional = [a for a in call.arguments[:3] if a.type not in ("keyword_argument", "object", "dictionary")]
    texts = [t for a in positional if verb_of(t := file.text(a)) is None and t not in ("ctx", "context")]
    texts = texts[:1] + [t for t in scope.literals if _ENDPOINT.match(t) and verb_of(t) is None]
    return any(_READ_URL.search(_NOT_PATH.sub("", text)) for text in texts)


def _verbs(file: SourceFile, call: Call, where: str, scope: Scope) -> set[str]:
    """The HTTP methods of a call whose method is an option or an argument; ``GET`` when none is
    written, the verbs passed down when it is not a literal."""
    if where == "option":
        value = keyword(file, call.arguments, "method")
        if value is None:  # no method written: GET, unless the options come from the caller (`...init`)
            passed = {v for literal in scope.literals if (v := verb_of(literal)) is not None}
            return passed if passed and _forwarded(call) else {"GET"}
        written = verb_of(file.text(value))
    else:
        written = next((v for a in call.arguments if (v := verb_of(_resolved(file, a, scope))) is not None), None)
    if written is not None:
        return {written}
    return {v for literal in scope.literals if (v := verb_of(literal)) is not None}


def _forwarded(call: Call) -> bool:
    """Whether a call's options come from its caller: an options variable, or a spread in them."""
    options = call.arguments[1:2]
    return any(a.type in ("identifier", "member_expression") or
               any(c.type in ("spread_element", "dictionary_splat") for c in a.named_children) for a in options)


def _resolved(file: SourceFile, node: object, scope: Scope) -> str:
    text = file.text(node)  # type: ignore[arg-type]
    return scope.constants.get(text, text)


def _process_or_fs(file: SourceFile, syntax: Syntax, known: Knowledge, call: Call, scope: Scope) -> Found | None:
    if call.callee in known.open_functions:
        mode = keyword(file, call.arguments, "mode") or (call.arguments[1] if len(call.arguments) > 1 else None)
        value = string_value(file, mode) if mode is not None and mode.type in syntax.strings else None
        writes = value is not None and any(c in value for c in "wax+")
        return [(model.WRITE_LOCAL if writes else model.READ_LOCAL, "fs")]
    if not _covered(known, call.callee):
        return None
    for rule in known.calls:
        if rule.match.search(call.callee) is None:
            continue
        if rule.receiver is not None and rule.receiver.search(call.receiver) is None:
            continue
        if len(call.arguments) < rule.arguments:
            continue
        if rule.needs_input and not (call.arguments and input_rooted(file.text(call.arguments[0]), scope.inputs)):
            continue
        if rule.effect == "command-remote":
            return [(_command(file, known, call, scope), rule.rule)]
        if rule.effect == model.EXEC and _fixed_read(file, syntax, known, call, scope):
            return [(model.READ_LOCAL, "process-read")]  # `kubectl describe ...`: it runs, and cannot write
        return [(rule.effect, rule.rule)]
    return None


def _fixed_read(file: SourceFile, syntax: Syntax, known: Knowledge, call: Call, scope: Scope) -> bool:
    """Whether a process is started with a fixed command that names a read and nothing that
    writes (``execFileSync("kubectl", ["describe", ...])``); one from the input is not fixed."""
    if not call.arguments or any(input_rooted(file.text(a), scope.inputs) for a in call.arguments[:2]):
        return False
    words = [w for text in (*literals_in(file, syntax, call.arguments[:2]), *scope.literals)
             for w in re.findall(r"[a-z]+", text.lower())]
    families = {known.verbs[w] for w in words if w in known.verbs}
    return families == {"read"}


def _command(file: SourceFile, known: Knowledge, call: Call, scope: Scope) -> str:
    """A command sent to another host, by its first verb (``/queue tree remove``: a delete);
    ``exec`` when it comes from the input or names no verb."""
    first = file.text(call.arguments[0]) if call.arguments else ""
    if not call.arguments or input_rooted(first, scope.inputs):
        return model.EXEC
    for text in (first, *scope.literals):
        for word in re.findall(r"[a-z]+", text.lower()):
            family = known.verbs.get(word)
            if family is not None:
                return f"{family}-remote"
    return model.READ_REMOTE if scope.literals else model.EXEC  # a fixed command that names no change


def _sql(file: SourceFile, syntax: Syntax, known: Knowledge, call: Call, scope: Scope) -> Found | None:
    sql = known.sql
    if call.method not in sql.methods or not call.arguments:
        return None
    texts = [_query_text(file, syntax, arg, scope) for arg in call.arguments[:2]]
    queries = [t for t in texts if t and known.query_shape.search(t)]
    if not queries and not sql.receivers.search(call.receiver or call.method):
        return None
    where = "local" if scope.local_db else "remote"
    if queries:
        return [(_query_effect(known, q, where), "sql") for q in queries[:1]]
    first = file.text(call.arguments[0])
    if call.method in sql.from_input and input_rooted(first, scope.inputs):  # any query: it can write and delete
        return [(kind, "sql-from-input") for kind in (model.EXEC, f"write-{where}", f"delete-{where}")]
    passed = [q for q in scope.literals if known.query_shape.search(q)]
    if passed and call.arguments[0].type == "identifier":  # a query handed in by name, not &query (GraphQL)
        return [(_query_effect(known, q, where), "sql") for q in passed[:3]]
    return None


def _query_text(file: SourceFile, syntax: Syntax, node: object, scope: Scope) -> str | None:
    text = file.text(node)  # type: ignore[arg-type]
    if text in scope.constants:
        return scope.constants[text]
    if getattr(node, "type", "") in syntax.strings:
        return string_value(file, node)  # type: ignore[arg-type]
    return None


def _query_effect(known: Knowledge, query: str, where: str) -> str:
    """What a query does: its first word, then any later word that changes data; a procedure
    (``CALL db.index.fulltext.queryNodes``) by the verb of its own name."""
    words = re.findall(r"[A-Za-z]+", query.upper())
    family = "read"
    procedure = re.match(r"\s*CALL\s+([\w.]+)", query, re.I)
    if procedure is not None:
        named = WORDS.findall(procedure.group(1).rsplit(".", 1)[-1])
        family = known.verbs.get(named[0].lower(), "read") if named else "read"
        words = words[1:]
    for word in words[:1] + [w for w in words[1:] if w in ("INSERT", "UPDATE", "DELETE", "CREATE", "MERGE", "SET",
                                                          "DROP", "DETACH", "REMOVE", "TRUNCATE")]:
        found = known.query_verbs.get(word, "read")
        if found == "delete" or (found == "write" and family == "read"):
            family = found
    return f"{family}-{where}"


__all__ = ["WORDS", "Scope", "classify", "post_reads"]
