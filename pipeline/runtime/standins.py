"""Stand-ins: a value of the right form for what a registry entry asks its user to fill in.

A server's registry entry declares variables (``API_KEY``) and arguments (``--host <HOST>``,
``/path/to/vault``) whose values only its user knows. Many servers list their tools without
them, or with any value at all, and check them only when a tool is called; a stand-in lets such
a server start. Each is chosen by one rule from the name and the text the entry gives:

- one of the values a choice lists (``<demo|qa|prd>``, server.json's ``choices``): the first;
- a URL (``*_URL``, ``*_URI``, ``*_ENDPOINT``, a ``scheme://`` example): ``http://127.0.0.1:9``,
  loopback on a port nothing listens on, in a sandbox that has no other network;
- a host: ``127.0.0.1``; a port: ``9``; an e-mail address: ``census@example.invalid``;
- a path (``*_PATH``, ``*_DIR``, ``*_FILE``, ``/path/to/...``, ``<vault-directory>``): an empty
  folder, or an empty file (``{}`` for JSON and YAML, a one-field query type for a GraphQL
  schema) with the example's extension, made in the sandbox's fresh HOME (:func:`materialize`);
- a number: ``1``; a switch: ``false``; a region: ``us-east-1``; a user name: ``census``;
- a private key (``*_PRIVATE_KEY``): 32 bytes of ``01`` in hex, the form a wallet library
  checks at start, a pattern no generated key is;
- anything else, keys and tokens among them: ``census-stand-in``, which no real secret is.

A stand-in is never a value of the user's own environment; the capture keeps the names that
were stood in for, not the values (``pipeline.run.probe_registry``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

#: a value written for a person to replace: <...>, ${...}, {...}, $NAME, YOUR_..., /path/to ...
PLACEHOLDER = re.compile(
    r"<[^>]*>|\$\{[^}]*\}|\{[^}]*\}|\$[A-Z_][A-Z0-9_]*|\byour[-_ ]|YOUR|/path/to|path/to/|ABSOLUTE"
    r"|(?:^|=)[A-Za-z]:[\\/]|(?:^|=)/Users/|(?:^|=)~/", re.IGNORECASE)
#: the sandbox's HOME (``pipeline.runtime.sandbox.HOME``) and where stand-in paths are made in it
INSIDE = "/home/census/stand-ins"
TEXT = "census-stand-in"
URL, HOST, PORT = "http://127.0.0.1:9", "127.0.0.1", "9"
#: variables the sandbox sets itself, or that change how an interpreter runs: never stood in
RESERVED = frozenset({"PATH", "HOME", "TMPDIR", "USER", "LOGNAME", "SHELL", "PYTHONPATH", "PYTHONHOME",
                      "LD_LIBRARY_PATH", "LD_PRELOAD", "NODE_PATH", "NODE_OPTIONS"})
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
#: the forms, each with the words of a name or example that ask for it (first match wins)
_FORMS: tuple[tuple[str, frozenset[str]], ...] = (
    ("url", frozenset({"url", "uri", "endpoint", "webhook", "dsn"})),
    ("port", frozenset({"port"})),
    ("host", frozenset({"host", "hostname"})),
    ("email", frozenset({"email", "mail"})),
    ("file", frozenset({"file", "filename", "filepath", "credentials", "keyfile", "cert", "config"})),
    ("folder", frozenset({"dir", "directory", "folder", "path", "root", "vault", "workspace"})),
    ("number", frozenset({"timeout", "limit", "max", "min", "seconds", "ms", "count", "size", "ttl", "number"})),
    ("switch", frozenset({"enable", "enabled", "disable", "disabled", "use", "allow", "debug", "verbose"})),
    ("region", frozenset({"region"})),
    ("user", frozenset({"user", "username", "login"})),
)
_ASKS = dict(_FORMS)
_VALUES = {"url": URL, "port": PORT, "host": HOST, "email": "census@example.invalid", "number": "1",
           "switch": "false", "region": "us-east-1", "user": "census", "private key": "0x" + "01" * 32}
#: what an empty document of a data format holds (a file of another kind is left empty)
EMPTY_DOCUMENTS = {".json": "{}\n", ".yaml": "{}\n", ".yml": "{}\n",
                   **dict.fromkeys((".graphql", ".graphqls", ".gql"), "type Query {\n  ok: Boolean\n}\n")}
_EXTENSION = re.compile(r"\.([A-Za-z][A-Za-z0-9]{0,9})\W*$")


@dataclass(frozen=True)
class StandIn:
    """What was filled in for one thing the entry asks for."""

    name: str
    """the variable's name, or the argument as the entry writes it."""
    form: str
    """``choice``, ``url``, ``port``, ``host``, ``email``, ``file``, ``folder``, ``number``, ``switch``,
    ``region``, ``user``, ``private key`` or ``text``."""
    value: str


