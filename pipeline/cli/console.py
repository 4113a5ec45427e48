"""What the ``census`` command shows a person: progress on stderr, tables on stdout.

Only the CLI imports this module; the library reports through ``pipeline.progress``.
"""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Column

from pipeline.settings import Settings

#: what a stage counts, where it is not repositories
UNITS = {"probe": "packages"}


class ConsoleObserver:
    """Rich progress bars on a terminal; plain log lines otherwise. Waits are always shown."""

    def __init__(self, settings: Settings, console: Console | None = None) -> None:
        self._console = console or Console(stderr=True)
        self._redact = settings.redact
        self._progress: Progress | None = None
        self._task: Any = None
        self._tally: dict[str, int] = {}
        self._bytes = 0
        self._noted: set[str] = set()

    def stage(self, name: str, total: int) -> None:
        """Start a bar (terminal) or say which stage starts."""
        self.close()
        if total == 0:
            return
        if not self._console.is_terminal:
            self._say(f"{name}: {total} {UNITS.get(name, 'repositories')}")
            return
        self._tally, self._bytes = {}, 0
        # about 78 columns before the last repository's name, which takes what is left (80 or more)
        self._progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(bar_width=10), MofNCompleteColumn(),
            TextColumn("{task.fields[tally]}"), TextColumn("{task.fields[rate]}"),
            TextColumn("ETA"), TimeRemainingColumn(),
            TextColumn("{task.fields[last]}", table_column=Column(no_wrap=True, overflow="ellipsis", ratio=1)),
            console=self._console, expand=True,
        )
        self._progress.start()
        self._task = self._progress.add_task(name, total=total, last="", tally="", rate="")

    def advance(self, label: str, outcome: str, detail: str = "", size_bytes: int = 0) -> None:
        """Advance the bar (done, skipped, bytes read, rate, ETA); print every skip with its reason."""
        if outcome == "skipped" or not self._progress:
            self._say(f"{label}: {outcome}" + (f": {detail}" if detail else ""))
        self._tally[outcome] = self._tally.get(outcome, 0) + 1
        self._bytes += size_bytes
        if self._progress is not None:
            self._progress.update(self._task, advance=1, last=f"{label} {outcome}", tally=self._tallied())
            self._progress.update(self._task, rate=self._rate(self._progress.tasks[0]))

    def _tallied(self) -> str:
        return ", ".join(f"{n} {name}" for name, n in sorted(self._tally.items()))

    def _rate(self, task: Any) -> str:
        """Items a second (seconds an item, for a stage slower than one a second), and MB/s where
        the stage reads bytes (a probe reads none)."""
        elapsed = task.elapsed or 0.0
        if not elapsed or not task.completed:
            return ""
        per_second = task.completed / elapsed
        pace = f"{per_second:.1f}/s" if per_second >= 1 else f"{elapsed / task.completed:.0f} s each"
        return pace + (f" {self._bytes / 1e6 / elapsed:.0f} MB/s" if self._bytes else "")

    def waiting(self, label: str, seconds: float, reason: str) -> None:
        """Say how long we wait and why."""
        self._say(f"{label}: waiting {seconds:.1f}s before retrying: {reason}")

    def note(self, text: str) -> None:
        """Say something the whole run should know, once, on a line of its own."""
        if text not in self._noted:
            self._noted.add(text)
            self._say(text)

    def close(self) -> None:
        """Stop the current bar, if any."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def _say(self, text: str) -> None:
        self._console.print(self._redact(text), markup=False, highlight=False, soft_wrap=True)


def stdout_console() -> Console:
    """A console for tables: the terminal's width, or wide enough not to fold a table when piped."""
    return Console(width=None if sys.stdout.isatty() else 1000)
