"""One probe's conversation with a server, transport aside: ``Timeouts`` per step, a ``Clock``
moving one cancel scope's deadline from step to step, and ``exchange``: open the transport,
initialize, list every page; a failure becomes the ``Outcome``'s reason naming the step."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import anyio
from mcp import ClientSession
from mcp.types import PaginatedRequestParams
from pydantic import ValidationError

from pipeline.runtime.wire import Failure, Tap, Wire, describe, transport_note


@dataclass(frozen=True)
class Timeouts:
    """How long each step may take before the server is skipped with the step named."""

    start_seconds: float = 10.0
    """spawning the stdio server / opening the HTTP transport."""
    initialize_seconds: float = 60.0
    """from then to the ``initialize`` answer: a stdio server's start-up (``npx``, ``uvx``) is in here."""
    page_seconds: float = 30.0
    """each tools/list page."""
    max_pages: int = 1000
    """more pages than this is a skipped capture (so is a ``nextCursor`` that repeats)."""


#: the deadlines a probe uses unless given others
DEFAULT_TIMEOUTS = Timeouts()


@dataclass
class Clock:
    """Moves one cancel scope's deadline from step to step, and knows the step it is in."""

    scope: anyio.CancelScope
    step: str = "start"
    seconds: float = 0.0

    def enter(self, step: str, seconds: float) -> None:
        self.step, self.seconds = step, seconds
        self.scope.deadline = anyio.current_time() + seconds

    def stop(self) -> None:
        self.step, self.scope.deadline = "shutdown", float("inf")


@dataclass(frozen=True)
class Outcome:
    wire: Wire
    failure: str | None = None
    finished_at: datetime = field(default_factory=lambda: datetime.now(UTC))


async def exchange(connect: Callable[[], AbstractAsyncContextManager[Any]], timeouts: Timeouts,
                    give_up: Callable[[], None]) -> Outcome:
    """Open the transport, initialize, list every page; a failure becomes the outcome's reason."""
    wire = Wire()
    with anyio.CancelScope() as scope:
        clock = Clock(scope)
        clock.enter("start", timeouts.start_seconds)
        try:
            async with connect() as (read, write):
                try:
                    session = ClientSession(Tap(read, wire.received), Tap(write, wire.sent))
                    await converse(session, wire, clock, timeouts)
                except BaseException:
                    give_up()  # a stuck server is killed now, not after the SDK's grace period
                    raise
        except Exception as exc:
            if not scope.cancel_called:
                return Outcome(wire, f"{clock.step}: {describe(exc)}")
    if scope.cancel_called:
        return Outcome(wire, f"{clock.step}: no answer within {clock.seconds:g} s" + transport_note(wire))
    return Outcome(wire)


async def converse(session: ClientSession, wire: Wire, clock: Clock, timeouts: Timeouts) -> None:
    async with session:
        clock.enter("initialize", timeouts.initialize_seconds)
        await session.initialize()
        cursor: str | None = None
        seen: set[str] = set()
        for number in range(1, timeouts.max_pages + 1):
            clock.enter(f"tools/list page {number}", timeouts.page_seconds)
            cursor = await page(session, wire, cursor, number)
            if cursor is None:
                clock.stop()
                return
            if cursor in seen:
                raise Failure(f"nextCursor {cursor[:60]!r} repeats: the pages loop")
            seen.add(cursor)
        raise Failure(f"more than {timeouts.max_pages} pages")


async def page(session: ClientSession, wire: Wire, cursor: str | None, number: int) -> str | None:
    """Ask for one page; the next cursor from its raw JSON (None at the end)."""
    try:
        await session.list_tools(params=None if cursor is None else PaginatedRequestParams(cursor=cursor))
    except ValidationError as exc:
        first, more = exc.errors()[0], exc.error_count() - 1
        where = ".".join(str(part) for part in first["loc"])
        wire.notes.append(f"the mcp client refused page {number}: {where}: {first['msg']}"
                          + (f" (and {more} more)" if more else ""))
    page = wire.last("tools/list")
    following = page.get("nextCursor") if isinstance(page, dict) else None
    if following is None or following == "":
        return None
    if not isinstance(following, str):
        raise Failure(f"nextCursor is not a string: {following!r}"[:120])
    return following
