"""The periods of a timeline: months, quarters and years, each read at its last second (UTC)."""

from __future__ import annotations

from datetime import datetime

import pytest

from pipeline.run.periods import git_date, periods


def test_months_end_at_their_last_second() -> None:
    found = periods("month", "2024-11", "2025-02")

    assert [p.label for p in found] == ["2024-11", "2024-12", "2025-01", "2025-02"]
    assert found[1].end_utc == datetime(2024, 12, 31, 23, 59, 59)
    assert found[3].end_utc == datetime(2025, 2, 28, 23, 59, 59)
    assert git_date(found[0].end_utc) == "2024-11-30 23:59:59 +0000"


def test_quarters_and_years_take_the_period_a_date_falls_in() -> None:
    assert [p.label for p in periods("quarter", "2024-11-15", "2025-04")] == ["2024-Q4", "2025-Q1", "2025-Q2"]
    assert periods("quarter", "2024-11", "2024-11")[0].start_utc == datetime(2024, 10, 1)
    assert [(p.label, p.end_utc) for p in periods("year", "2024-06", "2025")] == [
        ("2024", datetime(2024, 12, 31, 23, 59, 59)), ("2025", datetime(2025, 12, 31, 23, 59, 59))]


def test_without_until_the_newest_commit_ends_the_range_and_never_before_since() -> None:
    assert periods("month", "2024-11", None, datetime(2025, 1, 3))[-1].label == "2025-01"
    assert [p.label for p in periods("month", "2024-11", None, datetime(2023, 5, 1))] == ["2024-11"]
    assert [p.label for p in periods("month", "2024-11", None)] == ["2024-11"]


@pytest.mark.parametrize(("every", "since", "until", "says"), [
    ("month", "2024-13", None, "--since: '2024-13' is not a date"),
    ("month", "24-11", None, "--since: '24-11' is not a date"),
    ("month", "2024-11", "2024-10", "--until: 2024-10 comes before --since 2024-11"),
    ("week", "2024-11", None, "--every: 'week' is not one of month, quarter, year"),
    ("month", "1000-01", "2200-01", "more than 1200 periods"),
])
def test_a_bad_range_is_refused_naming_the_option(every: str, since: str, until: str | None, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        periods(every, since, until)
