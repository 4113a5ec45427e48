"""The npm and PyPI packages a registry names for its servers, read as launch plans.

Two shapes of ``packages`` are read, as the registry has published them:

- the launch seed's (``data/seed_2025_05_16.json``): ``registry_name``, ``name``, ``version``,
  ``package_arguments`` (``type``, ``value`` / ``default``, ``is_required``) and
  ``environment_variables`` (``name``, ``is_required`` when said);
- ``server.json``'s (``/v0``, ``/v0.1``): ``registryType``, ``identifier``, ``version``,
  ``transport``, ``runtimeArguments``, ``packageArguments`` (``valueHint``, ``isRequired``)
  and ``environmentVariables``.

A registry's arguments are often an example configuration rather than what the package
needs: the seed puts uvx's and npx's own flags among them (``--directory PATH``, ``--with X``,
``--python 3.13``, ``-y``), names a source checkout's script (``server.py``), or holds a
placeholder for a secret (``--api-key <YOUR_KEY>``). :func:`arguments_for` decides, one general
rule for every entry: a launcher's flag is not passed to the server (``--python X`` chooses the
interpreter), nor a source checkout's script; a value that is a placeholder is passed as a
stand-in of its form (``pipeline.runtime.standins``: ``--host <HOST>`` as ``--host 127.0.0.1``)
and the capture names it; every other argument is passed as written.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pipeline.manifest.discover import listed
from pipeline.runtime.standins import StandIn, is_placeholder, stand_in

NPM, PYPI = "npm", "pypi"
REGISTRIES = (NPM, PYPI)
#: flags of npx and uvx (and ``uv run``) that the seed lists among a package's arguments; the
#: number is how many values follow the flag
LAUNCHER_FLAGS = {"-y": 0, "--yes": 0, "-p": 1, "--package": 1, "--from": 1, "--with": 1,
                  "--with-editable": 1, "--with-requirements": 1, "--directory": 1, "--python": 1,
                  "--refresh": 0, "--no-cache": 0, "--isolated": 0}
#: leading words of a launcher's command line (``uv run``, ``mcp run``, ``python``), not the server's
LAUNCHER_WORDS = frozenset({"run", "mcp", "python", "python3", "uv", "uvx", "npx", "node"})
@dataclass(frozen=True)
class Variable:
    """An environment variable the registry declares for a package."""

    name: str
    required: bool | None
    """``is_required`` / ``isRequired`` as declared; None where the entry does not say."""
    example: str | None = None
    """the value the entry gives: server.json's ``default`` or ``value``, else its ``description``
    (the launch seed writes an example there: ``<YOUR_API_KEY>``, ``us-east-1``)."""
    choices: tuple[str, ...] = ()
    """server.json's ``choices``."""
    fmt: str | None = None
    """server.json's ``format`` (``string``, ``number``, ``boolean``, ``filepath``)."""


@dataclass(frozen=True)
class Package:
    """One server's package: where to install it from and what the registry says it needs."""

    server: str
    """the registry's server name (``io.github.owner/name``): the capture's name."""
    registry: str
    """``npm`` or ``pypi``."""
    name: str
    version: str | None
    """None when the entry gives none: the newest is installed."""
    arguments: tuple[str, ...]
    """the registry's runtime and package arguments, each as written (flag and value in one)."""
    variables: tuple[Variable, ...]
    transport: str
    """``stdio`` unless the entry says otherwise (only stdio packages are started)."""
    repo: str | None
    """``owner/name`` of the GitHub repository holding its source, when the entry has one."""
    subfolder: str | None

    @property
    def label(self) -> str:
        """``registry:name@version`` (``@latest`` without a version)."""
        return f"{self.registry}:{self.name}@{self.version or 'latest'}"


@dataclass(frozen=True)
class Arguments:
    """What :func:`arguments_for` made of a package's registry arguments."""

    passed: tuple[str, ...]
    """given to the server, in order."""
    left_out: tuple[str, ...]
    """placeholders, launcher flags and source-checkout paths, as written."""
    executable: str | None
    """an executable the arguments name (``uvx --from pkg NAME``'s NAME), if one is installed."""
    module: str | None
    """``-m MODULE``: the module to run with the package's Python."""
    python: str | None
    """``--python X``: the interpreter version the entry asks for."""
    stand_ins: tuple[StandIn, ...] = ()
    """what was passed in place of a placeholder (``pipeline.runtime.standins``)."""


def packages(items: Iterable[Mapping[str, Any]]) -> Iterator[Package]:
    """The npm and PyPI packages of registry items (either shape), in order."""
    for item in items:
        server = item.get("server", item)
        if not isinstance(server, Mapping):
            continue
        found = listed(item)
        for raw in server.get("packages") or ():
            if isinstance(raw, Mapping) and (package := _package(server, raw, found.repo, found.subfolder)):
                yield package


