"""Timestamps as the database keeps them: UTC, without a zone (each column's ``_utc`` suffix says it)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import overload


@overload
def naive_utc(moment: datetime) -> datetime: ...
@overload
def naive_utc(moment: None) -> None: ...
def naive_utc(moment: datetime | None) -> datetime | None:
    """``moment`` in UTC as a naive timestamp; one already naive (read back from the database:
    UTC) and ``None`` as they are."""
    if moment is None or moment.tzinfo is None:
        return moment
    return moment.astimezone(UTC).replace(tzinfo=None)
