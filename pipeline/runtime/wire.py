"""What the probe keeps of a conversation with a server, and how it speaks of failures.

``Wire`` taps a ``ClientSession``'s streams (``Tap``) so the raw JSON of each answer is kept
as it arrived; the other helpers turn exceptions and server output into one-line reasons with
secrets masked, strip credentials from URLs, and find the processes a probe started.
"""

from __future__ import annotations

import copy
import os
import re
import signal
from collections.abc import Callable, Iterable
from contextlib import suppress
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit, urlunsplit

from mcp import MCPError
from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCRequest, JSONRPCResponse
from mcp_types.jsonrpc import CONNECTION_CLOSED

#: environment variable that marks every process of one probe, so the tree can be found and killed
COOKIE_VARIABLE = "CENSUS_PROBE_COOKIE"


class Wire:
    """Taps a session's streams: remembers each request's method and keeps the raw results."""

    def __init__(self) -> None:
        self._methods: dict[int | str, str] = {}
        self.results: dict[str, list[dict[str, Any]]] = {}
        self.notes: list[str] = []
        self.transport_errors: list[str] = []

    def sent(self, item: SessionMessage) -> None:
        if isinstance(item.message, JSONRPCRequest):
            self._methods[item.message.id] = item.message.method

    def received(self, item: SessionMessage | Exception) -> None:
        if isinstance(item, Exception):
            self.transport_errors.append(describe(item))
        elif isinstance(item.message, JSONRPCResponse) and item.message.id in self._methods:
            method = self._methods.pop(item.message.id)
            self.results.setdefault(method, []).append(copy.deepcopy(item.message.result))

    def last(self, method: str) -> dict[str, Any] | None:
        found = self.results.get(method)
        return found[-1] if found else None


class Tap:
    """A session stream that shows each item passing through to ``seen`` (the wire's log)."""

    def __init__(self, inner: Any, seen: Callable[[Any], None]) -> None:
        self._inner, self._seen = inner, seen

    def __getattr__(self, name: str) -> Any:  # e.g. ``last_context`` of the HTTP read stream
        return getattr(self._inner, name)

    async def receive(self) -> Any:
        item = await self._inner.receive()
        self._seen(item)
        return item

    async def send(self, item: Any, /) -> None:
        self._seen(item)
        await self._inner.send(item)

    def __aiter__(self) -> Tap:
        return self

    async def __anext__(self) -> Any:
        item = await self._inner.__anext__()
        self._seen(item)
        return item

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Tap:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class Failure(Exception):
    """A server answer the probe cannot go on from (a looping cursor, too many pages)."""


def kill_marked(cookie: str) -> int:
    """SIGKILL every process whose environment holds ``COOKIE_VARIABLE=cookie``; how many.

    Reads ``/proc`` (Linux); elsewhere it finds nothing and the SDK's process-group kill is all.
    """
    marker = f"{COOKIE_VARIABLE}={cookie}".encode()
    killed = 0
    for entry in Path("/proc").glob("[0-9]*"):
        with suppress(OSError):
            if marker in (entry / "environ").read_bytes().split(b"\0"):
                os.kill(int(entry.name), signal.SIGKILL)
                killed += 1
    return killed


def safe_url(url: str) -> str:
    """``url`` without user name, password or query values (``?key=***``)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    query = re.sub(r"=[^&]*", "=***", parts.query)
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def describe(exc: BaseException) -> str:
    """One line for an exception, groups unwrapped to their first member."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, Failure):
        text = str(exc)
    elif isinstance(exc, MCPError) and exc.error.code == CONNECTION_CLOSED:
        text = "the server closed the connection"
    elif isinstance(exc, MCPError):
        text = f"error {exc.error.code}: {exc.error.message}"
    elif isinstance(exc, OSError) and exc.strerror:
        text = f"{exc.strerror}: {exc.filename}" if exc.filename else exc.strerror
    else:
        text = f"{type(exc).__name__}: {exc}".rstrip(": ")
    return one_line(text)


def transport_note(wire: Wire) -> str:
    return f" ({wire.transport_errors[-1]})" if wire.transport_errors else ""


def last_lines(log: IO[str], count: int = 40) -> tuple[str, ...]:
    """The last ``count`` lines of a server's stderr that are not blank, each on one line."""
    log.seek(0)
    return tuple(one_line(line) for line in log.read().splitlines() if line.strip())[-count:]


def last_line(log: IO[str]) -> str:
    """The last line of a server's stderr that says something: not a stack frame, a runtime's
    version trailer (``Node.js v20.1.0``), a pointer to documentation or a line of box drawing."""
    log.seek(0)
    lines = [line for line in log.read().splitlines() if line.strip()]
    telling = [line for line in lines if not TRAILER.match(line)]
    return one_line((telling or lines)[-1]) if lines else ""


#: stderr lines that end a crash report without saying what went wrong
TRAILER = re.compile(r"^\s+at |^Node\.js v\d|^\s*For further information visit |^[\s+\-=|_*#~^─━│┃╭╮╰╯┌┐└┘]+$")


def one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def mask(text: str | None, hidden: Iterable[str]) -> str | None:
    """``text`` with every value of ``hidden`` of four characters or more replaced by ``***``."""
    for value in hidden:
        if text and len(value) >= 4:
            text = text.replace(value, "***")
    return text
