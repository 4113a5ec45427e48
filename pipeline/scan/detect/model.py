"""The values the registration detector produces: one ``Tool`` per tool definition.

Hint values use one vocabulary everywhere (source, wire, runtime):

- ``true`` / ``false``: a literal we could read;
- ``unset``: the hint is not written;
- ``dynamic``: something is written, but it is not a literal we can resolve.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from pipeline.scan.effects.model import ToolEffects

TRUE, FALSE, UNSET, DYNAMIC = "true", "false", "unset", "dynamic"
HINT_VALUES = (TRUE, FALSE, UNSET, DYNAMIC)

#: canonical hint fields, in the order of the spec and of positional constructors
HINT_FIELDS = ("read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint")

#: wire (camelCase) name of each canonical field
WIRE_NAMES = {
    "read_only_hint": "readOnlyHint",
    "destructive_hint": "destructiveHint",
    "idempotent_hint": "idempotentHint",
    "open_world_hint": "openWorldHint",
}


def hint_field(spelling: str) -> str | None:
    """The canonical hint field for a source spelling, ignoring case and ``_``.

    ``readOnlyHint``, ``ReadOnlyHint``, ``read_only_hint``, ``ReadOnly``, ``read_only``,
    ``with_read_only``, ``IsReadOnly``, ``WithReadOnlyHintAnnotation`` and ``.readOnly``
    all give ``read_only_hint``; anything else gives ``None``.
    """
    found = _SPELLING.match(spelling.lower().replace("_", "").lstrip("."))
    return _STEMS[found.group(1)] if found else None


_SPELLING = re.compile(r"(?:with|is)?(readonly|destructive|idempotent|openworld)(?:hint)?(?:annotation)?\Z")
_STEMS = {
    "readonly": "read_only_hint",
    "destructive": "destructive_hint",
    "idempotent": "idempotent_hint",
    "openworld": "open_world_hint",
}


@dataclass(frozen=True)
class Annotations:
    """The annotations a tool declares in source (not what the SDK adds on the wire)."""

    read_only_hint: str = UNSET
    """one of ``HINT_VALUES``."""
    destructive_hint: str = UNSET
    """one of ``HINT_VALUES``."""
    idempotent_hint: str = UNSET
    """one of ``HINT_VALUES``."""
    open_world_hint: str = UNSET
    """one of ``HINT_VALUES``."""
    title: str | None = None
    """``annotations.title`` when it is a literal string."""
    title_state: str = UNSET
    """``true`` when a literal title is written, ``dynamic`` for another expression, else ``unset``."""
    source: str = "none"
    """how they are written: ``none`` (no annotations object), ``inline``, ``positional``,
    ``options`` (Go option helpers, Rust builders), ``attribute`` (C#, PHP, Swift, Java),
    ``constant`` (keys held in constants), ``preset:<name>`` (a shared object or helper),
    ``dynamic`` (an expression we cannot resolve)."""

    def with_hint(self, name: str, value: str) -> Annotations:
        """A copy with one hint (canonical field name) set."""
        return _replace(self, **{name: value})

    def with_source(self, source: str) -> Annotations:
        """A copy with another ``source``."""
        return _replace(self, source=source)

    @property
    def declared(self) -> bool:
        """Whether an annotations object (or any hint) is declared at all."""
        return self.source != "none"


NO_ANNOTATIONS = Annotations()


def _replace(value: Annotations, **changes: str | None) -> Annotations:
    return replace(value, **changes)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Tool:
    """One tool definition found in source: the unit of the census."""

    path: str
    """file that defines it, relative to the tree's root."""
    line: int
    """1-based line of the definition (decorator, call or literal)."""
    sdk: str
    """key of ``SDKS`` (an MCP SDK or a look-alike library)."""
    tool_name: str | None
    """the name a client sees, when it is a literal (or derived by the SDK's rule)."""
    rule: str
    """the detector rule that matched, ``<language>.<sdk>.<form>``."""
    annotations: Annotations = NO_ANNOTATIONS
    """the annotations written in source."""
    via: str = "direct"
    """``direct``, ``wrapper:<name>`` (a project's own registration helper) or
    ``preset:<name>`` (a shared annotations object or helper)."""
    tool_title: str | None = None
    """the tool-level ``title`` (``Tool.title``), when a literal."""
    sdk_version: str | None = None
    """the SDK's version from the nearest package manifest, when declared."""
    is_mcp: bool = field(default=True)
    """False for look-alikes (agent frameworks, plugins): recorded, never counted as MCP."""
    role: str = "server"
    """where it lives: ``server`` (shipped), ``example`` or ``test`` (``pipeline.scan.roles``)."""
    role_rule: str = "default"
    """the rule of ``pipeline.scan.roles`` that decided ``role``."""
    conditional: bool = False
    """True when the registration sits in a branch on the server's configuration (an environment
    variable, a command-line flag, a settings field, a toolset list, a read-only mode): a running
    server may leave it out (``pipeline.scan.detect.conditions``)."""
    condition: str | None = None
    """that branch's condition as written, on one line, at most 120 characters (``else: x`` when
    the tool is registered where ``x`` does not hold, ``x`` where ``!x`` does not); ``None`` when
    not ``conditional``."""

    site: tuple[str, int] | None = field(default=None, compare=False)
    """where the registration call is (file, 1-based line) when the row is placed elsewhere (at an
    element of the list a loop registers): the conditions of both places apply (not stored)."""

    def __post_init__(self) -> None:
        """An annotations object we cannot read (``source`` ``dynamic``: ``annotations=TOOLS[name]``)
        may hold any hint: each one not read from it is ``dynamic`` (unknown), not ``unset``."""
        if self.annotations.source == DYNAMIC:
            object.__setattr__(self, "annotations", unknown_hints(self.annotations))


def unknown_hints(annotations: Annotations) -> Annotations:
    """``annotations`` with every ``unset`` hint and title state made ``dynamic``."""
    unknown = {name: DYNAMIC for name in (*HINT_FIELDS, "title_state") if getattr(annotations, name) == UNSET}
    return replace(annotations, **unknown) if unknown else annotations


@dataclass(frozen=True)
class Exclusion:
    """A file the detector left out on purpose, with the reason."""

    path: str
    """file left out."""
    reason: str
    """``vendored``, ``docs``, ``type-definition``, ``client-code``, ``sdk-source``, ``too-large`` ..."""
    detail: str = ""
    """what matched, e.g. the vendored directory."""


def substitute(template: Annotations, arguments: list[str]) -> Annotations:
    """A wrapper's annotations with ``param:<i>`` hints replaced by the call's i-th argument
    (``true``, ``false``, ``None``, ``Some(...)``: the Rust and Swift wrappers' calls)."""
    result = template
    for hint in HINT_FIELDS:
        value = getattr(template, hint)
        if value.startswith("param:"):
            index = int(value.split(":", 1)[1])
            written = arguments[index] if index < len(arguments) else None
            result = result.with_hint(hint, UNSET if written is None else _literal_bool(written))
    return result


def _literal_bool(text: str) -> str:
    value = text.strip().removeprefix("Some(").removesuffix(")")
    return {"true": TRUE, "false": FALSE, "None": UNSET}.get(value, DYNAMIC)


@dataclass(frozen=True)
class Detection:
    """What the detector found in one tree."""

    tools: tuple[Tool, ...]
    """every tool definition, look-alikes included (``is_mcp`` false)."""
    exclusions: tuple[Exclusion, ...]
    """files left out on purpose, with the reason."""
    files_parsed: int
    """source files handed to a language detector."""
    notes: tuple[tuple[str, str, str], ...] = ()
    """(path, kind, detail): evidence of what the tree is when it defines no tool (``evidence``:
    the MCP SDKs its manifests declare, files using MCP as a client or serving only prompts)."""
    effects: tuple[ToolEffects, ...] = ()
    """each MCP tool's handler and what it can do (``pipeline.scan.effects``), when asked for."""
