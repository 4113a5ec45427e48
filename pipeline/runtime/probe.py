"""Ask a running MCP server for its tools, with the official ``mcp`` client.

``probe`` starts a stdio server (``stdio_client``), ``probe_url`` talks to a Streamable HTTP
server (``streamable_http_client``); both initialize a ``ClientSession``, call tools/list
through every page (``nextCursor``) and return a :class:`~pipeline.runtime.ingest.Capture`.

What is stored is what arrived on the wire, not what the SDK made of it: the session's
streams are tapped and the raw JSON of each answer is kept, then read by
``pipeline.runtime.ingest`` (the same reader as ``ingest_tools_list``). A page the SDK refuses (a
hint that is not a boolean fails its validation) is still read; the refusal is noted in
``reason``.

Nothing here hangs or raises for a bad server: a command that cannot start, a server that
never answers, crashes, exits or answers with an error gives a ``skipped`` capture with a
one-line reason naming the step (``start``, ``initialize``, ``tools/list page N``). Each step
has its own deadline (:class:`Timeouts`). A stdio server's whole process tree is killed at
the end: the SDK closes stdin and kills the process group of a server that does not exit, and
the probe then kills every process still carrying the probe's cookie in its environment
(``CENSUS_PROBE_COOKIE``, read from ``/proc`` on Linux), daemons that left the group included.

Environment variables and headers given to a server are never stored; their values are
masked in every reason, and a URL is stored without credentials or query values. Arguments
are stored as given: pass secrets through ``env``.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import shlex
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import anyio
import httpx2
from mcp import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from pipeline.runtime.ingest import HTTP, OK, SKIPPED, STDIO, Capture, RuntimeTool, ToolsListError, tools_of
from pipeline.runtime.session import DEFAULT_TIMEOUTS, Outcome, Timeouts, exchange
from pipeline.runtime.wire import (
    COOKIE_VARIABLE,
    kill_marked,
    last_line,
    last_lines,
    mask,
    safe_url,
)

__all__ = ["COOKIE_VARIABLE", "ProbeError", "Timeouts", "kill_marked", "probe", "probe_url", "safe_url"]
T = TypeVar("T")
# the SDK logs a server's stray stdout lines as errors; without a handler of the application's
# own, Python's last-resort handler would print them: the library never prints
logging.getLogger("mcp").addHandler(logging.NullHandler())


class ProbeError(ValueError):
    """A probe that cannot even be attempted (no command, no URL); the message names the server."""


def probe(server: str, command: Sequence[str], *, env: Mapping[str, str] | None = None,
          cwd: Path | str | None = None, timeouts: Timeouts = DEFAULT_TIMEOUTS,
          hidden: Iterable[str] | None = None) -> Capture:
    """Start ``command`` as a stdio MCP server named ``server`` and capture its tools/list.

    ``env`` is added to the SDK's minimal default environment (``HOME``, ``PATH``, ...) and
    never stored; ``hidden`` are the values masked in the capture's texts (default: every
    value of ``env``). Never hangs past the deadlines of ``timeouts``; raises only ``ProbeError``.
    """
    if not command:
        raise ProbeError(f"{server}: no command to start the server with")
    masked = list((env or {}).values()) if hidden is None else list(hidden)
    return _run_sync(_probe_stdio, server, list(command), _Start(dict(env or {}), cwd, masked), timeouts)


def probe_url(server: str, url: str, *, headers: Mapping[str, str] | None = None,
              timeouts: Timeouts = DEFAULT_TIMEOUTS) -> Capture:
    """Capture the tools/list of the Streamable HTTP MCP server at ``url``, named ``server``.

    ``headers`` (e.g. ``Authorization``) are sent with every request and never stored.
    """
    if urlsplit(url).scheme not in ("http", "https"):
        raise ProbeError(f"{server}: {safe_url(url)!r} is not an http(s) URL")
    return _run_sync(_probe_http, server, url, dict(headers or {}), timeouts)


@dataclass(frozen=True)
class _Start:
    """How a stdio server is started: its environment, folder, and the values masked in texts."""

    env: dict[str, str]
    cwd: Path | str | None
    hidden: list[str]


async def _probe_stdio(server: str, command: list[str], start: _Start, timeouts: Timeouts) -> Capture:
    cookie = secrets.token_hex(16)
    params = StdioServerParameters(command=command[0], args=command[1:], env={**start.env, COOKIE_VARIABLE: cookie},
                                   cwd=start.cwd)
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        try:
            outcome = await exchange(lambda: stdio_client(params, errlog=errlog), timeouts,
                                      give_up=lambda: _ignore(kill_marked(cookie)))
        finally:
            kill_marked(cookie)
        stderr, tail = last_line(errlog), last_lines(errlog)
    capture = _capture(server, outcome, transport=STDIO, target=shlex.join(command), stderr=stderr,
                       hidden=start.hidden)
    return replace(capture, stderr=tuple(mask(line, start.hidden) or "" for line in tail))


async def _probe_http(server: str, url: str, headers: dict[str, str], timeouts: Timeouts) -> Capture:
    @asynccontextmanager
    async def connect() -> AsyncIterator[Any]:
        limits = httpx2.Timeout(timeouts.page_seconds, connect=timeouts.start_seconds)
        async with httpx2.AsyncClient(headers=headers, timeout=limits) as client, \
                streamable_http_client(url, http_client=client) as streams:
            yield streams

    outcome = await exchange(connect, timeouts, give_up=lambda: None)
    return _capture(server, outcome, transport=HTTP, target=safe_url(url), stderr="", hidden=list(headers.values()))


def _capture(server: str, outcome: Outcome, *, transport: str, target: str, stderr: str,
             hidden: Iterable[str]) -> Capture:
    """The capture of one probe, with every value of ``hidden`` masked in its texts."""
    pages = tuple(outcome.wire.results.get("tools/list", []))
    reason, tools = outcome.failure, tuple[RuntimeTool, ...]()
    if reason is None:
        try:
            tools = tools_of(pages, "tools/list")
        except ToolsListError as exc:
            reason = str(exc)
    if reason is not None and stderr:
        reason += f" (stderr: {stderr})"
    note = "; ".join(outcome.wire.notes) or None
    return Capture(server=server, captured_at_utc=outcome.finished_at, status=OK if reason is None else SKIPPED,
                   reason=mask(reason or note, hidden), transport=transport,
                   command_or_url=mask(target, hidden) or target,
                   pages=pages, initialize=outcome.wire.last("initialize"), tools=tools)


def _ignore(_: object) -> None:
    """Drop a result (a callback that must return None)."""


def _run_sync(function: Callable[..., Awaitable[T]], *args: Any) -> T:
    """``anyio.run(function, *args)``, in a thread of its own when an event loop already runs here."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return anyio.run(function, *args)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, function, *args).result()
