"""What a tool declares, held against what its handler can do (seed 002: a default never
contradicts; only a hint written in source can).

- a **contradiction**: ``readOnlyHint: true`` with a write, delete or exec effect;
  ``destructiveHint: false`` with a delete; ``openWorldHint: false`` with ``egress-open``;
- a **doubt**: ``idempotentHint: true`` on a handler that creates something on every call;
- a **suggestion**: for a tool that declares no hint, the hints its effects suggest.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pipeline.scan.detect.model import FALSE, TRUE, Tool
from pipeline.scan.effects import model
from pipeline.scan.effects.model import Effect, ToolEffects

#: what each effect kind says of a handler, in a finding's words
PHRASES = {model.WRITE_LOCAL: "writes a local file", model.WRITE_REMOTE: "writes to a remote service",
           model.DELETE_LOCAL: "deletes a local file", model.DELETE_REMOTE: "deletes on a remote service",
           model.EXEC: "runs a command or a query as given", model.EGRESS_OPEN: "reaches a place taken from its input"}
CONTRADICTION, DOUBT, SUGGESTION = "contradiction", "doubt", "suggestion"
_CREATES = ("create", "insert", "add", "post", "new", "upload", "send", "append", "publish")


@dataclass(frozen=True)
class Verdict:
    """One finding about one tool."""

    kind: str
    """``contradiction``, ``doubt`` or ``suggestion``."""
    hint: str
    """the wire name of the hint (``readOnlyHint``); ``annotations`` for a suggestion."""
    declared: str
    """what the tool declares (``true``, ``false``, ``unset``)."""
    detail: str
    """what the handler does, or the suggested hints (``readOnlyHint: true, openWorldHint: false``)."""
    evidence: Effect | None
    """the call behind it (``None`` for a suggestion without effects)."""


def judge(tool: Tool, found: ToolEffects) -> list[Verdict]:
    """The contradictions, doubts and suggestions of one tool whose handler was read."""
    if not found.handler.located:
        return []
    hints = tool.annotations
    verdicts: list[Verdict] = []
    if hints.read_only_hint == TRUE:
        verdicts.extend(_against("readOnlyHint", TRUE, found.effects, model.MUTATING))
    if hints.destructive_hint == FALSE and hints.read_only_hint != TRUE:
        verdicts.extend(_against("destructiveHint", FALSE, found.effects, model.DELETING))
    if hints.open_world_hint == FALSE:
        verdicts.extend(_against("openWorldHint", FALSE, found.effects, {model.EGRESS_OPEN}))
    if hints.idempotent_hint == TRUE and hints.read_only_hint != TRUE:
        creating = [e for e in found.effects if e.kind == model.WRITE_REMOTE and _creates(e)]
        if creating:
            verdicts.append(Verdict(DOUBT, "idempotentHint", TRUE, f"creates on every call: {creating[0].call}",
                                    creating[0]))
    if not hints.declared:
        verdicts.append(Verdict(SUGGESTION, "annotations", "unset", suggest(found.kinds), _strongest(found.effects)))
    return verdicts


def _against(hint: str, declared: str, effects: Iterable[Effect], kinds: Iterable[str]) -> list[Verdict]:
    wanted = frozenset(kinds)
    hits = [e for e in effects if e.kind in wanted]
    if not hits:
        return []
    first = sorted(hits, key=lambda e: (e.depth, e.path, e.line))[0]
    what = PHRASES.get(first.kind, first.kind)
    return [Verdict(CONTRADICTION, hint, declared, f"handler {what}: {first.call}", first)]


def _creates(effect: Effect) -> bool:
    """Whether a remote write makes something new: a POST, or a method named for creating."""
    callee = effect.call.lower().split("(")[0]
    return (effect.rule == "http" and "post" in effect.call.lower()) or any(verb in callee for verb in _CREATES)


def _strongest(effects: Iterable[Effect]) -> Effect | None:
    order = {kind: i for i, kind in enumerate(model.EFFECT_KINDS)}
    ranked = sorted(effects, key=lambda e: -order.get(e.kind, 0))
    return ranked[0] if ranked and ranked[0].kind != model.NONE else None


def suggest(kinds: frozenset[str]) -> str:
    """The hints a set of effects suggests, in the spec's order: a tool with only reads is
    read-only; one that deletes or runs commands is destructive; anything remote or open is
    open-world. ``unknown`` effects suggest nothing for the hints they leave open."""
    mutating = bool(kinds & model.MUTATING)
    parts = [f"readOnlyHint: {'false' if mutating or model.UNKNOWN in kinds else 'true'}"]
    if mutating:
        destructive = bool(kinds & (model.DELETING | {model.EXEC}))
        parts.append(f"destructiveHint: {'true' if destructive else 'false'}")
    parts.append(f"openWorldHint: {'true' if kinds & model.REMOTE else 'false'}")
    return ", ".join(parts)


def profile(all_kinds: Iterable[frozenset[str]]) -> dict[str, bool]:
    """A server's profile in seed 002's terms, over all its tools: whether it reads private data
    (local files or a private service), writes, and reaches outside (an open URL, a remote write)."""
    kinds = frozenset().union(*all_kinds)
    return {
        "reads_private": bool(kinds & {model.READ_LOCAL, model.READ_REMOTE}),
        "writes": bool(kinds & model.MUTATING),
        "reaches_outside": bool(kinds & {model.EGRESS_OPEN, model.WRITE_REMOTE}),
    }
