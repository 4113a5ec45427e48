"""Runtime truth: a server's tools/list answer, read as one row per tool.

``tools`` keeps what source code declares; this module reads what a running server sends.
An answer is JSON in any of these shapes (``read_pages``):

- a tools/list result: an object with ``tools`` (and maybe ``nextCursor``);
- a JSON-RPC response whose ``result`` is such an object (an ``error`` response is refused);
- a list of either: the pages of one listing, in order.

Hint values use the detector's vocabulary (``pipeline.scan.detect.model``), decided here for
the wire:

- ``true`` / ``false``: the JSON booleans;
- ``unset``: the key is absent, or its value is JSON ``null`` (clients read a null hint as an
  absent one; the null stays visible in ``annotations_json``);
- anything else (``"yes"``, ``"true"``, ``1``, an object) is kept as its JSON text
  (``'"yes"'``, ``'"true"'``, ``'1'``): it counts as set, never as true or false, and a
  string can never be mistaken for a boolean because its quotes are kept.

``dynamic`` never occurs at runtime: the wire carries values, not expressions. ``title`` is
``annotations.title`` (as in ``tools.title``); the tool-level ``Tool.title`` stays in
``raw_json``. Tools are kept in the order received, duplicates included.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pipeline.errors import CensusError
from pipeline.scan.detect.model import FALSE, HINT_FIELDS, TRUE, UNSET, WIRE_NAMES

#: statuses of a capture: every page read, or not (with the reason)
OK, SKIPPED = "ok", "skipped"
#: how a capture was taken (``recorded``: a catalog's record of what a server listed, ``pipeline.runtime.recorded``)
STDIO, HTTP, FILE, RECORDED = "stdio", "http", "file", "recorded"


class ToolsListError(CensusError):
    """A tools/list answer that cannot be read as tools; the message names the file or server."""


@dataclass(frozen=True)
class RuntimeTool:
    """One tool of a tools/list answer: a row of ``runtime_tools``."""

    tool_name: str | None
    """``name`` as sent (its JSON text if it is not a string; None if absent)."""
    title: str | None
    """``annotations.title`` (its JSON text if it is not a string; None if absent or null)."""
    read_only_hint: str
    """``true``, ``false``, ``unset`` or the JSON text of another value (see the module doc)."""
    destructive_hint: str
    """as ``read_only_hint``."""
    idempotent_hint: str
    """as ``read_only_hint``."""
    open_world_hint: str
    """as ``read_only_hint``."""
    annotations_json: str | None
    """the ``annotations`` value as JSON text, None when the key is absent."""
    raw_json: str
    """the whole tool object as received, as JSON text."""

    @property
    def annotated(self) -> bool:
        """Whether the tool carries an annotations object (an empty one counts)."""
        return self.annotations_json is not None and self.annotations_json.startswith("{")


@dataclass(frozen=True)
class Capture:
    """One server's tools/list, captured once: a row of ``runtime_captures`` and its tools."""

    server: str
    """the name the census gives the server (``census probe NAME``)."""
    captured_at_utc: datetime
    """when the answer was taken (for a file: its modification time), timezone-aware UTC."""
    status: str
    """``ok`` (every page read) or ``skipped``."""
    reason: str | None
    """why it was skipped, one line; for ``ok``, a note when the mcp client refused a page."""
    transport: str
    """``stdio``, ``http``, ``file`` or ``recorded``."""
    command_or_url: str
    """the command line, the URL (query values and credentials masked) or the file path."""
    pages: tuple[Mapping[str, Any], ...] = ()
    """the tools/list results as received, in order (those that arrived, when skipped)."""
    initialize: Mapping[str, Any] | None = None
    """the raw ``initialize`` result (server name, version, protocol), None for a file."""
    tools: tuple[RuntimeTool, ...] = field(default=())
    """one row per tool, in the order received; empty when skipped."""
    stderr: tuple[str, ...] = ()
    """the last lines a stdio server wrote to its stderr, masked (not stored: read for the cause of a
    failure, ``pipeline.runtime.causes``)."""

    @property
    def raw_json(self) -> str:
        """The raw answers as one JSON text: ``{"initialize": ..., "tools/list": [pages]}``."""
        return json.dumps({"initialize": self.initialize, "tools/list": list(self.pages)}, ensure_ascii=False)