def stand_in(name: str, example: str = "", choices: Sequence[str] = (), fmt: str | None = None) -> StandIn:
    """The stand-in for ``name`` (a variable, or a flag) whose entry gives ``example`` (a placeholder
    or a description), ``choices`` and server.json's ``format`` (module doc)."""
    listed = [c for c in choices if c] or _listed(example)
    if listed:
        return StandIn(name, "choice", listed[0])
    form = {"number": "number", "boolean": "switch", "filepath": "file"}.get(fmt or "") or _form(name, example)
    if form in ("file", "folder"):
        slug = re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower() or "path"
        ext = _EXTENSION.search(example) if form == "file" else None
        return StandIn(name, form, f"{INSIDE}/{slug}{'.' + ext.group(1).lower() if ext else ''}")
    return StandIn(name, form, _VALUES.get(form, TEXT))


class Declared(Protocol):
    """A variable as a registry entry declares it (``pipeline.runtime.packages.Variable``)."""

    @property
    def name(self) -> str: ...
    @property
    def example(self) -> str | None: ...
    @property
    def choices(self) -> tuple[str, ...]: ...
    @property
    def fmt(self) -> str | None: ...


def is_placeholder(text: str) -> bool:
    """Whether ``text`` holds a value written for a person to replace."""
    return bool(PLACEHOLDER.search(text))


def variable_values(declared: Iterable[Declared], given: Mapping[str, str]) -> tuple[dict[str, str], list[StandIn]]:
    """The value of each declared variable: the user's (``given``, by ``--env``), else the entry's own
    example when it is a value (one word, no placeholder), else a stand-in; ``RESERVED`` ones are
    left to the sandbox. Returns the values and the stand-ins among them."""
    values: dict[str, str] = {}
    stood: list[StandIn] = []
    for variable in declared:
        example = (variable.example or "").strip()
        if variable.name in given:
            values[variable.name] = given[variable.name]
        elif variable.name in RESERVED:
            continue
        elif example and not is_placeholder(example) and not re.search(r"\s", example) and len(example) <= 200:
            values[variable.name] = example
        else:
            stood.append(stand_in(variable.name, example, variable.choices, variable.fmt))
            values[variable.name] = stood[-1].value
    return values, stood


def materialize(stand_ins: Iterable[StandIn], home: Path) -> None:
    """Make, under ``home`` (the folder the sandbox shows as its HOME), the paths ``stand_ins`` name."""
    for item in stand_ins:
        if item.form not in ("file", "folder"):
            continue
        path = home / Path(item.value).relative_to(Path(INSIDE).parent)
        if item.form == "folder":
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(EMPTY_DOCUMENTS.get(path.suffix, ""), encoding="utf-8")


def _listed(example: str) -> list[str]:
    """The values of a choice written ``<a|b|c>``, ``[a|b]`` or ``a|b``."""
    inner = example.strip().strip("<>[](){}")
    return [part.strip() for part in inner.split("|")] if "|" in inner and " " not in inner.strip() else []


def _form(name: str, example: str) -> str:
    """The form asked for: the example's shape first, then the words of the name, then of the example."""
    text = example.strip()
    if re.match(r"^[a-z][a-z0-9+.-]*://", text):
        return "url"
    if text.startswith(("/", "~/", "./")) or "path/to" in text.lower() or re.match(r"^[A-Za-z]:[\\/]", text):
        return "file" if _EXTENSION.search(text) else "folder"
    telling = is_placeholder(text) or not re.search(r"\s", text)  # a placeholder or a value, not prose
    named = _words(name)
    if {"private", "key"} <= named and not named & (_ASKS["file"] | _ASKS["folder"]):
        return "private key"
    for words in (named, _words(text) if telling else set()):
        for form, asks in _FORMS:
            if words & asks:
                return form
    return "text"


def _words(text: str) -> set[str]:
    return {word.lower() for word in _WORDS.findall(text)}
