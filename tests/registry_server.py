"""A loopback stand-in for the MCP registry's read API (``GET /v0/servers``), with faults.

Pages are served ``page_size`` items at a time; the cursor is the index of the next item as
text. ``fail(code, times)`` answers the next requests with that status; ``html`` answers 200
with a page that is not JSON; ``stuck_cursor`` repeats the first cursor forever.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from loopback import serving_handler


@dataclass
class Registry:
    """What the server answers, and what it was asked."""

    items: list[Any]
    page_size: int = 2
    wrapped: bool = False
    """answer in the v0.1 shape: ``{"server": {...}, "_meta": {}}``."""
    faults: list[int | str] = field(default_factory=list)
    stuck_cursor: bool = False
    requests: list[tuple[str, dict[str, list[str]], dict[str, str]]] = field(default_factory=list)
    url: str = ""
    path: str = "/v0/servers"
    """the list endpoint it serves (every other path is a 404)."""

    def fail(self, fault: int | str, times: int = 1) -> None:
        """Answer the next ``times`` requests with HTTP ``fault`` (or ``"html"``)."""
        self.faults.extend([fault] * times)

    def page(self, query: dict[str, list[str]]) -> dict[str, Any]:
        start = int(query.get("cursor", ["0"])[0])
        chunk = self.items[start : start + self.page_size]
        servers = [{"server": item, "_meta": {"io.modelcontextprotocol.registry/official": {}}} if self.wrapped
                   else item for item in chunk]
        following = start + self.page_size
        cursor = "2" if self.stuck_cursor else str(following) if following < len(self.items) else None
        metadata: dict[str, Any] = {"count": len(servers)}
        if cursor:
            metadata["nextCursor"] = cursor
        return {"servers": servers, "metadata": metadata}


class _Handler(BaseHTTPRequestHandler):
    registry: Registry

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        self.registry.requests.append((parts.path, query, {k.lower(): v for k, v in self.headers.items()}))
        fault = self.registry.faults.pop(0) if self.registry.faults else None
        if parts.path != self.registry.path:
            self._send(404, b'{"title": "Not Found"}')
        elif fault == "html":
            self._send(200, b"<html>maintenance</html>", "text/html")
        elif isinstance(fault, int):
            self._send(fault, b'{"title": "injected"}')
        else:
            self._send(200, json.dumps(self.registry.page(query)).encode())

    def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def serving(registry: Registry) -> Iterator[Registry]:
    """Serve ``registry`` on a loopback port for the duration of the block."""
    handler = type("Handler", (_Handler,), {"registry": registry})
    with serving_handler(handler) as url:
        registry.url = url
        yield registry
