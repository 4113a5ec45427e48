"""The effects analysis's knowledge, read from the TOML files of ``knowledge/`` (one per
ecosystem and ``common.toml``): which calls leave the process and what they do. The data is
documented in docs/EFFECTS.md; this module only compiles it."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from pipeline.errors import KnowledgeError


@dataclass(frozen=True)
class CallRule:
    """Calls that have one effect whatever their arguments (a file write, a process start)."""

    match: re.Pattern[str]
    """searched in the callee."""
    receiver: re.Pattern[str] | None
    """when set, the callee's receiver (all before the last ``.``) must match too."""
    effect: str
    """the effect kind."""
    rule: str
    """the family name stored as ``Effect.rule``."""
    needs_input: bool
    """True when only a call whose first argument comes from the tool's input counts."""
    arguments: int = 0
    """the fewest arguments a call must have to count (``df.to_csv()`` writes no file)."""


@dataclass(frozen=True)
class HttpRule:
    """An HTTP client call, and where its method is written."""

    match: re.Pattern[str]
    """searched in the callee; group 1, when present, is the verb (``method = suffix``)."""
    method: str
    """``suffix`` (the callee's last name), ``option`` (a ``method`` field of an argument),
    ``argument`` (a string argument naming the verb)."""


@dataclass(frozen=True)
class Sql:
    """One ecosystem's database client calls."""

    methods: frozenset[str]
    """method names that take a query's text."""
    from_input: frozenset[str]
    """those that run a query taken from the input as given."""
    receivers: re.Pattern[str]
    """receivers that are database clients (for a query not written as a literal)."""
    local: tuple[str, ...]
    """imports that make the database a local file (``sqlite3``)."""


@dataclass(frozen=True)
class Knowledge:
    """Everything the classifier knows of one ecosystem, and of query and method verbs."""

    calls: tuple[CallRule, ...]
    """fixed-effect calls."""
    http: tuple[HttpRule, ...]
    """HTTP client calls."""
    sql: Sql
    """database calls."""
    open_functions: frozenset[str]
    """Python's ``open``-like functions, read or write by their mode."""
    query_verbs: dict[str, str]
    """a query's first word (upper case) -> ``read``, ``write`` or ``delete``."""
    query_shape: re.Pattern[str]
    """what a string must look like to be read as a query."""
    verbs: dict[str, str]
    """a method's first word (lower case) -> ``read``, ``write`` or ``delete``."""
    inert: frozenset[str]
    """method names that never leave the process, whatever their verb."""
    plain: frozenset[str]
    """a language's own methods on any value (Rust's ``clone``, a request builder's ``send``):
    never read as a service's verb, however deep the receiver."""
    runs: frozenset[str]
    """methods that run a request the call before them built (``...get(id).execute()``): with no
    argument, on a call's result, they say nothing the request's own call does not."""
    local_receivers: frozenset[str]
    """receivers whose methods are never a service's."""
    local_packages: frozenset[str]
    """imported names whose objects live in the process (``bs4``, ``pandas``)."""
    any_call: re.Pattern[str]
    """every ``calls`` and ``http`` pattern in one: a callee it misses matches none of them."""


def _table(name: str) -> dict[str, Any]:
    path = resources.files("pipeline.scan.effects").joinpath("knowledge").joinpath(f"{name}.toml")
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise KnowledgeError(f"knowledge/{name}.toml: cannot read the effects knowledge: {exc}") from exc


def _pattern(text: str, where: str) -> re.Pattern[str]:
    try:
        return re.compile(text)
    except re.error as exc:
        raise KnowledgeError(f"{where}: bad pattern {text!r}: {exc}") from exc


@cache
def knowledge(language: str) -> Knowledge:
    """The knowledge of ``language`` (``typescript``, ``python``, ``go``), read once."""
    common, own = _table("common"), _table(language)
    where = f"knowledge/{language}.toml"
    calls = tuple(CallRule(_pattern(c["match"], where), _pattern(c["receiver"], where) if "receiver" in c else None,
                           c["effect"], c.get("rule", "call"), bool(c.get("input", False)),
                           int(c.get("arguments", 0)))
                  for c in own.get("calls", []))
    http = tuple(HttpRule(_pattern(h["match"], where), h["method"]) for h in own.get("http", []))
    sql = own["sql"]
    verbs = {verb: family for family in ("read", "write", "delete") for verb in common["verbs"][family]}
    for family in ("delete", "write"):  # a verb in two lists keeps the stronger reading
        verbs.update(dict.fromkeys(common["verbs"][family], family))
    query = common["query"]
    return Knowledge(
        calls=calls, http=http,
        sql=Sql(frozenset(sql["methods"]), frozenset(sql["from_input"]), _pattern(sql["receivers"], where),
                tuple(sql.get("local", ()))),
        open_functions=frozenset(own.get("open", {}).get("functions", ())),
        query_verbs={word: family for family in ("read", "write", "delete") for word in query[family]},
        query_shape=_pattern(query["shape"], "knowledge/common.toml"),
        verbs=verbs, inert=frozenset(common["verbs"]["inert"]), plain=frozenset(own.get("plain", ())),
        runs=frozenset(common["verbs"]["runs"]), local_receivers=frozenset(common["verbs"]["local_receivers"]),
        local_packages=frozenset(common["verbs"]["local_packages"]),
        any_call=_pattern("|".join(f"(?:{p.pattern})" for p in [*(c.match for c in calls), *(h.match for h in http)])
                          or "(?!)", where),
    )