def read_pages(answer: Any, origin: str) -> list[Mapping[str, Any]]:
    """The tools/list pages in ``answer`` (any shape of the module doc); ``origin`` names it in errors."""
    if isinstance(answer, list):
        return [page for item in answer for page in read_pages(item, origin)]
    if isinstance(answer, Mapping) and "tools" in answer:
        return [answer]
    if isinstance(answer, Mapping) and "error" in answer:
        raise ToolsListError(f"{origin}: a JSON-RPC error, not tools: {_json(answer['error'])[:200]}")
    if isinstance(answer, Mapping) and "result" in answer:
        return read_pages(answer["result"], origin)
    raise ToolsListError(f"{origin}: not a tools/list answer (no 'tools', 'result' or list of pages)")


def tools_of(pages: Sequence[Mapping[str, Any]], origin: str) -> tuple[RuntimeTool, ...]:
    """Every tool of ``pages``, in order; ``ToolsListError`` names the page and tool that is not an object."""
    rows: list[RuntimeTool] = []
    for number, page in enumerate(pages, start=1):
        tools = page.get("tools")
        if not isinstance(tools, list):
            raise ToolsListError(f"{origin}: page {number}: 'tools' is not a list")
        for index, tool in enumerate(tools):
            if not isinstance(tool, Mapping):
                raise ToolsListError(f"{origin}: page {number}: tools[{index}] is not an object")
            rows.append(tool_row(tool))
    return tuple(rows)


def tool_row(tool: Mapping[str, Any]) -> RuntimeTool:
    """One tool object as a row."""
    annotations = tool.get("annotations")
    fields = annotations if isinstance(annotations, Mapping) else {}
    hints = {name: hint_value(fields, WIRE_NAMES[name]) for name in HINT_FIELDS}
    return RuntimeTool(
        tool_name=_text(tool.get("name")), title=_text(fields.get("title")), **hints,
        annotations_json=_json(annotations) if "annotations" in tool else None, raw_json=_json(tool),
    )


def hint_value(annotations: Mapping[str, Any], wire_name: str) -> str:
    """``true``, ``false``, ``unset`` (absent or null) or the JSON text of any other value."""
    value = annotations.get(wire_name)
    if value is None:
        return UNSET
    if isinstance(value, bool):
        return TRUE if value else FALSE
    return _json(value)


def load_answer(path: Path) -> Any:
    """The JSON in ``path``; ``ToolsListError`` naming the file if it cannot be read."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ToolsListError(f"{path}: cannot read a tools/list answer: {exc}") from exc


def ingest_tools_list(path: Path | str, server: str, captured_at_utc: datetime | None = None) -> Capture:
    """A captured tools/list answer (a JSON file) as an ``ok`` capture of ``server``.

    ``captured_at_utc`` defaults to the file's modification time, so ingesting the same file
    twice gives the same capture. Nothing is stored: hand the result to
    ``pipeline.store.runtime.record_capture``.
    """
    path = Path(path)
    pages = read_pages(load_answer(path), str(path))
    when = captured_at_utc or datetime.fromtimestamp(path.stat().st_mtime, UTC)
    return Capture(server=server, captured_at_utc=when, status=OK, reason=None, transport=FILE,
                   command_or_url=str(path), pages=tuple(pages), tools=tools_of(pages, str(path)))


def _text(value: Any) -> str | None:
    """A string as it is, null or absent as None, anything else as its JSON text."""
    if value is None or isinstance(value, str):
        return value
    return _json(value)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
