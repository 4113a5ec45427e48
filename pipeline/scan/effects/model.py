"""The values the effects analysis produces: where each tool's handler is, and what it can do.

An effect is one of ``EFFECT_KINDS``; each keeps its evidence (the call that leaves the process,
with its file and line) and how the analysis reached it from the handler (``chain``).
"""

from __future__ import annotations

from dataclasses import dataclass

NONE, UNKNOWN = "none", "unknown"
READ_LOCAL, READ_REMOTE = "read-local", "read-remote"
WRITE_LOCAL, WRITE_REMOTE = "write-local", "write-remote"
DELETE_LOCAL, DELETE_REMOTE = "delete-local", "delete-remote"
EXEC, EGRESS_OPEN = "exec", "egress-open"

#: every effect kind, from the mildest to the strongest
EFFECT_KINDS = (NONE, READ_LOCAL, READ_REMOTE, WRITE_LOCAL, WRITE_REMOTE, DELETE_LOCAL, DELETE_REMOTE,
                EXEC, EGRESS_OPEN, UNKNOWN)
#: the kinds that change the tool's environment: a read-only declaration contradicts each
MUTATING = frozenset({WRITE_LOCAL, WRITE_REMOTE, DELETE_LOCAL, DELETE_REMOTE, EXEC})
DELETING = frozenset({DELETE_LOCAL, DELETE_REMOTE})
REMOTE = frozenset({READ_REMOTE, WRITE_REMOTE, DELETE_REMOTE, EGRESS_OPEN})


def family(kind: str) -> str:
    """``write``, ``delete``, ``read``, ``exec``, ``egress-open``, ``none`` or ``unknown``: an
    effect kind without its place (what the audit's classes compare)."""
    return kind.split("-", maxsplit=1)[0] if kind in MUTATING - {EXEC} or kind.startswith("read") else kind


@dataclass(frozen=True)
class Handler:
    """The function, closure or method a tool's registration runs, or why it was not found."""

    path: str | None
    """file of the handler (``None`` when not located)."""
    line: int | None
    """1-based first line of the handler."""
    kind: str
    """how it was found: ``inline`` (a function written in the registration), ``named`` (a function
    named for the tool: ``get_item``, ``handleGetItem``), ``reference`` (a
    named function or method the registration passes), ``decorated`` (the function under a
    decorator), ``member`` (a method or function-valued field of the tool's object or class),
    ``branch`` (the branch of a dispatcher that tests the tool's name), ``generic`` (the one handler a
    loop registers every listed definition with), ``mapped`` (the value of a
    name-to-handler table), or ``none``."""
    reason: str = ""
    """why it was not located (``kind`` ``none``), e.g. ``no function argument``."""

    @property
    def located(self) -> bool:
        """Whether the handler was found."""
        return self.path is not None


@dataclass(frozen=True)
class Effect:
    """One thing a handler can do, with the call that does it."""

    kind: str
    """one of ``EFFECT_KINDS``."""
    path: str
    """file of the call."""
    line: int
    """1-based line of the call."""
    call: str
    """the call as written, on one line, at most 120 characters."""
    rule: str
    """the knowledge entry that classified it (``http``, ``sql``, ``fs``, ``process``, ``verb``...)."""
    depth: int = 0
    """how many of the repository's own functions lie between the handler and the call."""


@dataclass(frozen=True)
class ToolEffects:
    """What the analysis found for one detected tool (keyed like its ``tools`` row)."""

    path: str
    """the tool's registration file (``Tool.path``)."""
    line: int
    """the tool's registration line (``Tool.line``)."""
    tool_name: str | None
    """the tool's name (``Tool.tool_name``)."""
    handler: Handler
    """where its handler is."""
    effects: tuple[Effect, ...]
    """every effect found, deduplicated by (kind, path, line); ``none`` alone when the handler
    was read and leaves the process nowhere."""
    functions_read: int = 0
    """the repository's own functions read from the handler (the handler included)."""

    @property
    def kinds(self) -> frozenset[str]:
        """The effect kinds, without evidence."""
        return frozenset(e.kind for e in self.effects)
