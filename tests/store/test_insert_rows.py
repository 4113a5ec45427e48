"""``insert_rows``: a large insert goes through Arrow, a small one (or one holding values Arrow
would type otherwise) as SQL values, and both store the same rows."""

from __future__ import annotations

from datetime import UTC, datetime

import duckdb
import pytest

from pipeline.store.writes import insert_rows


@pytest.mark.parametrize("count", [3, 300])
def test_small_and_large_inserts_store_the_same_values(count: int) -> None:
    con = duckdb.connect()
    con.execute("CREATE TABLE t (name VARCHAR, line INTEGER, hint VARCHAR, share DOUBLE, flag BOOLEAN)")
    rows = [[f"tool-{i}", i, None if i % 3 else "true", i / 7 if i % 2 else i, bool(i % 2)] for i in range(count)]
    insert_rows(con, "t", rows)
    stored = con.execute("SELECT * FROM t ORDER BY line").fetchall()
    assert stored == [(f"tool-{i}", i, None if i % 3 else "true", pytest.approx(i / 7 if i % 2 else i), bool(i % 2))
                      for i in range(count)]


def test_a_column_of_two_kinds_and_a_timestamp_still_go_in() -> None:
    con = duckdb.connect()
    con.execute("CREATE TABLE t (value VARCHAR, stamp TIMESTAMP)")
    mixed = [["1" if i % 2 else 1, None] for i in range(100)]  # Arrow cannot type a column of str and int
    insert_rows(con, "t", mixed)
    stamped = [["x", datetime(2026, 1, 2, 3, 4, tzinfo=UTC).replace(tzinfo=None)] for _ in range(100)]
    insert_rows(con, "t", stamped)
    assert con.execute("SELECT count(*), count(DISTINCT value), max(stamp) FROM t").fetchone() == (
        200, 2, datetime(2026, 1, 2, 3, 4))
