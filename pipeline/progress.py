"""Progress as an observer: the library reports here, and only the CLI draws anything.

Stages call an :class:`Observer`; the default :data:`SILENT` does nothing, so the library
never prints. The CLI passes one that draws rich progress bars or plain log lines.
"""

from __future__ import annotations

from typing import Protocol


class Observer(Protocol):
    """What a stage tells whoever is watching."""

    def stage(self, name: str, total: int) -> None:
        """A stage starts with ``total`` repositories to process."""

    def advance(self, label: str, outcome: str, detail: str = "") -> None:
        """One repository is done with ``outcome`` (``fetched``, ``cached``, ``skipped``...)."""

    def waiting(self, label: str, seconds: float, reason: str) -> None:
        """The stage sleeps ``seconds`` before retrying (rate limit or backoff)."""


class SilentObserver:
    """The default observer: says nothing."""

    def stage(self, name: str, total: int) -> None:
        """Ignore the start of a stage."""

    def advance(self, label: str, outcome: str, detail: str = "") -> None:
        """Ignore a finished repository."""

    def waiting(self, label: str, seconds: float, reason: str) -> None:
        """Ignore a wait."""


SILENT: Observer = SilentObserver()
