"""What the caveats read about one snapshot (``Facts``), and the words they share."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: one caveat of one snapshot: (caveat, status, evidence)
Row = tuple[str, str, str]


@dataclass
class Facts:
    """What the database holds about one snapshot in scope."""

    snapshot: dict[str, Any]
    """its ``scope`` row (status, source, terms, server_paths, server_repo, ...)."""
    tools: list[dict[str, Any]] = field(default_factory=list)
    """its MCP tools of the roles asked for: path, via, role, in_server (under a server path)
    and the four declared hints."""
    roles: dict[str, int] = field(default_factory=dict)
    """role -> its MCP tools, every role counted."""
    places: list[dict[str, Any]] = field(default_factory=list)
    """term, role (server, example, test, docs) and count of its matches."""
    totals: dict[str, int] = field(default_factory=dict)
    """term -> count over the tree, zeros included."""
    skipped: list[dict[str, Any]] = field(default_factory=list)
    """path and kind of every member not read."""
    notes: list[dict[str, Any]] = field(default_factory=list)
    """path, kind and detail of its ``tree_notes`` (gitattributes, gitmodules, lfs-pointer)."""


def scanned(f: Facts) -> bool:
    return bool(f.snapshot["status"] == "scanned")


def examples(paths: list[str], shown: int = 3) -> str:
    more = f" and {len(paths) - shown} more" if len(paths) > shown else ""
    return ", ".join(paths[:shown]) + more


def plural(count: int, noun: str) -> str:
    """``1 MCP tool``, ``2 MCP tools``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