def _package(server: Mapping[str, Any], raw: Mapping[str, Any], repo: str | None,
             subfolder: str | None) -> Package | None:
    registry = str(raw.get("registryType") or raw.get("registry_name") or raw.get("registry_type") or "").lower()
    name = raw.get("identifier") or raw.get("name")
    if registry not in REGISTRIES or not isinstance(name, str) or not name:
        return None
    transport = raw.get("transport")
    kind = transport.get("type") if isinstance(transport, Mapping) else transport
    arguments = [*_texts(raw.get("runtimeArguments") or raw.get("runtime_arguments")),
                 *_texts(raw.get("packageArguments") or raw.get("package_arguments"))]
    variables = tuple(_variable(v) for v in raw.get("environmentVariables") or raw.get("environment_variables") or ()
                      if isinstance(v, Mapping) and v.get("name"))
    version = raw.get("version")
    return Package(server=str(server.get("name") or name), registry=registry, name=name.strip(),
                   version=version.strip() if isinstance(version, str) and version.strip() else None,
                   arguments=tuple(arguments), variables=variables, transport=str(kind or "stdio"),
                   repo=repo, subfolder=subfolder)


def _variable(raw: Mapping[str, Any]) -> Variable:
    example = next((str(raw[k]) for k in ("default", "value", "description") if raw.get(k) not in (None, "")), None)
    choices = tuple(str(c) for c in raw.get("choices") or () if isinstance(c, str | int | float))
    fmt = raw.get("format")
    return Variable(str(raw["name"]), _flag(raw.get("isRequired", raw.get("is_required"))), example, choices,
                    fmt if isinstance(fmt, str) else None)


def _texts(arguments: Any) -> Iterator[str]:
    """Each argument as written: a named one's flag with its value, a positional one's value."""
    for argument in arguments or ():
        if not isinstance(argument, Mapping):
            continue
        value = argument.get("value") or argument.get("default") or argument.get("valueHint") \
            or argument.get("value_hint") or ""
        name = str(argument.get("name") or "")
        if argument.get("type") == "named" and name and not str(value).startswith(name):
            joined = value and name.startswith("--") and "=" not in name
            yield f"{name}={value}" if joined else f"{name} {value}".strip()
        elif value:
            yield str(value)


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def arguments_for(package: Package, executables: Iterable[str] = (), *, stand_ins: bool = True) -> Arguments:
    """The registry arguments of ``package`` split by the module doc's rule; ``executables`` are
    the names the installed package provides (a leading word naming one selects it). A placeholder
    is passed as its stand-in (``stand_ins``), or left out with its flag."""
    names = {_normal(n): n for n in executables}
    words = [(word, written) for written in package.arguments for word in _split(written)]
    passed: list[str] = []
    left_out: list[str] = []
    stood: list[StandIn] = []
    executable = module = python = None
    index = 0
    while index < len(words):
        word, written = words[index]
        flag, equals, inline = word.partition("=")
        step = 1
        if flag in LAUNCHER_FLAGS:
            step = 1 if equals else 1 + LAUNCHER_FLAGS[flag]
            values = [inline] if equals else [w for w, _ in words[index + 1:index + step]]
            python = values[0] if flag == "--python" and values else python
            left_out.append(written)
        elif word == "-m" and index + 1 < len(words):
            module, step = words[index + 1][0], 2
        elif not passed and _normal(word) in names:
            executable = names[_normal(word)]
        elif (not passed and word in LAUNCHER_WORDS | {package.name}) or _source_path(word) or (
                not stand_ins and is_placeholder(written)):
            left_out.append(written)
        elif is_placeholder(word):
            before = words[index - 1] if index else None
            named = flag if equals else before[0] if before and before[1] == written and before[0] != word else word
            stood.append(stand_in(named, inline if equals else word))
            passed.append(f"{flag}={stood[-1].value}" if equals else stood[-1].value)
        else:
            passed.append(word)
        index += step
    return Arguments(tuple(passed), tuple(dict.fromkeys(left_out)), executable, module, python, tuple(stood))


def _split(written: str) -> list[str]:
    """Shell words; a flag written with its value (``--description two words``) is two words, and
    with ``=`` (``--token=HF_{optional token}``) one."""
    flag, space, value = written.strip().partition(" ")
    if flag.startswith("-") and space and "=" not in flag:
        return [flag, value.strip().strip("'\"")]
    if flag.startswith("-") and "=" in flag and not any(q in written for q in "'\""):
        return [written.strip()]
    try:
        return shlex.split(written)
    except ValueError:
        return written.split()


def _source_path(word: str) -> bool:
    """A source checkout's script (``server.py``, ``src/index.ts``): the package runs its own."""
    return word.endswith((".py", ".ts")) or (("/" in word or "\\" in word) and word.endswith(".js"))


def _normal(name: str) -> str:
    """A package or script name compared without case, and with ``-``, ``_`` and ``.`` alike."""
    return re.sub(r"[-_.]+", "-", name).lower()
