"""The periods of a timeline: calendar months, quarters or years, each ending at its last second (UTC).

``periods("month", "2024-11", "2025-02")`` gives ``2024-11`` .. ``2025-02``, each ``Period`` with the
instant its commits are read at: the last second of the period (``2024-11-30 23:59:59 UTC``), the
``--before`` of ``git rev-list -1 --first-parent``. ``since`` and ``until`` are ``YYYY``, ``YYYY-MM`` or
``YYYY-MM-DD``; each names the period it falls in. ``period_of`` gives the period a moment falls in
(the newest commit's, when no ``until`` is given).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

#: how many months one period of each kind spans
EVERY = {"month": 1, "quarter": 3, "year": 12}
#: the most periods one timeline may ask for (a century of months): a typo is refused, not walked
MOST_PERIODS = 1200
_DATE = re.compile(r"(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?")


@dataclass(frozen=True)
class Period:
    """One period of a timeline."""

    label: str
    """``2024-11`` (month), ``2024-Q4`` (quarter) or ``2024`` (year)."""
    start_utc: datetime
    """its first instant (UTC, naive)."""
    end_utc: datetime
    """its last second (UTC, naive): a period's commit is the last one committed at or before it."""


def parse_month(text: str, option: str = "--since") -> tuple[int, int]:
    """``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD`` as (year, month); ``ValueError`` naming ``option`` otherwise."""
    found = _DATE.fullmatch(text.strip())
    month = int(found.group(2) or 1) if found else 0
    day = int(found.group(3) or 1) if found else 0
    if not found or not 1 <= month <= 12 or not 1 <= day <= 31:
        raise ValueError(f"{option}: {text!r} is not a date (YYYY, YYYY-MM or YYYY-MM-DD)")
    return int(found.group(1)), month


def period_of(every: str, year: int, month: int) -> Period:
    """The period of kind ``every`` that month ``year-month`` falls in."""
    step = _step(every)
    first = (month - 1) // step * step + 1
    return _period(every, year, first)


def periods(every: str, since: str, until: str | None, newest: datetime | None = None) -> tuple[Period, ...]:
    """Every period from the one ``since`` falls in to the one ``until`` falls in (default: the one
    ``newest`` falls in, or the one ``since`` falls in when that is later or there is no ``newest``),
    oldest first."""
    start = period_of(every, *parse_month(since))
    if until is not None:
        last = period_of(every, *parse_month(until, "--until"))
    else:  # the newest commit's period, and at least the first one (every commit may come before it)
        newest_period = period_of(every, newest.year, newest.month) if newest is not None else start
        last = max(newest_period, start, key=lambda p: p.start_utc)
    if last.start_utc < start.start_utc:
        raise ValueError(f"--until: {until or last.label} comes before --since {since}")
    found = [start]
    while found[-1].start_utc < last.start_utc:
        if len(found) >= MOST_PERIODS:
            raise ValueError(f"--since {since}: more than {MOST_PERIODS} periods of a {every}")
        after = found[-1].end_utc + timedelta(seconds=1)
        found.append(_period(every, after.year, after.month))
    return tuple(found)


def _step(every: str) -> int:
    if every not in EVERY:
        raise ValueError(f"--every: {every!r} is not one of {', '.join(EVERY)}")
    return EVERY[every]


def _period(every: str, year: int, month: int) -> Period:
    """The period of kind ``every`` that starts with month ``year-month``."""
    start = datetime(year, month, 1)
    months = year * 12 + month - 1 + _step(every)
    after = datetime(months // 12, months % 12 + 1, 1)
    label = {"month": f"{year}-{month:02d}", "quarter": f"{year}-Q{(month - 1) // 3 + 1}", "year": f"{year}"}[every]
    return Period(label, start, after - timedelta(seconds=1))


def git_date(moment: datetime) -> str:
    """``moment`` (naive: UTC) as git reads a date: ``2024-11-30 23:59:59 +0000``."""
    stamp = moment.astimezone(UTC) if moment.tzinfo else moment
    return f"{stamp:%Y-%m-%d %H:%M:%S} +0000"
