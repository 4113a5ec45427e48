"""Progress as an observer: the library reports here, and only the CLI draws anything.

Stages call an :class:`Observer`; the default :data:`SILENT` does nothing, so the library
never prints. The CLI passes one that draws rich progress bars or plain log lines.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, Protocol


class Observer(Protocol):
    """What a stage tells whoever is watching."""

    def stage(self, name: str, total: int) -> None:
        """A stage starts with ``total`` repositories to process."""

    def advance(self, label: str, outcome: str, detail: str = "", size_bytes: int = 0) -> None:
        """One repository is done with ``outcome`` (``fetched``, ``cached``, ``skipped``...);
        ``size_bytes`` of content were read for it."""

    def waiting(self, label: str, seconds: float, reason: str) -> None:
        """The stage sleeps ``seconds`` before retrying (rate limit or backoff)."""

    def note(self, text: str) -> None:
        """Something the whole run should know, said once (pins fall back to REST, the wait
        budget is spent)."""


class SilentObserver:
    """The default observer: says nothing."""

    def stage(self, name: str, total: int) -> None:
        """Ignore the start of a stage."""

    def advance(self, label: str, outcome: str, detail: str = "", size_bytes: int = 0) -> None:
        """Ignore a finished repository."""

    def waiting(self, label: str, seconds: float, reason: str) -> None:
        """Ignore a wait."""

    def note(self, text: str) -> None:
        """Ignore a note."""


SILENT: Observer = SilentObserver()


class StderrWaits(SilentObserver):
    """For worker processes, which cannot reach the driver's observer: each wait as one plain
    line on the standard error the worker shares with the driver (``redact`` applied)."""

    def __init__(self, redact: Callable[[str], str]) -> None:
        self._redact = redact

    def waiting(self, label: str, seconds: float, reason: str) -> None:
        """Say how long the worker waits and why."""
        print(self._redact(f"{label}: waiting {seconds:.1f}s before retrying: {reason}"), file=sys.stderr, flush=True)

    def note(self, text: str) -> None:
        """Say it, as a line of its own."""
        print(self._redact(text), file=sys.stderr, flush=True)


class QueueWaits(SilentObserver):
    """For worker processes of this machine: each wait sent to the driver through ``queue`` (a
    ``multiprocessing`` queue), whose observer shows it (above its progress bar, on a terminal)."""

    def __init__(self, queue: Any) -> None:
        self._queue = queue

    def waiting(self, label: str, seconds: float, reason: str) -> None:
        """Hand the wait to the driver."""
        self._queue.put(("waiting", label, seconds, reason))

    def note(self, text: str) -> None:
        """Hand the note to the driver."""
        self._queue.put(("note", text))
