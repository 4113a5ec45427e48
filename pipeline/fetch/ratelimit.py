"""Rate limits: what a rate-limit answer asks for, and one pause per token for every worker.

A rate-limit answer is not a failure of the request: it is waited out and asked again
(``pipeline.fetch.github``), and only real failures use attempts. Two things bound the waiting:

- one wait longer than ``Settings.max_wait_seconds`` skips the repository;
- a run waits at most ``Settings.max_total_wait_seconds`` in all (``CENSUS_MAX_TOTAL_WAIT``),
  each pause counted once however many workers wait it out together.

**One token, one pause.** When a client learns that the token's primary budget is spent until a
reset time (``X-RateLimit-Remaining: 0``), it writes that time to a file in the cache folder,
``ratelimit/<api host>-<token key>.json`` (the key is a hash of the token: the token itself is
never written). Every client of this machine that uses the same token and API, in any thread,
process or Dask worker sharing the folder, reads it before its next API request and holds the
request until then, instead of each finding out by failing. The file also keeps each run's
ledger of waits. A lock file (``fcntl.flock``) makes every read-modify-write whole.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import time
from collections.abc import Iterator
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pipeline.errors import RateLimitError

#: GitHub's advice when a secondary rate limit names no wait: at least one minute
DEFAULT_RATE_LIMIT_WAIT = 60.0
#: added to a primary reset time: GitHub's clock and ours may differ by a little
RESET_MARGIN_SECONDS = 1.0
#: a run's ledger is kept in the shared file this many days after its last wait
LEDGER_DAYS = 1


def retry_after(headers: Any, now: float | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks for (a number or an HTTP date), if it names any."""
    value = str(headers.get("retry-after", "")).strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - (now or time.time()))
    except (TypeError, ValueError):
        return None


def primary_reset(headers: Any) -> float | None:
    """The epoch second the token's primary budget comes back, when the answer says it is spent."""
    reset = str(headers.get("x-ratelimit-reset", "")).strip()
    if str(headers.get("x-ratelimit-remaining", "")).strip() == "0" and reset.isdigit():
        return float(reset) + RESET_MARGIN_SECONDS
    return None


def secondary_wait(named: float | None, times: int) -> float:
    """The wait for the ``times``-th secondary limit in a row: the one GitHub names, else a
    minute, doubled each further time."""
    return named if named is not None else DEFAULT_RATE_LIMIT_WAIT * 2 ** max(0, times - 1)


class SharedPause:
    """The pause of one token on one API, shared through ``cache_dir``; and the run's wait ledger."""

    def __init__(self, cache_dir: Path, api_url: str, token: str | None, run_id: str | None,
                 budget_seconds: float) -> None:
        host = (urlsplit(api_url).netloc or "local").replace(":", "_")
        key = hashlib.sha256(token.encode()).hexdigest()[:16] if token else "anonymous"
        self.path = cache_dir / "ratelimit" / f"{host}-{key}.json"
        self._run, self._budget = run_id, budget_seconds
        self._local: dict[str, Any] = _fresh_ledger()  # the ledger of a client that belongs to no run

    def paused_until(self) -> float:
        """The epoch second until which the token's primary budget is spent (0: not paused)."""
        try:
            state = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return 0.0
        until = state.get("paused_until", 0.0) if isinstance(state, dict) else 0.0
        return float(until) if isinstance(until, int | float) else 0.0

    def pause(self, until: float) -> None:
        """Tell every client of the token that its budget is spent until ``until``."""
        with self._state() as state:
            state["paused_until"] = max(float(state.get("paused_until") or 0.0), until)

    def charge(self, start: float, end: float) -> None:
        """Count a wait from ``start`` to ``end`` against the run's budget (the part another
        worker's wait already covers is not counted again); raise ``RateLimitError`` when the
        budget cannot hold it, with a ``note`` to print the first time."""
        with self._state() as state:
            ledger = self._ledger(state)
            counted = max(0.0, end - max(start, float(ledger["counted_until"])))
            if float(ledger["waited"]) + counted <= self._budget:
                ledger["waited"] = float(ledger["waited"]) + counted
                ledger["counted_until"] = max(float(ledger["counted_until"]), end)
                return
            first, ledger["spent"] = not ledger["spent"], True
        why = f"the run's rate-limit wait budget of {self._budget:.0f}s is spent (CENSUS_MAX_TOTAL_WAIT)"
        if first:
            raise RateLimitError(why, note=f"{why}: every repository rate limited from now on is skipped; "
                                           "rerun later to fetch them")
        raise RateLimitError(why)

    def _ledger(self, state: dict[str, Any]) -> dict[str, Any]:
        """This run's ledger: in the shared file (runs idle for a day are dropped), or this client's."""
        if self._run is None:
            return self._local
        now = time.time()
        runs = {run: ledger for run, ledger in state.get("runs", {}).items()
                if isinstance(ledger, dict) and now - float(ledger.get("seen", now)) < LEDGER_DAYS * 86400}
        state["runs"] = runs
        ledger = runs.setdefault(self._run, _fresh_ledger())
        ledger["seen"] = now
        return ledger

    @contextlib.contextmanager
    def _state(self) -> Iterator[dict[str, Any]]:
        """The state file's content, locked for the block and written back at its end."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_suffix(".lock"), "a+b") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                try:
                    state = json.loads(self.path.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    state = {}
                state = state if isinstance(state, dict) else {}
                yield state
                part = self.path.with_suffix(f".{os.getpid()}.part")
                part.write_text(json.dumps(state), encoding="utf-8")
                os.replace(part, self.path)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)


def _fresh_ledger() -> dict[str, Any]:
    return {"waited": 0.0, "counted_until": 0.0, "spent": False}
